#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Round trip: explore the test library (with its header) -> gen -> runtime
on a program that calls it a known number of times: every call is traced
with its arguments. Also --check attaches every probe for real."""
import json
import os
import tempfile

from dctest import BUILD, GEN, RUNTIME, SRC, Trace, check, done, need_bpf, run

need_bpf()
EXPLORE = os.path.join(BUILD, "explorer", "datacrumbs-explore")
LIB = os.path.join(BUILD, "tests", "libdctest.so")
MAIN = os.path.join(BUILD, "tests", "dctest_main")
env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(LIB))
with tempfile.TemporaryDirectory() as tmp:
    spec, obj = os.path.join(tmp, "dct.yaml"), os.path.join(tmp, "dct.bpf.o")
    r = run([EXPLORE, "--check", "-l", "dct", "-o", spec, "-H",
             os.path.join(SRC, "tests", "explore", "dctest.h"), LIB], env=env)
    check(r.returncode == 0, "explore --check: " + r.stderr)
    check("9 kept, 0 refused" in r.stderr, "--check counts: " + r.stderr)
    check(", 0 refused by the kernel" in open(spec).read(), "--check noted in the specs")
    r = run([GEN, "-o", obj, spec], env=env)
    check(r.returncode == 0, "gen: " + r.stderr)
    data = os.path.join(tmp, "data")
    trace = os.path.join(tmp, "dct.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", MAIN, data], env=env)
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    ev = {}
    for e in t.select(cat="dct"):
        ev.setdefault(e["name"], []).append(e)
    o = ev.get("dct_open", [])
    check(len(o) == 1 and t.file(o[0]) == data and o[0]["args"]["ret"] == truth["fd"],
          "dct_open: path and returned fd")
    pw = ev.get("dct_pwrite", [])
    check(len(pw) == truth["pwrite"], "dct_pwrite calls: %d" % len(pw))
    check([(e["args"]["count"], e["args"]["offset"], e["args"]["size"]) for e in pw] ==
          [(100 + i, 1000 * i, 100 + i) for i in range(7)], "dct_pwrite count/offset/size")
    check(all(t.file(e) == data and e["args"]["fd"] == truth["fd"] for e in pw), "dct_pwrite fd -> file")
    rd = ev.get("dct_read", [])
    check(len(rd) == truth["read"] and all(e["args"]["count"] == 64 for e in rd), "dct_read")
    check(len(ev.get("dct_flush", [])) == 1 and ev["dct_flush"][0]["args"]["stream"] > 0, "dct_flush stream")
    check(len(ev.get("dct_close", [])) == 1, "dct_close")

    # The kernel: tracefs is mounted by now (the runtime mounts it).
    kspec = os.path.join(tmp, "kernel.yaml")
    r = run([EXPLORE, "--kernel", "-o", kspec])
    check(r.returncode == 0, "--kernel: " + r.stderr)
    k = open(kspec).read()
    check("- {name: block_rq_issue, event: block/block_rq_issue" in k and
          "fields: [dev, sector, nr_sector, bytes]" in k, "--kernel lists block_rq_issue with fields")
    check("layer: sys" in k and "- {name: write}" in k and "- {name: pread64}" in k, "--kernel lists syscalls")
    check("Kernel functions (mechanism kfunc):" in k, "--kernel says whether kfuncs work here")
    check(run([GEN, "-n", kspec]).returncode == 0, "gen accepts --kernel output")
    # Kernel functions come from the kernel's BTF, by name, where kprobes
    # work: exactly the two the expression names.
    if "this kernel cannot probe them" in k:
        print("kernel functions: not listed here (no kprobes)")
    else:
        r = run([EXPLORE, "--kernel", "--match", "^vfs_(read|write)$", "-o", kspec])
        check(r.returncode == 0, "--kernel --match: " + r.stderr)
        k = open(kspec).read()
        kf = k[k.index("layer: kfunc"):] if "layer: kfunc" in k else ""
        check("- {name: vfs_read}" in kf and "- {name: vfs_write}" in kf and
              kf.count("- {name:") == 2, "--kernel --match lists vfs_read and vfs_write: " + kf[:300])
done()
