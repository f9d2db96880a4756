#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Every kernel-feature fallback at once (DATACRUMBS_FALLBACKS=all), as a
5.10 kernel needs them, on whichever kernel runs the test: per-thread
state by tid, processes marked from user space, uprobes and tracepoints
without BPF cookies, wrappers recognised by code without bpf_find_vma.
dd, run by a shell so a fork is followed, with N blocks gives exactly N
sys and N POSIX writes, and every traced syscall's count equals strace's;
the STDIO workload's calls, uprobes found without cookies, equal its own
counts; the start record names the fallbacks; every hash map is
preallocated and the kernel never warned of one allocated at run time."""
import json
import os
import sys
import tempfile

from dctest import (BUILD, RUNTIME, Trace, check, check_against_strace, done, generate,
                    need_bpf, need_tool, run)

need_bpf()
need_tool("strace")
N, BS = 2000, 4096
ALL = ["threads", "syscall_prog", "cookies", "find_vma", "prealloc"]
# The runtime's maps, from the traced command: [type, flags] each.
MAPS = r"""
import json, os, sys
rt, maps = os.getppid(), []
for fd in os.listdir("/proc/%d/fdinfo" % rt):
    try:
        info = dict(l.split(":", 1) for l in open("/proc/%d/fdinfo/%s" % (rt, fd)) if ":" in l)
    except OSError:
        continue
    if "map_type" in info:
        maps.append([int(info["map_type"]), int(info["map_flags"], 16)])
json.dump(maps, open(sys.argv[1], "w"))
"""
HASH, NO_PREALLOC = 1, 1
ENV = dict(os.environ, DATACRUMBS_FALLBACKS="all")

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    out = os.path.join(tmp, "f")
    dd = ["sh", "-c", "dd if=/dev/zero of=%s bs=%d count=%d" % (out, BS, N)]
    trace = os.path.join(tmp, "dd.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--"] + dd, env=ENV)
    check(r.returncode == 0, "runtime exit %d: %s" % (r.returncode, r.stderr))
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:5])
    check(t.start["args"]["fallbacks"].split(",") == ALL,
          "fallbacks named: %s" % t.start["args"]["fallbacks"])
    check(t.start["args"]["uprobes"] == "perf", "no cookies: perf-event uprobes")
    for cat in ("sys", "POSIX"):
        w = t.select(cat=cat, name="write", path=out)
        check(len(w) == N, "%s write on %s: %d events, want %d" % (cat, out, len(w), N))
        check(all(e["args"]["size"] == BS and e["args"]["ret"] == BS for e in w),
              "%s writes are %d bytes each" % (cat, BS))
    check(t.end["args"]["dropped"] == 0, "dropped %s" % t.end["args"]["dropped"])
    ids = {e["id"]: e for e in t.events}
    check(all(ids[e["args"]["p_idx"]]["name"] == "write"
              for e in t.select(cat="sys", name="write", path=out)),
          "sys write nests under POSIX write")
    os.unlink(out)
    check_against_strace(t, dd, os.path.join(tmp, "strace.txt"))

    # STDIO calls are uprobes, found by place; their returns by the frame.
    work = os.path.join(BUILD, "tests", "stdio_calls")
    trace = os.path.join(tmp, "stdio.pfw.gz")
    with open(os.path.join(tmp, "stdout.txt"), "w") as so:
        r = run([RUNTIME, "-o", trace, obj, "--", work, tmp], stdout=so, env=ENV)
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(open(os.path.join(tmp, "stdout.txt")).read())
    t = Trace(trace)
    for name in ("fwrite", "fread", "fprintf", "fgets"):
        got = t.select(cat="STDIO", name=name, path=truth["file"])
        check(len(got) == truth[name], "%s: %d calls, want %d" % (name, len(got), truth[name]))
    fw = t.select(cat="STDIO", name="fwrite", path=truth["file"])
    check(all(e["args"]["size"] == truth["fwrite_size"] for e in fw), "fwrite sizes")

    # Preallocated hash maps only: before Linux 6.1 a tracing program
    # using one allocated at run time makes the kernel WARN.
    listed = os.path.join(tmp, "maps.json")
    r = run([RUNTIME, "-q", "-o", os.path.join(tmp, "maps.pfw.gz"), obj, "--",
             sys.executable, "-c", MAPS, listed], env=ENV)
    maps = json.load(open(listed)) if r.returncode == 0 and os.path.exists(listed) else []
    hashes = [m for m in maps if m[0] == HASH]
    check(hashes and not [m for m in hashes if m[1] & NO_PREALLOC],
          "every hash map preallocated: %s %s" % (maps, r.stderr[-800:]))
    r = run(["dmesg"])
    check(r.returncode != 0 or "uses run-time allocation" not in r.stdout,
          "the kernel did not warn of run-time allocation: " + r.stdout[-800:])
done()
