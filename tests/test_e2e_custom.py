#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Custom functions and USDT on a test program's own code: a name pattern
(app_step_*) expands to exactly the matching functions, each call traced
with its argument; the program's USDT probes (sys/sdt.h) fire the known
number of times with their arguments, nested in the function they are in.
Without BPF cookies (Linux 5.10) the USDT probes of this PIE cannot be
attached to every process: each is named as not traced."""
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
APP = os.path.join(BUILD, "tests", "app_probes")
with tempfile.TemporaryDirectory() as tmp:
    spec = os.path.join(tmp, "app.yaml")
    open(spec, "w").write(
        "layer: app\nmechanism: uprobe\ntarget: %s\nprobes:\n"
        "  - {name: 'app_step_*', args: [items]}\n"
        "---\nlayer: usdt\nmechanism: usdt\ntarget: %s\nprobes:\n"
        "  - {name: 'dcapp:iteration', args: [items, count]}\n"
        "  - {name: 'dcapp:done', args: [count]}\n" % (APP, APP))
    obj = generate(tmp, [spec])
    trace = os.path.join(tmp, "app.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", APP])
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    comp = t.select(cat="app", name="app_step_compute")
    check(len(comp) == truth["app_step_compute"], "app_step_compute: %d" % len(comp))
    check([e["args"]["items"] for e in comp] == list(range(truth["app_step_compute"])),
          "app_step_compute(i) argument")
    check([e["args"]["ret"] for e in comp] == [i * 1000 for i in range(len(comp))], "its return values")
    check(len(t.select(cat="app", name="app_step_sum")) == truth["app_step_sum"], "app_step_sum")
    check(not t.select(name="app_other"), "the pattern does not match app_other")
    it = t.select(cat="usdt", name="dcapp:iteration")
    if "cookies" in t.start["args"]["fallbacks"].split(","):
        # Without BPF cookies (before 5.15) libbpf attaches a USDT probe
        # of a PIE to one process only: each probe is named as not
        # traced, and none is invented.
        print("no BPF cookies: the USDT probes of a PIE are said not to be traced")
        for p in ("dcapp:iteration", "dcapp:done"):
            check("cannot attach USDT %s in %s" % (p, APP) in r.stderr and "not traced" in r.stderr,
                  "%s named as not traced: %s" % (p, r.stderr[-800:]))
        check(not t.select(cat="usdt"), "no USDT event")
        done()
    check(len(it) == truth["iteration"], "USDT iteration: %d" % len(it))
    check([(e["args"]["items"], e["args"]["count"]) for e in it] ==
          [(i, i * 1000) for i in range(truth["iteration"])], "USDT arguments")
    ids = {e["id"]: e for e in t.events}
    check(all(e["dur"] == 0 and e["args"]["level"] == 2 and
              ids[e["args"]["p_idx"]]["name"] == "app_step_compute" for e in it),
          "USDT points nested in app_step_compute")
    d = t.select(cat="usdt", name="dcapp:done")
    check(len(d) == 1 and d[0]["args"]["count"] == truth["total"] and d[0]["args"]["level"] == 1,
          "USDT done with the total, at top level")
done()
