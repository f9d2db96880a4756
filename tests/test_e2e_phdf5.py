#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Parallel HDF5 over MPI-IO, 4 ranks (Debian's OpenMPI flavour, or the
MPICH one with the argument 'mpich'), traced with the shipped specs and
no edit: each rank's H5Dwrite and H5Dread, collective and independent,
counted as the workload made them, each with its bytes; every one nested
over the MPI-IO call it made (MPI_File_write_at_all for a collective
write, MPI_File_write_at for an independent one), the file's bytes
reaching it through POSIX pwrite64 and sys pwrite64 under those, and the
kernel's page-cache work under those: five layers in one stack."""
import collections
import json
import os
import sys
import tempfile

from dctest import RUNTIME, SRC, Trace, check, done, generate, need_bpf, phdf5_flavour, run

need_bpf()
NP = 4
WORK, SPEC, LAUNCH = phdf5_flavour(sys.argv[1:] == ["mpich"], NP)

# Page-cache tracepoints fire for a file system with a page cache (not
# tmpfs): /var/tmp is the root's.
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", s) for s in
                         ("sys.yaml", "posix.yaml", SPEC, "hdf5.yaml", "kernel.yaml")])
    path = os.path.join(tmp, "p.h5")
    trace = os.path.join(tmp, "p.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--"] + LAUNCH + [WORK, path])
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    check("another build" not in r.stderr, "the flavour's build is known: " + r.stderr[-1000:])
    truth = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            d = json.loads(line)
            truth[d["rank"]] = d
    check(sorted(truth) == list(range(NP)) and all(d["ok"] for d in truth.values()),
          "every rank reported and read back what it wrote: %s" % r.stdout[-500:])
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped: %s" % t.end["args"])
    ranks = {m["pid"]: int(m["args"]["value"]) for m in t.meta
             if m["name"] == "PR" and m["args"]["name"] == "rank"}
    byid = {e["id"]: e for e in t.events}
    kids = collections.defaultdict(list)
    for e in t.events:
        kids[e["args"].get("p_idx")].append(e)

    def below(e, cat, name=None):
        return [k for k in kids[e["id"]] if k["pid"] == e["pid"] and k["cat"] == cat
                and (name is None or k["name"] == name)]

    pids = sorted({e["pid"] for e in t.select(cat="HDF5")})
    check(sorted(ranks.get(p, -1) for p in pids) == list(range(NP)),
          "HDF5 calls from every rank: %s" % {p: ranks.get(p) for p in pids})
    file_bytes = 0
    five = 0
    for pid in pids:
        want = truth[ranks[pid]]
        for name in ("H5Fcreate", "H5Dcreate2", "H5Dwrite", "H5Dread", "H5Dclose", "H5Fclose"):
            ev = t.select(cat="HDF5", name=name, pid=pid)
            check(len(ev) == want[name] and all(t.file(e) == path for e in ev),
                  "rank %d %s: %d calls on %s, made %d" % (ranks[pid], name, len(ev), path, want[name]))
        for name, coll, ind in (("H5Dwrite", "collective_writes", "independent_writes"),
                                ("H5Dread", "collective_reads", "independent_reads")):
            ev = sorted(t.select(cat="HDF5", name=name, pid=pid), key=lambda e: e["ts"])
            check([e["args"].get("size") for e in ev] == [want["bytes"]] * len(ev),
                  "rank %d %s bytes: %s" % (ranks[pid], name, [e["args"].get("size") for e in ev]))
            verb = "write" if name == "H5Dwrite" else "read"
            # The workload does its collective calls first.
            kinds = ["MPI_File_%s_at_all" % verb] * want[coll] + ["MPI_File_%s_at" % verb] * want[ind]
            got = [[m["name"] for m in below(e, "MPIIO") if m["name"].startswith("MPI_File_%s" % verb)]
                   for e in ev]
            check(got == [[k] for k in kinds], "rank %d %s: the MPI-IO call under each: %s"
                  % (ranks[pid], name, got))
            for e in ev:
                for m in below(e, "MPIIO"):
                    check(t.file(m) == path, "MPI-IO under %s on %s" % (name, path))
                    for px in below(m, "POSIX", "p%s64" % verb):
                        sc = below(px, "sys", "p%s64" % verb)
                        check(len(sc) == 1 and sc[0]["args"].get("size") == px["args"].get("size"),
                              "sys p%s64 under POSIX p%s64 with its size" % (verb, verb))
                        if verb == "write":
                            file_bytes += px["args"]["size"]
                            five += bool(below(sc[0], "kernel"))
    # Collective writes go through aggregator ranks: summed over ranks,
    # the file gets every rank's block of every write.
    writes = sum(d["collective_writes"] + d["independent_writes"] for d in truth.values())
    check(file_bytes == writes * truth[0]["bytes"],
          "POSIX pwrite64 bytes under H5Dwrite's MPI-IO calls: %d, want %d"
          % (file_bytes, writes * truth[0]["bytes"]))
    check(five > 0, "kernel events under sys pwrite64 under POSIX under MPI-IO under H5Dwrite")
done()
