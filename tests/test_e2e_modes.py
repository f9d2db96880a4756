#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tracing modes: -p PID (a file opened before tracing, a child forked
after; a process exited and not reaped is refused), SIGINT mid-run, and --strict under overload, where every call is
either written or counted as lost: written + lost equals strace's count."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import (RUNTIME, Trace, check, done, generate, need_bpf, need_tool, run, strace_counts,
                    wait_ready)



def started(rt):
    """Reads the runtime's stderr up to its "tracing" line (warnings come
    first on some kernels); what it read, ending with it if it came."""
    lines = []
    while True:
        lines.append(rt.stderr.readline())
        if not lines[-1] or "tracing" in lines[-1]:
            return "".join(lines)


need_bpf()
need_tool("strace")
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])

    # -p: the shell opens fd 3 before tracing starts, waits on a FIFO until
    # the runtime is attached, writes through fd 3 and runs dd as a child.
    f, g, fifo = (os.path.join(tmp, n) for n in ("pre-opened", "child-out", "go"))
    os.mkfifo(fifo)
    script = ('exec 3>%s; read x < %s; i=0; while [ $i -lt 50 ]; do echo hello >&3; i=$((i+1)); done; '
              'dd if=/dev/zero of=%s bs=4k count=20 2>/dev/null' % (f, fifo, g))
    sh = subprocess.Popen(["sh", "-c", script])
    trace = os.path.join(tmp, "pid.pfw.gz")
    rt = subprocess.Popen([RUNTIME, "-o", trace, "-p", str(sh.pid), obj],
                          stderr=subprocess.PIPE, text=True)
    line = started(rt)
    check("tracing" in line, "runtime started: %r" % line)
    with open(fifo, "w") as w:
        w.write("go\n")
    sh.wait()
    try:
        err = rt.communicate(timeout=20)[1]
    except subprocess.TimeoutExpired:
        rt.kill()
        err = rt.communicate()[1]
        check(False, "-p mode did not end when the process exited")
    check(rt.returncode == 0, "-p exit %s: %s" % (rt.returncode, err))
    check("every traced process has exited" in err, "says why it stopped")
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    for cat in ("POSIX", "sys"):
        w = t.select(cat=cat, name="write", path=f, pid=sh.pid)
        check(len(w) == 50, "%s writes through a pre-opened fd: %d, want 50" % (cat, len(w)))
        c = t.select(cat=cat, name="write", path=g)
        check(len(c) == 20 and all(e["pid"] != sh.pid for e in c),
              "%s writes by the child forked after attach: %d" % (cat, len(c)))

    # -p of a process that has exited but is not reaped yet (its parent
    # is this test): it is gone, not waited for.
    z = subprocess.Popen(["true"])
    for _ in range(100):
        if open("/proc/%d/stat" % z.pid).read().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.05)
    zt = os.path.join(tmp, "zombie.pfw.gz")
    r = run([RUNTIME, "-q", "-o", zt, "-p", str(z.pid), obj], timeout=120)
    check(r.returncode != 0 and "--pid %d: no such process" % z.pid in r.stderr
          and not os.path.exists(zt), "-p of a zombie: exit %d, trace %s: %s"
          % (r.returncode, os.path.exists(zt), r.stderr[-500:]))
    z.wait()

    # SIGINT to the runtime alone: the trace is closed properly, the
    # command keeps running untraced.
    trace = os.path.join(tmp, "int.pfw.gz")
    loop = "while :; do dd if=/dev/zero of=%s/l bs=4k count=10 2>/dev/null; done" % tmp
    ready = os.path.join(tmp, "int.ready")
    rt = subprocess.Popen([RUNTIME, "-q", "--ready-file", ready, "-o", trace, obj, "--", "sh", "-c",
                           loop], start_new_session=True)
    check(wait_ready(ready, rt), "the runtime traces")
    time.sleep(2)
    os.kill(rt.pid, signal.SIGINT)
    rt.wait(timeout=20)
    check(rt.returncode == 128 + signal.SIGINT, "SIGINT exit %s" % rt.returncode)
    t = Trace(trace)
    check(not t.errors and t.end is not None, "complete after SIGINT: %s" % t.errors[:3])
    check(len(t.select(cat="POSIX", name="write")) > 0, "events before SIGINT")
    os.killpg(rt.pid, signal.SIGKILL)

    # Overload, made certain: the runtime is stopped (SIGSTOP) while the
    # burst runs, so a 4 KiB ring buffer must overflow.
    n = 20000
    dd = ["dd", "if=/dev/zero", "of=/dev/null", "bs=1", "count=%d" % n, "status=none"]
    go, finished = os.path.join(tmp, "go2"), os.path.join(tmp, "finished")
    os.mkfifo(go)
    burst = "read x < %s; %s; touch %s" % (go, " ".join(dd), finished)
    # Only writes are traced: in this command only dd writes, n times.
    spec = os.path.join(tmp, "writes.yaml")
    with open(spec, "w") as w:
        w.write("layer: sys\nmechanism: syscall\nprobes:\n  - {name: write, args: [fd, _, count], ret: size}\n"
                "---\nlayer: POSIX\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n"
                "  - {name: write, args: [fd, _, count], ret: size}\n")
    wobj = generate(tmp, [spec], "writes.bpf.o")
    trace = os.path.join(tmp, "strict.pfw.gz")
    rt = subprocess.Popen([RUNTIME, "--strict", "--ringbuf-size", "4K", "-o", trace, wobj,
                           "--", "sh", "-c", burst], stderr=subprocess.PIPE, text=True)
    line = started(rt)
    if not check("tracing" in line, "overload run started: %r" % line):
        rt.kill()
        done()
    os.kill(rt.pid, signal.SIGSTOP)
    with open(go, "w") as w:
        w.write("go\n")
    while not os.path.exists(finished):
        time.sleep(0.05)
    os.kill(rt.pid, signal.SIGCONT)
    err = rt.communicate(timeout=60)[1]
    t = Trace(trace)
    check(not t.errors, "format under overload: %s" % t.errors[:3])
    lost = t.end["args"]["lost"]
    check(t.end["args"]["dropped"] > 0 and rt.returncode == 3,
          "--strict: %d lost, exit %d" % (t.end["args"]["dropped"], rt.returncode))
    check("lost" in err and "ringbuf_full" in err, "losses reported on stderr")
    check(t.end["args"]["dropped"] == sum(lost.values()), "per-probe losses add up")
    check(strace_counts(dd, os.path.join(tmp, "strace.txt"), only=["write"]).get("write") == n,
          "strace agrees dd makes %d writes" % n)
    for cat in ("sys", "POSIX"):
        written = len(t.select(cat=cat, name="write"))
        gone = lost.get(cat + "/write", 0)
        check(written + gone == n, "%s write: %d written + %d lost, want %d"
              % (cat, written, gone, n))
done()
