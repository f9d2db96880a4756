#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Profile mode against trace mode on the same deterministic workload
(threads, a fork, a spawn; POSIX, STDIO and syscalls): per layer, function
and file the counters' totals equal the trace's call counts and bytes
exactly, over several intervals; counters are well formed, and the
profile is far smaller than the trace."""
import os
import re
import tempfile

from dctest import (BUILD, RUNTIME, Trace, call_totals, check, counter_totals, done, generate,
                    need_bpf, run)

need_bpf()
WORK = os.path.join(BUILD, "tests", "iocalls")
STDIO = os.path.join(BUILD, "tests", "stdio_calls")


def name(f):
    """Pipes are named by inode, different in every run."""
    return f and re.sub(r"^pipe:\[\d+\]$", "pipe", f)


def counters(path):
    t = Trace(path)
    check(not t.errors, "profile format: %s" % t.errors[:3])
    out, recs = counter_totals(t, name)
    return t, out, recs


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    work = os.path.join(tmp, "w")
    os.mkdir(work)
    # The pause puts the dd in a later interval than the rest, however
    # fast the machine (the runtime wakes every 100 ms).
    cmd = ["sh", "-c", "%s %s >/dev/null && %s %s >/dev/null && sleep 0.3 && "
           "dd if=/dev/zero of=%s/dd bs=4k count=20000 status=none" % (WORK, work, STDIO, work, work)]
    tr, pr = os.path.join(tmp, "trace.pfw.gz"), os.path.join(tmp, "profile.pfw.gz")
    r = run([RUNTIME, "-o", tr, obj, "--"] + cmd)
    check(r.returncode == 0, "trace run: " + r.stderr)
    r = run([RUNTIME, "--mode", "profile", "--interval", "0.02", "-o", pr, obj, "--"] + cmd)
    check(r.returncode == 0, "profile run: " + r.stderr)

    t = Trace(tr)
    check(not t.errors and t.end["args"]["dropped"] == 0, "trace complete")
    want = call_totals(t, name)
    p, got, recs = counters(pr)
    check(p.end["args"]["dropped"] == 0, "profile: nothing dropped")
    check(p.start["args"]["mode"] == "profile", "start record says profile")
    ivals = {e["ts"] for e in recs}
    check(len(ivals) >= 2, "several intervals: %d" % len(ivals))
    for k in sorted(set(want) | set(got), key=str):
        w, g = want.get(k), got.get(k)
        if k[2] == "/dev/null" and w and g:
            # The workloads print their pids and tids there: a run whose
            # pids have a digit more writes a few bytes more.
            check(w[0] == g[0] and abs(w[1] - g[1]) <= 16, "%s: trace %s, profile %s" % (k, w, g))
        else:
            check(w == g, "%s: trace %s, profile %s" % (k, w, g))
    check(all("id" not in e and e["dur"] == 0 and isinstance(e["ph"], str) for e in recs),
          "counters carry no id, dur 0")
    check(all(e["args"]["dur_min"] <= e["args"]["dur_max"] and
              e["args"]["dur_min"] * e["args"]["count"] <= e["args"]["dur_sum"] + e["args"]["count"]
              for e in recs), "dur_min <= mean <= dur_max")
    ts, ps = os.path.getsize(tr), os.path.getsize(pr)
    print("trace %d bytes, profile %d bytes (%.1fx smaller)" % (ts, ps, ts / ps))
    check(ps * 10 < ts, "profile far smaller than trace: %d vs %d" % (ps, ts))
done()
