#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-runtime on bad input: a clear message, a non-zero exit, and
no trace file left half-written."""
import os
import struct
import tempfile

from dctest import (PROBE_HDR, RUNTIME, Trace, check, done, elf_section, generate, need_bpf,
                    run)

r = run([RUNTIME])
check(r.returncode == 2 and "Usage:" in r.stderr, "no object: usage, exit 2")
r = run([RUNTIME, "--help"])
check(r.returncode == 0 and len(r.stdout.splitlines()) < 25, "--help fits a screen")
r = run([RUNTIME, "x.bpf.o"])
check(r.returncode == 2 and "nothing to trace" in r.stderr, "object without command")
r = run([RUNTIME, "x.bpf.o", "-p", "1"])
check(r.returncode == 2 and "-p after x.bpf.o: options go before OBJECT" in r.stderr,
      "an option after the object: %s" % r.stderr)
r = run([RUNTIME, "--ringbuf-size", "1000", "x.bpf.o", "--", "true"])
check(r.returncode == 2 and "--ringbuf-size" in r.stderr, "bad ring buffer size")

need_bpf()
with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "t.pfw.gz")
    notelf = os.path.join(tmp, "notelf.o")
    with open(notelf, "w") as f:
        f.write("not an object\n")
    r = run([RUNTIME, "-o", out, notelf, "--", "true"])
    check(r.returncode == 1 and "not an object made by datacrumbs-gen" in r.stderr,
          "not ELF: %s" % r.stderr)
    r = run([RUNTIME, "-o", out, "/bin/true", "--", "true"])
    check(r.returncode == 1 and "not an object made by datacrumbs-gen" in r.stderr,
          "ELF without probe table: %s" % r.stderr)
    check(not os.path.exists(out), "no trace left by a failed start")
    obj = generate(tmp, ["probes.d/sys.yaml"])
    # A damaged or foreign probe table is refused before anything loads.
    off, _ = elf_section(obj, ".dc_probes")
    data = open(obj, "rb").read()
    hdr = PROBE_HDR.unpack_from(data, off)
    name_at = off + PROBE_HDR.size + 24  # first entry's name offset
    # The pool follows the entries; the section may end in padding.
    pool_end = off + PROBE_HDR.size + hdr[3] * hdr[2] + hdr[4]
    for what, at, patch, expect in (
            ("ABI version", off + 4, struct.pack("<H", hdr[1] + 1), "another DataCrumbs ABI"),
            ("string offset past the pool", name_at, struct.pack("<I", hdr[4]), "damaged"),
            ("pool without its last NUL", pool_end - 1, b"x", "damaged")):
        bad = os.path.join(tmp, "bad.o")
        with open(bad, "wb") as f:
            f.write(data[:at] + patch + data[at + len(patch):])
        r = run([RUNTIME, "-o", out, bad, "--", "true"])
        check(r.returncode == 1 and expect in r.stderr and bad in r.stderr,
              "%s: exit %d %s" % (what, r.returncode, r.stderr))
        check(not os.path.exists(out), "%s: no trace left" % what)
    r = run([RUNTIME, "-o", out, obj, "--", "/nonexistent/cmd"])
    check(r.returncode == 127 and "cannot run /nonexistent/cmd" in r.stderr,
          "missing command: exit %d %s" % (r.returncode, r.stderr))
    r = run([RUNTIME, "-o", os.path.join(tmp, "nodir", "x"), obj, "--", "true"])
    check(r.returncode == 1 and "not a directory" in r.stderr, "bad -o")
    r = run([RUNTIME, "-p", "999999999", obj])
    check(r.returncode != 0, "--pid of no process")
    # The command's exit status is the runtime's.
    r = run([RUNTIME, "-q", "-o", out, obj, "--", "sh", "-c", "exit 7"])
    check(r.returncode == 7, "exit status propagated: %d" % r.returncode)
    t = Trace(out)
    check(not t.errors, "format after a failing command: %s" % t.errors[:3])
    r = run([RUNTIME, "-q", "-o", out, "--force", obj, "--", "sh", "-c", "kill -9 $$"])
    check(r.returncode == 137, "killed command gives 128+9: %d" % r.returncode)
done()
