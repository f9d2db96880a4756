#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HDF5 layer against workloads that report their calls: exact counts
per function, every call named with the file through its hid_t (dataset
-> group -> file), the multi-level view (each H5Dwrite's 1 MiB reaches
the file as POSIX pwrite64 -> sys pwrite64 nested under it), and the bytes
of each H5Dwrite and H5Dread as Darshan counts them (elements selected
times the size of the dataset's type), in trace and profile mode, through
contiguous, converted, chunked, compact and empty selections, and the
kind of each one's file selection (args.selection, args.regular) as the
workload made it: a strided hyperslab, a union of two blocks, points, all
and a block less another that HDF5 finds regular only while it writes."""
import json
import os
import tempfile

from dctest import BUILD, REPORT, RUNTIME, Trace, check, done, generate, need_bpf, run, skip

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_calls")
BYTES = os.path.join(BUILD, "tests", "hdf5_bytes")
if not os.path.exists(WORK):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")


def kind(e):
    """The kind of a call's file selection as Darshan counts it, from
    args.selection (HDF5's H5S_sel_type) and args.regular."""
    sel, reg = e["args"].get("selection"), e["args"].get("regular")
    return {1: "point", 2: "regular" if reg == 2 else "irregular"}.get(sel, "")

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/hdf5.yaml"])
    h5 = os.path.join(tmp, "out.h5")
    trace = os.path.join(tmp, "h5.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", WORK, h5])
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    counts = {}
    for e in t.select(cat="HDF5"):
        counts[e["name"]] = counts.get(e["name"], 0) + 1
    for name, n in truth.items():
        if name.startswith("H5"):
            check(counts.get(name) == n, "%s: %s calls, want %d" % (name, counts.get(name), n))
    for name in ("H5Dwrite", "H5Dread", "H5Dcreate2", "H5Gcreate2", "H5Awrite", "H5Fclose", "H5Dopen2"):
        ev = t.select(cat="HDF5", name=name)
        check(ev and all(t.file(e) == h5 for e in ev), "%s named %s through its hid_t" % (name, h5))
    ids = {e["id"]: e for e in t.events}
    writes = t.select(cat="HDF5", name="H5Dwrite")
    for w in writes:
        kids = [e for e in t.events if e["args"].get("p_idx") == w["id"]]
        pw = [k for k in kids if k["cat"] == "POSIX" and k["name"] == "pwrite64" and t.file(k) == h5]
        check(sum(k["args"]["size"] for k in pw) == truth["bytes"],
              "H5Dwrite id %d: POSIX pwrite64 of %d bytes under it" % (w["id"], truth["bytes"]))
        for k in pw:
            sc = [e for e in t.events if e["args"].get("p_idx") == k["id"]]
            check(len(sc) == 1 and sc[0]["cat"] == "sys" and sc[0]["name"] == "pwrite64"
                  and sc[0]["args"]["level"] == 3, "sys pwrite64 under POSIX pwrite64 under H5Dwrite")
    check(len(writes) == truth["H5Dwrite"], "every H5Dwrite checked")
    # Datasets and groups are named in the file, through the handle they
    # were created or opened on ("data" under the group "/grp").
    for name, what in (("H5Gcreate2", "/grp"), ("H5Dcreate2", "/grp/data"),
                      ("H5Dopen2", "/grp/data"), ("H5Dwrite", "/grp/data"),
                      ("H5Dread", "/grp/data"), ("H5Dclose", "/grp/data"),
                      ("H5Gclose", "/grp"), ("H5Acreate2", "/grp/data")):
        ev = t.select(cat="HDF5", name=name)
        check(ev and all(e["args"].get("object") == what for e in ev),
              "%s on object %s: %s" % (name, what, [e["args"].get("object") for e in ev]))
    check(not [e for e in t.select(cat="HDF5", name="H5Fclose") if "object" in e["args"]],
          "file calls name no object")
    check(all(w["args"].get("size") == truth["bytes"] for w in writes),
          "each H5Dwrite moved %d bytes: %s" % (truth["bytes"], [w["args"].get("size") for w in writes]))
    reads = t.select(cat="HDF5", name="H5Dread")
    check(reads and all(e["args"].get("size") == truth["bytes"] for e in reads),
          "each H5Dread moved %d bytes: %s" % (truth["bytes"], [e["args"].get("size") for e in reads]))

    # Bytes, call by call, against the workload's own count.
    h5b = os.path.join(tmp, "bytes.h5")
    tb = os.path.join(tmp, "bytes.pfw.gz")
    r = run([RUNTIME, "-o", tb, obj, "--", BYTES, h5b])
    check(r.returncode == 0, "bytes run: " + r.stderr)
    want = json.loads(r.stdout)["calls"]
    t = Trace(tb)
    check(not t.errors, "format: %s" % t.errors[:3])
    got = [[e["name"], e["args"].get("size"), e["args"].get("object"), kind(e)] for e in sorted(
        t.select(cat="HDF5"), key=lambda e: e["ts"]) if e["name"] in ("H5Dwrite", "H5Dread")]
    check(got == want, "H5Dwrite/H5Dread bytes, datasets and selection kinds in call order: "
          "%s, want %s" % (got, want))
    check({k for _, _, _, k in want} == {"", "regular", "irregular", "point"},
          "the workload has every kind of selection")
    check(all(t.file(e) == h5b for e in t.select(cat="HDF5", name="H5Dwrite")),
          "every H5Dwrite on %s" % h5b)
    # Where uprobes come as entry and return pairs (kernels before 6.13),
    # a feeder's return probe must leave the frames alone.
    tb2 = os.path.join(tmp, "pairs.pfw.gz")
    r = run([RUNTIME, "-o", tb2, obj, "--", BYTES, h5b],
            env=dict(os.environ, DATACRUMBS_UPROBE_PAIRS="1"))
    check(r.returncode == 0, "pairs run: " + r.stderr)
    t2 = Trace(tb2)
    got2 = [[e["name"], e["args"].get("size"), e["args"].get("object"), kind(e)] for e in sorted(
        t2.select(cat="HDF5"), key=lambda e: e["ts"]) if e["name"] in ("H5Dwrite", "H5Dread")]
    check(got2 == want, "with entry/return pairs: %s, want %s" % (got2, want))
    check(t2.end["args"]["dropped"] == 0, "pairs: nothing dropped")
    rep = json.loads(run([REPORT, "--json", tb]).stdout)
    hdf5 = [l for l in rep["layers"] if l["name"] == "HDF5"]
    written = sum(b for n, b, _, _ in want if n == "H5Dwrite")
    read = sum(b for n, b, _, _ in want if n == "H5Dread")
    check(hdf5 and hdf5[0]["bytes_written"] == written and hdf5[0]["bytes_read"] == read,
          "report: HDF5 wrote %d and read %d bytes: %s" % (written, read, hdf5))

    # Profile mode: calls on handles closed within the interval still
    # land on their file's row, with the counts trace mode has.
    prof = os.path.join(tmp, "profile.pfw.gz")
    h5p = os.path.join(tmp, "p.h5")
    r = run([RUNTIME, "-m", "profile", "-o", prof, obj, "--", WORK, h5p])
    check(r.returncode == 0, "profile run: " + r.stderr)
    rows = {}
    files = {}
    for line in Trace(prof, complete=True).lines[1:-1]:
        e = json.loads(line)
        if e["ph"] == "M" and e["name"] == "FH":
            files[e["args"]["value"]] = e["args"]["name"]
        elif e.get("cat") == "HDF5" and e["ph"] in ("C", "X"):
            key = (e["name"], files.get(e["args"].get("fhash")))
            rows[key] = rows.get(key, 0) + e["args"].get("count", 1)
    check(not [k for k in rows if k[1] is None], "every HDF5 row has its file: %s"
          % sorted(k for k in rows if k[1] is None))
    for name in ("H5Dwrite", "H5Dread"):
        check(rows.get((name, h5p)) == truth[name], "%s on %s: %s, want %d"
              % (name, h5p, rows.get((name, h5p)), truth[name]))

    # Profile mode sums the same bytes in the kernel.
    pb = os.path.join(tmp, "pbytes.pfw.gz")
    h5pb = os.path.join(tmp, "pbytes.h5")
    r = run([RUNTIME, "-m", "profile", "-o", pb, obj, "--", BYTES, h5pb])
    check(r.returncode == 0, "profile bytes run: " + r.stderr)
    sums = {}
    for line in Trace(pb, complete=True).lines[1:-1]:
        e = json.loads(line)
        if e.get("cat") == "HDF5" and e["ph"] == "C" and e["name"] in ("H5Dwrite", "H5Dread"):
            sums[e["name"]] = sums.get(e["name"], 0) + e["args"].get("size_sum", 0)
    check(sums == {"H5Dwrite": written, "H5Dread": read},
          "profile: H5Dwrite/H5Dread bytes %s, want %d/%d" % (sums, written, read))
done()
