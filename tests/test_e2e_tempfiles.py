#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Root writes reports, flame graphs, generated C and objects into users'
directories: the temporary file each goes through before its rename is a
new file of an unguessable name, so symbolic links a user plants for
every name the old scheme (PATH.tmp.PID) would use lead nowhere."""
import glob
import gzip
import json
import os
import tempfile

from dctest import GEN, REPORT, SRC, check, done, hostile_user, run, skip


if os.geteuid() != 0:
    skip("needs root: the test is root writing into another user's directory")
alice = hostile_user("dc-alice")


def plant(user, target, victim, n=3000):
    """As @user, a link to @victim at TARGET.tmp.PID for the next @n pids."""
    last = int(open("/proc/sys/kernel/ns_last_pid").read())
    script = ("import os, sys\n"
              "t, v, a, b = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])\n"
              "for p in range(a, b):\n"
              "    os.symlink(v, '%s.tmp.%d' % (t, p))\n")
    r = user.run(["python3", "-c", script, target, victim, str(last + 1), str(last + 1 + n)])
    check(r.returncode == 0, "%s planted links for %s: %s" % (user.name, target, r.stderr))


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    secret = os.path.join(tmp, "root-only")
    os.mkdir(secret, 0o700)
    victim = os.path.join(secret, "victim")
    with open(victim, "w") as f:
        f.write("keep\n")
    work = os.path.join(alice.home, "dc-tempfiles")
    run(["rm", "-rf", work])
    r = alice.run(["mkdir", work])
    check(r.returncode == 0, "alice's directory: " + r.stderr)

    trace = os.path.join(tmp, "t.pfw")
    hh = "08cf3707b570dbec"
    events = [{"id": 1, "name": "FH", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
               "args": {"hhash": hh, "name": "/tmp/x", "value": 7}},
              {"id": 2, "name": "write", "cat": "POSIX", "pid": 10, "tid": 10, "ts": 100,
               "dur": 5, "ph": "X", "args": {"hhash": hh, "fhash": 7, "size_sum": 64,
                                             "level": 1, "p_idx": -1}}]
    with open(trace, "w") as f:
        f.write("[\n" + "".join(json.dumps(e) + "\n" for e in events) + "]\n")

    html, svg = os.path.join(work, "report.html"), os.path.join(work, "flame.svg")
    plant(alice, html, victim)
    r = run([REPORT, "-q", "-H", html, trace])
    check(r.returncode == 0, "report -H into alice's directory: " + r.stderr)
    plant(alice, svg, victim)
    r = run([REPORT, "-q", "-g", svg, trace])
    check(r.returncode == 0, "report -g into alice's directory: " + r.stderr)

    obj, emit = os.path.join(work, "p.bpf.o"), os.path.join(work, "p.c")
    plant(alice, obj, victim)
    plant(alice, emit, victim)
    r = run([GEN, "-o", obj, "-E", emit, os.path.join(SRC, "probes.d", "sys.yaml")])
    check(r.returncode == 0, "gen -o -E into alice's directory: " + r.stderr)

    check(open(victim).read() == "keep\n", "root's file behind the planted links is untouched")
    for path, head in ((html, b"<!DOCTYPE html"), (svg, b"<svg"), (obj, b"\x7fELF"),
                       (emit, b"/*")):
        ok = os.path.isfile(path) and not os.path.islink(path)
        check(ok and open(path, "rb").read(len(head)) == head,
              "%s written as a file of its own" % os.path.basename(path))
    left = [p for p in os.listdir(work) if not os.path.islink(os.path.join(work, p))
            and os.path.basename(p) not in ("report.html", "flame.svg", "p.bpf.o", "p.c")]
    check(not left, "no temporary left behind: %s" % left[:5])
    run(["rm", "-rf", work])
done()
