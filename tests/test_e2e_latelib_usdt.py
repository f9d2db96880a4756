#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""USDT probes in a library mapped after start: a program dlopen()s, by its
path, a copy of a library the spec names but the runtime did not find at
start, and every firing of its USDT probe is in the trace, with its
arguments. The copy the spec names, mapped late too, is not probed twice;
two processes mapping one new copy at once are each traced once. The
same where the kernel has no BPF cookies (5.10), where the probes are
attached to each process that maps the library."""
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
    # As the kernel chooses, then as one without BPF cookies does it:
    # libbpf finds a probe by its address, so a shared library's probes
    # are attached to each process that maps it.
    for tag, env in (("", None), ("nocookies-", dict(os.environ, DATACRUMBS_FALLBACKS="cookies"))):
        for name, lib in (("late", late), ("named", named)):
            trace = os.path.join(tmp, tag + name + ".pfw.gz")
            r = run([RUNTIME, "-o", trace, obj, "--", PROG, lib, str(N)], env=env)
            check(r.returncode == 0, "%s%s: runtime: %s" % (tag, name, r.stderr[-1500:]))
            if r.returncode:
                continue
            if tag and name == "named":
                check("USDT probes in %s attach to each process" % named in r.stderr,
                      "%s%s: attached by process, and said: %s" % (tag, name, r.stderr[-800:]))
            truth = json.loads(r.stdout)
            check(truth["lib"] == lib, "%s%s: the loader mapped %s" % (tag, name, truth["lib"]))
            t = Trace(trace)
            check(not t.errors and t.end["args"]["dropped"] == 0, "%s%s: trace complete" % (tag, name))
            got = steps(t, truth["pid"])
            check(got == want, "%s%s copy: %d firings of dclate:step, want %d with their arguments"
                  % (tag, name, len(got), N))
        trace = os.path.join(tmp, tag + "shared.pfw.gz")
        r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c",
                 "%s %s %d & %s %s %d; wait" % (PROG, shared, N, PROG, shared, N)], env=env)
        check(r.returncode == 0, "%stwo at once: runtime: %s" % (tag, r.stderr[-1500:]))
        if not r.returncode:
            t = Trace(trace)
            for line in r.stdout.splitlines():
                pid = json.loads(line)["pid"]
                got = steps(t, pid)
                check(got == want, "%stwo at once: pid %d: %d firings, want %d" % (tag, pid, len(got), N))
done()
