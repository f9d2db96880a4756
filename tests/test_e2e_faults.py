#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Faults around the runtime: the traced program crashes or is killed
(the trace is still closed, with its end record, and the runtime exits with
the program's status), and the output disk fills up (a clear error, the
program unaffected, and the file holds whole gzip members only)."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import RUNTIME, Trace, check, done, generate, gzip_members, need_bpf, run, wait_ready

need_bpf()
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    trace = os.path.join(tmp, "t.pfw.gz")

    # The program crashes: 128 + SIGSEGV, and a complete trace.
    r = run([RUNTIME, "-q", "-o", trace, obj, "--", "sh", "-c", "echo hi >/dev/null; kill -SEGV $$"])
    check(r.returncode == 128 + signal.SIGSEGV, "crashed command: exit %d" % r.returncode)
    t = Trace(trace)
    check(not t.errors and t.end is not None, "trace of a crashed command: %s" % t.errors[:3])

    # The program is killed from outside in the middle of its I/O.
    trace = os.path.join(tmp, "killed.pfw.gz")
    data = os.path.join(tmp, "data")
    ready = os.path.join(tmp, "ready")
    p = subprocess.Popen([RUNTIME, "-q", "--ready-file", ready, "-o", trace, obj, "--", "dd",
                          "if=/dev/zero", "of=" + data, "bs=4k", "count=100000000"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    check(wait_ready(ready, p), "the runtime traces")
    time.sleep(2)
    victim = int(subprocess.check_output(["pgrep", "-P", str(p.pid)]).split()[0])
    os.kill(victim, signal.SIGKILL)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    check(p.returncode == 128 + signal.SIGKILL, "killed command: exit %d %s" % (p.returncode, err))
    t = Trace(trace)
    check(not t.errors and t.end is not None, "trace of a killed command: %s" % t.errors[:3])
    check(len(t.select(cat="POSIX", name="write", path=data)) > 100, "its writes are there")

    # The output disk fills up.
    if os.system("command -v mount >/dev/null") != 0:
        done()
    full = os.path.join(tmp, "full")
    os.mkdir(full)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", full]).returncode:
        print("SKIP: cannot mount a tmpfs for the disk-full test")
        done()
    try:
        trace = os.path.join(full, "t.pfw.gz")
        n = 100000
        r = run([RUNTIME, "-q", "--member-size", "64K", "-o", trace, obj, "--",
                 "dd", "if=/dev/zero", "of=" + data, "bs=16", "count=%d" % n])
        check(r.returncode == 1, "disk full: runtime exit %d" % r.returncode)
        check("%s: No space left on device" % trace in r.stderr,
              "disk full named with the file: %s" % r.stderr)
        check("%d+0 records out" % n in r.stderr and os.path.getsize(data) == 16 * n,
              "the program finished its work: %s" % r.stderr)
        with open(trace, "rb") as f:
            members, truncated = gzip_members(f.read())
        check(not truncated, "no partial gzip member left at the end")
        check(len(members) >= 2, "what was written before is there: %d members" % len(members))
        t = Trace(trace, complete=False)
        check(not t.errors, "the written prefix is a valid trace: %s" % t.errors[:3])
        check(len(t.events) > 1000, "events before the disk filled: %d" % len(t.events))
    finally:
        subprocess.run(["umount", "-l", full])
done()
