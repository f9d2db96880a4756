#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A library mapped after start is traced from then on: with the shipped
HDF5 spec, a copy of libhdf5 that the runtime cannot find when the command
starts is probed when a traced process maps it. (a) A shell script execs
a program whose RPATH names a private directory holding the copy; (b) a
program not linked with HDF5 dlopen()s the copy by its path from a
directory on no search path. Each H5Dwrite and H5Dread the workload
reports making is in the trace, with its bytes; the loader's own answer
(LD_TRACE_LOADED_OBJECTS, dlinfo) proves the copy is what was mapped.
(c) A copy past the 8 probed of one library is named and counted, and
none of its calls is invented. (d) With syscalls traced, the sys_exit
program watches the mappings, not a program of its own; (e) the same
with every fallback a kernel may take."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import (BUILD, RUNTIME, SRC, Trace, attached_programs, check, check_hdf5_calls, done, generate,
                    hdf5_soname, loader_map, need_bpf, run, skip)

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_calls")
DLOPEN = os.path.join(BUILD, "tests", "hdf5_dlopen")
if not os.path.exists(WORK) or not os.path.exists(DLOPEN):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
CC = shutil.which("cc")
if not CC:
    skip("no C compiler to link the workload against the copy")


def traced(tmp, obj, name, cmd, h5, copy, env=None):
    """Run cmd traced; check its HDF5 calls on h5 against its own count."""
    trace = os.path.join(tmp, name + ".pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--"] + cmd, env=env or env0)
    check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-1500:]))
    if r.returncode:
        return
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "%s: format: %s" % (name, t.errors[:3]))
    check_hdf5_calls(t, h5, truth, name)
    # Said once, naming the copy; and not counted as a library never loaded.
    said = [l for l in r.stderr.splitlines() if "probes attached to %s," % copy in l]
    check(len(said) == 1, "%s: the late attach is said once: %s" % (name, r.stderr[-1500:]))
    check("HDF5: no call traced" not in r.stderr,
          "%s: a copy attached late is not 'no call traced': %s" % (name, r.stderr[-800:]))
    return truth


env0 = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
system, soname = hdf5_soname(WORK, env0)

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "hdf5.yaml")])

    # (a) A script starts a program whose RPATH is a private directory:
    # nothing COMMAND names leads to the copy before the exec.
    private = os.path.join(tmp, "private", "lib")
    os.makedirs(private)
    lib = os.path.join(private, soname)
    shutil.copy(system[soname], lib)
    bindir = os.path.join(tmp, "apps")
    os.makedirs(bindir)
    app = os.path.join(bindir, "app")
    r = subprocess.run([CC, "-o", app, os.path.join(SRC, "tests", "workloads", "hdf5_calls.c"),
                        "-fno-builtin", "-I/usr/include/hdf5/serial", lib,
                        "-Wl,-rpath," + private], capture_output=True, text=True)
    check(r.returncode == 0, "linking the workload against the copy: " + r.stderr[-1000:])
    check(loader_map(app, env0).get(soname) == os.path.realpath(lib),
          "the loader maps the copy through the RPATH: %s" % loader_map(app, env0).get(soname))
    script = os.path.join(tmp, "run.sh")
    with open(script, "w") as f:
        f.write('#!/bin/sh\ncd "$(dirname "$0")/apps" && ./app "$1"\n')
    os.chmod(script, 0o755)
    h5 = os.path.join(tmp, "script.h5")
    traced(tmp, obj, "script_child", [script, h5], h5, lib)

    # (b) dlopen() of the copy by its path, from a directory on no path.
    plugins = os.path.join(tmp, "plugins")
    os.makedirs(plugins)
    dlib = os.path.join(plugins, soname)
    shutil.copy(system[soname], dlib)
    h5 = os.path.join(tmp, "dlopen.h5")
    truth = traced(tmp, obj, "dlopen", [DLOPEN, dlib, h5], h5, dlib)
    check(truth is None or truth["lib"] == dlib, "dlopen mapped the copy: %s" % truth)

    # (d) With syscalls traced too, the sys_exit program sees each mmap:
    # dc_lib_mapped, a second function on the kernel's sys_exit
    # tracepoint that every syscall on the node would pay for, is not
    # attached; with HDF5 alone it is. The copy is traced either way.
    sysobj = generate(tmp, [os.path.join(SRC, "probes.d", "hdf5.yaml"),
                            os.path.join(SRC, "probes.d", "sys.yaml")], "hdf5sys.bpf.o")
    alone, with_sys = attached_programs(tmp, obj, "hdf5"), attached_programs(tmp, sysobj, "hdf5sys")
    check(alone is not None and "dc_lib_mapped" in alone,
          "HDF5 alone: the mmap program is attached: %s" % alone)
    # dc_sys_exit, or its twin dc_sys_exit_compat before 5.17.
    check(with_sys is not None and "dc_lib_mapped" not in with_sys and
          any(p.startswith("dc_sys_exit") for p in with_sys),
          "HDF5 and sys: dc_sys_exit, not the mmap program: %s" % with_sys)
    h5 = os.path.join(tmp, "dlopen-sys.h5")
    truth = traced(tmp, sysobj, "dlopen_sys", [DLOPEN, dlib, h5], h5, dlib)
    check(truth is None or truth["lib"] == dlib, "dlopen with sys: mapped the copy: %s" % truth)

    # (e) The same with every fallback (what Linux 5.10 takes): the
    # mappings are read off the mmap call on every kernel.
    envfb = dict(env0, DATACRUMBS_FALLBACKS="all")
    for o, name in ((obj, "dlopen_fb"), (sysobj, "dlopen_sys_fb")):
        h5 = os.path.join(tmp, name + ".h5")
        truth = traced(tmp, o, name, [DLOPEN, dlib, h5], h5, dlib, envfb)
        check(truth is None or truth["lib"] == dlib, "%s: mapped the copy: %s" % (name, truth))

    # (c) More copies than the runtime probes of one library (8, the
    # system's among them): each run of the workload dlopen()s a copy of
    # its own; the copy past the limit is named, counted at the end, and
    # none of its calls is in the trace.
    runs = []
    for k in range(8):
        d = os.path.join(tmp, "copies", str(k))
        os.makedirs(d)
        shutil.copy(system[soname], os.path.join(d, soname))
        runs.append((os.path.join(d, soname), os.path.join(tmp, "copy%d.h5" % k)))
    script = os.path.join(tmp, "copies.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\n" + "".join('"%s" "%s" "%s" || exit 1\n' % (DLOPEN, l, h) for l, h in runs))
    os.chmod(script, 0o755)
    trace = os.path.join(tmp, "copies.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", script], env=env0)
    check(r.returncode == 0, "copies: runtime: " + r.stderr[-1500:])
    truth = [json.loads(l) for l in r.stdout.splitlines()]
    t = Trace(trace)
    for (lib, h5), want in zip(runs, truth):
        n = len([e for e in t.select(cat="HDF5", name="H5Dwrite") if t.file(e) == h5])
        last = lib == runs[-1][0]
        check(n == (0 if last else want["H5Dwrite"]), "copies: %s: %d H5Dwrite traced, want %d"
              % (lib, n, 0 if last else want["H5Dwrite"]))
    over = [l for l in r.stderr.splitlines() if "more than 8 copies" in l]
    check(len(over) == 1 and runs[-1][0] in over[0], "copies: the ninth is named: %s" % over)
    check("copies of the specs' libraries mapped after start and not probed: 1" in r.stderr,
          "copies: counted at the end: " + r.stderr[-1000:])
done()
