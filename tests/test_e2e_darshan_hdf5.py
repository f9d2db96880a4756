#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --darshan's H5F and H5D counters against Darshan 3.4.7
built with its HDF5 module (scripts/build-darshan-hdf5): the same HDF5
workload (tests/workloads/hdf5_bytes.c: contiguous, converted, chunked,
compact and empty writes and reads on four datasets, and on two more, of
two dimensions, every kind of file selection) runs once under
Darshan and once under DataCrumbs, and every counter both print for the
file and each dataset must be equal, as must the POSIX counters of the
file HDF5 wrote through libc."""
import json
import os
import tempfile

from dctest import (BUILD, REPORT, RUNTIME, check, darshan_hdf5_prefix, darshan_lines,
                    darshan_parse, done, generate, need_bpf, run, skip)

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_bytes")
if not os.path.exists(WORK):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
pre = darshan_hdf5_prefix()
if not pre:
    skip("no Darshan with HDF5: set DARSHAN_HDF5_PREFIX or keep ../shared/peers/darshan-3.4.7.tar.gz beside the checkout")

# Counters that differ for a reason (docs/report.md).
KNOWN = {
    "POSIX_STATS",  # Darshan 3.4.7 wraps __xstat, not glibc 2.33's stat
    "POSIX_MMAPS",  # -1 unless Darshan is built to follow mmap
    # The size of the slowest write is timing: /chunked's writes are 8000
    # and 0 bytes. (Each dataset is read once, so the slowest read is
    # certain and compared.)
    "H5D_MAX_WRITE_TIME_SIZE",
    # ... and so are the slowest POSIX write's and read's: HDF5 moves
    # 96 bytes to 4 KiB at a time.
    "POSIX_MAX_WRITE_TIME_SIZE",
    "POSIX_MAX_READ_TIME_SIZE",
}


def table(text):
    """{(counter, record name from the file's base name on): value} of the
    H5F, H5D and POSIX counter lines."""
    return {(counter, name[name.find("/data.h5") + 1:]): value
            for module, _, counter, value, name in darshan_lines(text)
            if module in ("H5F", "H5D", "POSIX") and "/data.h5" in name}


with tempfile.TemporaryDirectory() as tmp:
    dd, od = os.path.join(tmp, "darshan"), os.path.join(tmp, "ours")
    os.mkdir(dd)
    os.mkdir(od)
    theirs = table(darshan_parse(pre, [WORK, os.path.join(dd, "data.h5")],
                                 os.path.join(tmp, "run.darshan")))

    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/hdf5.yaml"])
    trace = os.path.join(tmp, "h5.pfw.gz")
    h5 = os.path.join(od, "data.h5")
    r = run([RUNTIME, "-o", trace, obj, "--", WORK, h5])
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(r.stdout)["calls"]
    r = run([REPORT, "--darshan", trace])
    check(r.returncode == 0, "datacrumbs-report --darshan: " + r.stderr)
    ours = table(r.stdout)

    names = {n for _, n in ours}
    check(names == {"data.h5", "data.h5:/ints", "data.h5:/floats", "data.h5:/chunked",
                    "data.h5:/compact", "data.h5:/grid", "data.h5:/pts"},
          "records of the file and each dataset: %s" % sorted(names))
    shared = sorted(set(theirs) & set(ours))
    check(len(shared) >= 5 * 40, "%d counters in both" % len(shared))
    diff = ["%s %s: Darshan %d, ours %d" % (c, n, theirs[(c, n)], ours[(c, n)])
            for c, n in shared if c not in KNOWN and theirs[(c, n)] != ours[(c, n)]]
    check(not diff, "counters equal to Darshan's:\n  " + "\n  ".join(diff))
    # Against the workload's own count too, so equal cannot mean both wrong.
    for dset in ("/ints", "/floats", "/chunked", "/compact", "/grid", "/pts"):
        for call, counter in (("H5Dwrite", "H5D_BYTES_WRITTEN"), ("H5Dread", "H5D_BYTES_READ")):
            want = sum(b for c, b, d, _ in truth if c == call and d == dset)
            check(ours.get((counter, "data.h5:" + dset)) == want,
                  "%s of %s: %s, the workload says %d"
                  % (counter, dset, ours.get((counter, "data.h5:" + dset)), want))
        for k, counter in (("regular", "H5D_REGULAR_HYPERSLAB_SELECTS"),
                           ("irregular", "H5D_IRREGULAR_HYPERSLAB_SELECTS"),
                           ("point", "H5D_POINT_SELECTS")):
            want = sum(1 for _, _, d, kind in truth if d == dset and kind == k)
            check(ours.get((counter, "data.h5:" + dset)) == want,
                  "%s of %s: %s, the workload says %d"
                  % (counter, dset, ours.get((counter, "data.h5:" + dset)), want))
    # The shapes hdf5_bytes.c gives its datasets: rank, elements, type size.
    for dset, shape in (("/ints", (1, 4096, 4)), ("/floats", (1, 4096, 4)),
                        ("/chunked", (1, 4096, 8)), ("/compact", (1, 100, 4)),
                        ("/grid", (2, 2048, 4)), ("/pts", (2, 64, 4))):
        got = tuple(ours.get((c, "data.h5:" + dset)) for c in (
            "H5D_DATASPACE_NDIMS", "H5D_DATASPACE_NPOINTS", "H5D_DATATYPE_SIZE"))
        check(got == shape, "shape of %s: %s, the workload made %s" % (dset, got, shape))
    check(ours.get(("H5D_REGULAR_HYPERSLAB_SELECTS", "data.h5:/grid")) == 2 and
          ours.get(("H5D_IRREGULAR_HYPERSLAB_SELECTS", "data.h5:/grid")) == 2 and
          ours.get(("H5D_POINT_SELECTS", "data.h5:/grid")) == 1 and
          ours.get(("H5D_POINT_SELECTS", "data.h5:/pts")) == 1,
          "each selection kind counted on /grid and /pts")
    check(ours.get(("H5D_WRITES", "data.h5:/ints")) == 3 and ours.get(("H5F_OPENS", "data.h5")) == 1,
          "the counters are not trivial")

    # --json --darshan: the file's H5F counters and each dataset's H5D.
    r = run([REPORT, "--json", "--darshan", trace])
    check(r.returncode == 0, "--json --darshan: " + r.stderr)
    entry = [f for f in json.loads(r.stdout)["files"] if f["name"] == h5]
    dsh = entry[0].get("darshan", {}) if entry else {}
    check(dsh.get("H5F", {}).get("H5F_OPENS") == 1, "--json H5F: %s" % dsh.get("H5F"))
    check(sorted(dsh.get("H5D", {})) == ["/chunked", "/compact", "/floats", "/grid", "/ints",
                                         "/pts"],
          "--json H5D datasets: %s" % sorted(dsh.get("H5D", {})))
    check(all(dsh["H5D"][d][c] == ours[(c, "data.h5:" + d)]
              for d in dsh.get("H5D", {}) for c in dsh["H5D"][d] if "_F_" not in c),
          "--json carries the text's counters")
done()
