#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A server with no job costs the machine nothing: until a process joins,
it holds no uprobe and no syscall tracepoint, only process tracking. A
process joining through the client library (over the socket) is traced
from its first call after the answer, every write of it; a second after
the last job ends, the probes are gone again."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import BUILD, Trace, check, done, generate, need_bpf, slack, start_server

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")


def links(pid):
    """The BPF links the process holds, by type (from /proc's fdinfo)."""
    out = {}
    fds = os.path.join("/proc", str(pid), "fdinfo")
    for fd in os.listdir(fds):
        try:
            info = open(os.path.join(fds, fd)).read()
        except OSError:
            continue
        for line in info.splitlines():
            if line.startswith("link_type:"):
                t = line.split(":", 1)[1].strip()
                out[t] = out.get(t, 0) + 1
    return out


def probes_in(pid):
    l = links(pid)
    return l.get("uprobe_multi", 0) > 0 or l.get("raw_tracepoint", 0) > 4


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    sock = os.path.join(tmp, "dc.sock")
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(tmp, "server.pfw.gz"))
    idle = links(srv.pid)
    check(idle.get("uprobe_multi", 0) == 0 and idle.get("raw_tracepoint") == 4,
          "no job: only fork, exec, exit and cgroup tracking are attached: %s" % idle)

    # A process that joins and writes at once: each write is traced.
    out = os.path.join(tmp, "joined.txt")
    env = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock)
    r = subprocess.run(["sh", "-c", "i=0; while [ $i -lt 30 ]; do echo x >> %s; i=$((i+1)); done; "
                        "exec sleep 1" % out], env=env)
    check(r.returncode == 0, "the joined program ran")
    # Its job has ended: the probes go a second later.
    gone = False
    for _ in range(50):
        if not probes_in(srv.pid):
            gone = True
            break
        time.sleep(0.1)
    check(gone, "the last job ended: probes detached: %s" % links(srv.pid))
    # A second job attaches them again.
    # Attaching one perf-event link per function (before 6.6) takes
    # seconds in an emulated guest, and starting the job does on a busy
    # machine: asked for up to 10 s, while the job sleeps.
    p = subprocess.Popen(["sh", "-c", "echo y >> %%s; exec sleep %g" % slack(10) % out], env=env)
    back = False
    deadline = time.monotonic() + slack(10)
    while not back and time.monotonic() < deadline:
        back = probes_in(srv.pid)
        time.sleep(0.1)
    check(back, "a new job: probes attached: %s" % links(srv.pid))
    p.kill()
    p.wait()
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=30)[1]
    check(srv.returncode == 0, "server exit %s: %s" % (srv.returncode, err[-500:]))
    writes = []
    for f in os.listdir(tmp):
        if "-job" in f and f.endswith(".pfw.gz"):
            t = Trace(os.path.join(tmp, f))
            check(not t.errors, "%s: %s" % (f, t.errors[:3]))
            writes += t.select(cat="sys", name="write", path=out)
    check(len(writes) == 31, "every write of the joined programs traced: %d of 31" % len(writes))
done()
