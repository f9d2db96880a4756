#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Where root creates traces for a user, as a hostile user (dc-alice)
steers it: under sudo a trace is created only where she could create it
herself, through no link of hers (not into root's directory behind her
link, not into dc-bob's directory); a server keeps writing her jobs'
traces into the directory it was given even after she swaps it for a
link; and a requeued job's directories are made anew, so links she left
in the old ones make root neither chown nor append to anything."""
import glob
import os
import signal
import socket
import tempfile
import time

from dctest import (BUILD, RUNTIME, SRC, Trace, check, done, generate, hostile_user, need_bpf,
                    run, start_server)

need_bpf()
alice, bob = hostile_user("dc-alice"), hostile_user("dc-bob")
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
JOB = os.path.join(SRC, "scripts", "jobs", "datacrumbs-job")


def root_only(path):
    os.mkdir(path, 0o700)
    return path


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    obj = generate(tmp, ["probes.d/sys.yaml"])
    os.chmod(obj, 0o644)
    home = os.path.join(alice.home, "dc-dirs")
    run(["rm", "-rf", home, os.path.join(bob.home, "bobdir")])
    alice.run(["mkdir", home])
    bob.run(["mkdir", "-m", "0755", os.path.join(bob.home, "bobdir")])
    sudo = dict(os.environ, SUDO_UID=str(alice.uid), SUDO_GID=str(alice.gid), SUDO_USER=alice.name)

    # Under sudo: her link to root's directory, bob's directory, her own.
    dct3 = root_only(os.path.join(tmp, "dct3"))
    alice.run(["ln", "-s", dct3, os.path.join(home, "link")])
    r = run([RUNTIME, "-o", os.path.join(home, "link", "x.pfw.gz"), obj, "--", "true"], env=sudo)
    check(r.returncode != 0 and "symbolic link" in r.stderr and not os.listdir(dct3),
          "not through her link into root's directory: %s %s" % (r.stderr, os.listdir(dct3)))
    bobs = os.path.join(bob.home, "bobdir", "a.pfw.gz")
    r = run([RUNTIME, "-o", bobs, obj, "--", "true"], env=sudo)
    check(r.returncode != 0 and "Permission denied" in r.stderr and not os.path.exists(bobs),
          "not into bob's directory: %s" % r.stderr)
    mine = os.path.join(home, "mine.pfw.gz")
    r = run([RUNTIME, "-q", "-o", mine, obj, "--", "true"], env=sudo)
    check(r.returncode == 0 and os.stat(mine).st_uid == alice.uid,
          "into her own directory, hers: %s" % r.stderr)

    # A server given a directory she owns: she swaps it for a link to
    # root's; her next job's trace stays in the directory it was given.
    out = os.path.join(tmp, "out")
    os.mkdir(out)
    os.chown(out, alice.uid, alice.gid)
    vm = os.path.join(out, "vm")
    os.mkdir(vm)
    os.chown(vm, alice.uid, alice.gid)
    etc = root_only(os.path.join(tmp, "etc"))
    os.chmod(etc, 0o755)
    sock = os.path.join(tmp, "dc.sock")
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(vm, "server.pfw.gz"))
    r = alice.run(["sh", "-c", "mv %s %s.old && ln -s %s %s" % (vm, vm, etc, vm)])
    check(r.returncode == 0, "she swapped the server's directory: " + r.stderr)
    r = alice.run(["env", "LD_PRELOAD=" + CLIENT, "DATACRUMBS_SOCKET=" + sock, "sh", "-c",
                   "echo x > %s/job.txt" % home])
    check(r.returncode == 0, "her job ran: " + r.stderr)
    time.sleep(3.5)
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=30)[1]
    check(not os.listdir(etc), "nothing created behind her link: %s" % os.listdir(etc))
    jobs = glob.glob(os.path.join(vm + ".old", "*-job*.pfw.gz"))
    check(len(jobs) == 1 and all(os.stat(j).st_uid == alice.uid for j in jobs),
          "her job's trace, hers, where the server was told: %s %s" % (jobs, err[-300:]))
    for j in jobs:
        check(len(Trace(j).select(cat="sys", name="write", path=home + "/job.txt")) == 1,
              "her job's write is in it")

    # A requeued job: the job script runs again with the same id after
    # she had a node directory of hers and left links in it.
    conf = os.path.join(tmp, "datacrumbs.conf")
    jout, rundir = os.path.join(tmp, "traces"), os.path.join(tmp, "run")
    with open(conf, "w") as f:
        f.write("DATACRUMBS_OBJECT=%s\nDATACRUMBS_RUNTIME=%s\nDATACRUMBS_OUTPUT=%s\n"
                "DATACRUMBS_MODE=trace\nDATACRUMBS_RUN=%s\n" % (obj, RUNTIME, jout, rundir))
    env = dict(os.environ, DATACRUMBS_CONF=conf)
    victim_dir = root_only(os.path.join(tmp, "dctarget2"))
    victim = os.path.join(root_only(os.path.join(tmp, "v")), "victim.txt")
    with open(victim, "w") as f:
        f.write("keep\n")
    node = socket.gethostname().split(".")[0]
    for round_ in (1, 2):
        r = run(["sh", JOB, "start", "dcreq", str(alice.uid)], env=env)
        check(r.returncode == 0 and "tracing into" in r.stderr, "start %d: %s" % (round_, r.stderr))
        r = run(["sh", JOB, "stop", "dcreq"], env=env)
        check(r.returncode == 0, "stop %d: %s" % (round_, r.stderr))
        if round_ == 1:
            # Whatever she can reach, she replaces with links.
            nd = os.path.join(jout, "dcreq", node)
            alice.run(["sh", "-c", "mv {0} {0}.gone; ln -s {1} {0}".format(nd, victim_dir)])
            for d in (nd, nd + ".gone", os.path.join(jout, "dcreq")):
                for name in ("collector.log", node + ".log", node + ".1.log"):
                    alice.run(["ln", "-s", victim, os.path.join(d, name)])
                alice.run(["ln", "-s", victim_dir, os.path.join(d, node + ".1")])
    st = os.stat(victim_dir)
    check(st.st_uid == 0, "root's directory behind her link is still root's: uid %d" % st.st_uid)
    check(open(victim).read() == "keep\n", "root's file behind her link is untouched")
    dirs = sorted(d for d in os.listdir(os.path.join(jout, "dcreq"))
                  if os.path.isdir(os.path.join(jout, "dcreq", d))
                  and not os.path.islink(os.path.join(jout, "dcreq", d)))
    check(len(dirs) >= 2, "the requeued job has a directory of its own: %s" % dirs)
    run(["rm", "-rf", home, os.path.join(bob.home, "bobdir")])
done()
