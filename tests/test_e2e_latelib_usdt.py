#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""USDT probes in a library mapped after start: a program dlopen()s, by its
path, a copy of a library the spec names but the runtime did not find at
start, and every firing of its USDT probe is in the trace, with its
arguments. The copy the spec names, mapped late too, is not probed twice;
two processes mapping one new copy at once are each traced once."""
import json
import os
import shutil
import tempfile

from dctest import (BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run)

need_bpf()
LIB = os.path.join(BUILD, "tests", "libdcusdt.so")
PROG = os.path.join(BUILD, "tests", "usdt_dlopen")
N = 25


def copy_to(tmp, d):
    os.mkdir(os.path.join(tmp, d))
    path = os.path.join(tmp, d, "libdcusdt.so")
    shutil.copy(LIB, path)
    return path


def steps(t, pid):
    return [(e["args"]["items"], e["args"]["count"])
            for e in t.select(cat="usdt", name="dclate:step") if e["pid"] == pid]


with tempfile.TemporaryDirectory() as tmp:
    named, late, shared = copy_to(tmp, "named"), copy_to(tmp, "late"), copy_to(tmp, "shared")
    spec = os.path.join(tmp, "late.yaml")
    open(spec, "w").write("layer: usdt\nmechanism: usdt\ntarget: %s\nprobes:\n"
                          "  - {name: 'dclate:step', args: [items, count]}\n" % named)
    obj = generate(tmp, [spec])
    want = [(i, i * 3) for i in range(N)]
    for name, lib in (("late", late), ("named", named)):
        trace = os.path.join(tmp, name + ".pfw.gz")
        r = run([RUNTIME, "-o", trace, obj, "--", PROG, lib, str(N)])
        check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-1500:]))
        if r.returncode:
            continue
        truth = json.loads(r.stdout)
        check(truth["lib"] == lib, "%s: the loader mapped %s" % (name, truth["lib"]))
        t = Trace(trace)
        check(not t.errors and t.end["args"]["dropped"] == 0, "%s: trace complete" % name)
        got = steps(t, truth["pid"])
        check(got == want, "%s copy: %d firings of dclate:step, want %d with their arguments"
              % (name, len(got), N))
    trace = os.path.join(tmp, "shared.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c",
             "%s %s %d & %s %s %d; wait" % (PROG, shared, N, PROG, shared, N)])
    check(r.returncode == 0, "two at once: runtime: %s" % r.stderr[-1500:])
    if not r.returncode:
        t = Trace(trace)
        for line in r.stdout.splitlines():
            pid = json.loads(line)["pid"]
            got = steps(t, pid)
            check(got == want, "two at once: pid %d: %d firings, want %d" % (pid, len(got), N))
done()
