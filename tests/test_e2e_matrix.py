#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The same workloads on any kernel, for scripts/kernel-matrix (suite
"matrix"): dd (sys and POSIX), a program that knows its STDIO calls, one
that knows its HDF5 calls, 4 MPI ranks that know their MPI-IO calls, fio's
io_uring and libaio engines (their own request counts) and a read of a
file whose pages were dropped (kernel tracepoints), traced in one run of
one object. Each count is checked against the workload's own here; with
DC_MATRIX_OUT set, the calls of every layer on the workloads' files
(count and bytes per layer, function and file) are written there, with
what the kernel made the runtime leave out, so that scripts/kernel-matrix
can require the same answer from every kernel."""
import json
import os
import sys
import tempfile

from dctest import (BUILD, RUNTIME, SRC, Trace, call_totals, check, check_cold_read, check_dd_writes,
                    check_fio_writes, check_stdio_calls, done, drop_pages, fio_write, generate,
                    need_bpf, need_tool, run, skip)

SPECS = ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml", "probes.d/hdf5.yaml",
         "probes.d/mpiio.yaml", "probes.d/kernel.yaml", "probes.d/io_uring.yaml",
         "probes.d/libaio.yaml"]
if sys.argv[1:] == ["--specs"]:  # for scripts/kernel-matrix
    print(" ".join(SPECS))
    sys.exit(0)
need_bpf()
need_tool("fio")
STDIO = os.path.join(BUILD, "tests", "stdio_calls")
HDF5 = os.path.join(BUILD, "tests", "hdf5_calls")
MPIIO = os.path.join(BUILD, "tests", "mpiio_calls")
for prog, what in ((HDF5, "HDF5 (libhdf5-dev)"), (MPIIO, "OpenMPI (libopenmpi-dev)")):
    if not os.path.exists(prog):
        skip("%s was not found when building; scripts/setup installs it" % what)
need_tool("mpirun")
NP, N, BS, IOS = 4, 300, 4096, 64
COLD = os.path.join(SRC, "tests", "test_e2e_matrix.py")


with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as tmp:
    # One object for every kernel, as a site generates it once
    # (scripts/kernel-matrix, on its machine): a kernel that cannot trace
    # part of it says so at run time. Alone, the test makes its own.
    obj = os.environ.get("DC_MATRIX_OBJ") or generate(tmp, SPECS, extra=["--skip-missing"])
    work = os.path.join(tmp, "w")
    os.mkdir(work)
    script = " && ".join([
        "dd if=/dev/zero of=%s/dd bs=%d count=%d status=none" % (work, BS, N),
        "%s %s > %s/stdio.json" % (STDIO, work, tmp),
        "%s %s/out.h5 > %s/hdf5.json" % (HDF5, work, tmp),
        "mpirun -np %d --allow-run-as-root --oversubscribe %s %s/shared.dat > %s/mpi.out"
        % (NP, MPIIO, work, tmp),
        fio_write("io_uring", work + "/uring.dat", tmp + "/uring.json", BS, IOS),
        fio_write("libaio", work + "/aio.dat", tmp + "/aio.json", BS, IOS),
        drop_pages(COLD),
        "cat %s > /dev/null" % COLD])
    trace = os.path.join(tmp, "all.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c", script])
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped: %s" % t.end["args"])
    unsupported = [u for u in t.start["args"]["unsupported"].split(",") if u]

    # What each workload knows of itself.
    check_dd_writes(t, work + "/dd", N, BS)
    totals = call_totals(t)
    check_stdio_calls(totals, os.path.join(tmp, "stdio.json"))
    truth = json.load(open(os.path.join(tmp, "hdf5.json")))
    for name, n in truth.items():
        if name.startswith("H5"):
            got = len(t.select(cat="HDF5", name=name))
            check(got == n, "HDF5 %s: %d, the program made %d" % (name, got, n))
    truth = json.loads(open(os.path.join(tmp, "mpi.out")).read().strip().splitlines()[-1])
    for name, n in truth.items():
        if name.startswith("MPI_File_") and not isinstance(n, list):
            got = len(t.select(cat="MPIIO", name=name))
            check(got == n * NP, "MPIIO %s: %d, the %d ranks made %d" % (name, got, NP, n * NP))
    check_fio_writes(t, tmp, work, IOS)
    # The page cache's adds depend on the kernel's readahead, not on the
    # workload: here only that they come, under cat's reads.
    check_cold_read(t, COLD)

    out = os.environ.get("DC_MATRIX_OUT")
    if out:
        counts = {"%s %s %s" % (cat, fn, f[len(work) + 1:]): v
                  for (cat, fn, f), v in totals.items()
                  if cat != "kernel" and f and f.startswith(work + "/")}
        a = t.start["args"]
        with open(out + ".tmp", "w") as f:
            json.dump({"kernel": os.uname().release, "fallbacks": a["fallbacks"],
                       "uprobes": a["uprobes"], "unsupported": unsupported,
                       "counts": counts}, f, indent=1, sort_keys=True)
        os.rename(out + ".tmp", out)
done()
