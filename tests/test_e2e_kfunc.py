#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Kernel functions: vfs_write runs once per write syscall of dd, seen
through kprobe.multi links, through one perf-event kprobe a function
(kernels without those links, DATACRUMBS_FALLBACKS=kprobe_multi), and by
the function's address (kernels without BPF cookies too, "all"). Where
the kernel refuses kprobes (one without CONFIG_KPROBES, as the project's
machines are), the runtime names each refused probe and the rest of the
trace goes on, complete."""
import os
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
N = 300
with tempfile.TemporaryDirectory() as tmp:
    spec = os.path.join(tmp, "kf.yaml")
    open(spec, "w").write("layer: kfunc\nmechanism: kfunc\nprobes:\n"
                          "  - {name: vfs_write, args: [_, _, count], ret: size}\n")
    obj = generate(tmp, ["probes.d/sys.yaml", spec])
    for fb in (None, "kprobe_multi", "all"):
        trace = os.path.join(tmp, "kf-%s.pfw.gz" % fb)
        env = dict(os.environ, DATACRUMBS_FALLBACKS=fb) if fb else None
        r = run([RUNTIME, "-o", trace, obj, "--", "dd", "if=/dev/zero", "of=/dev/null",
                 "count=%d" % N, "status=none"], env=env)
        what = "fallbacks %s" % fb
        check(r.returncode == 0, "%s: runtime: %s" % (what, r.stderr))
        t = Trace(trace)
        check(not t.errors and t.end["args"]["dropped"] == 0, "%s: complete trace: %s" % (what, t.errors[:3]))
        used = t.start["args"].get("fallbacks", "").split(",")
        check(fb is None or "kprobe_multi" in used, "%s: the start record names it: %s" % (what, used))
        sysw = t.select(cat="sys", name="write", path="/dev/null")
        check(len(sysw) == N, "%s: sys writes: %d" % (what, len(sysw)))
        vw = t.select(cat="kfunc", name="vfs_write")
        if "refused a kprobe on vfs_write" in r.stderr:
            print("%s: kprobes refused by this kernel: checked the refusal path" % what)
            check(not vw, "%s: no events from a refused probe" % what)
            check("CONFIG_KPROBES" in r.stderr, "%s: the message says why" % what)
        else:
            mine = [e for e in vw if e["pid"] == sysw[0]["pid"] and e["args"].get("count") == 512]
            check(len(mine) == N, "%s: vfs_write under each write: %d" % (what, len(mine)))
            check(all(e["args"]["level"] == 2 for e in mine), "%s: nested under sys write" % what)
            check(all(e["args"].get("ret") == 512 for e in mine), "%s: each returns 512" % what)
done()
