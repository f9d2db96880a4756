#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The placement the generator stores for each uprobe of the shipped specs
(those whose library is installed here) is what dc_place() finds again in
that library, with the file's build-id; and the checker sees a stored
probe point off by one, a wrong build-id or a wrong mechanism."""
import os
import platform
import re
import shutil
import struct
import tempfile

from dctest import BUILD, GEN, PROBE_DESC, PROBE_HDR, SRC, check, done, elf_section, probe_table, \
    run, skip

PLACECHECK = os.path.join(BUILD, "tests", "placecheck")
KNOWN, SYS, TAIL = 1, 2, 4  # DC_PLACE_*
PLACE_AT = 22  # struct dc_probe_desc's place

if platform.machine() != "x86_64":
    skip("uprobes are placed by decoding x86-64 code only")


def placecheck(obj):
    r = run([PLACECHECK, obj])
    m = re.search(r"(\d+) uprobes in \d+ libraries: (\d+) placed by the generator, "
                  r"(\d+) of them plain probe points; (\d+) differences", r.stdout)
    return r, m and [int(g) for g in m.groups()]


def patched(obj, out, i, at, fmt, value):
    """@obj with field @fmt at byte @at of probe table entry @i set."""
    shutil.copy(obj, out)
    off, _ = elf_section(obj, ".dc_probes")
    hdr = probe_table(obj)[0]
    with open(out, "r+b") as f:
        f.seek(off + PROBE_HDR.size + i * hdr["desc_size"] + at)
        f.write(struct.pack(fmt, value))


with tempfile.TemporaryDirectory() as tmp:
    obj = os.path.join(tmp, "shipped.o")
    specs = sorted(os.path.join(SRC, "probes.d", f)
                   for f in os.listdir(os.path.join(SRC, "probes.d")) if f.endswith(".yaml"))
    r = run([GEN, "--skip-missing", "-o", obj] + specs)
    if not check(r.returncode == 0, "shipped specs compile: " + r.stderr):
        done()
    r, n = placecheck(obj)
    check(r.returncode == 0 and n and n[3] == 0,
          "stored placements equal dc_place()'s: %s%s" % (r.stdout, r.stderr[-3000:]))
    table = probe_table(obj)[1]
    uprobes = [e for e in table if e["mech"] == 2]
    placed = [e for e in uprobes if e["place"] & KNOWN]
    plain = [e for e in placed if not e["place"] & (SYS | TAIL)]
    print("%d uprobes, %d placed, %d plain probe points, %d at the syscall" %
          (len(uprobes), len(placed), len(plain), sum(e["place"] & SYS != 0 for e in placed)))
    # Every shipped uprobe of an installed library is placed (libc at
    # least is), and the checker counted the same table.
    check(n and n[0] == len(uprobes) and n[1] == len(placed) and n[2] == len(plain),
          "checker's counts %s, the table's %d/%d/%d" % (n, len(uprobes), len(placed), len(plain)))
    check(any(e["path"].endswith("libc.so.6") for e in plain),
          "libc's plain probe points are stored")

    # A stored probe point one byte off, or a build-id that is not the
    # file's, is a difference.
    moved = next((e for e in plain if e["skip"]), plain[0] if plain else None)
    if check(moved is not None, "a plain probe point to alter"):
        skip_at, build_at = PROBE_DESC.size - 8, PROBE_DESC.size - 12
        bad = os.path.join(tmp, "bad.o")
        patched(obj, bad, moved["id"], skip_at, "<I", moved["skip"] + 1)
        r, n = placecheck(bad)
        check(r.returncode == 1 and n and n[3] == 1 and moved["name"] in r.stderr,
              "a probe point off by one is found: %s%s" % (r.stdout, r.stderr))
        patched(obj, bad, moved["id"], build_at, "<I", 0)
        r, n = placecheck(bad)
        check(r.returncode == 1 and n and n[3] == 1 and "build-id ''" in r.stderr,
              "a wrong build-id is found: %s%s" % (r.stdout, r.stderr))
        patched(obj, bad, moved["id"], PLACE_AT, "<B", moved["place"] | SYS)
        r, n = placecheck(bad)
        check(r.returncode == 1 and n and n[3] == 1 and "stored at the syscall" in r.stderr,
              "a wrong mechanism is found: %s%s" % (r.stdout, r.stderr))
done()
