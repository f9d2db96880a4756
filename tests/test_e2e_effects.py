#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What a call does to the descriptor table comes from its spec (ret and
'effect'), never from its name: a program opens a file, closes the fd and
writes to it (EBADF). With probes.d/posix.yaml, where close has 'effect:
close', the failed write is on no file; with the same spec but close
declared without its effect, the runtime keeps the fd on the file, though
the probe is still named close. fcntl's F_DUPFD copy ('effect: dup')
names its file only with the effect."""
import os
import shutil
import tempfile

from dctest import SRC, RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
PROG = r'''
import fcntl, os, sys
a, b = sys.argv[1], sys.argv[2]
fd = os.open(a, os.O_WRONLY | os.O_CREAT, 0o600)
os.close(fd)
try:
    os.write(fd, b"late")
except OSError:
    pass
fd = os.open(b, os.O_WRONLY | os.O_CREAT, 0o600)
copy = fcntl.fcntl(fd, fcntl.F_DUPFD, 50)
os.write(copy, b"copy")
'''
python = shutil.which("python3")
with tempfile.TemporaryDirectory() as tmp:
    posix = open(os.path.join(SRC, "probes.d", "posix.yaml")).read()
    check("effect: close" in posix and "effect: dup" in posix,
          "posix.yaml gives close and fcntl their effects")
    bare = os.path.join(tmp, "bare.yaml")
    open(bare, "w").write(posix.replace(", effect: close", "").replace(", effect: dup", ""))
    prog = os.path.join(tmp, "prog.py")
    open(prog, "w").write(PROG)
    a, b = os.path.join(tmp, "a"), os.path.join(tmp, "b")
    for name, spec, effects in (("spec", "probes.d/posix.yaml", True), ("bare", bare, False)):
        obj = generate(tmp, [spec], name + ".bpf.o")
        trace = os.path.join(tmp, name + ".pfw.gz")
        for f in (a, b):
            if os.path.exists(f):
                os.unlink(f)
        r = run([RUNTIME, "-q", "-o", trace, obj, "--", python, prog, a, b])
        check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-500:]))
        t = Trace(trace)
        check(not t.errors, "%s: format: %s" % (name, t.errors[:3]))
        closes = [e for e in t.select(cat="POSIX", name="close") if t.file(e) == a]
        check(len(closes) == 1, "%s: one close of a: %d" % (name, len(closes)))
        late = [e for e in t.select(cat="POSIX", name="write") if e["args"].get("ret") == -1]
        check(len(late) == 1, "%s: one failed write: %d" % (name, len(late)))
        where = t.file(late[0]) if late else None
        if effects:
            check(where is None, "the write after close is on no file (got %s)" % where)
        else:
            check(where == a, "without 'effect: close' the closed fd still names a (got %s)" % where)
        copies = [e for e in t.select(cat="POSIX", name="write") if e["args"].get("fd", 0) >= 50]
        check(len(copies) == 1, "%s: one write through the fcntl copy: %d" % (name, len(copies)))
        got = t.file(copies[0]) if copies else None
        check((got == b) == effects,
              "%s: the F_DUPFD copy names b %s 'effect: dup' (got %s)" %
              (name, "with" if effects else "only with", got))
done()
