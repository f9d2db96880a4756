#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Libraries from a module-style prefix: the very same libhdf5 copied
into a prefix of its own, loaded by the traced program through
LD_LIBRARY_PATH or through its RUNPATH ("$ORIGIN/../lib", as vendor and
Spack builds do), is traced with the shipped spec, which names Debian's
soname: each H5Dwrite and H5Dread the workload reports making is in the
trace, with its bytes. The loader's own answer (LD_TRACE_LOADED_OBJECTS)
proves the program mapped the copy, not the system's library."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import BUILD, RUNTIME, SRC, Trace, check, done, generate, need_bpf, run, skip

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_calls")
if not os.path.exists(WORK):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
CC = shutil.which("cc")
if not CC:
    skip("no C compiler to link the workload against the copy")


def mapped(exe, env):
    """{soname: path} as the dynamic loader resolves them for exe."""
    out = subprocess.run([exe], env=dict(env, LD_TRACE_LOADED_OBJECTS="1"),
                         capture_output=True, text=True).stdout
    libs = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) >= 3 and parts[1] == "=>":
            libs[parts[0]] = os.path.realpath(parts[2])
    return libs


def traced(tmp, obj, name, exe, env):
    h5 = os.path.join(tmp, name + ".h5")
    trace = os.path.join(tmp, name + ".pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", exe, h5], env=env)
    check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-1500:]))
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "%s: format: %s" % (name, t.errors[:3]))
    for fn in ("H5Dwrite", "H5Dread", "H5Fcreate", "H5Dcreate2"):
        ev = [e for e in t.select(cat="HDF5", name=fn) if t.file(e) == h5]
        check(len(ev) == truth[fn], "%s: %s %d calls traced, the workload made %d"
              % (name, fn, len(ev), truth[fn]))
    sizes = {e["args"].get("size") for e in t.select(cat="HDF5", name="H5Dwrite")}
    check(sizes == {truth["bytes"]}, "%s: each H5Dwrite moved %d bytes: %s"
          % (name, truth["bytes"], sizes))


env0 = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
system = mapped(WORK, env0)
soname = next((k for k in system if k.startswith("libhdf5")), None)
if not soname:
    skip("%s maps no libhdf5: %s" % (WORK, system))

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "posix.yaml"),
                         os.path.join(SRC, "probes.d", "hdf5.yaml")])

    # A module's prefix, on LD_LIBRARY_PATH of the runtime and so of
    # the command.
    mod = os.path.join(tmp, "modules", "hdf5", "1.10", "lib")
    os.makedirs(mod)
    shutil.copy(system[soname], os.path.join(mod, soname))
    env = dict(env0, LD_LIBRARY_PATH=mod)
    check(mapped(WORK, env).get(soname) == os.path.realpath(os.path.join(mod, soname)),
          "the loader maps the module's copy: %s" % mapped(WORK, env).get(soname))
    traced(tmp, obj, "ld_library_path", WORK, env)

    # A program whose RUNPATH finds the copy beside it, with no
    # LD_LIBRARY_PATH at all.
    prefix = os.path.join(tmp, "spack", "hdf5-1.10-abcdef")
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(prefix, "lib"))
    lib = os.path.join(prefix, "lib", soname)
    shutil.copy(system[soname], lib)
    exe = os.path.join(prefix, "bin", "hdf5_calls")
    r = subprocess.run([CC, "-o", exe, os.path.join(SRC, "tests", "workloads", "hdf5_calls.c"),
                        "-fno-builtin", "-I/usr/include/hdf5/serial", lib,
                        "-Wl,-rpath,$ORIGIN/../lib"], capture_output=True, text=True)
    check(r.returncode == 0, "linking the workload against the copy: " + r.stderr[-1000:])
    check(mapped(exe, env0).get(soname) == os.path.realpath(lib),
          "the loader maps the copy through RUNPATH: %s" % mapped(exe, env0).get(soname))
    traced(tmp, obj, "runpath", exe, env0)
done()
