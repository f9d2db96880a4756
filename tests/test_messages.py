#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What careless input is told, one line naming the cause and the fix:
directories given for files, an -o directory that does not exist (not
blamed on clang), a relative library path in a spec, and the explorer
run without headers."""
import os
import shutil
import tempfile

from dctest import BUILD, GEN, REPORT, SRC, check, done, run

EXPLORE = os.path.join(BUILD, "explorer", "datacrumbs-explore")
LIB = os.path.join(BUILD, "tests", "libdctest.so")

with tempfile.TemporaryDirectory() as tmp:
    probes = os.path.join(SRC, "probes.d")
    r = run([GEN, "-n", probes])
    check(r.returncode == 1 and "a directory, not a spec file" in r.stderr, "gen DIR: " + r.stderr)
    r = run([GEN, "-o", os.path.join(tmp, "nodir", "x.bpf.o"), os.path.join(probes, "sys.yaml")])
    check(r.returncode == 1 and "cannot write in %s/nodir" % tmp in r.stderr and "clang" not in r.stderr,
          "gen -o into a missing directory: " + r.stderr)
    r = run([REPORT, tmp])
    check(r.returncode == 2 and "a directory, not a trace" in r.stderr, "report DIR: " + r.stderr)
    r = run([EXPLORE, tmp])
    check(r.returncode != 0 and "a directory" in r.stderr, "explore DIR: " + r.stderr)

    # A relative target: resolved from where datacrumbs-gen runs, said so;
    # from elsewhere, the error says what to write instead.
    os.mkdir(os.path.join(tmp, "lib"))
    shutil.copy(LIB, os.path.join(tmp, "lib"))
    spec = os.path.join(tmp, "rel.yaml")
    with open(spec, "w") as f:
        f.write("layer: app\nmechanism: uprobe\ntarget: lib/libdctest.so\nprobes:\n  - {name: dct_close}\n")
    r = run([GEN, "-n", spec], cwd=tmp)
    check(r.returncode == 0 and "note: target 'lib/libdctest.so' is %s/lib/libdctest.so" % tmp in r.stderr,
          "relative target noted: " + r.stderr)
    r = run([GEN, "-n", spec], cwd="/")
    check(r.returncode == 1 and "relative path is taken from where datacrumbs-gen runs" in r.stderr,
          "relative target not found: " + r.stderr)

    r = run([EXPLORE, LIB])
    check(r.returncode == 0 and "without -H" in r.stderr, "explore without headers: " + r.stderr)
done()
