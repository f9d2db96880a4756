#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Calls of a process that gained privileges at exec never reach a less
privileged user's trace, whatever gave them: a setgid program (a group
dc-alice is not in) reading a file only that group may read, a setuid-root
program reading a root-only file. dc-alice, a real unprivileged account,
runs both in a --user command, in a process root traces with -p (the
trace is hers), and in a server job she joins. Her trace names neither
file and has none of their calls; its end record counts what was withheld
and names both pids; her own calls are traced as before, root of a user
namespace of her own too (its capabilities give her nothing)."""
import glob
import grp
import os
import shutil
import signal
import subprocess
import tempfile
import time

from dctest import (BUILD, RUNTIME, Trace, check, done, generate, hostile_user, need_bpf, need_tool,
                    run, start_server, wait_ready)

need_bpf()
need_tool("groupadd")
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
GROUP = "dc-secret"
alice = hostile_user("dc-alice")
try:
    gid = grp.getgrnam(GROUP).gr_gid
except KeyError:
    r = run(["groupadd", GROUP])
    check(r.returncode == 0 or "already exists" in r.stderr, "groupadd: " + r.stderr)
    gid = grp.getgrnam(GROUP).gr_gid
check(alice.name not in grp.getgrnam(GROUP).gr_mem, "dc-alice is not in " + GROUP)


def check_trace(path, what, script_pids=None):
    t = Trace(path)
    check(not t.errors, "%s: format %s" % (what, t.errors[:3]))
    check(os.stat(path).st_uid == alice.uid, "%s: the trace is dc-alice's" % what)
    names = set(t.files.values())
    leaked = [n for n in names if "secret" in n]
    check(not leaked, "%s: no privileged file is named: %s" % (what, leaked))
    check(not [l for l in t.lines if "secret" in l], "%s: 'secret' is on no line: %s" % (what, [l for l in t.lines if "secret" in l][:3]))
    check(any(e["name"] == "openat" and t.file(e) == "/etc/hostname" for e in t.events),
          "%s: dc-alice's own cat is traced" % what)
    end = t.end["args"] if t.end else {}
    held = end.get("withheld_pids", [])
    check(end.get("withheld_events", 0) > 0 and len(held) == 2,
          "%s: both privileged cats withheld: %s" %
          (what, {k: end.get(k) for k in ("withheld_events", "withheld_pids")}))
    check(not [e for e in t.events if e["pid"] in held], "%s: no event of pids %s" % (what, held))
    check(not userns or any(t.file(e) == public for e in t.events),
          "%s: her own user namespace's root is traced" % what)


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    # Readable by the group only, and by root only.
    gsecret, usecret = os.path.join(tmp, "gsecret.txt"), os.path.join(tmp, "usecret.txt")
    for path, owner, mode in ((gsecret, (0, gid), 0o640), (usecret, (0, 0), 0o600)):
        with open(path, "w") as f:
            f.write("secret\n")
        os.chown(path, *owner)
        os.chmod(path, mode)
    sgid, suid = os.path.join(tmp, "cat-sgid"), os.path.join(tmp, "cat-suid")
    for path, owner, mode in ((sgid, (0, gid), 0o2755), (suid, (0, 0), 0o4755)):
        shutil.copy("/bin/cat", path)
        os.chown(path, *owner)
        os.chmod(path, mode)
    check(alice.run(["cat", gsecret]).returncode != 0, "dc-alice cannot read the group's file")
    r = alice.run([sgid, gsecret])
    check(r.returncode == 0 and r.stdout == "secret\n", "the setgid cat can: " + r.stderr)
    # Root of a user namespace of her own, dc-alice gains nothing: kept.
    public = os.path.join(tmp, "public.txt")
    open(public, "w").close()
    os.chmod(public, 0o644)
    userns = alice.run(["unshare", "-r", "true"]).returncode == 0
    # A script, so that no command line names the files.
    script = os.path.join(tmp, "work.sh")
    with open(script, "w") as f:
        f.write("cat /etc/hostname > /dev/null\n%s %s > /dev/null\n%s %s > /dev/null\n"
                % (sgid, gsecret, suid, usecret))
        if userns:
            f.write("unshare -r cat %s > /dev/null\n" % public)
    os.chmod(script, 0o755)
    work = "sh " + script
    obj = generate(tmp, ["probes.d/sys.yaml"])

    # A --user command.
    trace = os.path.join(tmp, "user.pfw.gz")
    r = run([RUNTIME, "--user", alice.name, "-o", trace, obj, "--", "sh", "-c", work])
    check(r.returncode == 0, "--user: the command ran: " + r.stderr)
    check("gained privileges" in r.stderr, "--user: the runtime says so: " + r.stderr)
    check_trace(trace, "--user")

    # -p: root traces a process of dc-alice's; the trace goes to her.
    go = os.path.join(tmp, "go")
    wl = subprocess.Popen(alice.prefix + ["sh", "-c", "while [ ! -e %s ]; do sleep 0.05; done; %s"
                                          % (go, work)])
    trace = os.path.join(tmp, "pid.pfw.gz")
    ready = os.path.join(tmp, "ready-p")
    rt = subprocess.Popen([RUNTIME, "-p", str(wl.pid), "--ready-file", ready, "-o", trace, obj],
                          stderr=subprocess.PIPE, text=True)
    wait_ready(ready, rt)
    open(go, "w").close()
    check(wl.wait(timeout=60) == 0, "-p: dc-alice's work ran")
    err = rt.communicate(timeout=60)[1]
    check(rt.returncode == 0, "-p: the runtime ended: " + err)
    check("gained privileges" in err, "-p: the runtime says so: " + err)
    check_trace(trace, "-p")

    # A job dc-alice starts in a server.
    sock = os.path.join(tmp, "s.sock")
    srvdir = os.path.join(tmp, "srv")  # where each job's owner creates its trace
    os.mkdir(srvdir)
    os.chmod(srvdir, 0o1777)
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(srvdir, "server.pfw.gz"))
    r = alice.run(["env", "LD_PRELOAD=" + CLIENT, "DATACRUMBS_SOCKET=" + sock, "sh", "-c", work])
    check(r.returncode == 0, "server: dc-alice's job ran: " + r.stderr)
    time.sleep(3.5)
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=60)[1]
    check(srv.returncode == 0, "server: it ended cleanly: %s" % err[-500:])
    jobs = glob.glob(os.path.join(srvdir, "sh-*-job*.pfw.gz"))
    check(len(jobs) == 1, "server: one job trace: %s" % jobs)
    for j in jobs:
        check_trace(j, "server job")
done()
