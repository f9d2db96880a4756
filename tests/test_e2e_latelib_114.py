#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HDF5 1.14 (scripts/build-hdf5, with debug info) dlopen()ed by path
once the program runs, from a directory on no search path, with the
shipped spec made against Debian's 1.10: the copy is probed when it is
mapped, and the bytes of each H5Dwrite and H5Dread come from that copy's
own DWARF, as for a copy found at start (test_e2e_hdf5_114)."""
import json
import os
import shutil
import tempfile

from dctest import (BUILD, RUNTIME, SRC, Trace, check, done, generate, hdf5_114_prefix, need_bpf,
                    run, skip)

need_bpf()
DLOPEN = os.path.join(BUILD, "tests", "hdf5_dlopen")
if not os.path.exists(DLOPEN):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
pre, why = hdf5_114_prefix()
if not pre:
    skip(why)

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "hdf5.yaml")])
    plugins = os.path.join(tmp, "plugins")
    os.makedirs(plugins)
    lib = os.path.join(plugins, "libhdf5.so.310")
    shutil.copy(os.path.realpath(os.path.join(pre, "lib", "libhdf5.so.310")), lib)
    h5 = os.path.join(tmp, "data.h5")
    trace = os.path.join(tmp, "late114.pfw.gz")
    env = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    r = run([RUNTIME, "-o", trace, obj, "--", DLOPEN, lib, h5], env=env)
    check(r.returncode == 0, "runtime: " + r.stderr[-1500:])
    truth = json.loads(r.stdout)
    check(truth["lib"] == lib, "the program mapped the copy: %s" % truth["lib"])
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    for fn in ("H5Dwrite", "H5Dread"):
        ev = [e for e in t.select(cat="HDF5", name=fn) if t.file(e) == h5]
        check(len(ev) == truth[fn], "%s: %d calls traced, the workload made %d"
              % (fn, len(ev), truth[fn]))
        sizes = {e["args"].get("size") for e in ev}
        check(sizes == {truth["bytes"]}, "%s: each moved %d bytes, from the copy's DWARF: %s"
              % (fn, truth["bytes"], sizes))
    check(len([l for l in r.stderr.splitlines() if "probes attached to %s," % lib in l]) == 1,
          "the late attach is said: " + r.stderr[-1500:])
done()
