#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --darshan against Darshan 3.4.7 built with MPI and
its HDF5 module against the same parallel HDF5 (Debian's OpenMPI flavour,
scripts/build-darshan-hdf5 --flavour openmpi; or, with the argument
'mpich', the MPICH one, --flavour mpich): the 4-rank parallel HDF5
workload (tests/workloads/phdf5_calls.c: collective and independent
writes and reads of one shared dataset) runs once under Darshan and once
under DataCrumbs with the shipped specs, and every counter of the shared
file's reduced records (rank -1) of the H5F, H5D, MPI-IO and POSIX
modules must be equal, but for those that are timing."""
import os
import sys
import tempfile

from dctest import (REPORT, RUNTIME, SRC, check, darshan_mpi_parse, darshan_phdf5_prefix,
                    darshan_reduced, done, generate, need_bpf, phdf5_flavour, run, skip)

need_bpf()
MPICH = sys.argv[1:] == ["mpich"]
WORK, SPEC, LAUNCH = phdf5_flavour(MPICH)
pre = darshan_phdf5_prefix("mpich" if MPICH else "openmpi")
if not pre:
    skip("no Darshan with parallel HDF5: set DARSHAN_PHDF5_PREFIX or keep "
         "../shared/peers/darshan-3.4.7.tar.gz beside the checkout")

# Which rank was fastest or slowest (and so its bytes), and the size of
# the slowest call, are timing; Darshan 3.4.7 wraps __xstat, not glibc
# 2.33's stat, and counts no mmap unless built to (docs/report.md).
TIMING = ("FASTEST_RANK", "SLOWEST_RANK", "FASTEST_RANK_BYTES", "SLOWEST_RANK_BYTES",
          "MAX_WRITE_TIME_SIZE", "MAX_READ_TIME_SIZE")
KNOWN = {"POSIX_STATS", "POSIX_MMAPS"}
MODULES = ("H5F", "H5D", "MPI-IO", "POSIX")


def table(text, d):
    """The reduced records of d/p.h5 and its dataset (d/p.h5:/data)."""
    return darshan_reduced(text, d, "p.h5", MODULES,
                           lambda c: c.endswith(TIMING) or c in KNOWN)


with tempfile.TemporaryDirectory() as tmp:
    dd, od = os.path.join(tmp, "darshan"), os.path.join(tmp, "ours")
    os.mkdir(dd)
    os.mkdir(od)
    theirs = table(darshan_mpi_parse(
        pre, LAUNCH, [WORK, os.path.join(dd, "p.h5")], tmp,
        lambda out: {m for m, _, _ in table(out, dd)} == set(MODULES), MPICH), dd)
    check({m for m, _, _ in theirs} == set(MODULES),
          "Darshan logged every module: %s" % sorted({m for m, _, _ in theirs}))

    obj = generate(tmp, [os.path.join(SRC, "probes.d", s) for s in
                         ("sys.yaml", "posix.yaml", SPEC, "hdf5.yaml")])
    trace = os.path.join(tmp, "p.pfw.gz")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--"] + LAUNCH + [WORK, os.path.join(od, "p.h5")])
    check(r.returncode == 0, "workload under DataCrumbs: " + r.stderr[-800:])
    r = run([REPORT, "--darshan", trace])
    check(r.returncode == 0, "datacrumbs-report --darshan: " + r.stderr)
    ours = table(r.stdout, od)

    check({n for _, _, n in ours} == {"p.h5", "p.h5:/data"},
          "records of the file and its dataset: %s" % sorted({n for _, _, n in ours}))
    shared = sorted(set(theirs) & set(ours))
    # H5F has 3 counters besides its times; the others dozens.
    for m in MODULES:
        n = len([k for k in shared if k[0] == m])
        check(n >= (3 if m == "H5F" else 40), "%s: %d counters in both" % (m, n))
    diff = ["%s %s %s: Darshan %d, ours %d" % (m, c, n, theirs[(m, c, n)], ours[(m, c, n)])
            for m, c, n in shared if theirs[(m, c, n)] != ours[(m, c, n)]]
    check(not diff, "counters equal to Darshan's:\n  " + "\n  ".join(diff))
    # Against the workload's own counts too (4 ranks, 3 collective and 2
    # independent writes of 32 KiB each, 2 and 2 reads; HDF5 adds
    # independent writes and reads of its own metadata).
    want = {("H5D", "H5D_WRITES", "p.h5:/data"): 20, ("H5D", "H5D_READS", "p.h5:/data"): 16,
            ("H5D", "H5D_BYTES_WRITTEN", "p.h5:/data"): 20 * 32768,
            ("H5D", "H5D_BYTES_READ", "p.h5:/data"): 16 * 32768,
            ("MPI-IO", "MPIIO_COLL_WRITES", "p.h5"): 12, ("MPI-IO", "MPIIO_COLL_READS", "p.h5"): 8,
            ("H5F", "H5F_USE_MPIIO", "p.h5"): 1,
            ("H5D", "H5D_USE_MPIIO_COLLECTIVE", "p.h5:/data"): 1}
    got = {k: ours.get(k) for k in want}
    check(got == want, "counters the workload knows: %s, want %s" % (got, want))
done()
