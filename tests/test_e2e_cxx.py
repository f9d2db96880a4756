#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""C++ libraries: the explorer's spec for libhdf5_cpp (mangled names far
longer than C names) and one for two std::ostream members compile and
attach, and a C++ program's calls arrive under their demangled names, as
many as it made, with the write(2) its flushes cause (counted by strace)
nested under them."""
import os
import re
import subprocess
import tempfile

from dctest import BUILD, GEN, RUNTIME, SRC, Trace, check, done, need_bpf, need_tool, run, skip

need_bpf()
need_tool("strace")
need_tool("c++filt")
WORK = os.path.join(BUILD, "tests", "cxx_io")
EXPLORE = os.path.join(BUILD, "explorer", "datacrumbs-explore")
DCT = os.path.join(BUILD, "tests", "cxx_dct")
DCTXX = os.path.join(BUILD, "tests", "libdctestxx.so")
DSW_SYM = "_ZNK2H57DataSet5writeEPKvRKNS_8DataTypeERKNS_9DataSpaceES8_RKNS_19DSetMemXferPropListE"
N = 50


def probes_of(spec):
    """(name, symbol) of each probe of the explorer's flow mappings."""
    out = []
    for q, plain, sym in re.findall(r"\{name: (?:'((?:[^']|'')*)'|([^,{}']+)), symbol: (\w+)", spec):
        out.append((q.replace("''", "'") if q else plain, sym))
    return out


def cxxfilt(syms):
    r = subprocess.run(["c++filt", "-i"], input="\n".join(syms), stdout=subprocess.PIPE, text=True)
    return r.stdout.split("\n")[:len(syms)]


if not os.path.exists(WORK):
    skip("tests/cxx_io was not built (no HDF5 C++ library found)")
libs = subprocess.run(["ldd", WORK], stdout=subprocess.PIPE, text=True).stdout
h5cpp = re.search(r"(\S*libhdf5\S*_cpp\S*) => (\S+)", libs)
check(h5cpp, "cxx_io links an HDF5 C++ library: " + libs)
h5hdr = next((h for h in ("/usr/include/hdf5/serial/H5Cpp.h", "/usr/include/H5Cpp.h")
              if os.path.exists(h)), None)
if not h5hdr:
    skip("no H5Cpp.h")

with tempfile.TemporaryDirectory() as tmp:
    # Without --all or --match: the curated HDF5 set names C functions
    # only, so the explorer keeps the C++ library's own, all of them.
    r = run([EXPLORE, "-o", os.path.join(tmp, "h5cpp.yaml"), h5cpp.group(2)])
    check(r.returncode == 0 and "C++" in r.stderr, "explore libhdf5_cpp: " + r.stderr)
    r = run([EXPLORE, "--all", "-o", os.path.join(tmp, "h5cpp_all.yaml"), h5cpp.group(2)])
    check(r.returncode == 0, "explore --all libhdf5_cpp: " + r.stderr)
    spec = open(os.path.join(tmp, "h5cpp.yaml")).read()
    check(spec.split("\n", 1)[1] == open(os.path.join(tmp, "h5cpp_all.yaml")).read().split("\n", 1)[1],
          "without --all, the same functions as with it")
    probes = probes_of(spec)
    check(len(probes) == spec.count("symbol:"), "every probe read back")
    syms = [sym for _, sym in probes]
    check(len(syms) > 100 and max(map(len, syms)) > 63, "long mangled symbols in the spec")
    # Ground truth for names: binutils' demangler, without the verbose
    # expansion of std:: abbreviations.
    filt = dict(zip(syms, cxxfilt(syms)))
    names = [name for name, _ in probes]
    check(len(set(names)) == len(names), "overloads keep distinct names")
    for name, sym in probes:
        f = filt[sym]
        check(name == f or name in (f + " [deleting]", f + " [base]"),
              "%s is named as c++filt -i names it: %s" % (sym, name))
    check(any(n.endswith(" [deleting]") for n in names), "deleting destructors told apart")
    DSW = filt[DSW_SYM]
    # With its header, read as C++: the C-string constructor of H5File
    # takes the file's path after `this`, DataSet::write its buffer.
    h5inc = os.path.dirname(os.path.realpath(h5hdr))
    r = run([EXPLORE, "-I", h5inc, "-H", h5hdr, "-o", os.path.join(tmp, "h5cpp_h.yaml"), h5cpp.group(2)])
    check(r.returncode == 0, "explore -H H5Cpp.h: " + r.stderr)
    spec_h = open(os.path.join(tmp, "h5cpp_h.yaml")).read()
    m = re.search(r"\{name: '([^']*)', symbol: _ZN2H56H5FileC1EPKcjRKNS_17FileCreatPropListERKNS_15FileAccPropListE, .*", spec_h)
    check(m and "args: [_, path]" in m.group(0), "H5File(char const*, ...): this, then the path: %s"
          % (m and m.group(0)))
    H5F = m.group(1) if m else None
    check(re.search(r"symbol: %s, args: \[_, buf\]" % DSW_SYM, spec_h), "DataSet::write: this, then buf")
    hpp = os.path.join(SRC, "tests", "explore", "dctest.hpp")
    r = run([EXPLORE, "-l", "DCT", "-H", hpp, "-o", os.path.join(tmp, "dct.yaml"), DCTXX])
    check(r.returncode == 0, "explore libdctestxx: " + r.stderr)
    r = run([EXPLORE, "-l", "CXX", "-m", r"^_ZNSo5writeEPKcl$|^_ZNSo5flushEv$",
             "-o", os.path.join(tmp, "ostream.yaml"), "libstdc++.so.6"])
    check(r.returncode == 0, "explore libstdc++: " + r.stderr)
    obj = os.path.join(tmp, "cxx.bpf.o")
    r = run([GEN, "-o", obj, os.path.join(tmp, "h5cpp.yaml"), os.path.join(tmp, "ostream.yaml"),
             os.path.join(SRC, "probes.d", "sys.yaml"), os.path.join(SRC, "probes.d", "posix.yaml")])
    check(r.returncode == 0, "datacrumbs-gen compiles the C++ specs: " + r.stderr[-2000:])
    r = run([GEN, "-o", obj, os.path.join(tmp, "h5cpp_h.yaml"), os.path.join(tmp, "ostream.yaml"),
             os.path.join(tmp, "dct.yaml"),
             os.path.join(SRC, "probes.d", "sys.yaml"), os.path.join(SRC, "probes.d", "posix.yaml")])
    check(r.returncode == 0, "datacrumbs-gen compiles the C++ specs: " + r.stderr[-2000:])

    # Ground truth: the write(2)s on the text file, from strace.
    st = os.path.join(tmp, "strace.txt")
    sdir = os.path.join(tmp, "strace")
    os.mkdir(sdir)
    r = run(["strace", "-f", "-y", "-e", "trace=write", "-o", st, WORK, sdir, str(N)])
    check(r.returncode == 0, "cxx_io under strace: " + r.stderr)
    truth = sum(1 for line in open(st) if "cxx.txt>" in line and line.rstrip().endswith("= 64"))
    check(truth == N, "strace counts %d writes of the text file" % truth)

    trace = os.path.join(tmp, "cxx.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", WORK, tmp, str(N)])
    check(r.returncode == 0, "runtime: " + r.stderr)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    dsw = t.select(cat="HDF5", name=DSW)
    check(len(dsw) == N, "%s: %d calls, the program made %d" % (DSW, len(dsw), N))
    OSW, OSF = cxxfilt(["_ZNSo5writeEPKcl", "_ZNSo5flushEv"])
    osw = t.select(cat="CXX", name=OSW)
    check(len(osw) == N, "%s: %d calls, the program made %d" % (OSW, len(osw), N))
    txt = os.path.join(tmp, "cxx.txt")
    sysw = t.select(cat="sys", name="write", path=txt)
    check(len(sysw) == truth, "sys write on cxx.txt: %d, strace %d" % (len(sysw), truth))
    h5f = t.select(cat="HDF5", name=H5F)
    check(len(h5f) == 1 and t.file(h5f[0]) == os.path.join(tmp, "cxx.h5"),
          "one %s, on the file the program named: %s" % (H5F, [t.file(e) for e in h5f]))
    ids = {e["id"]: e for e in t.events}

    def flush_above(e):
        while e["args"].get("p_idx", -1) in ids:
            e = ids[e["args"]["p_idx"]]
            if e["name"] == OSF:
                return e["id"]
        return None

    # libstdc++ also flushes std::cout and friends at exit: those
    # flushes write nothing to the file.
    flushes = {flush_above(e) for e in sysw}
    check(None not in flushes and len(flushes) == N,
          "each write(2) nests under its own std::ostream::flush (%d)" % len(flushes))

    # A returned std::string's address comes before `this`: the path is
    # the third argument of File::describe.
    dpath = os.path.join(tmp, "dct.path")
    open(dpath, "w").close()
    trace = os.path.join(tmp, "dct.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", DCT, dpath, str(N)])
    check(r.returncode == 0, "runtime on cxx_dct: " + r.stderr)
    t = Trace(trace)
    check(not t.errors and t.end["args"]["dropped"] == 0, "cxx_dct trace whole: %s" % t.errors[:3])
    DESC, CTOR = cxxfilt(["_ZNK3dct4File8describeB5cxx11EPKc", "_ZN3dct4FileC1EPKci"])
    d = t.select(cat="DCT", name=DESC)
    check(len(d) == N and all(t.file(e) == dpath for e in d),
          "%s: %d calls on %s, the program made %d on %s" % (DESC, len(d), {t.file(e) for e in d}, N, dpath))
    c = t.select(cat="DCT", name=CTOR)
    check(len(c) == 1 and t.file(c[0]) == dpath, "%s: once, on %s" % (CTOR, [t.file(e) for e in c]))
done()
