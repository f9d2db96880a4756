#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Darshan's counters from profile mode's counter records, kept in the
kernel, against the same counters from trace mode's calls and against
Darshan 3.4.7 itself, on a workload whose pattern is known
(tests/workloads/darshan_pattern.c: sequential writes in six size
buckets, a strided pwrite, reads, random preads with writes between
them, and a stream): every counter profile mode gives equals trace
mode's and Darshan's; those it cannot give (they need every call) say
-1."""
import json
import os
import re
import tempfile

from dctest import (BUILD, REPORT, RUNTIME, Trace, check, darshan_lines, darshan_parse,
                    darshan_prefix, done, generate, need_bpf, run, skip)

# As in test_e2e_darshan.py (docs/report.md): calls Darshan 3.4.7 does not see.
KNOWN = {"POSIX_STATS", "POSIX_MMAPS"}
# What counter records cannot give: the common sizes and strides, the
# slowest calls' sizes.
NEED_CALLS = re.compile(r"POSIX_(ACCESS|STRIDE)\d_|POSIX_MAX_(READ|WRITE)_TIME_SIZE|POSIX_(MODE|FILE_NOT_ALIGNED)$")

need_bpf()
pre = darshan_prefix()
if not pre:
    skip("no Darshan: set DARSHAN_PREFIX or keep ../shared/peers/build-darshan beside the checkout")
WORK = os.path.join(BUILD, "tests", "darshan_pattern")


def table(text, base):
    return {(counter, os.path.basename(name)): value
            for _, _, counter, value, name in darshan_lines(text) if name.startswith(base + "/")}


with tempfile.TemporaryDirectory() as tmp:
    dirs = {k: os.path.join(tmp, k) for k in ("darshan", "trace", "profile")}
    for d in dirs.values():
        os.mkdir(d)
    theirs = table(darshan_parse(pre, [WORK, dirs["darshan"]], os.path.join(tmp, "run.darshan")),
                   dirs["darshan"])

    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    ours = {}
    for mode in ("trace", "profile"):
        trace = os.path.join(tmp, mode + ".pfw.gz")
        # Short intervals: the pattern carries over from one to the next.
        r = run([RUNTIME, "-q", "--mode", mode, "--interval", "0.01", "-o", trace, obj, "--",
                 WORK, dirs[mode]])
        check(r.returncode == 0, "%s mode: %s" % (mode, r.stderr))
        r = run([REPORT, "--darshan", trace])
        check(r.returncode == 0, "datacrumbs-report --darshan, %s: %s" % (mode, r.stderr))
        ours[mode] = table(r.stdout, dirs[mode])
        if mode == "profile":
            check("need every call" in r.stdout, "the report says which counters need trace mode")
            t = Trace(trace)
            recs = [json.loads(x) for x in t.lines if '"ph":"C"' in x]
            ts = {e["ts"] for e in recs if e["cat"] == "POSIX" and e["name"] in ("write", "pread64")}
            check(len(ts) >= 2, "the writes and the preads in different intervals: %d" % len(ts))
    tr, pr = ours["trace"], ours["profile"]
    check(set(tr) == set(pr) and {f for _, f in pr} == {"pattern.dat", "pattern.txt"},
          "the same counters of both files in both modes")
    unknown = sorted(k for k, v in pr.items() if v == -1 and tr[k] != -1)
    check(all(NEED_CALLS.match(c) for c, _ in unknown) and len(unknown) == 20,
          "only the counters that need every call are unknown: %s" % unknown)
    diff = ["%s %s: trace %d, profile %d" % (c, f, tr[(c, f)], v)
            for (c, f), v in sorted(pr.items()) if (c, f) not in unknown and v != tr[(c, f)]]
    check(not diff, "profile mode's counters equal trace mode's:\n  " + "\n  ".join(diff))
    shared = sorted((k for k in set(theirs) & set(pr) if k not in unknown and k[0] not in KNOWN))
    check(len(shared) >= 50, "%d counters in profile mode and Darshan" % len(shared))
    diff = ["%s %s: Darshan %d, profile %d" % (c, f, theirs[(c, f)], pr[(c, f)])
            for c, f in shared if theirs[(c, f)] != pr[(c, f)]]
    check(not diff, "profile mode's counters equal Darshan's:\n  " + "\n  ".join(diff))
    # The workload's own numbers: the comparison is about something.
    d = lambda c: pr[(c, "pattern.dat")]
    check(d("POSIX_WRITES") == 30 and d("POSIX_READS") == 50 and d("POSIX_SIZE_WRITE_1M_4M") == 3
          and d("POSIX_SIZE_WRITE_0_100") == 6
          and d("POSIX_SIZE_WRITE_100_1K") == 11 and d("POSIX_SEQ_WRITES") >= 17
          and d("POSIX_CONSEC_READS") >= 19 and d("POSIX_RW_SWITCHES") == 11
          and d("POSIX_MAX_BYTE_WRITTEN") == 10004095
          and pr[("STDIO_MAX_BYTE_READ", "pattern.txt")] == 4499,
          "the workload's pattern: %s" % {c: v for (c, f), v in pr.items() if f == "pattern.dat"})
done()
