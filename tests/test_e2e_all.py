#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""--all traces processes the runtime did not start: a dd started after
the runtime, by another parent, has all its writes in the trace, and the
runtime's own I/O (writing the trace) is not in it."""
import os
import subprocess
import tempfile
import time

from dctest import RUNTIME, Trace, check, done, generate, need_bpf

need_bpf()
N = 500
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml"])
    trace = os.path.join(tmp, "all.pfw.gz")
    out = os.path.join(tmp, "outside")
    rt = subprocess.Popen([RUNTIME, "--all", "-d", "6", "-o", trace, obj],
                          stderr=subprocess.PIPE, text=True)
    check("tracing" in rt.stderr.readline(), "runtime started")
    dd = subprocess.run(["dd", "if=/dev/zero", "of=" + out, "bs=4k", "count=%d" % N, "status=none"])
    err = rt.communicate(timeout=30)[1]
    check(rt.returncode == 0, "exit %s: %s" % (rt.returncode, err))
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    w = t.select(cat="sys", name="write", path=out)
    check(len(w) == N, "writes of a process started outside: %d, want %d" % (len(w), N))
    check(not [e for e in t.events if e["pid"] == rt.pid], "the runtime does not trace itself")
done()
