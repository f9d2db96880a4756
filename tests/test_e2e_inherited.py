#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the command inherits through the runtime: a descriptor left open,
not close-on-exec, by whoever started the runtime is the command's from
its first instruction, so a write to it is named though the command never
opened it (and exits at once, before the runtime could look); the
runtime's own descriptors are all close-on-exec, so none of their
numbers names a file in the command: writes to them fail and name none."""
import os
import sys
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()

PROG = """import os
os.write(7, b"x" * 17)
for fd in range(3, 64):
    if fd != 7:
        try:
            os.write(fd, b"y" * 19)
        except OSError:
            pass
"""

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/posix.yaml"])
    trace, target = os.path.join(tmp, "t.pfw.gz"), os.path.join(tmp, "inherited.txt")
    r = run(["sh", "-c", 'exec 7>"$3"; exec "$0" -o "$1" "$2" -- "$4" -c "$5"',
             RUNTIME, trace, obj, target, sys.executable, PROG])
    check(r.returncode == 0, "the runtime ran: %d %s" % (r.returncode, r.stderr[-400:]))
    check(open(target).read() == "x" * 17, "the command wrote to its inherited fd 7")
    t = Trace(trace)
    w7 = [e for e in t.select(name="write") if e["args"].get("fd") == 7]
    check(len(w7) == 1 and w7[0]["args"].get("ret") == 17,
          "one write of 17 bytes on fd 7: %s" % [e["args"] for e in w7])
    check(w7 and t.file(w7[0]) == target, "it is named %s: %s" % (target, w7 and t.file(w7[0])))
    bad = [e for e in t.select(name="write", pid=w7[0]["pid"] if w7 else None)
           if e["args"].get("fd") not in (None, 7) and e["args"].get("ret", 0) < 0]
    check(len(bad) >= 50, "writes to fds 3-63 the command never had failed: %d" % len(bad))
    named = [(e["args"]["fd"], t.file(e)) for e in bad if t.file(e)]
    check(not named, "none of them names a file (the runtime's own): %s" % named[:5])
done()
