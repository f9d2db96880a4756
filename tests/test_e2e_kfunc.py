#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Kernel functions (kprobe.multi) where the kernel allows them: vfs_write
runs once per write syscall of dd. Where it refuses them (a kernel without
CONFIG_KPROBES, as on the project's machines), the runtime names each
refused probe; where it has no kprobe.multi links (before 5.18), the
runtime says so once and the start record names the layer; either way
the rest of the trace goes on, complete."""
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
    trace = os.path.join(tmp, "kf.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "dd", "if=/dev/zero", "of=/dev/null",
             "count=%d" % N, "status=none"])
    check(r.returncode == 0, "runtime: " + r.stderr)
    t = Trace(trace)
    check(not t.errors and t.end["args"]["dropped"] == 0, "complete trace: %s" % t.errors[:3])
    sysw = t.select(cat="sys", name="write", path="/dev/null")
    check(len(sysw) == N, "sys writes: %d" % len(sysw))
    vw = t.select(cat="kfunc", name="vfs_write")
    if "kernel functions need kprobe.multi links (Linux 5.18" in r.stderr:
        print("no kprobe.multi links: checked that the runtime says so")
        check(not vw, "no events from a probe left out")
        check("kfunc" in t.start["args"].get("unsupported", "").split(","),
              "the start record names kfunc: %s" % t.start["args"].get("unsupported"))
    elif "refused a kprobe on vfs_write" in r.stderr:
        print("kprobes refused by this kernel: checked the refusal path")
        check(not vw, "no events from a refused probe")
        check("CONFIG_KPROBES" in r.stderr, "the message says why")
    else:
        mine = [e for e in vw if e["pid"] == sysw[0]["pid"] and e["args"].get("count") == 512]
        check(len(mine) == N, "vfs_write under each write: %d" % len(mine))
        check(all(e["args"]["level"] == 2 for e in mine), "nested under sys write")
done()
