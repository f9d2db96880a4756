#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Run-time filters on one object: --layers traces only the layers named;
--min-duration drops short calls in the kernel, counted, while opens and
closes stay (they name the files); --paths and --exclude-paths keep calls
on files under prefixes, counted. Checked against an unfiltered run."""
import os
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
N = 1000
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    f = os.path.join(tmp, "out")
    dd = ["dd", "if=/dev/zero", "of=" + f, "bs=4k", "count=%d" % N, "status=none"]

    def trace(name, *opts):
        path = os.path.join(tmp, name + ".pfw.gz")
        r = run([RUNTIME, "-q", "-o", path] + list(opts) + [obj, "--"] + dd)
        check(r.returncode == 0, "%s: %s" % (name, r.stderr))
        t = Trace(path)
        check(not t.errors, "%s format: %s" % (name, t.errors[:3]))
        return t

    full = trace("full")
    t = trace("layers", "--layers", "POSIX")
    check(t.events and {e["cat"] for e in t.events} == {"POSIX"}, "--layers POSIX: only POSIX")
    check(len(t.select(cat="POSIX", name="write", path=f)) == N, "... all its writes")
    check(t.start["args"]["probes"] < full.start["args"]["probes"], "fewer probes attached")

    t = trace("short", "--min-duration", "10")
    short = t.end["args"]["filtered_short"]
    check(t.end["args"]["dropped"] == 0, "filtering is not loss")
    check(not t.select(name="write", path=f) and not t.select(name="read", path="/dev/zero"),
          "--min-duration 10s: no read or write left")
    want = sum(1 for e in full.events if e["name"] in ("read", "write"))
    check(short >= want, "filtered_short %d counts at least the %d reads and writes" % (short, want))
    check(len(t.select(cat="sys", name="openat", path=f)) == 1 and
          len(t.select(cat="POSIX", name="open", path=f)) == 1 and t.select(name="close"),
          "opens and closes kept: they say what fds mean")

    t = trace("paths", "--paths", tmp)
    check(t.events and all((t.file(e) or "").startswith(tmp + "/") for e in t.events),
          "--paths: only calls on files under it")
    check(len(t.select(cat="sys", name="write", path=f)) == N, "... all writes to it")
    check(t.end["args"]["filtered_paths"] == len(full.events) - len(t.events),
          "filtered_paths %d = %d - %d" % (t.end["args"]["filtered_paths"], len(full.events),
                                           len(t.events)))
    t = trace("xpaths", "--exclude-paths", "/dev")
    check(not [e for e in t.events if (t.file(e) or "").startswith("/dev/")], "--exclude-paths /dev")
    check(len(t.select(cat="POSIX", name="write", path=f)) == N, "... other files kept")
done()
