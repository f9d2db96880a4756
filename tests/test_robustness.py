#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Bad input to datacrumbs-gen and datacrumbs-explore, one case per row of
docs/robustness.md: each gets a clear error naming the file and the place,
a non-zero exit, and no output file, not even a partial one."""
import os
import tempfile

from dctest import BUILD, GEN, SRC, check, done, run

EXPLORE = os.path.join(BUILD, "explorer", "datacrumbs-explore")
LIBDCTEST = os.path.join(BUILD, "tests", "libdctest.so")
CORPUS = os.path.join(SRC, "fuzz", "corpus", "explore")


def case(what, cmd, out, want, status=1):
    """Run cmd; it must exit with status, say every string of want on
    stderr, and leave nothing at out."""
    r = run(cmd)
    check(r.returncode == status, "%s: exit %d, want %d" % (what, r.returncode, status))
    for w in want:
        check(w in r.stderr, "%s: stderr lacks %r:\n%s" % (what, w, r.stderr[:2000]))
    check(not os.path.exists(out), "%s: %s left behind" % (what, out))
    leftovers = [f for f in os.listdir(os.path.dirname(out)) if f.startswith(os.path.basename(out))]
    check(not leftovers, "%s: temporary files left: %s" % (what, leftovers))


with tempfile.TemporaryDirectory() as tmp:
    def spec(name, text, mode="w"):
        path = os.path.join(tmp, name)
        with open(path, mode) as f:
            f.write(text)
        return path

    obj = os.path.join(tmp, "out.bpf.o")
    gen = [GEN, "-o", obj]
    s = spec("malformed.yaml", "layer: sys\nmechanism: syscall\nprobes: [{name: write}\n")
    case("malformed YAML", gen + [s], obj, [s + ":4:1: error: invalid YAML"])
    s = spec("wrongtype.yaml", "layer: sys\nmechanism: syscall\nprobes: [{name: write, args: fd}]\n")
    case("wrong type", gen + [s], obj, [s + ":3:30: error: 'args' must be a list of roles, not a scalar"])
    s = spec("huge.yaml", "layer: %s\nmechanism: syscall\nprobes: [{name: write}]\n" % ("L" * 1000000))
    case("huge value", gen + [s], obj, [s + ":1:8: error: layer 'LLLL", "must be 1-15 characters"])
    s = spec("deep.yaml", "[" * 200000 + "\n")
    case("deeply nested YAML", gen + [s], obj,
         [s + ":1:1001: error: lists and mappings nested deeper than 1000"])
    s = spec("binary.yaml", bytes(range(256)) * 16, "wb")
    case("binary garbage", gen + [s], obj, [s + ":1:1: error: invalid YAML"])
    s = spec("dupkey.yaml", "layer: sys\nmechanism: syscall\nlayer: POSIX\nprobes: [{name: write}]\n")
    case("duplicate key", gen + [s], obj, [s + ":3:1: error: duplicate key 'layer' (first at line 1)"])
    nofile = os.path.join(tmp, "nonexistent.yaml")
    case("missing spec file", gen + [nofile], obj, [nofile + ": error: cannot open: No such file"])
    s = spec("notarget.yaml", "layer: app\nmechanism: uprobe\ntarget: libnonexistent-dc.so\n"
             "probes: [{name: f}]\n")
    case("non-existent target", gen + [s], obj, [s + ":3:9: error: target 'libnonexistent-dc.so'"])
    s = spec("nofunc.yaml", "layer: app\nmechanism: uprobe\ntarget: %s\n"
             "probes: [{name: dc_no_such_function}]\n" % LIBDCTEST)
    case("library without the function", gen + [s], obj,
         [s + ":4:17: error: 'dc_no_such_function' is not a function defined in"])

    out = os.path.join(tmp, "out.yaml")
    xp = [EXPLORE, "-a", "-o", out]
    notelf = spec("notelf.so", "#!/bin/sh\n")
    case("explore: non-ELF", xp + [notelf], out, [notelf + ": not a 64-bit ELF file"])
    with open(LIBDCTEST, "rb") as f:
        elf = f.read()
    trunc = spec("truncated.so", elf[:len(elf) // 2], "wb")
    case("explore: truncated ELF", xp + [trunc], out, [trunc + ": damaged or truncated ELF file"])
    case("explore: non-existent target", xp + ["libnonexistent-dc.so"], out,
         ["libnonexistent-dc.so: not found"])
    case("explore: bad regular expression", [EXPLORE, "-o", out, "-m", "(", LIBDCTEST], out,
         ["--match: invalid regular expression '('"])
    # A damaged symbol name is left out, with a warning naming the file.
    bad = os.path.join(CORPUS, "crash-non-utf8-name-double-free")
    r = run(xp + [bad])
    check(r.returncode == 0 and bad + ": 1 symbols with names that are not ASCII left out"
          in r.stderr and os.path.getsize(out) > 0, "explore: non-ASCII symbol name: " + r.stderr)
done()
