#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--follow-cgroup as a hostile user (dc-alice) asks it of a root server:
only a real cgroup v2 directory of hers, reached through no link of hers,
is followed, never a FIFO; of its processes only hers are traced, now and
as they move in, so root's writes in her cgroup stay out of her trace; a
flood of requests leaves root able to follow a cgroup; a removed cgroup is
no longer followed, and the probes leave with the last one."""
import glob
import os
import signal
import subprocess
import tempfile
import time

from dctest import (Trace, check, done, generate, hostile_user, need_bpf, new_cgroup, run,
                    start_server)

ASK = r"""
import socket, sys
sock, out = sys.argv[1], []
for req in sys.stdin.read().splitlines():
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(20)
    s.connect(sock)
    s.sendall((req + "\n").encode())
    s.shutdown(socket.SHUT_WR)
    a = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        a += b
    s.close()
    print(a.decode(errors="replace").strip(), flush=True)
"""

need_bpf()
alice, bob = hostile_user("dc-alice"), hostile_user("dc-bob")


def ask(user, sock, *reqs):
    """Answers to @reqs, asked as @user (None: root) on one socket each."""
    pre = user.prefix if user else []
    r = run(pre + ["python3", "-c", ASK, sock], input="\n".join(reqs) + "\n", timeout=600)
    return r.stdout.splitlines()


def writer(prefix, path):
    """A process appending a line to @path ten times a second: one
    process, which forks nothing (a shell's sleeps would make the count
    of processes in a cgroup vary)."""
    return subprocess.Popen(prefix + ["python3", "-c", "import sys, time\n"
                                      "while True:\n"
                                      "    with open(sys.argv[1], 'a') as f:\n"
                                      "        f.write('x\\n')\n"
                                      "    time.sleep(0.1)\n", path])


def move(pid, cg):
    with open(os.path.join(cg, "cgroup.procs"), "w") as f:
        f.write("%d\n" % pid)


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    obj = generate(tmp, ["probes.d/sys.yaml"])
    srvdir, secret = os.path.join(tmp, "srv"), os.path.join(tmp, "secret")
    os.mkdir(srvdir)
    os.chmod(srvdir, 0o1777)  # as /tmp: each job's owner creates its trace
    os.mkdir(secret, 0o700)
    sock = os.path.join(tmp, "dc.sock")
    # Its log to a file: a thousand answered requests fill a pipe.
    log = open(os.path.join(tmp, "server.log"), "w+")
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(srvdir, "server.pfw.gz"),
                       stderr=log)
    home = os.path.join(alice.home, "dc-cgtest")
    run(["rm", "-rf", home])
    alice.run(["mkdir", "-p", home + "/fake", home + "/fifo"])
    procs = []
    cg = new_cgroup("dc-alice-%d" % os.getpid())
    CG2 = os.path.dirname(cg)
    try:
        # Delegated to alice, as systemd or a batch system delegates.
        for f in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(os.path.join(cg, f), alice.uid, alice.gid)
        rootfile, rootlate = os.path.join(secret, "root.txt"), os.path.join(secret, "late.txt")
        alicefile = os.path.join(home, "alice.txt")
        procs += [writer([], rootfile), writer(alice.prefix, alicefile)]
        time.sleep(0.3)

        # A directory of hers posing as a cgroup, listing root's writer.
        alice.run(["sh", "-c", "echo %d > %s/fake/cgroup.procs" % (procs[0].pid, home)])
        alice.run(["mkfifo", home + "/fifo/cgroup.procs"])
        alice.run(["ln", "-s", cg, home + "/link"])
        t0 = time.time()
        a = ask(alice, sock, "follow-cgroup " + home + "/fake", "follow-cgroup " + home + "/fifo",
                "follow-cgroup " + home + "/link")
        check(len(a) == 3 and "not a cgroup v2 directory" in a[0], "a plain directory: %s" % a[:1])
        check(len(a) == 3 and "not a cgroup v2 directory" in a[1] and time.time() - t0 < 10,
              "a FIFO named cgroup.procs, answered at once: %s" % a[1:2])
        check(len(a) == 3 and a[2].startswith("error") and "symbolic link" in a[2],
              "her link to her cgroup is not followed: %s" % a[2:])
        # Nothing about what lies in bob's private directory.
        priv = os.path.join(bob.home, "dc-private")
        run(["rm", "-rf", priv])
        bob.run(["mkdir", "-m", "0700", priv, priv + "/there"])
        a = ask(alice, sock, "follow-cgroup " + priv + "/there", "follow-cgroup " + priv + "/none")
        check(len(a) == 2 and a[0].replace("there", "none") == a[1],
              "the same answer whether a path in bob's 0700 directory exists: %s" % a)
        run(["rm", "-rf", priv])
        a = ask(alice, sock, "follow-cgroup " + os.path.join(CG2))
        check(a and "not yours" in a[0], "root's cgroup is not hers: %s" % a)

        # Her real cgroup, with root's writer in it: root's is left out.
        move(procs[0].pid, cg)
        move(procs[1].pid, cg)
        a = ask(alice, sock, "follow-cgroup " + cg)
        # Root's writer: not hers.
        check(a and a[0].startswith("ok following") and
              "; 1 of its processes are not yours" in a[0],
              "her cgroup followed, root's processes left out: %s" % a)
        time.sleep(0.5)
        procs.append(writer([], rootlate))  # root's, moved in later
        move(procs[2].pid, cg)
        time.sleep(1.5)

        # A flood: 1,030 directories that are no cgroups, then more real
        # cgroups of hers than a user may follow; root still can.
        fakes = [os.path.join(home, "f%d" % i) for i in range(1030)]
        alice.run(["mkdir"] + fakes)
        a = ask(alice, sock, *["follow-cgroup " + f for f in fakes])
        check(len(a) == 1030 and all(x.startswith("error") for x in a),
              "1,030 plain directories refused: %s" % [x for x in a if not x.startswith("error")][:2])
        subs = [os.path.join(cg, "s%d" % i) for i in range(20)]
        alice.run(["mkdir"] + subs)
        a = ask(alice, sock, *["follow-cgroup " + s for s in subs])
        n_ok = sum(x.startswith("ok") for x in a)
        check(n_ok == 15 and all("the most a user may" in x for x in a if not x.startswith("ok")),
              "16 cgroups per user, hers included: %d ok, %s" % (n_ok, a[-1:]))
        rootcg = os.path.join(CG2, "dc-root-%d" % os.getpid())
        os.mkdir(rootcg)
        a = ask(None, sock, "follow-cgroup " + rootcg)
        check(a and a[0].startswith("ok following"), "root follows a cgroup after the flood: %s" % a)
        a = ask(None, sock, "status")
        check(a and " 17 cgroups" in a[0], "17 cgroups followed: %s" % a)

        # Removed cgroups are followed no more; with none left and no job,
        # the probes leave.
        for p in procs:
            p.kill()
            p.wait()
        procs = []
        time.sleep(0.5)
        for s in subs + [rootcg, cg]:
            os.rmdir(s)
        for _ in range(60):
            a = ask(None, sock, "status")
            if a and " 0 cgroups" in a[0]:
                break
            time.sleep(0.25)
        check(a and " 0 cgroups" in a[0], "no cgroup followed once all are removed: %s" % a)
        time.sleep(2)
    finally:
        for p in procs:
            p.kill()
            p.wait()
        for s in glob.glob(os.path.join(cg, "s*")) + [cg, os.path.join(CG2, "dc-root-%d" % os.getpid())]:
            if os.path.isdir(s):
                os.rmdir(s)
        srv.send_signal(signal.SIGTERM)
        srv.wait(timeout=60)
        log.seek(0)
        err = log.read()
    check("probes detached" in err, "the probes leave with the last cgroup: %s" % err[-600:])

    theirs = [p for p in glob.glob(os.path.join(srvdir, "*-job*.pfw.gz"))
              if os.stat(p).st_uid == alice.uid]
    check(len(theirs) == 1, "one job trace of hers: %s" % os.listdir(srvdir))
    for p in theirs:
        t = Trace(p)
        check(not t.errors and t.end is not None, "her trace is complete: %s" % t.errors[:3])
        check(len(t.select(cat="sys", name="write", path=alicefile)) > 5,
              "her own writes are in her trace")
        check(not t.select(path=rootfile) and not t.select(path=rootlate),
              "no write of root's, in her cgroup before or after it was followed")
    run(["rm", "-rf", home])
done()
