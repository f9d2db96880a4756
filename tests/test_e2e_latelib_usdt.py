#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""USDT probes in a library mapped after start: a program dlopen()s, by its
path, a copy of a library the spec names but the runtime did not find at
start, and every firing of its USDT probe is in the trace, with its
arguments. The copy the spec names, mapped late too, is not probed twice;
two processes mapping one new copy at once are each traced once; a copy
mapped before the runtime starts, by a process given with -p or tracked
by a server, too. The
same where the kernel has no BPF cookies (5.10), where the probes are
attached to each process that maps the library, and only such a library
stops each process that maps it (SIGSTOPs counted by the kernel's
signal tracepoint)."""
import glob
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time

from dctest import (BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, slack,
                    wait_ready)

need_bpf()
LIB = os.path.join(BUILD, "tests", "libdcusdt.so")
PROG = os.path.join(BUILD, "tests", "usdt_dlopen")
N = 25
TRACING = "/sys/kernel/tracing"


def copy_to(tmp, d):
    os.mkdir(os.path.join(tmp, d))
    path = os.path.join(tmp, d, "libdcusdt.so")
    shutil.copy(LIB, path)
    return path


def stops_watch(name):
    """A tracefs instance that records each SIGSTOP the kernel sends."""
    if not os.path.isdir(os.path.join(TRACING, "events")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", TRACING], check=True)
    inst = os.path.join(TRACING, "instances", name)
    os.mkdir(inst)
    ev = os.path.join(inst, "events", "signal", "signal_generate")
    open(os.path.join(ev, "filter"), "w").write("sig == 19")
    open(os.path.join(ev, "enable"), "w").write("1")
    return inst


def stopped(inst):
    """{comm: [pid, ...]} stopped while @inst recorded; @inst removed."""
    open(os.path.join(inst, "events", "signal", "signal_generate", "enable"), "w").write("0")
    out = {}
    for line in open(os.path.join(inst, "trace")):
        m = re.search(r"sig=19 .*comm=(\S+) pid=(\d+)", line)
        if m:
            out.setdefault(m.group(1), []).append(int(m.group(2)))
    os.rmdir(inst)
    return out


def steps(t, pid):
    return [(e["args"]["items"], e["args"]["count"])
            for e in t.select(cat="usdt", name="dclate:step") if e["pid"] == pid]


with tempfile.TemporaryDirectory() as tmp:
    named, late, shared = copy_to(tmp, "named"), copy_to(tmp, "late"), copy_to(tmp, "shared")
    spec = os.path.join(tmp, "late.yaml")
    open(spec, "w").write("layer: usdt\nmechanism: usdt\ntarget: %s\nprobes:\n"
                          "  - {name: 'dclate:step', args: [items, count]}\n" % named)
    obj = generate(tmp, [spec])
    want = [(i, i * 3) for i in range(N)]
    # As the kernel chooses, then as one without BPF cookies does it:
    # libbpf finds a probe by its address, so a shared library's probes
    # are attached to each process that maps it.
    for tag, env in (("", None), ("nocookies-", dict(os.environ, DATACRUMBS_FALLBACKS="cookies"))):
        for name, lib in (("late", late), ("named", named)):
            trace = os.path.join(tmp, tag + name + ".pfw.gz")
            r = run([RUNTIME, "-o", trace, obj, "--", PROG, lib, str(N)], env=env)
            check(r.returncode == 0, "%s%s: runtime: %s" % (tag, name, r.stderr[-1500:]))
            if r.returncode:
                continue
            if tag and name == "named":
                check("USDT probes in %s attach to each process" % named in r.stderr,
                      "%s%s: attached by process, and said: %s" % (tag, name, r.stderr[-800:]))
            truth = json.loads(r.stdout)
            check(truth["lib"] == lib, "%s%s: the loader mapped %s" % (tag, name, truth["lib"]))
            t = Trace(trace)
            check(not t.errors and t.end["args"]["dropped"] == 0, "%s%s: trace complete" % (tag, name))
            got = steps(t, truth["pid"])
            check(got == want, "%s%s copy: %d firings of dclate:step, want %d with their arguments"
                  % (tag, name, len(got), N))
        trace = os.path.join(tmp, tag + "shared.pfw.gz")
        r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c",
                 "%s %s %d & %s %s %d; wait" % (PROG, shared, N, PROG, shared, N)], env=env)
        check(r.returncode == 0, "%stwo at once: runtime: %s" % (tag, r.stderr[-1500:]))
        if not r.returncode:
            t = Trace(trace)
            for line in r.stdout.splitlines():
                pid = json.loads(line)["pid"]
                got = steps(t, pid)
                check(got == want, "%stwo at once: pid %d: %d firings, want %d" % (tag, pid, len(got), N))
        # -p of a process that mapped a copy before the runtime started:
        # the copy is found in its mappings, as if it were mapped now.
        lib = copy_to(tmp, tag + "before")
        go = os.path.join(tmp, tag + "go")
        os.mkfifo(go)
        prog = subprocess.Popen([PROG, lib, str(N), go], stdout=subprocess.PIPE, text=True)
        for _ in range(600):
            if lib in open("/proc/%d/maps" % prog.pid).read():
                break
            time.sleep(0.05)
        trace = os.path.join(tmp, tag + "before.pfw.gz")
        rt = subprocess.Popen([RUNTIME, "-o", trace, "-p", str(prog.pid), obj], env=env,
                              stderr=subprocess.PIPE, text=True)
        line = ""
        while "tracing" not in line:
            line = rt.stderr.readline()
            if not line:
                break
        check("tracing" in line, "%s-p: runtime started" % tag)
        with open(go, "w") as w:
            w.write("go\n")
        out = prog.communicate()[0]
        err = rt.communicate(timeout=slack(60))[1]
        check(rt.returncode == 0, "%s-p: runtime: %s" % (tag, err[-1500:]))
        if not rt.returncode:
            got = steps(Trace(trace), json.loads(out)["pid"])
            check(got == want, "%s-p of a process that mapped the copy before: %d firings, want %d"
                  % (tag, len(got), N))

        # The same through a server's --track: the job's first process
        # brings the probes in, and its files are checked then.
        lib, go = copy_to(tmp, tag + "tracked"), os.path.join(tmp, tag + "go2")
        os.mkfifo(go)
        prog = subprocess.Popen([PROG, lib, str(N), go], stdout=subprocess.PIPE, text=True)
        srvdir = os.path.join(tmp, tag + "srv")
        os.mkdir(srvdir)
        sock, ready = os.path.join(tmp, tag + "dc.sock"), os.path.join(tmp, tag + "ready")
        srv = subprocess.Popen([RUNTIME, "--server", "--socket", sock, "--ready-file", ready,
                                "-o", os.path.join(srvdir, "server.pfw.gz"), obj], env=env,
                               stderr=subprocess.PIPE, text=True)
        wait_ready(ready, srv)
        for _ in range(600):
            if lib in open("/proc/%d/maps" % prog.pid).read():
                break
            time.sleep(0.05)
        r = run([RUNTIME, "--socket", sock, "--track", str(prog.pid)])
        check(r.returncode == 0, "%s--track: %s" % (tag, r.stdout + r.stderr))
        with open(go, "w") as w:
            w.write("go\n")
        out = prog.communicate()[0]
        srv.send_signal(signal.SIGTERM)
        srv.communicate(timeout=slack(60))
        jobs = glob.glob(os.path.join(srvdir, "*-job*.pfw.gz"))
        got = steps(Trace(jobs[0]), json.loads(out)["pid"]) if len(jobs) == 1 else []
        check(got == want, "%s--track of a process that mapped the copy before: %d job traces, "
              "%d firings, want %d" % (tag, len(jobs), len(got), N))

    # Without cookies only a file holding the spec's USDT probes stops
    # each process that maps it: any other (ls's libraries) stops the
    # first process that maps it and is then checked. The kernel's own
    # signal tracepoint counts the stops.
    watch = stops_watch("dc-latelib-usdt-%d" % os.getpid())
    try:
        r = run([RUNTIME, "-q", "-o", os.path.join(tmp, "ls.pfw.gz"), obj, "--", "sh", "-c",
                 "for i in 1 2 3 4 5 6 7 8 9 10; do ls / > /dev/null; done"],
                env=dict(os.environ, DATACRUMBS_FALLBACKS="cookies"))
    finally:
        stops = stopped(watch)
    check(r.returncode == 0, "ls ten times: runtime: %s" % r.stderr[-1500:])
    check(len(set(stops.get("ls", []))) <= 1,
          "ls's libraries stop only the first ls: SIGSTOPs to %s" % stops)
done()
