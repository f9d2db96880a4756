#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A traced command run as root signals the runtime, its parent, with
every signal that ends a process by default and is not a request to stop
(SIGHUP, SIGUSR1, SIGPIPE, real-time ones...): the runtime goes on, the
command's later calls are traced and the trace has its end record.
SIGQUIT, like SIGINT and SIGTERM, stops tracing with a whole trace. The
command itself still gets the caller's dispositions: default ones, or
SIGHUP ignored under nohup."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
SIGS = [signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2, signal.SIGPIPE, signal.SIGALRM,
        signal.SIGVTALRM, signal.SIGPROF, signal.SIGIO, signal.SIGPWR, signal.SIGXCPU,
        signal.SIGXFSZ, signal.SIGSTKFLT, signal.SIGRTMIN + 1, signal.SIGRTMAX]


def whole(trace, what):
    t = Trace(trace)
    check(not t.errors, "%s: the trace is whole: %s" % (what, t.errors[:3]))
    check(t.end is not None, "%s: it has its end record" % what)
    return t


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml"])

    # The command signals its parent, then works.
    kills = "; ".join("kill -%d $PPID" % s for s in SIGS)
    trace = os.path.join(tmp, "kills.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c",
             kills + "; sleep 0.2; cat /etc/hostname > /dev/null"])
    check(r.returncode == 0, "the runtime outlived the signals: status %d, %s"
          % (r.returncode, r.stderr[-300:]))
    if os.path.exists(trace):
        t = whole(trace, "signalled")
        check(any(e["name"] == "openat" and t.file(e) == "/etc/hostname" for e in t.events),
              "the command's calls after the signals are traced")
    else:
        check(False, "a trace was written")

    # The command's own dispositions are the caller's.
    trace = os.path.join(tmp, "own.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c", "kill -USR1 $$; echo alive"])
    check(r.returncode == 128 + signal.SIGUSR1 and "alive" not in r.stdout,
          "SIGUSR1 still ends the command: %d %r" % (r.returncode, r.stdout))
    trace = os.path.join(tmp, "nohup.pfw.gz")
    r = run(["sh", "-c", 'trap "" HUP; exec "$0" -o "$1" "$2" -- sh -c "kill -HUP \\$\\$; echo alive"',
             RUNTIME, trace, obj])
    check(r.returncode == 0 and "alive" in r.stdout,
          "under nohup the command ignores SIGHUP: %d %r" % (r.returncode, r.stdout))

    # SIGQUIT stops tracing as SIGTERM does.
    trace = os.path.join(tmp, "quit.pfw.gz")
    rt = subprocess.Popen([RUNTIME, "-o", trace, obj, "--", "sleep", "30"],
                          stderr=subprocess.PIPE, text=True)
    for _ in range(200):
        time.sleep(0.05)
        if rt.poll() is not None or (os.path.exists(trace) and os.path.getsize(trace) > 0):
            break
    time.sleep(0.5)
    rt.send_signal(signal.SIGQUIT)
    err = rt.communicate(timeout=60)[1]
    check(rt.returncode == 128 + signal.SIGQUIT, "SIGQUIT: stopped: %d %s" % (rt.returncode, err[-300:]))
    if os.path.exists(trace):
        whole(trace, "SIGQUIT")
    else:
        check(False, "SIGQUIT: a trace was written")
done()
