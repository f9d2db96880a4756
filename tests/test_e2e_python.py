#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python package on traces of the real runtime: `python3 -m
datacrumbs summary --json` equals datacrumbs-report --json on each trace
(I/O calls of threads and children, 400,000 dd syscalls, the kernel's
block requests scaled into their syscalls, HDF5, a runtime killed with
SIGKILL, a trace cut in the middle of a gzip member) and on all of them
at once: on a local cluster, and on a real `dask scheduler` and `dask
worker` started here on 127.0.0.1, whose worker is sent the package."""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from dcpy import PY, REPORT_LIB, env, need_pandas, report, same, summary
from dctest import BUILD, RUNTIME, WORKLOAD, check, done, generate, need_bpf, run, skip, slack

need_bpf()
need_pandas()
DASK = shutil.which("dask", path="/usr/bin:" + os.environ.get("PATH", ""))
if not DASK:
    skip("needs the dask command (Debian's python3-dask and python3-distributed)")


def trace_of(tmp, name, obj, cmd, **kw):
    path = os.path.join(tmp, name + ".pfw.gz")
    r = run([RUNTIME, "-q", "-o", path, obj, "--"] + cmd, **kw)
    if r.returncode:
        sys.exit("runtime on %s failed: %s" % (name, r.stderr))
    return path


def killed(tmp, obj):
    """A trace whose runtime was killed with SIGKILL while tracing."""
    path = os.path.join(tmp, "killed.pfw.gz")
    work = ["sh", "-c", "while :; do dd if=/dev/zero of=%s/f bs=4k count=200 2>/dev/null; done"
            % tmp]
    p = subprocess.Popen([RUNTIME, "-o", path, obj, "--"] + work, start_new_session=True,
                         stderr=subprocess.PIPE, text=True)
    # Killed a while after it started tracing, which takes seconds in a
    # TCG guest (scripts/kernel-test).
    while True:
        line = p.stderr.readline()
        if not line or "tracing" in line:
            break
    time.sleep(1.5)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    os.killpg(p.pid, signal.SIGKILL)
    return path


def start_cluster(tmp, procs):
    """A scheduler and a worker on the loopback, as a site runs them (put
    in @procs as they start); the worker's environment has no path to
    the package: it is sent. The C library is not sent: a site installs
    it, here its path is given (a sanitized build's would not load into
    python3, and the test's own environment finds that one)."""
    sfile = os.path.join(tmp, "scheduler.json")
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    clean["DATACRUMBS_REPORT_LIB"] = REPORT_LIB
    with open(os.path.join(tmp, "dask.log"), "w") as logs:  # they keep their copy
        procs.append(subprocess.Popen(
            [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
             "--scheduler-file", sfile],
            stdout=logs, stderr=subprocess.STDOUT, env=clean, cwd=tmp, start_new_session=True))
        for _ in range(600):
            if os.path.exists(sfile) and os.path.getsize(sfile):
                break
            time.sleep(0.1)
        procs.insert(0, subprocess.Popen(
            [DASK, "worker", "--scheduler-file", sfile, "--host", "127.0.0.1", "--nworkers", "1",
             "--nthreads", "2", "--no-dashboard", "--local-directory", tmp],
            stdout=logs, stderr=subprocess.STDOUT, env=clean, cwd=tmp, start_new_session=True))
    return sfile


def address(sfile):
    with open(sfile) as f:
        return json.load(f)["address"]


def stop(procs):
    for p in procs:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()


# Dask's connect timeout, for the package and the scheduler and worker
# alike: in an emulated guest a handshake takes longer than 10 s.
os.environ["DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT"] = "%gs" % slack(10)

# /tmp may be a tmpfs: the kernel layer needs a block device under it.
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    io = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    sysonly = generate(tmp, ["probes.d/sys.yaml"], "sys.bpf.o")
    kern = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/kernel.yaml"],
                    "kernel.bpf.o")
    d = os.path.join(tmp, "d")
    os.mkdir(d)
    traces = [trace_of(tmp, "iocalls", io, [WORKLOAD, d]),
              trace_of(tmp, "dd", sysonly,
                       ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=200000"]),
              trace_of(tmp, "kernel", kern, ["sh", "-c",
                       "dd if=/dev/zero of=%s/direct bs=64k count=16 oflag=direct status=none && "
                       "dd if=/dev/zero of=%s/synced bs=1M count=8 conv=fsync status=none"
                       % (tmp, tmp)])]
    h5work = os.path.join(BUILD, "tests", "hdf5_calls")
    if os.path.exists(h5work):
        h5 = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/hdf5.yaml"],
                      "h5.bpf.o")
        traces.append(trace_of(tmp, "hdf5", h5, [h5work, os.path.join(tmp, "out.h5")]))
    traces.append(killed(tmp, io))
    # Cut in the middle of a member, as a disk that filled up leaves it.
    cut = os.path.join(tmp, "cut.pfw.gz")
    with open(traces[1], "rb") as f:
        data = f.read()
    with open(cut, "wb") as f:
        f.write(data[:len(data) * 2 // 3])
    traces.append(cut)

    for t in traces:
        j = same([t])
        same([t], "--partition-size", "256K", what=os.path.basename(t) + " in 256K partitions")
        check(j is not None and j["calls"] > 0, "%s: calls summarized" % os.path.basename(t))
    # A trace of many small members, of a shell's children (each named
    # in a process_name record mid-trace): every range of its members
    # reported alone, saved and merged in order gives the whole trace's
    # outputs, byte for byte, with no range refused.
    ranged = os.path.join(tmp, "ranged.pfw.gz")
    r = run([RUNTIME, "-q", "--member-size", "2K", "-o", ranged, io, "--", "sh", "-c",
             "%s %s >/dev/null; ls %s >/dev/null" % (WORKLOAD, d, tmp)])
    check(r.returncode == 0, "runtime, 2K members: " + r.stderr[-500:])
    r = run([PY, "-c", """if True:
        import json, sys
        from datacrumbs import core, graph
        p, fmts = sys.argv[1], ["JSON", "TEXT", "DARSHAN", "SUMMARY"]
        rs = core.ranges(p, 2048)
        parts = [graph.partial([(p, a, b)], True) for a, b in rs]
        got = graph.merged(parts, fmts, 10, True)["out"]
        whole = graph.outputs([p], fmts, 10, None, True)["out"]
        print(json.dumps({"ranges": len(rs), "differ": [f for f in fmts if got[f] != whole[f]]}))
        """, ranged], env=env())
    got = json.loads(r.stdout) if r.returncode == 0 else {}
    check(got.get("ranges", 0) > 10 and got.get("differ") == [],
          "ranges of one trace merged equal the whole: %s %s" % (got, r.stderr[-800:]))
    same([ranged], "--workers", "2", "--partition-size", "4K",
         what="2K members in 4K partitions on two worker processes")

    j = same([traces[2]])
    split = {l["name"]: l["outermost"]["by_layer_us"] for l in j["layers"]} if j else {}
    check(any("kernel" in v for k, v in split.items() if k != "kernel"),
          "the kernel's time is split into its callers' layers: %s" % split)
    r = summary([traces[-1]], "--json")
    check(r.returncode == 1 and "truncated gzip member" in r.stderr,
          "a cut trace is named as such: %s" % r.stderr[-500:])
    same(traces, several=True, what="all traces, local cluster")
    same(traces, "--workers", "2", several=True, what="all traces, two local worker processes")

    procs = []
    try:
        sfile = start_cluster(tmp, procs)
        same(traces, "--scheduler", address(sfile), "--partition-size", "1M", several=True,
             what="all traces, on a dask scheduler and worker")
        # load() there: the package sent, one row per call.
        code = ("import sys, datacrumbs; from distributed import Client\n"
                "c = Client(sys.argv[1]); datacrumbs.ship(c)\n"
                "df = datacrumbs.load(sys.argv[2:], partition_size=1 << 20)\n"
                "print(len(df), df.npartitions, int(df['dur'].sum().compute()))")
        r = subprocess.run([PY, "-c", code, address(sfile)] + traces[:2], capture_output=True,
                           text=True, env=env())
        want = [report([t]) for t in traces[:2]]
        want = [json.loads(w.stdout) for w in want]
        calls = sum(j["calls"] + j["counters"] for j in want)
        dur = sum(f["time_us"] for j in want for f in j["functions"])
        got = r.stdout.split()
        check(r.returncode == 0 and len(got) == 3 and int(got[0]) == calls and int(got[1]) > 2
              and int(got[2]) == dur, "load() on the scheduler: %s, want %d calls of %d us: %s"
              % (got, calls, dur, r.stderr[-1000:]))
        r = summary(traces[:1], "--scheduler", address(sfile))
        check(r.returncode == 0 and "Top functions by time" in r.stdout,
              "text summary through the scheduler: %s" % r.stderr[-500:])
    finally:
        stop(procs)
    r = summary(traces[:1], "--scheduler", "tcp://127.0.0.1:9", env=env())
    check(r.returncode == 2 and "cannot reach the Dask scheduler" in r.stderr
          and "Traceback" not in r.stderr, "no scheduler there: %s" % r.stderr[-500:])
done()
