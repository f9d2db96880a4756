#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Custom functions and USDT on a test program's own code: a name pattern
(app_step_*) expands to exactly the matching functions, each call traced
with its argument; the program's USDT probes (sys/sdt.h) fire the known
number of times with their arguments, nested in the function they are in.
A function left by longjmp is counted as never returned, once a call,
and the call it jumped back into returns as itself; not without BPF
cookies, where a return probe cannot tell which call returns and takes
the innermost (docs/cli.md, "Kernels").
Without BPF cookies (Linux 5.10, or asked for) the USDT probes of this
PIE are attached to its process as it execs (run by a shell, so the
exec is a traced process's), and the run says so."""
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
        "  - {name: 'app_jump_*', args: [items]}\n"
        "---\nlayer: usdt\nmechanism: usdt\ntarget: %s\nprobes:\n"
        "  - {name: 'dcapp:iteration', args: [items, count]}\n"
        "  - {name: 'dcapp:done', args: [count]}\n" % (APP, APP))
    obj = generate(tmp, [spec])
    # As the kernel chooses, then as one without BPF cookies does it:
    # the PIE's USDT probes attached to its process as it execs.
    for tag, env in (("", None), ("no cookies: ", dict(os.environ, DATACRUMBS_FALLBACKS="cookies"))):
        trace = os.path.join(tmp, "app%d.pfw.gz" % len(tag))
        r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c", '"$0"', APP], env=env)
        check(r.returncode == 0, tag + "runtime: " + r.stderr)
        if r.returncode:
            continue
        truth = json.loads(r.stdout)
        t = Trace(trace)
        check(not t.errors, tag + "format: %s" % t.errors[:3])
        if tag or "cookies" in t.start["args"]["fallbacks"].split(","):
            check("USDT probes in %s attach to each process" % APP in r.stderr,
                  tag + "attached by process, and said: " + r.stderr[-800:])
        comp = t.select(cat="app", name="app_step_compute")
        check(len(comp) == truth["app_step_compute"], tag + "app_step_compute: %d" % len(comp))
        check([e["args"]["items"] for e in comp] == list(range(truth["app_step_compute"])),
              tag + "app_step_compute(i) argument")
        check([e["args"]["ret"] for e in comp] == [i * 1000 for i in range(len(comp))],
              tag + "its return values")
        check(len(t.select(cat="app", name="app_step_sum")) == truth["app_step_sum"],
              tag + "app_step_sum")
        check(not t.select(name="app_other"), tag + "the pattern does not match app_other")
        it = t.select(cat="usdt", name="dcapp:iteration")
        check(len(it) == truth["iteration"], tag + "USDT iteration: %d" % len(it))
        check([(e["args"]["items"], e["args"]["count"]) for e in it] ==
              [(i, i * 1000) for i in range(truth["iteration"])], tag + "USDT arguments")
        ids = {e["id"]: e for e in t.events}
        check(all(e["dur"] == 0 and e["args"]["level"] == 2 and
                  ids[e["args"]["p_idx"]]["name"] == "app_step_compute" for e in it),
              tag + "USDT points nested in app_step_compute")
        d = t.select(cat="usdt", name="dcapp:done")
        check(len(d) == 1 and d[0]["args"]["count"] == truth["total"] and d[0]["args"]["level"] == 1,
              tag + "USDT done with the total, at top level")

    # app_jump_inner never returns: each app_jump_outer call returns over
    # its frame, which is counted, once, and not made an event.
    trace = os.path.join(tmp, "jump.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", APP, "jump"])
    check(r.returncode == 0, "longjmp run: " + r.stderr)
    if r.returncode == 0:
        truth, t = json.loads(r.stdout), Trace(trace)
        if "cookies" in t.start["args"]["fallbacks"].split(","):
            print("longjmp: not checked: this kernel has no BPF cookies")
        else:
            outer = t.select(cat="app", name="app_jump_outer")
            check([(e["args"]["items"], e["args"]["ret"], e["args"]["level"]) for e in outer] ==
                  [(i, i + 1, 1) for i in range(truth["jumps"])],
                  "app_jump_outer(i) returns i + 1 at top level: %s" % [e["args"] for e in outer])
            check(not t.select(name="app_jump_inner"), "app_jump_inner never returned")
            lost = t.end["args"]["lost"]
            check(truth["jumps"] > 0 and
                  t.end["args"]["no_return"] == truth["jumps"] == lost.get("app/app_jump_inner"),
                  "its returns counted as never seen: %s, %s" % (t.end["args"]["no_return"], lost))
            d = t.select(cat="usdt", name="dcapp:done")
            check(len(d) == 1 and d[0]["args"]["level"] == 1,
                  "after the jumps, USDT done still at top level")
done()
