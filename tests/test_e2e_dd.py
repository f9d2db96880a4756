#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The issue's acceptance run: dd with N blocks gives exactly N sys and N
POSIX write events on its output file, each of the block size; and every
traced syscall's count equals strace -f -c's for the same command. Run
with uprobe.session links where the kernel has them, and with entry and
return pairs (DATACRUMBS_UPROBE_PAIRS=1), and with one perf-event uprobe a
function as kernels before 6.6 have them (DATACRUMBS_UPROBE_LINKS=perf)."""
import os
import re
import tempfile

from dctest import (RUNTIME, Trace, check, check_against_strace, done, generate, need_bpf,
                    need_tool, run)

need_bpf()
need_tool("strace")
N, BS = 5000, 4096


def kernel_at_least(version):
    major, minor = (int(x) for x in os.uname().release.split(".")[:2])
    return (major, minor) >= version


def expected_links(pairs, links, fallbacks):
    """What the start record should say: the kernel's best, or what the
    environment asked for (uprobe_multi: 6.6, uprobe.session: 6.13). A
    kernel without BPF cookies (a fallback the record names) has no
    uprobe_multi links either."""
    if links or "cookies" in fallbacks.split(",") or not kernel_at_least((6, 6)):
        return "perf"
    return "session" if pairs == "0" and kernel_at_least((6, 13)) else "pairs"


for pairs, links in (("0", ""), ("1", ""), ("1", "perf")):
    with tempfile.TemporaryDirectory() as tmp:
        obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
        out = os.path.join(tmp, "f")
        dd = ["dd", "if=/dev/zero", "of=" + out, "bs=%d" % BS, "count=%d" % N]
        trace = os.path.join(tmp, "dd.pfw.gz")
        r = run([RUNTIME, "-o", trace, obj, "--"] + dd,
                env=dict(os.environ, DATACRUMBS_UPROBE_PAIRS=pairs, DATACRUMBS_UPROBE_LINKS=links))
        check(r.returncode == 0, "runtime exit %d: %s" % (r.returncode, r.stderr))
        check("%d+0 records out" % N in r.stderr, "dd ran under the runtime")
        t = Trace(trace)
        check(not t.errors, "format: %s" % t.errors[:5])
        want = expected_links(pairs, links, t.start["args"]["fallbacks"])
        check(t.start["args"]["uprobes"] == want, "uprobes as %s" % want)
        for cat in ("sys", "POSIX"):
            w = t.select(cat=cat, name="write", path=out)
            check(len(w) == N, "%s write on %s: %d events, want %d" % (cat, out, len(w), N))
            check(all(e["args"]["size"] == BS and e["args"]["ret"] == BS for e in w),
                  "%s writes are %d bytes each" % (cat, BS))
            r_ = t.select(cat=cat, name="read", path="/dev/zero")
            check(len(r_) == N, "%s read on /dev/zero: %d, want %d" % (cat, len(r_), N))
        check(t.end["args"]["dropped"] == 0, "dropped %s" % t.end["args"]["dropped"])
        check(t.end["args"]["num_events"] == len(t.events), "end counts the events written")
        dd_pid = {e["pid"] for e in t.select(name="write", path=out)}
        check(len(dd_pid) == 1 and t.process_names.get(dd_pid.pop()) == "dd", "process_name dd")

        # Each POSIX write encloses exactly one sys write: level 2 under it.
        ids = {e["id"]: e for e in t.events}
        sysw = t.select(cat="sys", name="write", path=out)
        check(all(e["args"]["level"] == 2 and ids[e["args"]["p_idx"]]["cat"] == "POSIX"
                  and ids[e["args"]["p_idx"]]["name"] == "write" for e in sysw),
              "sys write nests under POSIX write")
        check(all(ids[e["args"]["p_idx"]]["ts"] <= e["ts"] and
                  e["ts"] + e["dur"] <= ids[e["args"]["p_idx"]]["ts"] + ids[e["args"]["p_idx"]]["dur"]
                  for e in sysw), "children inside their parents in time")

        # Ground truth from strace for every syscall the sys layer traces.
        os.unlink(out)
        check_against_strace(t, dd, os.path.join(tmp, "strace.txt"))

# -vv: a line per loaded program with the verifier's statistics, and
# their sum.
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    r = run([RUNTIME, "-vv", "-o", os.path.join(tmp, "v.pfw.gz"), obj, "--", "true"])
    check(r.returncode == 0, "runtime -vv: " + r.stderr[-1000:])
    progs = {m[0]: (int(m[1]), int(m[2])) for m in
             re.findall(r"verifier: (\w+): (\d+) instructions, (\d+) us", r.stderr)}
    total = re.search(r"verifier: (\d+) us in all", r.stderr)
    # Kernels without task storage load the _compat twin of each.
    check(all({side, side + "_compat"} & set(progs) for side in ("dc_sys_enter", "dc_sys_exit")) and
          all(n > 0 for n, _ in progs.values()), "-vv names the sys programs: %s" % sorted(progs))
    check(total and int(total.group(1)) == sum(us for _, us in progs.values()),
          "-vv's total is the sum of its programs' times")
done()
