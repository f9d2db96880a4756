#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Server mode: a collector started once; programs join it by loading
libdatacrumbs-client.so (LD_PRELOAD) or by --track PID over the control
socket; their children follow; each job gets its own trace, owned by the
job's user, mode 0640; one joined program is killed with SIGKILL mid-run;
a program that never joins is in no trace; --status reports; SIGTERM
drains and closes every trace."""
import glob
import stat
import os
import signal
import subprocess
import tempfile
import time

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, wait_ready

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")


def writer(path, n, wait=None):
    """A shell that (after reading a FIFO) writes n lines to path, in a child."""
    pre = "read x < %s; " % wait if wait else ""
    return ["sh", "-c", pre + "i=0; while [ $i -lt %d ]; do echo line >> %s; i=$((i+1)); done" % (n, path)]


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o711)  # so that another user can reach the socket
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    sock, ready = os.path.join(tmp, "dc.sock"), os.path.join(tmp, "ready")
    # Each job's trace is created by the job's owner: the directory lets
    # every user create files of their own there, as /tmp does.
    srvdir = os.path.join(tmp, "srv")
    os.mkdir(srvdir)
    os.chmod(srvdir, 0o1777)
    trace = os.path.join(srvdir, "server.pfw.gz")
    srv = subprocess.Popen([RUNTIME, "--server", "--socket", sock, "--ready-file", ready,
                            "-o", trace, obj], stderr=subprocess.PIPE, text=True)
    wait_ready(ready, srv)
    check(os.path.exists(ready), "ready file appears")

    # (d) joins and keeps writing while the others start and stop; it is
    # killed with SIGKILL at the end.
    d = os.path.join(tmp, "d.txt")
    joined = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock)
    pd = subprocess.Popen(["sh", "-c", "while :; do echo x >> %s; done" % d], env=joined)
    time.sleep(0.3)
    # (a) joins by loading the client library.
    a = os.path.join(tmp, "a.txt")
    r = run(writer(a, 40), env=joined)
    check(r.returncode == 0, "preloaded program ran")
    # (b) joins by --track before it does its I/O.
    b, fifo = os.path.join(tmp, "b.txt"), os.path.join(tmp, "go")
    os.mkfifo(fifo)
    pb = subprocess.Popen(writer(b, 25, fifo))
    r = run([RUNTIME, "--socket", sock, "--track", str(pb.pid)])
    check(r.returncode == 0 and r.stdout.startswith("ok tracked"), "--track: " + r.stdout + r.stderr)
    # (f) is tracked, then untracked before it writes.
    f, fifo2 = os.path.join(tmp, "f.txt"), os.path.join(tmp, "go2")
    os.mkfifo(fifo2)
    pf = subprocess.Popen(writer(f, 10, fifo2))
    r = run([RUNTIME, "--socket", sock, "--track", str(pf.pid)])
    r = run([RUNTIME, "--socket", sock, "--untrack", str(pf.pid)])
    check(r.returncode == 0 and r.stdout.startswith("ok untracked"), "--untrack: " + r.stdout)
    for path, proc in ((fifo, pb), (fifo2, pf)):
        with open(path, "w") as w:
            w.write("go\n")
        proc.wait()
    # (c) never joins.
    c = os.path.join(tmp, "c.txt")
    run(writer(c, 30))
    pd.kill()
    pd.wait()
    # (e) a user's program: its trace is theirs.
    nob = os.path.join(tmp, "nobody")
    os.mkdir(nob)
    os.chmod(nob, 0o777)
    e = os.path.join(nob, "e.txt")
    # The client library is preloaded after the switch to nobody.
    r = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env",
             "LD_PRELOAD=" + CLIENT, "DATACRUMBS_SOCKET=" + sock] + writer(e, 15))
    check(r.returncode == 0, "nobody's program ran: " + r.stderr)
    # Bad requests get errors; a user may not track another's process.
    r = run([RUNTIME, "--socket", sock, "--track", "999999999"])
    check(r.returncode == 1 and "error" in r.stdout, "--track of no process fails")
    r = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", RUNTIME,
             "--socket", sock, "--track", "1"])
    check(r.returncode == 1 and "not to you" in r.stdout, "SO_PEERCRED: nobody cannot track pid 1: "
          + r.stdout + r.stderr)
    r = run([RUNTIME, "--socket", sock, "--status"])
    check(r.returncode == 0 and r.stdout.startswith("ok tracing") and trace in r.stdout,
          "--status: " + r.stdout)
    time.sleep(0.3)
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=30)[1]
    check(srv.returncode == 0, "server exit %s: %s" % (srv.returncode, err[-500:]))
    check(not os.path.exists(sock) and not os.path.exists(ready), "socket and ready file removed")

    t = Trace(trace)
    check(not t.errors and t.end is not None, "the server's trace is complete: %s" % t.errors[:3])
    jobs = {}
    for path in glob.glob(os.path.join(srvdir, "*-job*.pfw.gz")):
        jt = Trace(path)
        check(not jt.errors and jt.end is not None, "%s complete: %s" % (path, jt.errors[:3]))
        jobs[path] = jt

    def job_of(f):
        hits = [(p, jt) for p, jt in jobs.items() if jt.select(cat="sys", name="write", path=f)]
        check(len(hits) == 1, "%s written about in exactly one job trace: %d" % (f, len(hits)))
        return hits[0] if hits else (None, None)

    for path, n, how in ((a, 40, "client library"), (b, 25, "--track")):
        jp, jt = job_of(path)
        w = jt.select(cat="sys", name="write", path=path) if jt else []
        check(len(w) == n, "%s: %d writes, want %d" % (how, len(w), n))
        check(len({e["pid"] for e in w}) == 1, "%s: written by the shell itself" % how)
    check(job_of(a)[0] != job_of(b)[0], "two jobs, two traces")
    for path, what in ((c, "a program that never joined"), (f, "an untracked program")):
        check(not any(jt.select(path=path) for jt in jobs.values()) and not t.select(path=path),
              "%s is in no trace" % what)
    jp, jt = job_of(d)
    # A write the SIGKILL interrupted returns an error and wrote nothing.
    dw = [w for w in (jt.select(cat="sys", name="write", path=d) if jt else [])
          if w["args"].get("ret", 0) > 0]
    lines = open(d).read().count("x\n")
    check(0 < len(dw) <= lines and len(dw) >= lines - 1,
          "killed program: %d writes traced of %d made" % (len(dw), lines))
    jp, jt = job_of(e)
    if jp:
        st = os.stat(jp)
        check(st.st_uid == 65534 and stat.S_IMODE(st.st_mode) == 0o640,
              "nobody's job trace is theirs, 0640: uid %d mode %o" % (st.st_uid, stat.S_IMODE(st.st_mode)))
        check(len(jt.select(cat="sys", name="write", path=e)) == 15, "nobody's writes")
done()
