#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HDF5 1.14 under a prefix of its own (scripts/build-hdf5: Debian
trixie's 1.14.5, built with debug info), traced with the shipped
probes.d/hdf5.yaml, which the generator makes against Debian's 1.10.8,
and no edit: tests/workloads/hdf5_bytes linked against it makes every
H5Dwrite and H5Dread in the trace, each with the bytes the workload
counted itself. HDF5 1.14 moves them through other functions than 1.10,
with other structures, whose fields' offsets the runtime reads from that
copy's DWARF. The same copy stripped of its debug info gives every call,
with its bytes "unknown", never wrong ones."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import (RUNTIME, SRC, Trace, check, done, generate, hdf5_114_prefix, need_bpf, run,
                    skip)

need_bpf()
CC = shutil.which("cc")
if not CC or not shutil.which("objcopy"):
    skip("no C compiler or objcopy")
pre, why = hdf5_114_prefix()
if not pre:
    skip(why)
LIB = os.path.join(pre, "lib")


def calls(trace, h5):
    """[name, size or None, size_unknown] of each H5Dwrite and H5Dread on
    @h5, in call order."""
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    ev = sorted((e for e in t.select(cat="HDF5") if e["name"] in ("H5Dwrite", "H5Dread")
                 and t.file(e) == h5), key=lambda e: e["ts"])
    return [[e["name"], e["args"].get("size"), e["args"].get("size_unknown")] for e in ev]


with tempfile.TemporaryDirectory() as tmp:
    exe = os.path.join(tmp, "hdf5_bytes")
    # RUNPATH (new dtags), as Spack links: LD_LIBRARY_PATH still wins.
    r = run([CC, "-O1", "-I", os.path.join(pre, "include"), "-o", exe,
             os.path.join(SRC, "tests", "workloads", "hdf5_bytes.c"), "-L", LIB, "-lhdf5",
             "-Wl,--enable-new-dtags,-rpath," + LIB])
    check(r.returncode == 0, "building the workload against HDF5 1.14: " + r.stderr[-1500:])
    soname = [f for f in os.listdir(LIB) if f.startswith("libhdf5.so.") and f.count(".") == 2]
    check(len(soname) == 1, "one libhdf5 soname in %s: %s" % (LIB, soname))
    soname = soname[0]
    loaded = run([exe], env=dict(os.environ, LD_TRACE_LOADED_OBJECTS="1")).stdout
    check(os.path.join(LIB, soname) in loaded, "the workload maps HDF5 1.14: %s" % loaded)
    obj = generate(tmp, ["probes.d/hdf5.yaml"])

    h5 = os.path.join(tmp, "data.h5")
    trace = os.path.join(tmp, "dwarf.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", exe, h5])
    check(r.returncode == 0, "runtime: " + r.stderr[-1500:])
    want = [[n, b, None] for n, b, _, _ in json.loads(r.stdout)["calls"]]
    got = calls(trace, h5)
    check(len(want) >= 10 and got == want,
          "HDF5 1.14: every H5Dwrite/H5Dread with its bytes, in call order: %s, want %s"
          % (got, want))

    # Without debug info there is nothing to read the fields by: the
    # calls are all there, their bytes unknown.
    bare = os.path.join(tmp, "bare")
    os.mkdir(bare)
    r = subprocess.run(["objcopy", "--strip-debug", os.path.join(LIB, soname),
                        os.path.join(bare, soname)], capture_output=True, text=True)
    check(r.returncode == 0, "objcopy: " + r.stderr)
    h5 = os.path.join(tmp, "bare.h5")
    trace = os.path.join(tmp, "bare.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", exe, h5],
            env=dict(os.environ, LD_LIBRARY_PATH=bare))
    check(r.returncode == 0, "stripped: runtime: " + r.stderr[-1500:])
    want = [[n, None, 1] for n, _, _, _ in json.loads(r.stdout)["calls"]]
    got = calls(trace, h5)
    check(got == want, "stripped: every call, its bytes unknown: %s, want %s" % (got, want))
    check("no debug info" in r.stderr, "stripped: the run says why: " + r.stderr[-1500:])
done()
