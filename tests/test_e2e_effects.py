#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a call does to the descriptor table comes from its spec (ret and
'effect'), never from its name. A program opens a file, closes the fd and
writes to it (EBADF): with probes.d/posix.yaml, where close has 'effect:
close', the failed write is on no file; with close declared without its
effect, the runtime keeps the fd on the file, though the probe is still
named close. fcntl(F_DUPFD) copies an fd to 50, whose file is then
unlinked: its write names the file only with 'effect: dup'. Without it
the copy is a descriptor no call the runtime follows made, which /proc
can name only as what it is by then, "b (deleted)", or not at all."""
import os
import shutil
import tempfile

from dctest import SRC, RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
PROG = r'''
import fcntl, os, sys
a, b, c = sys.argv[1:4]
fd = os.open(a, os.O_WRONLY | os.O_CREAT, 0o600)
os.close(fd)
try:
    os.write(fd, b"late")
except OSError:
    pass
fd = os.open(c, os.O_WRONLY | os.O_CREAT, 0o600)
os.dup2(fd, 50)
os.close(50)
os.close(fd)
fd = os.open(b, os.O_WRONLY | os.O_CREAT, 0o600)
copy = fcntl.fcntl(fd, fcntl.F_DUPFD, 50)
assert copy == 50
os.unlink(b)
os.write(copy, b"copy")
'''
python = shutil.which("python3")
with tempfile.TemporaryDirectory() as tmp:
    posix = open(os.path.join(SRC, "probes.d", "posix.yaml")).read()
    check("effect: close" in posix and "effect: dup" in posix,
          "posix.yaml gives close and fcntl their effects")
    variants = (("spec", "probes.d/posix.yaml", True, True),
                ("noclose", posix.replace(", effect: close", ""), False, True),
                ("nodup", posix.replace(", effect: dup", ""), True, False))
    prog = os.path.join(tmp, "prog.py")
    open(prog, "w").write(PROG)
    a, b, c = (os.path.join(tmp, n) for n in "abc")
    for name, spec, closes, dups in variants:
        if not spec.endswith(".yaml"):
            path = os.path.join(tmp, name + ".yaml")
            open(path, "w").write(spec)
            spec = path
        obj = generate(tmp, [spec], name + ".bpf.o")
        trace = os.path.join(tmp, name + ".pfw.gz")
        for f in (a, b, c):
            if os.path.exists(f):
                os.unlink(f)
        r = run([RUNTIME, "-q", "-o", trace, obj, "--", python, prog, a, b, c])
        check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-500:]))
        t = Trace(trace)
        check(not t.errors, "%s: format: %s" % (name, t.errors[:3]))
        check(len([e for e in t.select(cat="POSIX", name="close") if t.file(e) == a]) == 1,
              "%s: one close of a" % name)
        late = [e for e in t.select(cat="POSIX", name="write") if e["args"].get("ret") == -1]
        check(len(late) == 1, "%s: one failed write: %d" % (name, len(late)))
        where = t.file(late[0]) if late else None
        check(where == (None if closes else a),
              "%s: the write after close names %s (got %s)" %
              (name, "no file" if closes else "a, the closed fd's file", where))
        copies = [e for e in t.select(cat="POSIX", name="write") if e["args"].get("fd") == 50]
        check(len(copies) == 1, "%s: one write through the fcntl copy: %d" % (name, len(copies)))
        got = t.file(copies[0]) if copies else None
        check(got == b if dups else got in (None, b + " (deleted)"),
              "%s: the F_DUPFD copy names %s (got %s)" %
              (name, "b" if dups else "no file, or b as /proc has it", got))
done()
