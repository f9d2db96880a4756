#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HDF5 layer against a workload that reports its calls: exact counts
per function, every call named with the file through its hid_t (dataset
-> group -> file), and the multi-level view: each H5Dwrite's 1 MiB reaches
the file as POSIX pwrite64 -> sys pwrite64 nested under it."""
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, skip

need_bpf()
WORK = os.path.join(BUILD, "tests", "hdf5_calls")
if not os.path.exists(WORK):
    skip("HDF5 (libhdf5-dev) was not found when building; scripts/setup installs it")
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
done()
