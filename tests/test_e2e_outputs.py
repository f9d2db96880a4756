#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The runtime's output file as a hostile or careless user meets it: it
never writes through a symbolic link or into another user's file, refuses
an existing file unless --force (and then only a plain file of the user
who asked), creates traces mode 0640 owned by the user behind sudo, lets
one runtime write a trace at a time, keeps a command running past -d and
exits with its status, leaves nothing for a command that does not exist,
rejects an unknown -l layer by name, and answers --version."""
import os
import stat
import subprocess
import tempfile
import time

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, slack

need_bpf()
NOBODY = 65534

with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    obj = generate(tmp, ["probes.d/sys.yaml"])

    def trace(out, *extra, env=None, cmd=("true",)):
        return run([RUNTIME, "-o", out] + list(extra) + [obj, "--"] + list(cmd), env=env)

    # Another user's file, even world-writable: never written.
    theirs = os.path.join(tmp, "theirs.pfw.gz")
    with open(theirs, "w") as f:
        f.write("their data\n")
    os.chown(theirs, NOBODY, NOBODY)
    os.chmod(theirs, 0o666)
    for extra in ([], ["--force"]):
        r = trace(theirs, *extra)
        check(r.returncode != 0 and theirs in r.stderr, "refused %s: %s" % (extra, r.stderr))
    check(open(theirs).read() == "their data\n" and stat.S_IMODE(os.stat(theirs).st_mode) == 0o666,
          "another user's file is untouched")
    check("--force" in trace(theirs).stderr, "the refusal names --force")

    # A symbolic link, to a file of one's own: never followed.
    target = os.path.join(tmp, "target")
    with open(target, "w") as f:
        f.write("keep\n")
    link = os.path.join(tmp, "link.pfw.gz")
    os.symlink(target, link)
    for extra in ([], ["--force"]):
        r = trace(link, *extra)
        check(r.returncode != 0 and "link" in r.stderr, "symlink refused %s: %s" % (extra, r.stderr))
    check(open(target).read() == "keep\n", "the link's target is untouched")

    # One's own file: refused without --force, replaced with it.
    mine = os.path.join(tmp, "mine.pfw.gz")
    with open(mine, "w") as f:
        f.write("old\n")
    os.chmod(mine, 0o666)
    r = trace(mine)
    check(r.returncode != 0 and "exists" in r.stderr and open(mine).read() == "old\n",
          "an existing file is refused without --force: " + r.stderr)
    r = trace(mine, "--force")
    check(r.returncode == 0, "--force replaces one's own file: " + r.stderr)
    t = Trace(mine)
    check(not t.errors and t.end is not None and stat.S_IMODE(os.stat(mine).st_mode) == 0o640,
          "the replaced file is a whole trace, mode 0640")

    # Under sudo: the trace is new, 0640, and belongs to the user behind it.
    # The user behind sudo creates it: where they can.
    nob = os.path.join(tmp, "nobody")
    os.mkdir(nob)
    os.chown(nob, NOBODY, NOBODY)
    sudo = os.path.join(nob, "sudo.pfw.gz")
    env = dict(os.environ, SUDO_UID=str(NOBODY), SUDO_GID=str(NOBODY), SUDO_USER="nobody")
    r = trace(sudo, env=env)
    st = os.stat(sudo)
    check(r.returncode == 0 and st.st_uid == NOBODY and st.st_gid == NOBODY
          and stat.S_IMODE(st.st_mode) == 0o640, "owned by SUDO_UID, mode 0640: %o %d"
          % (st.st_mode, st.st_uid))
    # ... and --force under sudo replaces only that user's files.
    r = trace(mine, "--force", env=env)
    check(r.returncode != 0 and "not to you" in r.stderr,
          "--force under sudo refuses root's file: " + r.stderr)

    # One writer per trace: a second runtime on a trace being written
    # refuses, and the first one's trace is whole.
    busy = os.path.join(tmp, "busy.pfw.gz")
    first = subprocess.Popen([RUNTIME, "-q", "-o", busy, obj, "--", "sleep", "%g" % slack(3)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + slack(5)
    while time.monotonic() < deadline and not (os.path.exists(busy) and os.path.getsize(busy)):
        time.sleep(0.05)
    for extra in ([], ["--force"]):
        r = trace(busy, *extra)
        check(r.returncode != 0, "a second runtime on a trace being written is refused %s" % extra)
    check("another datacrumbs-runtime is writing it" in r.stderr, "says why: " + r.stderr)
    out, err = first.communicate(timeout=60)
    t = Trace(busy)
    check(first.returncode == 0 and not t.errors and t.end is not None,
          "the first runtime's trace is whole: " + err)

    # -d stops the tracing, not the command: it runs to its end and its
    # status is the runtime's.
    out = os.path.join(tmp, "duration.pfw.gz")
    flag = os.path.join(tmp, "finished")
    r = trace(out, "-d", "0.5", cmd=("sh", "-c", "sleep 2; echo x > %s; exit 3" % flag))
    t = Trace(out)
    check(r.returncode == 3 and os.path.exists(flag), "-d: the command finished, status 3: %d %s"
          % (r.returncode, r.stderr))
    check(not t.errors and t.end is not None, "-d: the trace is whole")

    # A command that does not exist: said so, exit 127, no trace left.
    out = os.path.join(tmp, "nothing.pfw.gz")
    r = trace(out, cmd=("/nonexistent/command",))
    check(r.returncode == 127 and "/nonexistent/command" in r.stderr and not os.path.exists(out),
          "a missing command leaves no trace: %d %s" % (r.returncode, r.stderr))

    # -l with a layer the object does not have: an error naming its layers.
    r = trace(os.path.join(tmp, "layers.pfw.gz"), "-l", "sys,Posix")
    check(r.returncode != 0 and "'Posix'" in r.stderr and "sys" in r.stderr
          and not os.path.exists(os.path.join(tmp, "layers.pfw.gz")),
          "unknown -l layer refused, nothing written: " + r.stderr)

    # Careless input, one line each naming the cause.
    r = run([RUNTIME, "-o", os.path.join(tmp, "dir.pfw.gz"), tmp, "--", "true"])
    check(r.returncode == 1 and "a directory, not an object" in r.stderr, "object DIR: " + r.stderr)
    r = trace(os.path.join(tmp, "rb.pfw.gz"), "--ringbuf-size", "64G")
    check(r.returncode != 0 and "from 4K to 1G" in r.stderr and "verifier" not in r.stderr,
          "huge ring buffer: " + r.stderr)
    static = os.path.join(tmp, "static")
    src = static + ".c"
    with open(src, "w") as f:
        f.write("#include <unistd.h>\nint main(void) { return write(1, \"\", 0); }\n")
    check(subprocess.run(["gcc", "-static", "-o", static, src]).returncode == 0,
          "a static test program builds (libc6-dev)")
    obj2 = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"], "posix.bpf.o")
    r = run([RUNTIME, "-q", "-o", os.path.join(tmp, "static.pfw.gz"), obj2, "--", static])
    check(r.returncode == 0 and "statically linked" in r.stderr, "static binary hint: " + r.stderr)

    for prog in ("runtime/datacrumbs-runtime", "generator/datacrumbs-gen",
                 "explorer/datacrumbs-explore", "report/datacrumbs-report"):
        r = run([os.path.join(BUILD, prog), "--version"])
        name = os.path.basename(prog)
        check(r.returncode == 0 and r.stdout.startswith(name + " ") and len(r.stdout.split()) == 2,
              "%s --version: %r" % (name, r.stdout))
done()
