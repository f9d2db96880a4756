#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Threads that reuse each other's fd numbers all the time: every open,
write and close is named by the file it was made on, in trace mode and in
profile mode, at the POSIX and sys layers (a close's record may come after
another thread's open of the same number)."""
import json
import os
import tempfile

from dctest import (BUILD, RUNTIME, Trace, call_totals, check, counter_totals, done, generate,
                    need_bpf, run)

need_bpf()
FDREUSE = os.path.join(BUILD, "tests", "fdreuse")


def check_names(mode, totals, truth, complete):
    """Each file's opens, writes and closes: all of them when nothing was
    lost; else (a slow machine: an emulated guest) no more than were
    made, and no more writes or closes left unnamed than opens that did
    not come (a lost open cannot name the calls on its descriptor)."""
    n = truth["rounds"]
    same = (lambda got: got == n) if complete else (lambda got: 0 < got <= n)
    for cat in ("POSIX", "sys"):
        unopened = 0
        for path in truth["files"]:
            calls = {k[1]: v for k, v in totals.items() if k[0] == cat and k[2] == path}
            opens = sum(c for name, (c, _) in calls.items() if name.startswith("open"))
            writes, size = calls.get("write", (0, 0))
            closes = calls.get("close", (0, 0))[0]
            unopened += n - opens
            check(same(opens), "%s %s opens of %s: %d, want %d" % (mode, cat, path, opens, n))
            check(same(writes) and size == writes, "%s %s writes of %s: (%d, %d), want (%d, %d)"
                  % (mode, cat, path, writes, size, n, n))
            check(same(closes), "%s %s closes of %s: %d, want %d" % (mode, cat, path, closes, n))
        for name in ("write", "close"):
            c = totals.get((cat, name, None), (0, 0))[0]
            check(c <= unopened, "%s %s %s with no file: %d (opens that did not come: %d)"
                  % (mode, cat, name, c, unopened))


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    for mode in ("trace", "profile"):
        out = os.path.join(tmp, mode + ".pfw.gz")
        r = run([RUNTIME, "--mode", mode, "-o", out, obj, "--", FDREUSE, tmp, "20000"])
        check(r.returncode == 0, "%s run: %s" % (mode, r.stderr))
        truth = json.loads(r.stdout)
        t = Trace(out)
        check(not t.errors, "%s format: %s" % (mode, t.errors[:3]))
        lost = t.end["args"]["dropped"]
        if lost:
            print("%s: %d events lost (counted): checking only what came" % (mode, lost))
        check_names(mode, call_totals(t) if mode == "trace" else counter_totals(t)[0], truth,
                    not lost)
done()
