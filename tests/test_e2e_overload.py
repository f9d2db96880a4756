#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Overload: a burst of calls into the smallest ring buffer. Every call is
either in the trace or counted as lost, per probe, exactly: written + lost
equals what the workload made (POSIX) and what strace counted (sys). And
more processes than --max-procs: those left out are counted, not lost
silently."""
import json
import os
import re
import tempfile

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, need_tool, run, strace_counts

BURST = os.path.join(BUILD, "tests", "burst")
need_bpf()
need_tool("strace")


def written(t, cat, name):
    return len(t.select(cat=cat, name=name))


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    data = os.path.join(tmp, "burst.dat")

    # With room enough, nothing is lost: the workload's own counts hold
    # for the POSIX layer, so they are a ground truth for the next run.
    trace = os.path.join(tmp, "calm.pfw.gz")
    r = run([RUNTIME, "-q", "-o", trace, obj, "--", BURST, "2000", data])
    check(r.returncode == 0, "calm run: %d %s" % (r.returncode, r.stderr))
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors and t.end["args"]["dropped"] == 0, "calm run complete")
    for name in ("write", "read"):
        check(written(t, "POSIX", name) == truth[name],
              "calm POSIX %s: %d, want %d" % (name, written(t, "POSIX", name), truth[name]))

    n = "100000"
    want_sys = strace_counts([BURST, n, data], os.path.join(tmp, "strace.txt"),
                             only=["read", "write"])
    trace = os.path.join(tmp, "burst.pfw.gz")
    r = run([RUNTIME, "-o", trace, "--ringbuf-size", "4K", obj, "--", BURST, n, data])
    check(r.returncode == 0, "burst run: %d %s" % (r.returncode, r.stderr))
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "format under overload: %s" % t.errors[:5])
    end = t.end["args"]
    lost = end["lost"]
    check(end["ringbuf_full"] > 0, "a 4K ring buffer overflows: %s" % end)
    check(end["dropped"] == sum(lost.values()), "dropped is the sum per probe")
    check(end["num_events"] == len(t.events), "num_events %d, %d in the trace"
          % (end["num_events"], len(t.events)))
    for cat, name, want in (("POSIX", "write", truth["write"]), ("POSIX", "read", truth["read"]),
                            ("sys", "write", want_sys["write"]), ("sys", "read", want_sys["read"])):
        w, l = written(t, cat, name), lost.get("%s/%s" % (cat, name), 0)
        check(w + l == want, "%s %s: %d written + %d lost != %d calls" % (cat, name, w, l, want))
        check(l > 0, "%s %s: some lost under overload" % (cat, name))
        if l:
            check("lost %d %s %s events (ringbuf_full)" % (l, cat, name) in r.stderr,
                  "%s %s loss reported on stderr" % (cat, name))
    # --strict turns a loss into a non-zero exit; -q never hides it.
    trace = os.path.join(tmp, "strict.pfw.gz")
    r = run([RUNTIME, "-q", "--strict", "-o", trace, "--ringbuf-size", "4K", obj, "--",
             BURST, n, data])
    check(r.returncode == 3, "--strict with losses exits 3: %d" % r.returncode)
    check(re.search(r"lost \d+ events", r.stderr), "-q still says events were lost: " + r.stderr)

    # Ten children alive at once, room for the shell and three of them.
    trace = os.path.join(tmp, "procs.pfw.gz")
    cmd = [RUNTIME, "--max-procs", "4", "-o", trace, obj, "--", "sh", "-c",
           "for i in 1 2 3 4 5 6 7 8 9 10; do sleep 1 & done; wait"]
    r = run(cmd)
    t = Trace(trace)
    check(r.returncode == 0 and not t.errors, "--max-procs run: %s %s" % (r.stderr, t.errors[:3]))
    check(t.end["args"]["untraced_procs"] == 7, "7 of 10 children untraced: %s" % t.end["args"])
    check("7 processes were not traced" in r.stderr, "reported on stderr: " + r.stderr)
    sleeps = {e["pid"] for e in t.events if t.process_names.get(e["pid"]) == "sleep"}
    check(len(sleeps) == 3, "3 sleep processes traced: %d" % len(sleeps))
    r = run([cmd[0], "--strict", "-q", "--force"] + cmd[1:])
    check(r.returncode == 3, "--strict counts untraced processes: %d" % r.returncode)
    # A process that exits gives its slot back: five children one after
    # another fit beside the shell in two slots.
    trace = os.path.join(tmp, "slots.pfw.gz")
    r = run([RUNTIME, "--max-procs", "2", "-o", trace, obj, "--", "sh", "-c",
             "for i in 1 2 3 4 5; do sleep 0.05; done"])
    t = Trace(trace)
    sleeps = {e["pid"] for e in t.events if t.process_names.get(e["pid"]) == "sleep"}
    check(r.returncode == 0 and t.end["args"]["untraced_procs"] == 0 and len(sleeps) == 5,
          "exited children free their slots: %d traced, %s" % (len(sleeps), t.end["args"]))
done()
