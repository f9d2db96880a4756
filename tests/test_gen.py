#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-gen: every bad spec in tests/specs/bad fails with the error its
first line expects (file:line:col) and leaves no file behind; good specs
compile to an object whose probe table and C are what the specs say."""
import glob
import json
import os
import re
import resource
import tempfile

from dctest import GEN, PROBE_HDR, SRC, check, done, elf_section, probe_table, run

with tempfile.TemporaryDirectory() as tmp:
    for spec in sorted(glob.glob(os.path.join(SRC, "tests/specs/bad/*.yaml"))):
        with open(spec) as f:
            expect = f.readline().split("# expect: ", 1)[1].strip()
        obj = os.path.join(tmp, "out.bpf.o")
        csrc = os.path.join(tmp, "out.c")
        r = run([GEN, "-o", obj, "-E", csrc, spec])
        name = os.path.basename(spec)
        check(r.returncode == 1, "%s: exit status %d, want 1" % (name, r.returncode))
        want = expect if expect.startswith("error") else spec + ":" + expect
        check(want in r.stderr, "%s: stderr lacks %r:\n%s" % (name, want, r.stderr))
        check(not os.listdir(tmp), "%s: left files behind: %s" % (name, os.listdir(tmp)))

    # All errors of a file are reported, not just the first.
    r = run([GEN, "-n", os.path.join(SRC, "tests/specs/bad/unknown_role.yaml"),
             os.path.join(SRC, "tests/specs/bad/unknown_key.yaml")])
    check(len([l for l in r.stderr.splitlines() if l.startswith(SRC)]) == 3,
          "two files' errors all reported:\n" + r.stderr)

    # The shipped specs and a two-document spec compile.
    specs = [os.path.join(SRC, p) for p in ("probes.d/sys.yaml", "probes.d/posix.yaml")]
    obj, c1, c2 = (os.path.join(tmp, n) for n in ("a.bpf.o", "a.c", "b.c"))
    r = run([GEN, "-o", obj, "-E", c1] + specs)
    check(r.returncode == 0 and os.path.getsize(obj) > 0, "shipped specs compile: " + r.stderr)
    r = run([GEN, "-n", "-E", c2] + specs)
    check(open(c1).read() == open(c2).read(), "rendering is deterministic")
    c = open(c1).read()
    hdr, table = probe_table(obj)
    check(hdr["count"] == len(table) and [e["id"] for e in table] == list(range(len(table))),
          "probe table entries numbered in order")
    names = [(e["layer"], e["name"]) for e in table]
    # Aliases (glibc's pread is pread64) become one probe, named as listed first.
    check(names.count(("POSIX", "pread64")) == 1 and ("POSIX", "pread") not in names,
          "pread/pread64 aliases probed once: %s" % [n for n in names if "pread" in n[1]])
    # Effects travel in the table as the specs give them (enum dc_effect).
    effect = {(e["layer"], e["name"]): e["effect"] for e in table}
    check(effect.get(("POSIX", "close")) == 1 and effect.get(("sys", "close")) == 1 and
          effect.get(("POSIX", "fcntl")) == 2 and effect.get(("POSIX", "write")) == 0,
          "effects in the probe table: %s" %
          {k: v for k, v in effect.items() if k[1] in ("close", "fclose", "fcntl", "write")})
    # Each string is stored once, however many probes share it.
    pool = open(obj, "rb").read()
    off, size = elf_section(obj, ".dc_probes")
    # After the entries; the section may end in padding.
    off += PROBE_HDR.size + hdr["count"] * hdr["desc_size"]
    pool = pool[off:off + hdr["strings"]].split(b"\0")[:-1]
    check(len(pool) == len(set(pool)) and pool.count(b"POSIX") == 1,
          "string pool holds each string once")
    # fstat attaches to syscall 5 on x86_64; sendfile64 is syscall 40.
    check(re.search(r"\[5\] = \d+, /\* fstat \*/", c), "fstat mapped to syscall 5")
    check(re.search(r"\[40\] = \d+, /\* sendfile64 \*/", c), "sendfile64 mapped to syscall 40")

    r = run([GEN, "-n", "-E", c1, os.path.join(SRC, "tests/specs/good/two_docs.yaml")])
    check(r.returncode == 0, "two-document spec: " + r.stderr)
    obj2 = os.path.join(tmp, "two.bpf.o")
    r = run([GEN, "-o", obj2, os.path.join(SRC, "tests/specs/good/two_docs.yaml")])
    check(r.returncode == 0, "two-document spec compiles: " + r.stderr)
    table = probe_table(obj2)[1]
    check(any(e["name"] == "stat_by_fd" and e["symbol"] == "newfstat" for e in table),
          "name/symbol split: %s" % [(e["name"], e["symbol"]) for e in table])
    check([e["mech"] for e in table].count(2) == 1, "pwrite is pwrite64: one uprobe")

    # Fields named through pointers: the path whole in the probe table,
    # a hop each in deref_hops; a feeder's late role is passed as the
    # address of its word (deref_exit_mask), which the fed call reads.
    r = run([GEN, "-o", obj2, "-E", c1, os.path.join(SRC, "fuzz/corpus/spec/good_field_hops.yaml")])
    check(r.returncode == 0, "fields through pointers compile: " + r.stderr)
    c = open(c1).read()
    table = {e["name"]: e for e in probe_table(obj2)[1]}
    check(table["read"]["fields"][:2] == ["FILE._IO_read_ptr@FILE._flags",
                                          "FILE._chain@FILE._chain@FILE._fileno"]
          and table["read"]["flags"] & 2, "named hops in the table: %s" % table["read"])
    check(re.search(r"\.deref_entry_mask = 0x3, \.deref_exit_mask = 0x2,.*"
                    r"\.deref_hops = \{ 2, 3, 0, 0 \}.*/\* read \*/", c) and
          re.search(r"\.deref_hops = \{ 0, 0, 1, 0 \}.*/\* fsync \*/", c),
          "named hops rendered: %s" % [ln for ln in c.splitlines() if "/* read */" in ln
                                       or "/* fsync */" in ln])

    # Usage errors.
    r = run([GEN])
    check(r.returncode == 2 and "Usage:" in r.stderr, "no spec: usage, exit 2")
    r = run([GEN, "--help"])
    check(r.returncode == 0 and len(r.stdout.splitlines()) < 25, "--help fits a screen")

    # 100,000 probes, every one a duplicate of the first: the first 20
    # printed and the rest counted, all found in one pass. The pairwise
    # check took 52 s: ten times the probes must not take a hundred
    # times as long (a ratio, not a time, so a slow machine passes).
    big = os.path.join(tmp, "big.yaml")

    def dups(n):
        with open(big, "w") as f:
            f.write("layer: POSIX\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n")
            f.writelines("- {name: w%d, symbol: write, args: [fd]}\n" % i for i in range(n))
        # Its CPU time, not the wall clock's: a loaded machine (guests,
        # other tests) stretches the one run and not the other.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = run([GEN, "-n", big])
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return r, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)

    r, small = dups(10000)
    r, large = dups(100000)
    shown = [l for l in r.stderr.splitlines() if "duplicate probe" in l]
    check(r.returncode == 1 and len(shown) == 20 and "99999 errors" in r.stderr,
          "duplicates: %d shown, %s" % (len(shown), r.stderr.splitlines()[-1:]))
    check(large < 30 * small, "10x the probes took %.1fx the time" % (large / small))
    os.unlink(big)

    # Every libc function by glob: of those left single-stepped (the
    # placement JSON counts them), the first 8 are named and the rest
    # counted; -v names each.
    allc, pj = os.path.join(tmp, "allc.yaml"), os.path.join(tmp, "placed.json")
    with open(allc, "w") as f:
        f.write('layer: LIBC\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n- {name: "*"}\n')
    r = run([GEN, "-n", "-P", pj, allc])
    slow = sum(1 for p in json.load(open(pj)) if p["placement"] == "single-stepped")
    named = [l for l in r.stderr.splitlines() if ": single-stepped at " in l]
    check(r.returncode == 0 and slow > 8 and len(named) == 8
          and ("... and %d more (-v lists them)" % (slow - 8)) in r.stderr
          and ("%d single-stepped" % slow) in r.stderr,
          "%d single-stepped: %d named, then %s" % (slow, len(named), r.stderr.splitlines()[-2:]))
    r = run([GEN, "-n", "-v", "-P", pj, allc])
    named = [l for l in r.stderr.splitlines() if ": single-stepped at " in l]
    check(len(named) == slow and "more (-v" not in r.stderr, "-v names all %d: %d" % (slow, len(named)))
    # A thin wrapper is recognised at its syscall only while it reads
    # its arguments alone: the syscall's programs do not read through
    # them (itemsize@8), so that probe stays a uprobe, saying why.
    wr = os.path.join(tmp, "wrapper_reads.yaml")
    with open(wr, "w") as f:
        f.write("layer: POSIX\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n"
                "- {name: fsync, args: [fd]}\n"
                "- {name: pwrite64, args: [fd, itemsize@8, count], ret: size}\n")
    r = run([GEN, "-n", "-P", pj, wr])
    got = {p["name"]: p for p in json.load(open(pj))} if r.returncode == 0 else {}
    check(got.get("fsync", {}).get("placement") == "syscall" and
          got.get("pwrite64", {}).get("placement") not in (None, "syscall") and
          got["pwrite64"]["why"] == "it reads a value through a pointer",
          "a wrapper reading through a pointer stays a uprobe: %s %s" % (got, r.stderr[-300:]))
    r = run([GEN, "-n", os.path.join(tmp, "missing.yaml")])
    check(r.returncode == 1 and "missing.yaml: error: cannot open" in r.stderr, "missing file")
done()
