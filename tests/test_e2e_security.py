#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The runtime runs as root next to users' jobs: without the privileges it
needs it names the missing capabilities; with file capabilities instead of
root it traces; it never writes through a symbolic or hard link; and the
trace belongs to the user it traces (--user, or the owner of -p); a job
cannot steer where the server writes its trace by naming itself."""
import os
import resource
import shutil
import signal
import stat
import subprocess
import tempfile
import time

from dctest import (RUNTIME, Trace, check, done, generate, need_bpf, need_tool, run, slack,
                    start_server)

NOBODY = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

need_bpf()
need_tool("setpriv")
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    os.chmod(obj, 0o644)
    out = os.path.join(tmp, "nobody")
    os.mkdir(out)
    os.chown(out, 65534, 65534)
    trace = os.path.join(out, "t.pfw.gz")

    # No privileges: every missing capability named, exit 1, no file.
    r = run(NOBODY + [RUNTIME, "-o", trace, obj, "--", "true"])
    check(r.returncode == 1 and "missing capabilities CAP_BPF, CAP_PERFMON, "
          "CAP_DAC_READ_SEARCH" in r.stderr, "as nobody: %d %s" % (r.returncode, r.stderr))
    check(not os.path.exists(trace), "no trace left without privileges")
    # Some of them: only the others are named.
    r = run(NOBODY + ["--inh-caps=+bpf", "--ambient-caps=+bpf", RUNTIME, "-o", trace, obj,
                      "--", "true"])
    check(r.returncode == 1 and "missing capabilities CAP_PERFMON, CAP_DAC_READ_SEARCH"
          in r.stderr and "CAP_BPF" not in r.stderr, "nobody with CAP_BPF: " + r.stderr)

    # File capabilities instead of root (docs/cli.md): nobody traces.
    if shutil.which("setcap"):
        rt = os.path.join(tmp, "datacrumbs-runtime")
        shutil.copy(RUNTIME, rt)
        os.chmod(rt, 0o755)
        caps = "cap_bpf,cap_perfmon,cap_dac_read_search"
        subprocess.run(["setcap", caps + "+ep", rt], check=True)
        cmd = NOBODY + [rt, "-q", "-o", trace, obj, "--", "sh", "-c", "echo hi > %s/f" % out]
        r = run(cmd)
        # Before 5.11 the kernel charges maps to RLIMIT_MEMLOCK, which
        # only CAP_SYS_RESOURCE lifts past its hard limit (docs/cli.md).
        release = tuple(int(x) for x in os.uname().release.split(".")[:2])
        if release < (5, 11) and resource.getrlimit(resource.RLIMIT_MEMLOCK)[1] != resource.RLIM_INFINITY:
            check(r.returncode == 1 and "missing capability CAP_SYS_RESOURCE" in r.stderr and
                  not os.path.exists(trace), "file capabilities before 5.11: %d %s" % (r.returncode, r.stderr))
            subprocess.run(["setcap", caps + ",cap_sys_resource+ep", rt], check=True)
            r = run(cmd)
        check(r.returncode == 0, "nobody with file capabilities: %d %s" % (r.returncode, r.stderr))
        if r.returncode == 0:
            t = Trace(trace)
            check(not t.errors and len(t.select(cat="POSIX", name="write",
                                                path=out + "/f")) == 1,
                  "the traced write is there: %s" % t.errors[:3])
            check(os.stat(trace).st_uid == 65534, "the trace is nobody's")
            os.unlink(trace)

    # Never through a symbolic or a hard link.
    victim = os.path.join(tmp, "victim")
    with open(victim, "w") as f:
        f.write("keep\n")
    link = os.path.join(tmp, "sym.pfw.gz")
    os.symlink(victim, link)
    r = run([RUNTIME, "-o", link, obj, "--", "true"])
    check(r.returncode == 1 and "cannot create %s: it is a symbolic link" % link in r.stderr,
          "symlink: %d %s" % (r.returncode, r.stderr))
    hard = os.path.join(tmp, "hard.pfw.gz")
    os.link(victim, hard)
    r = run([RUNTIME, "-o", hard, obj, "--", "true"])
    check(r.returncode == 1 and "%s: not a plain file of one link" % hard in r.stderr,
          "hard link: %d %s" % (r.returncode, r.stderr))
    check(open(victim).read() == "keep\n", "the linked file is untouched")

    # --user: the command runs as that user, who owns the trace.
    trace = os.path.join(tmp, "user.pfw.gz")
    r = run([RUNTIME, "-q", "--user", "nobody", "-o", trace, obj, "--", "id", "-u"])
    check(r.returncode == 0 and r.stdout.strip() == "65534", "--user: %s %s" % (r.stdout, r.stderr))
    st = os.stat(trace)
    check(st.st_uid == 65534 and stat.S_IMODE(st.st_mode) == 0o640,
          "--user's trace is theirs, 0640: uid %d mode %o" % (st.st_uid, stat.S_IMODE(st.st_mode)))
    check(not Trace(trace).errors, "--user trace is complete")
    r = run([RUNTIME, "--user", "no-such-user-dc", "-o", trace, obj, "--", "true"])
    check(r.returncode == 2 and "--user: no user 'no-such-user-dc'" in r.stderr, "unknown --user")

    # -p: the trace belongs to the process's owner.
    # Alive until the runtime has attached, in a slow guest too.
    p = subprocess.Popen(NOBODY + ["sh", "-c", "sleep %g; echo x > /dev/null" % slack(2)])
    time.sleep(0.2)
    trace = os.path.join(tmp, "pid.pfw.gz")
    r = run([RUNTIME, "-q", "-p", str(p.pid), "-o", trace, obj])
    p.wait()
    check(r.returncode == 0 and os.stat(trace).st_uid == 65534,
          "-p: trace owned by the process's owner: %d uid %d" % (r.returncode, os.stat(trace).st_uid))

    # A job named "../esc/x" (prctl takes any bytes): its trace stays in
    # the server's directory, under a plain name.
    srvdir, esc = os.path.join(tmp, "srv"), os.path.join(tmp, "esc")
    os.mkdir(srvdir)
    os.mkdir(esc)
    sock, ready = os.path.join(tmp, "dc.sock"), os.path.join(tmp, "ready")
    srv = start_server(obj, sock, ready, os.path.join(srvdir, "server.pfw.gz"))
    check(stat.S_IMODE(os.stat(sock).st_mode) == 0o666, "anyone may connect; SO_PEERCRED decides")
    job = subprocess.Popen(["python3", "-c",
                            "import ctypes, sys\n"
                            "ctypes.CDLL(None).prctl(15, b'../esc/x', 0, 0, 0)\n"
                            "print('named', flush=True)\n"
                            "sys.stdin.readline()\n"
                            "open(%r, 'w').write('x')\n" % os.path.join(tmp, "job.txt")],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    # Tracked only once it has its name: python can take longer than a
    # fixed sleep to start while other tests run.
    check(job.stdout.readline() == "named\n", "the job named itself")
    r = run([RUNTIME, "--socket", sock, "--track", str(job.pid)])
    check(r.returncode == 0, "--track the job: " + r.stdout + r.stderr)
    job.communicate("go\n")
    time.sleep(1.5)
    srv.send_signal(signal.SIGTERM)
    srv.communicate(timeout=30)
    check(not os.listdir(esc), "nothing written outside the server's directory: %s" % os.listdir(esc))
    named = [f for f in os.listdir(srvdir) if f.startswith(".._esc_x-")]
    check(len(named) == 1, "the job's trace, plainly named, beside the server's: %s" % os.listdir(srvdir))
done()
