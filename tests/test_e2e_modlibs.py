#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Libraries from a module-style prefix: the very same libhdf5 copied
into a prefix of its own, loaded by the traced program through
LD_LIBRARY_PATH or through its RUNPATH ("$ORIGIN/../lib", as vendor and
Spack builds do), is traced with the shipped spec, which names Debian's
soname: each H5Dwrite and H5Dread the workload reports making is in the
trace, with its bytes. The loader's own answer (LD_TRACE_LOADED_OBJECTS)
proves the program mapped the copy, not the system's library. The same
holds for a program started by a launcher (a shell, or named in the
launcher's arguments) and for a copy dlopen()ed after start."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import (BUILD, REPORT, RUNTIME, SRC, Trace, check, check_hdf5_calls, darshan_lines,
                    done, generate, hdf5_soname, loader_map, need_bpf, run, skip)

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_calls")
if not os.path.exists(WORK):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
CC = shutil.which("cc")
if not CC:
    skip("no C compiler to link the workload against the copy")


# Loads HDF5 with dlopen() once running, then creates and closes a file
# 5 times through it; says which file the loader took.
DLOPEN = r'''#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *h = dlopen("%s", RTLD_NOW);
	int64_t (*create)(const char *, unsigned, int64_t, int64_t);
	int (*close_)(int64_t);
	int64_t *fapl;
	struct link_map *m;
	int n = 5;

	if (!h || argc < 2 || dlinfo(h, RTLD_DI_LINKMAP, &m))
		return 1;
	create = dlsym(h, "H5Fcreate");
	close_ = dlsym(h, "H5Fclose");
	fapl = dlsym(h, "H5P_CLS_FILE_ACCESS_ID_g");
	if (!create || !close_ || !fapl)
		return 1;
	for (int i = 0; i < n; i++) {
		int64_t f = create(argv[1], 2 /* H5F_ACC_TRUNC */, 0, 0);

		if (f < 0 || close_(f) < 0)
			return 1;
	}
	printf("{\"lib\": \"%%s\", \"calls\": %%d}\n", m->l_name, n);
	return 0;
}
'''


def traced(tmp, obj, name, exe, env, pre=()):
    h5 = os.path.join(tmp, name + ".h5")
    trace = os.path.join(tmp, name + ".pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", exe] + list(pre) + [h5], env=env)
    check(r.returncode == 0, "%s: runtime: %s" % (name, r.stderr[-1500:]))
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "%s: format: %s" % (name, t.errors[:3]))
    check_hdf5_calls(t, h5, truth, name)


env0 = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
system, soname = hdf5_soname(WORK, env0)

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "posix.yaml"),
                         os.path.join(SRC, "probes.d", "hdf5.yaml")])

    # A module's prefix, on LD_LIBRARY_PATH of the runtime and so of
    # the command.
    mod = os.path.join(tmp, "modules", "hdf5", "1.10", "lib")
    os.makedirs(mod)
    shutil.copy(system[soname], os.path.join(mod, soname))
    env = dict(env0, LD_LIBRARY_PATH=mod)
    check(loader_map(WORK, env).get(soname) == os.path.realpath(os.path.join(mod, soname)),
          "the loader maps the module's copy: %s" % loader_map(WORK, env).get(soname))
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
    check(loader_map(exe, env0).get(soname) == os.path.realpath(lib),
          "the loader maps the copy through RUNPATH: %s" % loader_map(exe, env0).get(soname))
    traced(tmp, obj, "runpath", exe, env0)

    # Started by a launcher that does not load HDF5 itself: a shell
    # with the module on LD_LIBRARY_PATH, and a program named in the
    # launcher's arguments (as in "mpirun -n 4 ./app").
    traced(tmp, obj, "shell_child", "/bin/sh", env, pre=["-c", 'exec "$0" "$1"', WORK])
    traced(tmp, obj, "launcher_arg", "/usr/bin/env", env0, pre=[exe])

    # dlopen() after start, of the soname, found on LD_LIBRARY_PATH.
    dl = os.path.join(tmp, "dl_h5")
    open(dl + ".c", "w").write(DLOPEN % soname)
    r = subprocess.run([CC, "-o", dl, dl + ".c", "-ldl"], capture_output=True, text=True)
    check(r.returncode == 0, "building the dlopen workload: " + r.stderr[-1000:])
    trace = os.path.join(tmp, "dlopen.pfw.gz")
    h5 = os.path.join(tmp, "dlopen.h5")
    r = run([RUNTIME, "-o", trace, obj, "--", dl, h5], env=env)
    check(r.returncode == 0, "dlopen: runtime: " + r.stderr[-1500:])
    want = json.loads(r.stdout)
    check(want["lib"] == os.path.realpath(os.path.join(mod, soname)),
          "dlopen found the module's copy: %s" % want["lib"])
    t = Trace(trace)
    for fn in ("H5Fcreate", "H5Fclose"):
        n = len(t.select(cat="HDF5", name=fn))
        check(n == want["calls"], "dlopen: %s %d calls traced, made %d" % (fn, n, want["calls"]))

    # Another build of the library (its build-id differs): the calls are
    # traced, but what the object reads at the first build's structure
    # offsets (bytes, selections) is not, and the run says so.
    other = os.path.join(tmp, "other", "lib")
    os.makedirs(other)
    olib = os.path.join(other, soname)
    shutil.copy(system[soname], olib)
    note = subprocess.run(["readelf", "-n", olib], capture_output=True, text=True).stdout
    bid = bytes.fromhex(next(l.split(":")[1].strip() for l in note.splitlines() if "Build ID" in l))
    data = open(olib, "rb").read()
    at = data.index(bid)
    open(olib, "wb").write(data[:at] + bytes([bid[0] ^ 0xff]) + data[at + 1:])
    h5 = os.path.join(tmp, "other.h5")
    trace = os.path.join(tmp, "other.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", WORK, h5], env=dict(env0, LD_LIBRARY_PATH=other))
    check(r.returncode == 0, "other build: runtime: " + r.stderr[-1500:])
    truth = json.loads(r.stdout)
    check("%s: another build" % olib in r.stderr, "other build: the run says so: %s" % r.stderr[-1500:])
    t = Trace(trace)
    for fn in ("H5Dwrite", "H5Dread"):
        ev = [e for e in t.select(cat="HDF5", name=fn) if t.file(e) == h5]
        check(len(ev) == truth[fn] and not [e for e in ev if e["args"].get("size")],
              "other build: %s %d calls of %d, none with bytes read at the first build's offsets"
              % (fn, len(ev), truth[fn]))
        # Not 0 bytes: the trace says they are unknown.
        bad = [e["args"] for e in ev if "size" in e["args"] or e["args"].get("size_unknown") != 1]
        check(not bad, "other build: %s: every call's size is unknown, not 0: %s" % (fn, bad[:2]))
    # ... and so does the report: no byte total for them, no 0 added.
    rep = json.loads(run([REPORT, "-q", "--json", trace]).stdout)
    for fn in ("H5Dwrite", "H5Dread"):
        f = [x for x in rep["functions"] if x["name"] == fn]
        check(len(f) == 1 and f[0]["bytes"] is None and f[0]["unsized_calls"] == truth[fn],
              "other build: the report's %s bytes are unknown: %s" % (fn, f))
    text = run([REPORT, "-q", trace]).stdout
    rows = [l for l in text.splitlines() if " H5Dwrite " in l]
    check(rows and all("unknown" in l for l in rows), "other build: text report says unknown: %s" % rows)
    dar = run([REPORT, "-q", "--darshan", trace]).stdout
    bw = [(c, v) for m, _, c, v, name in darshan_lines(dar)
          if m == "H5D" and c in ("H5D_BYTES_WRITTEN", "H5D_BYTES_READ")]
    check(bw and all(v == -1 for c, v in bw),
          "other build: Darshan's H5D_BYTES_WRITTEN is -1, a missing value: %s" % bw)
    # Profile mode's counters say it too: how many calls' bytes are unknown.
    trace = os.path.join(tmp, "other-profile.pfw.gz")
    r = run([RUNTIME, "-m", "profile", "-o", trace, obj, "--", WORK, os.path.join(tmp, "op.h5")],
            env=dict(env0, LD_LIBRARY_PATH=other))
    check(r.returncode == 0, "other build, profile: runtime: " + r.stderr[-1500:])
    rep = json.loads(run([REPORT, "-q", "--json", trace]).stdout)
    for fn in ("H5Dwrite", "H5Dread"):
        f = [x for x in rep["functions"] if x["name"] == fn]
        check(len(f) == 1 and f[0]["calls"] == truth[fn] and f[0]["bytes"] is None
              and f[0]["unsized_calls"] == truth[fn],
              "other build, profile: the report's %s bytes are unknown: %s" % (fn, f))
    bw = [v for m, _, c, v, _ in darshan_lines(run([REPORT, "-q", "--darshan", trace]).stdout)
          if m == "H5D" and c in ("H5D_BYTES_WRITTEN", "H5D_BYTES_READ")]
    check(bw and all(v == -1 for v in bw), "other build, profile: H5D bytes -1: %s" % bw)

    # A program that never loads HDF5: the run says so, naming the
    # library and where it was probed, and says nothing of one it used.
    r = run([RUNTIME, "-o", os.path.join(tmp, "none.pfw.gz"), obj, "--", "/bin/true"], env=env)
    idle = [l for l in r.stderr.splitlines() if "HDF5: no call traced" in l]
    check(r.returncode == 0 and len(idle) == 1 and soname in idle[0]
          and os.path.realpath(os.path.join(mod, soname)) in idle[0],
          "HDF5 named once as not called, with its copies: %s" % idle)
    r = run([RUNTIME, "-o", os.path.join(tmp, "used.pfw.gz"), obj, "--", WORK,
             os.path.join(tmp, "used.h5")], env=env)
    check(r.returncode == 0 and "HDF5: no call traced" not in r.stderr,
          "a run that called HDF5 does not say it did not: %s" % r.stderr[-800:])
done()
