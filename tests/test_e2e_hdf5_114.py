#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""HDF5 1.14 under a prefix of its own (scripts/build-hdf5: Debian
trixie's 1.14.5, built with debug info), traced with the shipped
probes.d/hdf5.yaml, which the generator makes against Debian's 1.10.8,
and no edit: tests/workloads/hdf5_bytes linked against it makes every
H5Dwrite and H5Dread in the trace, each with the bytes the workload
counted itself, and the kind of selection it made. HDF5 1.14 moves them
through other functions than 1.10, with other structures, whose fields'
offsets (through pointers too) the runtime reads from that copy's
DWARF; with Darshan built against it, every H5D counter but the
slowest calls' is equal to Darshan's. The same copy stripped of its debug info gives every call,
with its bytes "unknown", never wrong ones."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import (REPORT, RUNTIME, SRC, Trace, check, darshan_hdf5_114_prefix, darshan_lines,
                    darshan_parse, done, generate, hdf5_114_prefix, need_bpf, run, skip)

need_bpf()
CC = shutil.which("cc")
if not CC or not shutil.which("objcopy"):
    skip("no C compiler or objcopy")
pre, why = hdf5_114_prefix()
if not pre:
    skip(why)
LIB = os.path.join(pre, "lib")
# H5D counters of the slowest calls: timing, never equal between runs.
NOT_ON_114 = {"H5D_MAX_WRITE_TIME_SIZE", "H5D_MAX_READ_TIME_SIZE"}


def h5d(text):
    """{(counter, "data.h5:/dataset"): value} of the H5D counter lines."""
    return {(c, name[name.find("/data.h5") + 1:]): v for m, _, c, v, name in darshan_lines(text)
            if m == "H5D" and "/data.h5" in name}


def events(trace, h5):
    """Each H5Dwrite and H5Dread on @h5, in call order."""
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    return sorted((e for e in t.select(cat="HDF5") if e["name"] in ("H5Dwrite", "H5Dread")
                   and t.file(e) == h5), key=lambda e: e["ts"])


def calls(trace, h5):
    """[name, size or None, size_unknown] of each H5Dwrite and H5Dread on
    @h5, in call order."""
    return [[e["name"], e["args"].get("size"), e["args"].get("size_unknown")]
            for e in events(trace, h5)]


def kind(args):
    """The file selection's kind as tests/workloads/hdf5_bytes names it,
    from H5S_sel_type (1 points, 2 hyperslabs) and diminfo_valid (2
    regular)."""
    if args.get("selection") == 1:
        return "point"
    if args.get("selection") == 2:
        return "regular" if args.get("regular") == 2 else "irregular"
    return ""


def build(tmp, name):
    """tests/workloads/@name.c linked against HDF5 1.14, with a RUNPATH
    (new dtags, as Spack links): LD_LIBRARY_PATH still wins over it."""
    exe = os.path.join(tmp, name)
    r = run([CC, "-O1", "-I", os.path.join(pre, "include"), "-o", exe,
             os.path.join(SRC, "tests", "workloads", name + ".c"), "-L", LIB, "-lhdf5",
             "-Wl,--enable-new-dtags,-rpath," + LIB])
    check(r.returncode == 0, "building %s against HDF5 1.14: %s" % (name, r.stderr[-1500:]))
    return exe


with tempfile.TemporaryDirectory() as tmp:
    exe = build(tmp, "hdf5_bytes")
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
    # The kind of each call's file selection, read through the file
    # dataspace's pointers by name: the workload's, every kind made.
    kinds = [[n, k] for n, _, _, k in json.loads(r.stdout)["calls"]]
    got = [[e["name"], kind(e["args"])] for e in events(trace, h5)]
    check({k for _, k in kinds} >= {"regular", "irregular", "point", ""} and got == kinds,
          "HDF5 1.14: every H5Dwrite/H5Dread with its selection kind: %s, want %s"
          % (got, kinds))

    # Darshan built with its HDF5 module against this HDF5: the H5D
    # counters of each dataset, ours from the same trace, are equal.
    dpre = darshan_hdf5_114_prefix(pre)
    if dpre:
        dd = os.path.join(tmp, "darshan")
        os.mkdir(dd)
        theirs = h5d(darshan_parse(dpre, [exe, os.path.join(dd, "data.h5")],
                                   os.path.join(tmp, "run.darshan")))
        r = run([REPORT, "-q", "--darshan", trace])
        check(r.returncode == 0, "datacrumbs-report --darshan: " + r.stderr)
        ours = h5d(r.stdout)
        shared = sorted(k for k in set(theirs) & set(ours) if k[0] not in NOT_ON_114)
        check(len({n for _, n in shared}) == 6 and len(shared) >= 6 * 30,
              "%d H5D counters of 6 datasets in both" % len(shared))
        diff = ["%s %s: Darshan %d, ours %d" % (c, n, theirs[(c, n)], ours[(c, n)])
                for c, n in shared if theirs[(c, n)] != ours[(c, n)]]
        check(not diff, "HDF5 1.14: H5D counters equal to Darshan's:\n  " + "\n  ".join(diff))
        check(sum(v for (c, _), v in ours.items() if c == "H5D_BYTES_WRITTEN")
              == sum(b for n, b, _ in want if n == "H5Dwrite"),
              "HDF5 1.14: H5D_BYTES_WRITTEN sums to the workload's bytes")

    # The public calls of tests/workloads/hdf5_calls, each as often as it
    # made them, and its 1 MiB writes and reads with their bytes.
    h5 = os.path.join(tmp, "calls.h5")
    trace = os.path.join(tmp, "calls.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", build(tmp, "hdf5_calls"), h5])
    check(r.returncode == 0, "hdf5_calls: runtime: " + r.stderr[-1500:])
    truth = json.loads(r.stdout)
    t = Trace(trace)
    for fn, n in truth.items():
        if fn.startswith("H5"):
            got = len(t.select(cat="HDF5", name=fn))
            check(got == n, "hdf5_calls: %s %d calls traced, made %d" % (fn, got, n))
    sizes = {e["args"].get("size") for e in t.select(cat="HDF5")
             if e["name"] in ("H5Dwrite", "H5Dread")}
    check(sizes == {truth["bytes"]}, "hdf5_calls: every H5Dwrite/H5Dread moved %d bytes: %s"
          % (truth["bytes"], sizes))

    # A field read through an argument that does not point to its
    # structure (H5D__contig_write's first is an H5D_io_info_t) is not
    # read at all: the bytes are unknown, not what lies at that offset.
    spec = os.path.join(tmp, "wrong.yaml")
    open(spec, "w").write(
        "layer: HDF5\nmechanism: uprobe\ntarget: %s\nprobes:\n"
        "- {name: H5Dwrite, args: [handle], ret: status}\n"
        "- {name: H5D__contig_write, args: [[elements@H5D_dset_io_info_t.nelmts, "
        "itemsize@H5D_dset_io_info_t.type_info.dst_type_size]], feeds: H5Dwrite}\n"
        % os.path.join(LIB, soname))
    h5 = os.path.join(tmp, "wrong.h5")
    trace = os.path.join(tmp, "wrong.pfw.gz")
    r = run([RUNTIME, "-o", trace, generate(tmp, [spec], "wrong.bpf.o"), "--", exe, h5])
    check(r.returncode == 0, "wrong argument: runtime: " + r.stderr[-1500:])
    got = [e["args"] for e in Trace(trace).select(cat="HDF5", name="H5Dwrite")]
    check(got and all("size" not in a and a.get("size_unknown") == 1 for a in got),
          "wrong argument: every H5Dwrite's bytes unknown: %s" % got[:3])
    check("H5D_dset_io_info_t.nelmts where a probe reads it" in r.stderr,
          "wrong argument: the run says why: " + r.stderr[-1500:])

    # Through a pointer, each structure is checked in the copy's DWARF
    # against what the field before points to: a member it lacks, or a
    # field that is no pointer to it, leaves the probe off, said so.
    for n, (field, why) in enumerate((("H5D_dset_io_info_t.file_space@H5S_t.extent.nosuch",
                        "its debug info has no H5S_t.extent.nosuch where a probe reads it"),
                       ("H5D_dset_io_info_t.nelmts@H5S_t.extent.nelem",
                        "in its debug info H5D_dset_io_info_t.nelmts, where a probe reads it, "
                        "is not a pointer to H5S_t"))):
        open(spec, "w").write(
            "layer: HDF5\nmechanism: uprobe\ntarget: %s\nprobes:\n"
            "- {name: H5Dwrite, args: [handle], ret: status}\n"
            "- {name: H5D__contig_write, args: [_, [elements@%s, "
            "itemsize@H5D_dset_io_info_t.type_info.dst_type_size]], feeds: H5Dwrite}\n"
            % (os.path.join(LIB, soname), field))
        trace = os.path.join(tmp, "hop%d.pfw.gz" % n)
        r = run([RUNTIME, "-o", trace, generate(tmp, [spec], "hop%d.bpf.o" % n), "--", exe, h5])
        check(r.returncode == 0, "%s: runtime: %s" % (field, r.stderr[-1500:]))
        got = [e["args"] for e in Trace(trace).select(cat="HDF5", name="H5Dwrite")]
        check(got and all(a.get("size_unknown") == 1 for a in got),
              "%s: every H5Dwrite's bytes unknown: %s" % (field, got[:3]))
        check(why in r.stderr and soname in r.stderr,
              "%s: the run names the copy and says why: %s" % (field, r.stderr[-1500:]))

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

    def debuglinked(d, debug):
        """The library stripped into @d, naming @debug (its debug info,
        made first) in its .gnu_debuglink."""
        os.mkdir(d)
        lib = os.path.join(LIB, soname)
        for cmd in (["objcopy", "--only-keep-debug", lib, debug],
                    ["objcopy", "--strip-debug", "--add-gnu-debuglink=" + debug, lib,
                     os.path.join(d, soname)]):
            r = subprocess.run(cmd, capture_output=True, text=True, cwd=d)
            check(r.returncode == 0, "objcopy: " + r.stderr)

    # Debug info in a separate file that .gnu_debuglink names, next to
    # the library in a directory only root can write: read as the
    # library's own.
    linked = os.path.join(tmp, "linked")
    debuglinked(linked, soname + ".debug")
    h5 = os.path.join(tmp, "linked.h5")
    trace = os.path.join(tmp, "linked.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", exe, h5],
            env=dict(os.environ, LD_LIBRARY_PATH=linked))
    check(r.returncode == 0, "debuglink: runtime: " + r.stderr[-1500:])
    want = [[n, b, None] for n, b, _, _ in json.loads(r.stdout)["calls"]]
    check(calls(trace, h5) == want, "debuglink: every call with its bytes")

    # The same in a directory another user owns: the debuglink is theirs
    # to point anywhere (here at a FIFO, whose open would hang the
    # runtime), so only system places (/usr/lib/debug/.build-id) are
    # searched, and the bytes are unknown.
    hostile = os.path.join(tmp, "hostile")
    debuglinked(hostile, "evil.debug")
    os.unlink(os.path.join(hostile, "evil.debug"))
    os.mkfifo(os.path.join(hostile, "evil.debug"))
    os.chown(hostile, 65534, 65534)
    os.chmod(tmp, 0o755)
    h5 = os.path.join(tmp, "hostile.h5")
    trace = os.path.join(tmp, "hostile.pfw.gz")
    try:
        r = run([RUNTIME, "-o", trace, obj, "--", exe, h5],
                env=dict(os.environ, LD_LIBRARY_PATH=hostile), timeout=120)
    except subprocess.TimeoutExpired:
        check(False, "another user's debuglink to a FIFO: the runtime hung")
    else:
        check(r.returncode == 0, "another user's debuglink: runtime: " + r.stderr[-1500:])
        want = [[n, None, 1] for n, _, _, _ in json.loads(r.stdout)["calls"]]
        check(calls(trace, h5) == want,
              "another user's debuglink: every call, its bytes unknown")
done()
