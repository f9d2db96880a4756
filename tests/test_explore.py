#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-explore: the test library's output equals the expected specs
entry by entry; real Debian libraries give plausible counts and the right
roles for key functions; bad input fails clearly; output is accepted by
datacrumbs-gen unchanged."""
import os
import re
import shutil
import tempfile

from dctest import BUILD, GEN, SRC, check, done, run

EXPLORE = os.path.join(BUILD, "explorer", "datacrumbs-explore")
LIB = os.path.join(BUILD, "tests", "libdctest.so")
HDR = os.path.join(SRC, "tests", "explore", "dctest.h")
env = dict(os.environ, LD_LIBRARY_PATH=os.path.dirname(LIB))


def entries(text):
    return sorted(l for l in text.splitlines() if l and not l.startswith("#") and l != "---")


def probe(text, name):
    for l in text.splitlines():
        if l.startswith("- {name: %s," % name) or l.startswith("- {name: %s}" % name):
            return l
    return ""


with tempfile.TemporaryDirectory() as tmp:
    r = run([EXPLORE, "-l", "dct", "-H", HDR, LIB], env=env)
    check(r.returncode == 0, "explore test library: " + r.stderr)
    want = entries(open(os.path.join(SRC, "tests", "explore", "expected.yaml")).read())
    got = entries(r.stdout)
    for w in want:
        check(w in got, "missing entry: " + w)
    for g in got:
        check(g in want, "unexpected entry: " + g)
    check("1 IFUNC resolvers left out" in r.stdout, "IFUNC reported: " + r.stdout[:400])
    check("dct_hidden_helper" not in r.stdout, "static function left out")
    check("impl_versioned" not in r.stdout, "non-default version left out")
    spec = os.path.join(tmp, "dct.yaml")
    open(spec, "w").write(r.stdout)
    g = run([GEN, "-n", spec], env=env)
    check(g.returncode == 0, "gen accepts the explorer's output unchanged: " + g.stderr)

    # Without headers: names only, still valid.
    r = run([EXPLORE, LIB], env=env)
    check(r.returncode == 0 and "- {name: dct_open}" in r.stdout and "layer: app" in r.stdout,
          "no headers: names only")
    r = run([EXPLORE, "--match", "^dct_(open|read)$", "--exclude", "read", LIB], env=env)
    check(entries(r.stdout)[-1:] == ["target: libdctest.so"] or "- {name: dct_open}" in r.stdout, "filters")
    check("dct_read" not in r.stdout.split("---", 1)[-1], "--exclude")
    # The same output twice: deterministic.
    a = run([EXPLORE, "-H", HDR, LIB], env=env).stdout
    check(a == run([EXPLORE, "-H", HDR, LIB], env=env).stdout, "deterministic")

    # C++: the header read as C++, methods found by their mangled names,
    # arguments where the x86-64 ABI puts them (`this` first, a returned
    # std::string's address before it, a double in a vector register),
    # nothing where a small struct by value leaves the ABI's choice open.
    # The places are the ABI's; the names are c++filt -i's.
    if os.uname().machine == "x86_64" and shutil.which("c++filt"):
        xx = os.path.join(BUILD, "tests", "libdctestxx.so")
        r = run([EXPLORE, "-l", "dct", "-H", os.path.join(SRC, "tests", "explore", "dctest.hpp"), xx],
                env=env)
        check(r.returncode == 0, "explore the C++ test library: " + r.stderr)
        got = {}
        for l in r.stdout.splitlines():
            m = re.match(r"- \{name: (?:'((?:[^']|'')*)'|([^,{}']+)), symbol: (\w+)", l)
            if m:
                got[m.group(3)] = ((m.group(1) or "").replace("''", "'") or m.group(2), l)
        filt = run(["c++filt", "-i"] + sorted(got)).stdout.split("\n")
        for sym, f in zip(sorted(got), filt):
            check(got[sym][0] in (f, f + " [deleting]"), "%s named as c++filt -i: %s" % (sym, got[sym][0]))
        want = {
            "_ZN3dct4FileC1EPKci": "args: [_, path, flags]",
            "_ZN3dct4File4openEPKci": "args: [path, flags], ret: fd",
            "_ZNK3dct4File8describeB5cxx11EPKc": "args: [_, _, path]",
            "_ZNK3dct4File6scaledEdi": "args: [_, fd]",
            "_ZN3dct4File6reopenERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEi": "args: [_, _, flags]",
            "_ZNK3dct4File3mixENS_4PairEi": None,
        }
        for sym, args in want.items():
            l = got.get(sym, ("", ""))[1]
            check(l and (args in l if args else "args:" not in l and "proto:" in l),
                  "%s: %s in %s" % (sym, args or "no args", l))
        check(got.get("_ZN3dct4FileD0Ev", ("",))[0] == "dct::File::~File() [deleting]",
              "the deleting destructor named apart")
        spec = os.path.join(tmp, "dctxx.yaml")
        open(spec, "w").write(r.stdout)
        g = run([GEN, "-n", spec], env=env)
        check(g.returncode == 0, "gen accepts the C++ spec: " + g.stderr)

    # USDT notes of any provider, as a usdt spec gen accepts.
    app = os.path.join(BUILD, "tests", "app_probes")
    r = run([EXPLORE, "--usdt", "--match", "^app_step", app])
    check("- {name: 'dcapp:iteration', proto: '2 args:" in r.stdout and
          "- {name: 'dcapp:done', proto: '1 args:" in r.stdout and "mechanism: usdt" in r.stdout,
          "--usdt lists the notes: " + r.stdout[-300:])
    spec = os.path.join(tmp, "usdt.yaml")
    open(spec, "w").write(r.stdout)
    check(run([GEN, "-n", spec]).returncode == 0, "gen accepts --usdt output")

    # Real libraries.
    r = run([EXPLORE, "-D_GNU_SOURCE", "-H", "/usr/include/unistd.h", "-H", "/usr/include/stdio.h",
             "libc.so.6"])
    check(r.returncode == 0, "libc: " + r.stderr)
    found = int(re.search(r"(\d+) functions found, (\d+) kept", r.stdout).group(1))
    check(1500 < found < 4000, "libc functions found: %d" % found)
    p = probe(r.stdout, "pwrite")
    check("args: [fd, buf, count, offset]" in p and "ret: size" in p and "pwrite64" in p,
          "pwrite: fd/count/offset, alias pwrite64: " + p)
    check("layer: STDIO" in r.stdout and "layer: POSIX" in r.stdout, "libc split into POSIX and STDIO")
    # setjmp and getcontext keep their return address for a later jump
    # back: a return probe on them crashes the program, so never listed.
    a = run([EXPLORE, "--all", "libc.so.6"]).stdout
    check(probe(a, "read"), "--all lists read")
    for f in ("setjmp", "_setjmp", "__sigsetjmp", "getcontext", "swapcontext"):
        check(not probe(a, f), "%s left out" % f)
    m = re.search(r"(\d+) setjmp-like functions left out", a)
    check(m and int(m.group(1)) >= 5, "setjmp-like functions reported")
    # exit, abort, longjmp, __libc_start_main never return: traced, every
    # later call of their thread would nest in them and wait on them.
    for f in ("exit", "_exit", "abort", "__libc_start_main", "longjmp", "pthread_exit"):
        check(not probe(a, f), "%s left out" % f)
    m = re.search(r"(\d+) functions that never return left out", a)
    check(m and int(m.group(1)) >= 6, "functions that never return reported")
    check(probe(a, "execvp") and probe(a, "__cxa_atexit"), "execvp and __cxa_atexit kept")
    spec = os.path.join(tmp, "noreturn.yaml")
    open(spec, "w").write("layer: app\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n"
                          "  - {name: 'pthread_exi*'}\n  - {name: exit}\n")
    g = run([GEN, "-n", spec])
    check(g.returncode != 0 and "noreturn.yaml:5:" in g.stderr and "matches no function" in g.stderr
          and "exit" not in g.stderr.replace("pthread_exi*", ""),
          "a pattern leaves pthread_exit out; exit named alone is kept: " + g.stderr)
    spec = os.path.join(tmp, "twice.yaml")
    open(spec, "w").write("layer: POSIX\nmechanism: uprobe\ntarget: libc.so.6\nprobes:\n"
                          "  - {name: read}\n  - {name: _setjmp}\n  - {name: 'get*context'}\n")
    g = run([GEN, "-n", spec])
    check(g.returncode != 0 and "twice.yaml:6:" in g.stderr and "returns twice" in g.stderr,
          "gen refuses _setjmp, naming its line: " + g.stderr)
    check("get*context" in g.stderr and "matches no function" in g.stderr,
          "a pattern leaves getcontext out: " + g.stderr)
    check("args: [path]" in probe(r.stdout, "fopen") and "ret: stream" in probe(r.stdout, "fopen"),
          "fopen: path -> stream")

    h5inc = "/usr/include/hdf5/serial"
    r = run([EXPLORE, "-I", h5inc, "-H", h5inc + "/hdf5.h", "hdf5"])
    check(r.returncode == 0, "hdf5: " + r.stderr)
    m = re.search(r"(\d+) functions found, (\d+) kept, (\d+) with prototypes", r.stdout)
    check(m and 1500 < int(m.group(1)) < 6000 and 100 < int(m.group(2)) < 600
          and m.group(2) == m.group(3), "hdf5 counts: %s" % ((m and m.groups()),))
    check("args: [path]" in probe(r.stdout, "H5Fcreate") and "ret: handle" in probe(r.stdout, "H5Fcreate"),
          "H5Fcreate: filename -> path, returns a handle")
    for fn in ("H5Dcreate2", "H5Dopen2", "H5Gcreate2", "H5Gopen2"):
        check("args: [handle, name]" in probe(r.stdout, fn), "%s: the dataset or group by name: %s"
              % (fn, probe(r.stdout, fn)))
    check("name]" not in probe(r.stdout, "H5Acreate2"), "attributes are not named objects")
    p = probe(r.stdout, "H5Dwrite")
    check("args: [handle, _, _, _, _, buf]" in p, "H5Dwrite: handle and buffer: " + p)
    check(not re.search(r"name: H5[FDGAO]_", r.stdout), "no internal H5X_ helpers")
    check("target: libhdf5_serial.so.103" in r.stdout, "portable soname as target")
    spec = os.path.join(tmp, "hdf5.yaml")
    open(spec, "w").write(r.stdout)
    g = run([GEN, "-n", spec])
    check(g.returncode == 0, "gen accepts the hdf5 specs: " + g.stderr)
    r = run([EXPLORE, "--all", "hdf5"])
    check(r.stdout.count("- {name:") > 1500, "--all keeps every function")

    mpiinc = "/usr/lib/x86_64-linux-gnu/openmpi/include"
    r = run([EXPLORE, "-I", mpiinc, "-H", mpiinc + "/mpi.h", "mpi"])
    check(r.returncode == 0, "mpi: " + r.stderr)
    n = r.stdout.count("- {name: MPI_File_")
    check(50 < n < 150 and r.stdout.count("- {name:") == n, "MPI_File_* only: %d" % n)
    check("args: [_, path" in probe(r.stdout, "MPI_File_open"), "MPI_File_open filename -> path")
    check("layer: MPIIO" in r.stdout, "MPIIO layer")

    # Bad input: a clear error, exit 1, nothing on stdout.
    notelf = os.path.join(tmp, "notelf.so")
    open(notelf, "w").write("hello\n")
    trunc = os.path.join(tmp, "trunc.so")
    open(trunc, "wb").write(open(LIB, "rb").read()[:600])
    elf32 = os.path.join(tmp, "elf32.so")
    data = bytearray(open(LIB, "rb").read())
    data[4] = 1  # EI_CLASS = ELFCLASS32
    open(elf32, "wb").write(data)
    badh = os.path.join(tmp, "bad.h")
    open(badh, "w").write("int broken(int x;\n")
    unreadable = os.path.join(tmp, "missing.h")
    for args, msg in (([os.path.join(tmp, "nosuch.so")], "not found"),
                      (["libnosuch_at_all.so"], "not found"),
                      ([notelf], "not a 64-bit ELF"),
                      ([trunc], "damaged or truncated"),
                      ([elf32], "not a 64-bit ELF"),
                      (["-H", badh, LIB], "bad.h:1:"),
                      (["-H", unreadable, LIB], "missing.h"),
                      (["--match", "(", LIB], "invalid regular expression"),
                      (["c"], None)):
        r = run([EXPLORE] + args, env=env)
        if msg is None:  # "c" resolves to libc.so.6 alone: libc.so is a linker script
            check(r.returncode == 0, "stem 'c' resolves: " + r.stderr)
            continue
        check(r.returncode != 0 and msg in r.stderr and not r.stdout,
              "%s: exit %d, stderr %r" % (args, r.returncode, r.stderr[:200]))
    out = os.path.join(tmp, "out.yaml")
    r = run([EXPLORE, "-o", out, notelf])
    check(r.returncode != 0 and not os.path.exists(out), "-o: nothing half-written")
done()
