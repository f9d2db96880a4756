#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A process that gains privileges never reaches a less privileged
user's trace: nobody runs a setuid-root copy of cat on /etc/shadow, in a
--user command and in a server job; the trace has none of its events and
no trace of /etc/shadow, the end record counts what was withheld and
names the pid, and the user's own processes are traced as before."""
import glob
import os
import shutil
import signal
import tempfile
import time

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, start_server

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")


def check_trace(t, what):
    check(not t.errors, "%s: format %s" % (what, t.errors[:3]))
    names = set(t.files.values())
    check("/etc/shadow" not in names, "%s: /etc/shadow is in no record" % what)
    check(any(e["name"] == "openat" and t.file(e) == "/etc/hostname" for e in t.events),
          "%s: the user's own cat is traced" % what)
    end = t.end["args"]
    check(end.get("withheld_events", 0) > 0 and len(end.get("withheld_pids", [])) == 1,
          "%s: withheld counted: %s" % (what, {k: end.get(k) for k in ("withheld_events", "withheld_pids")}))
    pid = end["withheld_pids"][0] if end.get("withheld_pids") else None
    check(not [e for e in t.events if e["pid"] == pid], "%s: no event of pid %s" % (what, pid))


with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    suid = os.path.join(tmp, "cat-suid")
    shutil.copy("/bin/cat", suid)
    os.chown(suid, 0, 0)
    os.chmod(suid, 0o4755)
    script = "cat /etc/hostname > /dev/null; %s /etc/shadow > /dev/null" % suid
    obj = generate(tmp, ["probes.d/sys.yaml"])

    # A --user command: the trace is nobody's.
    trace = os.path.join(tmp, "user.pfw.gz")
    r = run([RUNTIME, "--user", "nobody", "-o", trace, obj, "--", "sh", "-c", script])
    check(r.returncode == 0, "the setuid cat ran (as root): %s" % r.stderr)
    check("gained privileges" in r.stderr, "the runtime says so: " + r.stderr)
    check_trace(Trace(trace), "--user")

    # A job of nobody's in a server.
    sock = os.path.join(tmp, "s.sock")
    srvdir = os.path.join(tmp, "srv")  # where each job's owner creates its trace
    os.mkdir(srvdir)
    os.chmod(srvdir, 0o1777)
    srv = start_server(obj, sock, os.path.join(tmp, "ready"), os.path.join(srvdir, "server.pfw.gz"))
    r = run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "env",
             "LD_PRELOAD=" + CLIENT, "DATACRUMBS_SOCKET=" + sock, "sh", "-c", script])
    check(r.returncode == 0, "nobody's job ran: " + r.stderr)
    time.sleep(3.5)
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=30)[1]
    jobs = glob.glob(os.path.join(srvdir, "sh-*-job*.pfw.gz"))
    check(len(jobs) == 1, "one job trace: %s" % jobs)
    for j in jobs:
        check(os.stat(j).st_uid == 65534, "the job's trace is nobody's")
        check_trace(Trace(j), "server job")
done()
