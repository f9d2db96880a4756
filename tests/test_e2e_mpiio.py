#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The MPI-IO layer under an MPI launcher with 4 ranks (OpenMPI's mpirun,
or MPICH's mpiexec with the argument 'mpich'): every rank's
process is traced (descendants of mpirun) with its rank as PR metadata,
exact counts per rank and function, every call named with the file through
its MPI_File handle, offsets and item counts right, and the data reaching
the file through POSIX/sys calls nested under the MPI calls; the same
bytes in profile mode and with every kernel fallback."""
import json
import os
import sys
import tempfile

from dctest import REPORT, RUNTIME, Trace, check, done, generate, mpi_flavour, need_bpf, run

need_bpf()
NP = 4
WORK, SPEC, LAUNCH = mpi_flavour("mpiio_calls", sys.argv[1:] == ["mpich"], NP,
                                 ("OpenMPI (libopenmpi-dev, openmpi-bin)", "MPICH (libmpich-dev, mpich)"))
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/" + SPEC])
    path = os.path.join(tmp, "shared.dat")
    trace = os.path.join(tmp, "mpi.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--"] + LAUNCH + [WORK, path])
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    truth = json.loads(r.stdout.strip().splitlines()[-1])
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped: %s" % t.end["args"])
    ranks, nrank, sizes = {}, {}, {}
    for m in t.meta:
        if m["name"] == "PR" and m["args"]["name"] == "rank":
            ranks[m["pid"]] = int(m["args"]["value"])
            nrank[m["pid"]] = nrank.get(m["pid"], 0) + 1
        elif m["name"] == "PR" and m["args"]["name"] == "size":
            sizes[m["pid"]] = int(m["args"]["value"])
    mpi = t.select(cat="MPIIO")
    pids = sorted({e["pid"] for e in mpi})
    check(len(pids) == NP, "MPI calls from %d processes, want %d" % (len(pids), NP))
    check(sorted(ranks.get(p, -1) for p in pids) == list(range(NP)), "each rank's PR rank: %s" % ranks)
    check(all(nrank[p] == 1 and sizes.get(p) == NP for p in pids),
          "one PR rank per process, world size %d: %s %s" % (NP, nrank, sizes))
    cmds = {m["pid"]: m["args"]["value"] for m in t.meta if m["name"] == "PR" and m["args"]["name"] == "cmd"}
    check(all(cmds.get(p, "").startswith(WORK) for p in pids), "each rank's cmd: %s" % cmds)
    blk, items = truth["block"], truth["items"]
    for pid in pids:
        rank = ranks.get(pid, -1)
        for name, n in truth.items():
            if name.startswith("MPI_File_") and not isinstance(n, list):
                ev = t.select(cat="MPIIO", name=name, pid=pid)
                check(len(ev) == n, "rank %d %s: %d calls, want %d" % (rank, name, len(ev), n))
                check(all(t.file(e) == path for e in ev), "rank %d %s named %s" % (rank, name, path))
        wa = t.select(cat="MPIIO", name="MPI_File_write_at", pid=pid)
        check([e["args"]["offset"] for e in wa] == [(rank * 5 + i) * blk for i in range(5)],
              "rank %d write_at offsets" % rank)
        check(all(e["args"]["items"] == items for e in wa), "rank %d write_at items" % rank)
        # Bytes: count x the datatype's size, MPI_INT, MPI_DOUBLE and a
        # derived type alike.
        check(all(e["args"].get("size") == blk for e in wa), "rank %d write_at bytes: %s"
              % (rank, [e["args"].get("size") for e in wa]))
        ws = t.select(cat="MPIIO", name="MPI_File_write", pid=pid)
        want = truth["write_bytes"]
        check([e["args"].get("size") for e in ws] == want,
              "rank %d MPI_File_write bytes: %s" % (rank, [e["args"].get("size") for e in ws]))
        # The bytes of each write_at reach the file below it: the sys
        # writes nested under it (by p_idx), inside it in time. A window
        # of time alone would take in the next call's first microsecond.
        byid = {e["id"]: e for e in t.events if e["pid"] == pid}

        def root(e):
            seen = 0
            while e["args"]["p_idx"] != -1 and seen < 20:
                e, seen = byid[e["args"]["p_idx"]], seen + 1
            return e

        writes = [e for e in byid.values() if e["cat"] == "sys" and t.file(e) == path and "size" in e["args"]]
        for w in wa:
            below = [e for e in writes if root(e)["id"] == w["id"]]
            check(sum(e["args"]["size"] for e in below) == blk,
                  "rank %d write_at at %d: %d bytes written below it" % (rank, w["args"]["offset"],
                                                                      sum(e["args"]["size"] for e in below)))
            check(all(e["tid"] == w["tid"] and w["ts"] <= e["ts"] and e["ts"] + e["dur"] <= w["ts"] + w["dur"]
                      for e in below), "sys writes inside MPI_File_write_at's time")

    # Profile mode aggregates in the kernel with the same bytes.
    def mpi_bytes(tr):
        r = run([REPORT, "--json", tr])
        lay = {l["name"]: l for l in json.loads(r.stdout)["layers"]}.get("MPIIO", {})
        return lay.get("bytes_read"), lay.get("bytes_written")

    prof = os.path.join(tmp, "profile.pfw.gz")
    r = run([RUNTIME, "-q", "-m", "profile", "-o", prof, obj, "--"] + LAUNCH
            + [WORK, os.path.join(tmp, "p.dat")])
    check(r.returncode == 0, "profile run: " + r.stderr[-500:])
    check(mpi_bytes(prof) == mpi_bytes(trace), "profile MPI-IO bytes %s = trace's %s"
          % (mpi_bytes(prof), mpi_bytes(trace)))

    # With every fallback (Linux 5.10): MPICH's derived types are sized
    # from where its library is mapped, found without bpf_find_vma.
    fb = os.path.join(tmp, "fallbacks.pfw.gz")
    r = run([RUNTIME, "-q", "-o", fb, obj, "--"] + LAUNCH + [WORK, os.path.join(tmp, "f.dat")],
            env=dict(os.environ, DATACRUMBS_FALLBACKS="all"))
    check(r.returncode == 0, "fallbacks run: " + r.stderr[-500:])
    if r.returncode == 0:
        ft = Trace(fb)
        got = sorted([e["args"].get("size") for e in ft.select(cat="MPIIO", name="MPI_File_write")
                      if e["pid"] == p] for p in {e["pid"] for e in ft.select(cat="MPIIO")})
        check(got == [truth["write_bytes"]] * NP,
              "every fallback: each rank's MPI_File_write bytes %s, want %s" % (got, truth["write_bytes"]))
        check(mpi_bytes(fb) == mpi_bytes(trace), "every fallback: MPI-IO bytes %s = %s"
              % (mpi_bytes(fb), mpi_bytes(trace)))
done()
