#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every layer and mechanism once, with one object and few runtime starts:
the check scripts/kernel-test runs on other kernels (suite "kernels"), where
each start costs a minute under TCG. One traced workload: dd (sys
tracepoints and POSIX uprobes), a program that knows its STDIO calls,
fio's io_uring and libaio engines (their own request counts), a file read
after its pages were dropped (kernel tracepoints: page-cache adds of its
inode) and Debian's Python (USDT); then server mode with a program that
joins through the client library. Counts are exact against each
program's own, and the start record names the uprobe links this kernel
has. Profile mode then loads the same object (every program verified in
that mode) and counts dd's and the STDIO program's calls in the kernel,
exactly."""
import os
import shutil
import signal
import subprocess
import tempfile
import time

from dctest import (BUILD, RUNTIME, SRC, Trace, call_totals, check, check_cold_read, check_dd_writes,
                    check_fio_writes, check_said_as_run, check_stdio_calls, counter_totals, done,
                    drop_pages, fio_write, generate, need_bpf, need_tool, run, runtime_check, skip)

need_bpf()
need_tool("fio")
PYTHON = "/usr/bin/python3"
if not os.access(PYTHON, os.X_OK) or not shutil.which("readelf"):
    skip("no %s or no readelf for its USDT notes" % PYTHON)
STDIO = os.path.join(BUILD, "tests", "stdio_calls")
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
SITE = os.path.join(SRC, "probes.d", "python")
# Read after its pages are dropped: a file of the checkout, which is on a
# disk or (in kernel-test's guest) on 9p, both through the page cache.
COLD = os.path.join(SRC, "tests", "test_e2e_kernels.py")
N, BS, IOS = 300, 4096, 64
CALLS = 7
PY = "def f():\n    pass\nfor _ in range(%d):\n    f()\n" % CALLS


def uprobe_links():
    """What the start record should say: uprobe_multi links since 6.6,
    uprobe.session links since 6.13 (DATACRUMBS_UPROBE_LINKS=perf forces
    the fallback)."""
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    if os.environ.get("DATACRUMBS_UPROBE_LINKS") == "perf" or (major, minor) < (6, 6):
        return "perf"
    if os.environ.get("DATACRUMBS_UPROBE_PAIRS", "0") != "0" or (major, minor) < (6, 13):
        return "pairs"
    return "session"



# The workload's files on a tmpfs: its writes issue no block requests,
# which this test does not count (test_e2e_kernel does).
with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml",
                         "probes.d/kernel.yaml", "probes.d/io_uring.yaml", "probes.d/libaio.yaml",
                         "probes.d/python.yaml"], extra=["--skip-missing"])
    dd, prog = os.path.join(tmp, "dd"), os.path.join(tmp, "work.py")
    open(prog, "w").write(PY)
    script = " && ".join([
        "%s %s > %s/stdio.json" % (STDIO, tmp, tmp),
        "dd if=/dev/zero of=%s bs=%d count=%d status=none" % (dd, BS, N),
        fio_write("io_uring", tmp + "/uring.dat", tmp + "/uring.json", BS, IOS),
        fio_write("libaio", tmp + "/aio.dat", tmp + "/aio.json", BS, IOS),
        drop_pages(COLD, PYTHON),
        "cat %s > /dev/null" % COLD,
        "%s %s" % (PYTHON, prog)])
    trace = os.path.join(tmp, "all.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c", script],
            env=dict(os.environ, PYTHONPATH=SITE))
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    check(t.start["args"]["uprobes"] == uprobe_links(),
          "uprobes as %s: %s" % (uprobe_links(), t.start["args"]["uprobes"]))
    # What --check says of the object is what the run took.
    r, said = runtime_check(obj)
    check(r.returncode == 0, "--check: " + r.stderr[-2000:])
    check_said_as_run(said, t.start["args"])

    # sys tracepoints and POSIX uprobes: dd's writes.
    check_dd_writes(t, dd, N, BS)

    # STDIO uprobes against the program's own counts.
    check_stdio_calls(call_totals(t), os.path.join(tmp, "stdio.json"))

    # io_uring and libaio requests against fio's counts; a kernel that
    # cannot trace one (io_uring before 6.0) names it instead.
    check_fio_writes(t, tmp, tmp, IOS)

    # Kernel tracepoints: the cold file's pages come back into the page
    # cache under cat's reads of it.
    check_cold_read(t, COLD)

    # USDT: the Python function's calls.
    calls = [e for e in t.select(cat="PYTHON", name="f") if e["args"].get("srcfile") == prog]
    check(len(calls) == CALLS, "PYTHON f: %d events, called %d times" % (len(calls), CALLS))

    # Profile mode: the same object, its counters against the programs'.
    prof = os.path.join(tmp, "profile.pfw.gz")
    r = run([RUNTIME, "--mode", "profile", "-o", prof, obj, "--", "sh", "-c", " && ".join([
        "%s %s > %s/stdio-p.json" % (STDIO, tmp, tmp),
        "dd if=/dev/zero of=%s bs=%d count=%d status=none" % (dd, BS, N)])])
    check(r.returncode == 0, "profile run: " + r.stderr[-2000:])
    p = Trace(prof)
    check(not p.errors, "profile format: %s" % p.errors[:3])
    check(p.start["args"]["mode"] == "profile", "the start record says profile")
    total = counter_totals(p)[0]
    for cat in ("sys", "POSIX"):
        got = total.get((cat, "write", dd))
        check(got == (N, N * BS), "profile: %s write on dd's file %s, want %s"
              % (cat, got, (N, N * BS)))
    check_stdio_calls(total, os.path.join(tmp, "stdio-p.json"), "profile: ")

    # Server mode: a program joins through the client library.
    sock, ready = os.path.join(tmp, "dc.sock"), os.path.join(tmp, "ready")
    srvdir = os.path.join(tmp, "srv")
    os.mkdir(srvdir)
    srv = subprocess.Popen([RUNTIME, "--server", "--socket", sock, "--ready-file", ready, "-o",
                            os.path.join(srvdir, "server.pfw.gz"), obj],
                           stderr=subprocess.PIPE, text=True)
    # Loading takes a minute under TCG: wait for the server to say.
    while not os.path.exists(ready) and srv.poll() is None:
        time.sleep(0.1)
    check(os.path.exists(ready), "the server is ready")
    lines = os.path.join(tmp, "lines")
    r = run(["sh", "-c", "i=0; while [ $i -lt 20 ]; do echo x >> %s; i=$((i+1)); done" % lines],
            env=dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock))
    check(r.returncode == 0, "the joined program ran: " + r.stderr)
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=300)[1]
    check(srv.returncode == 0, "server exit %s: %s" % (srv.returncode, err[-500:]))
    jobs = [Trace(os.path.join(srvdir, f)) for f in os.listdir(srvdir) if "-job" in f]
    got = [len(j.select(cat="sys", name="write", path=lines)) for j in jobs]
    check(got == [20], "server: the job's trace has its 20 writes: %s" % got)
done()
