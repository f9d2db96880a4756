#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Nobody can stall the server. While dc-alice, a real unprivileged
user, keeps connections to its socket open without saying anything (and
opens new ones as the server closes them), root's --status is answered
within seconds, a process joining through the client library is answered
within seconds, and a job writing flat out meanwhile loses no more than
the same job with nobody at the socket (10 points of slack, 30 in an
emulated guest): the ring
buffer is consumed whatever callers do. A process
loading the client library while a server's backlog is full (a stopped
or hung server; here alice's own listener) runs on after the client's
5 s. A server started with a low open-files soft limit raises it to the
hard one (or past it, with CAP_SYS_RESOURCE), and 40 jobs at once each
get their own trace."""
import glob
import json
import os
import signal
import subprocess
import tempfile
import time

from dctest import (BUILD, RUNTIME, check, done, generate, gzip_members, hostile_user,
                    need_bpf, slack, start_server, wait_ready)

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
PY = "/usr/bin/python3"  # alice's: not root's pyenv build
# The job: 300,000 reads and writes of one byte, flat out.
DD = "dd if=/dev/zero of=/dev/null bs=1 count=300000 2>/dev/null"

# Alice holds N idle connections for D seconds, reopening those the
# server closes; her connects never block her (a full backlog: retry).
IDLER = r"""
import select, socket, sys, time
path, n, end = sys.argv[1], int(sys.argv[2]), time.time() + float(sys.argv[3])
socks, said = [], False
while time.time() < end:
    for s in select.select(socks, [], [], 0)[0]:
        socks.remove(s)
        s.close()
    while len(socks) < n:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.setblocking(False)
        try:
            s.connect(path)
        except OSError:
            s.close()
            break
        socks.append(s)
    if not said and socks:
        print("open", len(socks), flush=True)
        said = True
    time.sleep(0.05)
"""

# Alice's listener that never accepts, its backlog filled by herself.
FULL = r"""
import socket, sys, time
l = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
l.bind(sys.argv[1])
l.listen(0)
held = []
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(sys.argv[1])
    except BlockingIOError:
        break
    held.append(s)
print("full", len(held), flush=True)
time.sleep(120)
"""


def timed(cmd, env=None, limit=60):
    """Seconds @cmd took (@limit if it had to be killed), its status."""
    t0 = time.monotonic()
    try:
        r = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=limit)
        return time.monotonic() - t0, r
    except subprocess.TimeoutExpired:
        return limit, None


def end_args(path):
    """The args of a trace's end record, read without parsing every event."""
    text = b"".join(gzip_members(open(path, "rb").read())[0]).decode()
    for line in reversed(text.splitlines()[-5:]):
        if '"cat":"dftracer"' in line and '"name":"end"' in line:
            return json.loads(line.rstrip(",")).get("args", {})
    return {}


def script(tmp, name, text):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)
    return path


alice = hostile_user("dc-alice")
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o711)  # alice reaches the socket and her scripts
    obj = generate(tmp, ["probes.d/sys.yaml"])
    sock = os.path.join(tmp, "dc.sock")
    # A small ring buffer: a second without reading it loses events.
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(tmp, "server.pfw.gz"),
                       ["--ringbuf-size", "1M"])
    joined = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock)
    jobs = os.path.join(tmp, "sh-*-job*.pfw.gz")

    # The same job with nobody at the socket: what it loses anyway (on a
    # slow machine, or under emulation, a 1 MiB ring buffer overflows).
    subprocess.run(["sh", "-c", DD], env=joined)
    time.sleep(3)  # its last events are read, its trace ended
    control = [end_args(p) for p in glob.glob(jobs)]
    check(len(control) == 1, "the control job's trace: %s" % control)
    base = control[0] if control else {}
    base_n, base_lost = base.get("num_events", 0), base.get("dropped", 0)
    base_frac = base_lost / max(base_n + base_lost, 1)
    done_before = set(glob.glob(jobs))

    # A job joins, then waits to write until alice is at it.
    fifo = os.path.join(tmp, "go")
    os.mkfifo(fifo)
    job = subprocess.Popen(["sh", "-c", "read x < %s; %s" % (fifo, DD)], env=joined)
    time.sleep(1)
    idler = subprocess.Popen(alice.prefix + [PY, script(tmp, "idle.py", IDLER), sock, "32", "25"],
                             stdout=subprocess.PIPE, text=True)
    line = idler.stdout.readline()
    check(line.startswith("open"), "alice holds idle connections: %r" % line)
    time.sleep(0.5)
    with open(fifo, "w") as f:
        f.write("go\n")

    took, r = timed([RUNTIME, "--socket", sock, "--status"])
    check(took < 5 and r is not None and r.stdout.startswith("ok tracing"),
          "root's --status answered in %.1f s (< 5) while alice holds idle connections: %s"
          % (took, r and r.stdout[:80]))
    mark = os.path.join(tmp, "joined.txt")
    took, r = timed(["sh", "-c", "echo x > %s" % mark], env=joined)
    check(took < 4 and r is not None and r.returncode == 0,
          "a process joining meanwhile was answered in %.1f s (< 4; the client waits 5)" % took)
    try:
        job.wait(timeout=120)
    except subprocess.TimeoutExpired:
        job.kill()
        job.wait()
    idler.kill()
    idler.wait()
    time.sleep(3)  # the job's last events are read, its trace ended
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=60)[1]
    ends = sorted((end_args(p) for p in set(glob.glob(jobs)) - done_before),
                  key=lambda a: a.get("num_events", 0) + a.get("dropped", 0))
    # dd's 300,000 reads and writes, each an event or counted as lost.
    check(ends and ends[-1].get("num_events", 0) + ends[-1].get("dropped", 0) >= 600000,
          "the writing job's trace, ended: %s" % ends[-1:])
    if ends:
        n, lost = ends[-1].get("num_events", 0), ends[-1].get("dropped", 0)
        # A stalled loop loses most: the 1 MiB buffer fills in a fraction
        # of a second. Natively two runs differ by a few points; in an
        # emulated 2-CPU guest alice's reconnecting and root's requests
        # take CPU from the server's loop (21% against 6% in a 5.10
        # guest), so there the margin is wider.
        margin = 0.10 if slack(1) == 1 else 0.30
        check(lost / (n + lost) <= base_frac + margin,
              "the job wrote on while alice held connections: %d events, %d lost; "
              "%.1f%% against %.1f%% with nobody at the socket (at most %d points more)"
              % (n, lost, 100 * lost / (n + lost), 100 * base_frac, 100 * margin))
    check("\x1b" not in err, "no escape byte in the server's log")

    # A full backlog (a server that is stopped or hung): the client
    # library gives up after its 5 s and the program runs.
    own = os.path.join(tmp, "alice")
    os.mkdir(own)
    os.chown(own, alice.uid, alice.gid)
    fake = os.path.join(own, "full.sock")
    holder = subprocess.Popen(alice.prefix + [PY, script(tmp, "full.py", FULL), fake],
                              stdout=subprocess.PIPE, text=True)
    line = holder.stdout.readline()
    check(line.startswith("full"), "alice's listener has a full backlog: %r" % line)
    took, r = timed(["true"], env=dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=fake))
    check(r is not None and r.returncode == 0 and took < 12,
          "a process loading the client library with the backlog full ran on after %.1f s "
          "(the client's limit is 5 s)" % took)
    holder.kill()
    holder.wait()

    # The open-files limit: started with a soft limit of 64, the server
    # raises it to the hard one, and 40 jobs at once all get a trace.
    sock2 = os.path.join(tmp, "lim.sock")
    out2 = os.path.join(tmp, "lim")
    os.mkdir(out2)
    ready2 = os.path.join(tmp, "ready2")
    srv2 = subprocess.Popen(["prlimit", "--nofile=64:4096", RUNTIME, "--server", "--socket", sock2,
                             "--ready-file", ready2, "-o", os.path.join(out2, "server.pfw.gz"), obj],
                            stderr=subprocess.PIPE, text=True)
    wait_ready(ready2, srv2)
    limits = open("/proc/%d/limits" % srv2.pid).read()
    nofile = [l.split()[3:5] for l in limits.splitlines() if l.startswith("Max open files")]
    # Raised to the hard limit, or past it where root may (fs.nr_open).
    check(len(nofile) == 1 and nofile[0][0] == nofile[0][1] and int(nofile[0][0]) >= 4096,
          "the server's open-files limit: %s" % nofile)
    env2 = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock2)
    jobs = [subprocess.Popen(["sh", "-c", "echo x > /dev/null; sleep 4"], env=env2)
            for _ in range(40)]
    end = time.monotonic() + 60
    for p in jobs:
        try:
            p.wait(timeout=max(0.1, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    check(time.monotonic() < end, "40 jobs of 4 s at once ended within 60 s")
    time.sleep(3)
    srv2.send_signal(signal.SIGTERM)
    err2 = srv2.communicate(timeout=60)[1]
    traces = glob.glob(os.path.join(out2, "sh-*-job*.pfw.gz"))
    check(len(traces) == 40 and "cannot create its trace" not in err2,
          "40 jobs at once, 40 job traces (%d): %s" % (len(traces), err2[-400:]))
done()
