#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --darshan's timing counters (*_F_*) against the trace
they come from, read here with gzip and json and summed by Darshan 3.4.7's
definitions (darshan-runtime/lib/darshan-*.c): time in reads and writes
(fsync and MPI_File_sync count as write time), in metadata calls (opens,
closes, seeks, stats, views), the slowest call, and for a file a 4-rank
MPI job shares, the fastest and slowest rank by read + write + metadata
time and the population variance of time and bytes over ranks. The same
workloads then run under Darshan itself, whose times must be of the same
order (a unit error, microseconds for seconds, fails)."""
import json
import os
import shutil
import statistics
import tempfile

from dctest import (BUILD, RUNTIME, Trace, check, darshan_prefix, done, generate, need_bpf,
                    run, skip)

need_bpf()
pre = darshan_prefix()
if not pre:
    skip("no Darshan: set DARSHAN_PREFIX or keep ../shared/peers/build-darshan beside the checkout")
REPORT = os.path.join(BUILD, "report", "datacrumbs-report")
MIX = os.path.join(BUILD, "tests", "darshan_mix")
MPI = os.path.join(BUILD, "tests", "mpiio_calls")
LAUNCH = ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", "4"]

# What each call's time counts as, by Darshan's rules.
POSIX_KIND = {**{n: "read" for n in ("read", "pread", "pread64", "readv", "preadv", "preadv64",
                                     "preadv2")},
              **{n: "write" for n in ("write", "pwrite", "pwrite64", "writev", "pwritev",
                                      "pwritev64", "pwritev2", "fsync", "fdatasync")},
              **{n: "meta" for n in ("open", "open64", "openat", "openat64", "creat", "creat64",
                                     "dup", "dup2", "dup3", "lseek", "lseek64", "stat", "stat64",
                                     "lstat", "lstat64", "fstat", "fstat64", "close")}}
STDIO_KIND = {**{n: "read" for n in ("fread", "fgets", "fgetc", "getc")},
              **{n: "write" for n in ("fwrite", "fputs", "fputc", "putc", "fflush")},
              **{n: "meta" for n in ("fopen", "fopen64", "fseek", "fseeko", "rewind",
                                     "fclose")}}


def mpiio_kind(name):
    if name in ("MPI_File_open", "MPI_File_close", "MPI_File_set_view"):
        return "meta"
    if name == "MPI_File_sync":
        return "write"
    if name.startswith("MPI_File_") and not name.endswith("_end"):
        return "read" if "read" in name else "write" if "write" in name else None
    return None


def truth(t, path, cat, kind_of):
    """Per process: {"read"|"write"|"meta": [durations in s]}, "bytes", and
    "max_read"/"max_write" (seconds) of the calls on @path of layer @cat
    that Darshan sees: not made inside another call of libc's layers or
    of their own library."""
    by_id = {e["id"]: e for e in t.events if "id" in e}
    procs = {}
    for e in t.events:
        if e.get("cat") != cat or t.file(e) != path:
            continue
        parent = by_id.get(e["args"].get("p_idx", -1))
        if parent and parent.get("cat") in ("POSIX", "STDIO", cat):
            continue
        kind = kind_of(e["name"])
        if not kind or e["args"].get("ret", 0) < 0:
            continue
        p = procs.setdefault(e["pid"], {"read": [], "write": [], "meta": [], "bytes": 0,
                                        "io": {"read": [], "write": []}})
        p[kind].append(e["dur"] / 1e6)
        if e["name"] not in ("fsync", "fdatasync", "MPI_File_sync") and kind != "meta":
            p["io"][kind].append(e["dur"] / 1e6)
            p["bytes"] += e["args"].get("size", 0)
    return procs


def near(a, b, tol=1.5e-6):
    return abs(a - b) <= tol


def same_order(ours, theirs):
    """Within 0.1x to 10x of Darshan's, give or take 5 ms: two runs on a
    shared 2-CPU machine, where an fsync took 1.4 ms in one and 9 ms in
    the next; a unit error is a factor of 1000 or more."""
    return 0.1 * theirs - 5e-3 <= ours <= 10 * theirs + 5e-3


def darshan_f(text):
    """{(module, rank, file name, counter): value} of darshan-parser's (or
    our) timing lines."""
    out = {}
    for line in text.splitlines():
        f = line.split("\t")
        if line.startswith("#") or len(f) < 5 or "_F_" not in f[3]:
            continue
        name = f[5] if len(f) > 5 else f[2]
        out[(f[0], f[1], os.path.basename(name), f[3])] = float(f[4])
    return out


with tempfile.TemporaryDirectory() as tmp:
    od, dd = os.path.join(tmp, "ours"), os.path.join(tmp, "darshan")
    os.mkdir(od)
    os.mkdir(dd)

    # One process: POSIX and STDIO calls of known kinds (darshan_mix.c).
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    trace = os.path.join(tmp, "mix.pfw.gz")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--", MIX, od])
    check(r.returncode == 0, "darshan_mix under DataCrumbs: " + r.stderr[-500:])
    t = Trace(trace)
    r = run([REPORT, "--darshan", trace])
    check(r.returncode == 0, "--darshan: " + r.stderr)
    ours = darshan_f(r.stdout)
    t0 = min([t.start["ts"]] + [e["ts"] for e in t.events]) if t.start else None
    for mod, name, kinds in (("POSIX", "posix.dat", POSIX_KIND), ("STDIO", "stdio.dat", STDIO_KIND)):
        procs = truth(t, os.path.join(od, name), mod, kinds.get)
        check(len(procs) == 1, "%s: one process's calls on %s" % (mod, name))
        p = next(iter(procs.values()))
        rec = {k[3]: v for k, v in ours.items() if k[0] == mod and k[2] == name}
        for kind in ("read", "write", "meta"):
            c = "%s_F_%s_TIME" % (mod, kind.upper())
            check(c in rec and near(rec[c], sum(p[kind])),
                  "%s of %s: %s, the trace's calls add up to %.6f" % (c, name, rec.get(c),
                                                                      sum(p[kind])))
            check(sum(p[kind]) > 0, "%s: the trace has %s calls on %s" % (mod, kind, name))
        if mod == "POSIX":
            for kind in ("read", "write"):
                c = "POSIX_F_MAX_%s_TIME" % kind.upper()
                check(near(rec.get(c, -1), max(p["io"][kind])),
                      "%s: %s, the longest call %.6f" % (c, rec.get(c), max(p["io"][kind])))
        # Seconds from the trace's start: the first open's.
        opens = [e["ts"] for e in t.events if e.get("cat") == mod and t.file(e) == os.path.join(od, name)
                 and kinds.get(e["name"]) == "meta" and "open" in e["name"]]
        c = "%s_F_OPEN_START_TIMESTAMP" % mod
        check(t0 is not None and opens and near(rec.get(c, -1), (min(opens) - t0) / 1e6),
              "%s: %s, the first open at %s s" % (c, rec.get(c), opens and (min(opens) - t0) / 1e6))

    # Darshan on the same program: times of the same order.
    log = os.path.join(tmp, "mix.darshan")
    env = dict(os.environ, LD_PRELOAD=os.path.join(pre, "lib", "libdarshan.so"),
               DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGFILE=log)
    r = run([MIX, dd], env=env)
    check(r.returncode == 0 and os.path.exists(log), "darshan_mix under Darshan: " + r.stderr)
    r = run([os.path.join(pre, "bin", "darshan-parser"), log])
    theirs = darshan_f(r.stdout)
    # One process: no rank column to match; by module, file and counter.
    theirs = {(k[0], k[2], k[3]): v for k, v in theirs.items()}
    ours = {(k[0], k[2], k[3]): v for k, v in ours.items()}
    times = [k for k in theirs if k[1] in ("posix.dat", "stdio.dat") and k[2].endswith("_TIME")
             and "RANK" not in k[2]]
    check(len(times) >= 8, "Darshan's times: %s" % times)
    for k in times:
        check(k in ours and same_order(ours[k], theirs[k]),
              "%s of %s: ours %s, Darshan's %.6f" % (k[2], k[1], ours.get(k), theirs[k]))

    # Four ranks on one file (mpiio_calls.c): the shared record's timing.
    check(os.path.exists(MPI) and shutil.which("mpirun"), "OpenMPI and tests/mpiio_calls are here")
    obj = generate(tmp, ["probes.d/mpiio.yaml"], "mpi.bpf.o")
    trace = os.path.join(tmp, "mpi.pfw.gz")
    shared = os.path.join(od, "shared.dat")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--"] + LAUNCH + [MPI, shared])
    check(r.returncode == 0, "mpiio_calls under DataCrumbs: " + r.stderr[-500:])
    t = Trace(trace)
    procs = truth(t, shared, "MPIIO", mpiio_kind)
    rank_of = {e["pid"]: int(e["args"]["value"]) for e in t.meta
               if e["name"] == "PR" and e["args"].get("name") == "rank"}
    check(len(procs) == 4 and set(procs) <= set(rank_of), "4 ranks' calls: %s %s" % (procs.keys(), rank_of))
    r = run([REPORT, "--json", "--darshan", trace])
    check(r.returncode == 0, "--json --darshan: " + r.stderr)
    mine = [f.get("darshan", {}).get("MPIIO", {}) for f in json.loads(r.stdout)["files"]
            if f["name"] == shared]
    mine = mine[0] if mine else {}
    for kind in ("read", "write", "meta"):
        c = "MPIIO_F_%s_TIME" % kind.upper()
        want = sum(sum(p[kind]) for p in procs.values())
        check(want > 0 and near(mine.get(c, -1), want, 1e-9 * len(procs) * 64),
              "%s: %s, the ranks' calls add up to %.6f" % (c, mine.get(c), want))
    for kind in ("read", "write"):
        c = "MPIIO_F_MAX_%s_TIME" % kind.upper()
        want = max(max(p["io"][kind]) for p in procs.values())
        check(near(mine.get(c, -1), want, 1e-9), "%s: %s, the longest call %.6f" % (c, mine.get(c), want))
    per = {pid: sum(p["read"]) + sum(p["write"]) + sum(p["meta"]) for pid, p in procs.items()}
    moved = {pid: p["bytes"] for pid, p in procs.items()}
    fast, slow = min(per.values()), max(per.values())
    check(near(mine.get("MPIIO_F_FASTEST_RANK_TIME", -1), fast, 1e-9)
          and near(mine.get("MPIIO_F_SLOWEST_RANK_TIME", -1), slow, 1e-9)
          and fast < slow,
          "fastest and slowest rank's time: %s %s, the trace says %.6f %.6f"
          % (mine.get("MPIIO_F_FASTEST_RANK_TIME"), mine.get("MPIIO_F_SLOWEST_RANK_TIME"), fast, slow))
    check(mine.get("MPIIO_FASTEST_RANK") in {rank_of[p] for p, v in per.items() if v == fast}
          and mine.get("MPIIO_SLOWEST_RANK") in {rank_of[p] for p, v in per.items() if v == slow},
          "fastest and slowest rank: %s %s, times by rank %s"
          % (mine.get("MPIIO_FASTEST_RANK"), mine.get("MPIIO_SLOWEST_RANK"),
             {rank_of[p]: v for p, v in per.items()}))
    check(mine.get("MPIIO_FASTEST_RANK_BYTES") == moved[min(per, key=per.get)],
          "the fastest rank's bytes")
    # Darshan divides by n: the population variance.
    vt, vb = statistics.pvariance(per.values()), statistics.pvariance(moved.values())
    check(vt > 0 and abs(mine.get("MPIIO_F_VARIANCE_RANK_TIME", -1) - vt) <= 1e-6 * vt,
          "variance of the ranks' time: %s, the trace's %g (sample: %g)"
          % (mine.get("MPIIO_F_VARIANCE_RANK_TIME"), vt, statistics.variance(per.values())))
    check(abs(mine.get("MPIIO_F_VARIANCE_RANK_BYTES", -1) - vb) <= 1e-6 * vb + 1e-9,
          "variance of the ranks' bytes: %s, the trace's %g" % (mine.get("MPIIO_F_VARIANCE_RANK_BYTES"), vb))
    # The text form: each rank's record and the shared one (rank -1),
    # equal to --json's to darshan-parser's six decimals.
    r = run([REPORT, "--darshan", trace])
    text = {k: v for k, v in darshan_f(r.stdout).items() if k[0] == "MPI-IO" and k[2] == "shared.dat"}
    check({k[1] for k in text} == {"-1", "0", "1", "2", "3"}, "ranks %s" % sorted({k[1] for k in text}))
    check(all(near(v, mine[k[3]], 1e-6) for k, v in text.items() if k[1] == "-1"),
          "the text's rank -1 record is --json's")
    for pid, rank in rank_of.items():
        if pid in procs:
            got = text.get(("MPI-IO", str(rank), "shared.dat", "MPIIO_F_WRITE_TIME"))
            check(got is not None and near(got, sum(procs[pid]["write"])),
                  "rank %d's MPIIO_F_WRITE_TIME %s, its calls %.6f" % (rank, got, sum(procs[pid]["write"])))

    # Darshan on the same job: the shared record's times of the same order.
    dmpi = {}
    for attempt in range(3):
        log = os.path.join(tmp, "mpi%d.darshan" % attempt)
        r = run(LAUNCH + ["-x", "LD_PRELOAD=" + env["LD_PRELOAD"], "-x", "DARSHAN_LOGFILE=" + log,
                          "-x", "DARSHAN_LOGHINTS=", MPI, os.path.join(dd, "shared%d.dat" % attempt)])
        if r.returncode == 0 and os.path.exists(log):
            r = run([os.path.join(pre, "bin", "darshan-parser"), log])
            dmpi = {k[3]: v for k, v in darshan_f(r.stdout).items()
                    if k[0] == "MPI-IO" and k[1] == "-1"}
        if dmpi:
            break
    want = ["MPIIO_F_%s" % c for c in ("READ_TIME", "WRITE_TIME", "META_TIME", "MAX_READ_TIME",
                                       "MAX_WRITE_TIME", "FASTEST_RANK_TIME", "SLOWEST_RANK_TIME")]
    check(all(c in dmpi for c in want), "Darshan's shared MPI-IO record: %s" % sorted(dmpi))
    for c in want:
        check(same_order(mine.get(c, -1), dmpi.get(c, 0)),
              "%s: ours %s, Darshan's %s" % (c, mine.get(c), dmpi.get(c)))
done()
