#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""IOR -a HDF5 on 4 ranks (IOR built against Debian's parallel HDF5 for
OpenMPI), traced with the shipped specs and no edit: the H5Dwrite and
H5Dread calls IOR's shape determines, each with its bytes, each nested
over the MPI-IO call it made, that over POSIX, that over sys; and
datacrumbs-report --darshan equal to darshan-parser (Darshan 3.4.7 with
MPI and its HDF5 module against the same HDF5) on every counter of the
file's reduced records (rank -1) of the H5F, H5D, MPI-IO and POSIX
modules, but for those that are timing.

Independent transfers (no -c): each rank's H5Dwrite then makes its own
MPI_File_write_at and pwrite64, so every H5Dwrite has the three layers
under it; collective ones, where only aggregator ranks write, are
covered by test_e2e_phdf5.py."""
import collections
import os
import re
import shutil
import tempfile

from dctest import (REPORT, RUNTIME, SRC, Trace, check, darshan_lines, darshan_mpi_parse,
                    darshan_phdf5_prefix, darshan_reduced, done, generate, ior_hdf5_prefix,
                    need_bpf, run, skip)

need_bpf()
LAUNCH = ["mpirun", "-np", "4", "--allow-run-as-root", "--oversubscribe"]
if not shutil.which("mpirun"):
    skip("no mpirun (openmpi-bin; scripts/setup installs it)")
ior_pre, why = ior_hdf5_prefix()
if not ior_pre:
    skip(why)
pre = darshan_phdf5_prefix()
if not pre:
    skip("no Darshan with parallel HDF5: set DARSHAN_PHDF5_PREFIX or keep "
         "../shared/peers/darshan-3.4.7.tar.gz beside the checkout")
IOR = [os.path.join(ior_pre, "bin", "ior"), "-a", "HDF5", "-w", "-r", "-t", "64k", "-b", "256k",
       "-s", "2"]

# As test_e2e_darshan_phdf5.py: which rank was fastest or slowest, and
# the size of the slowest call, are timing; Darshan 3.4.7 wraps __xstat,
# not glibc 2.33's stat, and counts no mmap unless built to.
TIMING = ("FASTEST_RANK", "SLOWEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK_BYTES",
          "MAX_WRITE_TIME_SIZE", "MAX_READ_TIME_SIZE")
KNOWN = {"POSIX_STATS", "POSIX_MMAPS"}
# Known differences IOR shows (docs/report.md): rank 0 alone opens the
# file 3 more times (on MPI_COMM_SELF), which Darshan counts independent
# by the communicator's size and the report collective (the trace holds
# no communicator; their sum is compared instead); and the MPI_Info of
# opens is not traced (MPIIO_HINTS 0 here, 11 in Darshan: every open
# has hints).
KNOWN |= {"MPIIO_INDEP_OPENS", "MPIIO_COLL_OPENS", "MPIIO_HINTS"}
MODULES = ("H5F", "H5D", "MPI-IO", "POSIX")
# Not printed here (docs/report.md): per-dimension hyperslab lengths
# and strides, chunk shapes and buffer alignment, which the trace does
# not hold; renames (not computed yet); and the H5D record's link to
# its file's record, a Darshan record id, not a counter.
UNTRACED = re.compile(r"H5D_(ACCESS\d_(LENGTH|STRIDE)_D\d|CHUNK_SIZE_D\d|FILE_REC_ID)$"
                      r"|POSIX_(MEM_ALIGNMENT|MEM_NOT_ALIGNED|RENAMED_FROM|RENAME_SOURCES"
                      r"|RENAME_TARGETS)$")


def shape(out):
    """IOR's own account of the run: (tasks, segments, block, transfer)."""
    got = dict(re.findall(r"^(tasks|segments|blocksize|xfersize)\s*: (\d+)", out, re.M))
    return tuple(int(got.get(k, -1)) for k in ("tasks", "segments", "blocksize", "xfersize"))


def opens(text, d):
    """MPIIO_INDEP_OPENS + MPIIO_COLL_OPENS of d/ior.h5's reduced record."""
    return sum(value for module, rank, counter, value, name in darshan_lines(text)
               if rank == "-1" and name == os.path.join(d, "ior.h5")
               and counter in ("MPIIO_INDEP_OPENS", "MPIIO_COLL_OPENS"))


def table(text, d):
    """The reduced records of d/ior.h5 and its datasets."""
    return darshan_reduced(text, d, "ior.h5", MODULES,
                           lambda c: c.endswith(TIMING) or c in KNOWN)


with tempfile.TemporaryDirectory() as tmp:
    dd, od = os.path.join(tmp, "darshan"), os.path.join(tmp, "ours")
    os.mkdir(dd)
    os.mkdir(od)
    text = darshan_mpi_parse(pre, LAUNCH, IOR + ["-o", os.path.join(dd, "ior.h5")], tmp,
                             lambda out: {m for m, _, _ in table(out, dd)} == set(MODULES))
    theirs, their_opens = table(text, dd), opens(text, dd)
    check({m for m, _, _ in theirs} == set(MODULES),
          "Darshan logged every module: %s" % sorted({m for m, _, _ in theirs}))

    obj = generate(tmp, [os.path.join(SRC, "probes.d", s) for s in
                         ("sys.yaml", "posix.yaml", "mpiio.yaml", "hdf5.yaml")])
    trace = os.path.join(tmp, "ior.pfw.gz")
    path = os.path.join(od, "ior.h5")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--"] + LAUNCH + IOR + ["-o", path])
    check(r.returncode == 0, "IOR under DataCrumbs: " + r.stderr[-800:])
    tasks, segments, block, xfer = shape(r.stdout)
    check((tasks, segments, block, xfer) == (4, 2, 262144, 65536),
          "IOR ran 4 tasks, 2 segments of 256 KiB blocks in 64 KiB transfers: %s"
          % ((tasks, segments, block, xfer),))
    # Each task moves its block of each segment in transfers, once
    # written and once read; one dataset a segment, shared by the tasks.
    calls = tasks * segments * block // xfer
    datasets = ["ior.h5:/Dataset-0000.%04d" % s for s in range(segments)]

    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped: %s" % t.end["args"])
    kids = collections.defaultdict(list)
    for e in t.events:
        kids[e["args"].get("p_idx")].append(e)

    def below(e, cat):
        return [k for k in kids[e["id"]] if k["pid"] == e["pid"] and k["cat"] == cat]

    for name, verb in (("H5Dwrite", "write"), ("H5Dread", "read")):
        ev = [e for e in t.select(cat="HDF5", name=name) if t.file(e) == path]
        check(len(ev) == calls, "%s: %d calls on %s, IOR made %d" % (name, len(ev), path, calls))
        sizes = collections.Counter(e["args"].get("size") for e in ev)
        check(sizes == {xfer: calls}, "%s bytes: %s, want %d each" % (name, dict(sizes), xfer))
        # Independent transfers: one MPI_File_<verb>_at each, its bytes
        # reaching the file through POSIX p<verb>64 and sys p<verb>64.
        layers = collections.Counter()
        for e in ev:
            mpi = [m for m in below(e, "MPIIO") if m["name"] == "MPI_File_%s_at" % verb]
            px = [p for m in mpi for p in below(m, "POSIX") if p["name"] == "p%s64" % verb]
            sc = [s for p in px for s in below(p, "sys") if s["name"] == "p%s64" % verb]
            layers[(len(mpi), sum(p["args"].get("size", 0) for p in px),
                    sum(s["args"].get("size", 0) for s in sc))] += 1
        print("%s: %d calls, bytes %s, (MPI-IO calls, POSIX bytes, sys bytes) under each: %s"
              % (name, len(ev), dict(sizes), dict(layers)))
        check(layers == {(1, xfer, xfer): calls},
              "%s: (MPI_File_%s_at under it, POSIX bytes under those, sys bytes under "
              "those): %s, want (1, %d, %d) for each" % (name, verb, dict(layers), xfer, xfer))

    r = run([REPORT, "--darshan", trace])
    check(r.returncode == 0, "datacrumbs-report --darshan: " + r.stderr)
    ours = table(r.stdout, od)
    check(opens(r.stdout, od) == their_opens > 0,
          "MPI-IO opens: %d, Darshan %d" % (opens(r.stdout, od), their_opens))
    check({n for _, _, n in ours} == {"ior.h5"} | set(datasets),
          "records of the file and its datasets: %s" % sorted({n for _, _, n in ours}))
    check({n for _, _, n in theirs} == {"ior.h5"} | set(datasets),
          "Darshan's records of the file and its datasets: %s" % sorted({n for _, _, n in theirs}))
    shared = sorted(set(theirs) & set(ours))
    for m in MODULES:
        n = len([k for k in shared if k[0] == m])
        check(n >= (3 if m == "H5F" else 40), "%s: %d counters in both" % (m, n))
    only = sorted(k for k in set(theirs) ^ set(ours) if not UNTRACED.search(k[1]))
    check(not only, "counters in one report only: %s" % only[:20])
    diff = ["%s %s %s: Darshan %d, ours %d" % (m, c, n, theirs[(m, c, n)], ours[(m, c, n)])
            for m, c, n in shared if theirs[(m, c, n)] != ours[(m, c, n)]]
    check(not diff, "counters equal to Darshan's:\n  " + "\n  ".join(diff))
    print("%d counters compared: %s; MPI-IO opens %d" % (
        len(shared), dict(collections.Counter(m for m, _, _ in shared)), their_opens))
    # Against IOR's shape too: each dataset gets every task's block of
    # its segment, written and read in transfers.
    per = calls // segments
    for d in datasets:
        want = {"H5D_WRITES": per, "H5D_READS": per, "H5D_BYTES_WRITTEN": per * xfer,
                "H5D_BYTES_READ": per * xfer, "H5D_USE_MPIIO_COLLECTIVE": 0}
        got = {c: ours.get(("H5D", c, d)) for c in want}
        check(got == want, "%s: %s, want %s" % (d, got, want))
    check(ours.get(("H5F", "H5F_USE_MPIIO", "ior.h5")) == 1, "H5F_USE_MPIIO")
done()
