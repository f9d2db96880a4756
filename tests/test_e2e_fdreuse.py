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


def check_names(mode, totals, truth):
    n = truth["rounds"]
    for cat in ("POSIX", "sys"):
        for path in truth["files"]:
            calls = {k[1]: v for k, v in totals.items() if k[0] == cat and k[2] == path}
            opens = sum(c for name, (c, _) in calls.items() if name.startswith("open"))
            check(opens == n, "%s %s opens of %s: %d, want %d" % (mode, cat, path, opens, n))
            check(calls.get("write") == (n, n), "%s %s writes of %s: %s, want (%d, %d)"
                  % (mode, cat, path, calls.get("write"), n, n))
            check(calls.get("close", (0, 0))[0] == n, "%s %s closes of %s: %s, want %d"
                  % (mode, cat, path, calls.get("close"), n))


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    for mode in ("trace", "profile"):
        out = os.path.join(tmp, mode + ".pfw.gz")
        r = run([RUNTIME, "--mode", mode, "-o", out, obj, "--", FDREUSE, tmp, "20000"])
        check(r.returncode == 0, "%s run: %s" % (mode, r.stderr))
        truth = json.loads(r.stdout)
        t = Trace(out)
        check(not t.errors, "%s format: %s" % (mode, t.errors[:3]))
        check(t.end["args"]["dropped"] == 0, "%s: nothing dropped" % mode)
        check_names(mode, call_totals(t) if mode == "trace" else counter_totals(t)[0], truth)
done()
