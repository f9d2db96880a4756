#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A runtime killed with SIGKILL mid-trace leaves a readable prefix: every
complete gzip member inflates, ends on a line, and every line is JSON."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, wait_ready

need_bpf()
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    trace = os.path.join(tmp, "killed.pfw.gz")
    # A workload that writes steadily for longer than we let it run.
    work = ["sh", "-c", "while :; do dd if=/dev/zero of=%s/f bs=4k count=200 2>/dev/null; done" % tmp]
    # Killed 3.5 s into tracing, not into loading (a minute in a guest).
    ready = os.path.join(tmp, "ready")
    p = subprocess.Popen([RUNTIME, "-q", "--ready-file", ready, "-o", trace, obj, "--"] + work,
                         start_new_session=True)
    check(wait_ready(ready, p), "the runtime traces")
    time.sleep(3.5)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    os.killpg(p.pid, signal.SIGKILL)  # the workload shares its session
    t = Trace(trace, complete=False)
    check(not t.errors, "readable prefix: %s" % t.errors[:5])
    check(t.members >= 2, "members closed every second: %d" % t.members)
    check(len(t.select(cat="POSIX", name="write")) > 100, "events before the kill survive")
    check(t.end is None, "no end record from a killed runtime")
done()
