#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python functions through CPython's USDT probes (probes.d/python.yaml):
a program run by /usr/bin/python3 calls one function exactly 100 times,
each doing one os.write, and others a known number of times (a generator
and a function that raises among them). Each call is one PYTHON event
named by its function with its source file and first line, and each
write nests in the call that made it; a return whose entry was not seen
is counted, not paired. datacrumbs-report lists the functions by name."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import BUILD, RUNTIME, SRC, Trace, check, done, generate, need_bpf, run, skip

PYTHON = "/usr/bin/python3"
REPORT = os.path.join(BUILD, "report", "datacrumbs-report")

need_bpf()
if not os.access(PYTHON, os.X_OK):
    skip("no %s" % PYTHON)
if not shutil.which("readelf"):
    skip("no readelf to read %s's USDT notes" % PYTHON)
notes = subprocess.run(["readelf", "-n", os.path.realpath(PYTHON)], capture_output=True, text=True).stdout
if "function__entry" not in notes or "function__return" not in notes:
    skip("%s has no python:function__entry/return USDT notes" % PYTHON)

# CPython 3.11 fires function__entry only while a profile function is set
# (CPython issue 98894): a C one that does nothing, PyCallable_Check(NULL)
# returning 0, costs the least. The module's own frame began before it,
# so its return is one without an entry.
WORKLOAD = '''import ctypes, os, sys
api = ctypes.pythonapi
api.PyEval_SetProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
api.PyEval_SetProfile(ctypes.cast(api.PyCallable_Check, ctypes.c_void_p), None)

def write_one(fd):
    os.write(fd, b"x")

def helper(i):
    return i + 1

def gen(n):
    for i in range(n):
        yield i

def boom():
    raise ValueError("boom")

def main():
    fd = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for _ in range(100):
        write_one(fd)
    for i in range(37):
        helper(i)
    for _ in gen(4):
        pass
    for _ in range(5):
        try:
            boom()
        except ValueError:
            pass
    os.close(fd)

main()
'''
REC = '''
def rec(n):
    return rec(n - 1) if n else 0

def main():
    rec(int(sys.argv[1]))

main()
'''
CALLS = {"write_one": 100, "helper": 37, "gen": 5, "boom": 5, "main": 1}


def def_line(name):
    return WORKLOAD.split("\n").index(next(l for l in WORKLOAD.split("\n")
                                           if l.startswith("def %s(" % name))) + 1


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "python.yaml"),
                         os.path.join(SRC, "probes.d", "posix.yaml")])
    prog = os.path.join(tmp, "work.py")
    out = os.path.join(tmp, "out.bin")
    open(prog, "w").write(WORKLOAD)
    trace = os.path.join(tmp, "py.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", PYTHON, prog, out])
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    check(os.path.getsize(out) == 100, "the program wrote its 100 bytes")
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    ids = {e["id"]: e for e in t.events}
    for name, n in CALLS.items():
        calls = [e for e in t.select(cat="PYTHON", name=name) if e["args"].get("srcfile") == prog]
        check(len(calls) == n, "%s: %d PYTHON events, called %d times" % (name, len(calls), n))
    calls = t.select(cat="PYTHON", name="write_one")
    check(all(e["args"]["srcfile"] == prog and e["args"]["line"] == def_line("write_one")
              and "fhash" not in e["args"] for e in calls),
          "write_one's file and first line in args, no fhash: %s" % calls[:1])
    check(all(ids.get(e["args"]["p_idx"], {}).get("name") == "main" for e in calls),
          "write_one nested in main")
    # Each write to the file is inside a write_one call of its thread.
    writes = [e for e in t.select(cat="POSIX", name="write") if t.file(e) == out]
    check(len(writes) == 100, "100 writes to the file: %d" % len(writes))
    inside = 0
    for w in writes:
        p = ids.get(w["args"]["p_idx"])
        inside += (p is not None and p["name"] == "write_one" and p["cat"] == "PYTHON"
                   and (p["pid"], p["tid"]) == (w["pid"], w["tid"])
                   and p["ts"] <= w["ts"] and w["ts"] + w["dur"] <= p["ts"] + p["dur"])
    check(inside == 100, "%d of 100 writes nested in a write_one call" % inside)
    check(len({w["args"]["p_idx"] for w in writes}) == 100, "one write per write_one call")
    # The module's return had no entry: counted, under the end probe.
    end = t.end["args"]
    check(end["no_entry"] >= 1 and end["lost"].get("PYTHON/python:function__return") == end["no_entry"],
          "returns without an entry counted: %s" % {k: end[k] for k in ("no_entry", "lost")})
    check(end["no_return"] == 0 and end["too_deep"] == 0, "no call left open, none too deep")
    # The report lists the functions by name under PYTHON.
    rep = json.loads(run([REPORT, "-q", "--json", trace]).stdout)
    funcs = {(f["layer"], f["name"]): f["calls"] for f in rep["functions"]}
    check(funcs.get(("PYTHON", "write_one")) == 100 and funcs.get(("PYTHON", "helper")) == 37,
          "report: write_one and helper under PYTHON: %s" %
          {k: v for k, v in funcs.items() if k[0] == "PYTHON"})
    # Deeper than 16 traced calls: the deeper ones are counted as too
    # deep at entry and their returns leave the rest paired; a return
    # is never counted twice (no_entry stays the same at any depth).
    rec = os.path.join(tmp, "rec.py")
    open(rec, "w").write(WORKLOAD.split("\ndef ")[0] + REC)
    seen = []
    for depth in (10, 20):
        rtrace = os.path.join(tmp, "rec%d.pfw.gz" % depth)
        r = run([RUNTIME, "-q", "-o", rtrace, obj, "--", PYTHON, rec, str(depth)])
        rt = Trace(rtrace)
        check(r.returncode == 0 and not rt.errors, "recursion %d: %s" % (depth, r.stderr[-500:]))
        # main at level 1, rec(depth) .. rec(0) under it: 15 kept.
        kept = min(depth + 1, 15)
        n = len(rt.select(cat="PYTHON", name="rec"))
        check(n == kept, "recursion %d: %d rec events, %d kept" % (depth, n, kept))
        check(rt.end["args"]["too_deep"] == depth + 1 - kept,
              "recursion %d: too_deep %d" % (depth, rt.end["args"]["too_deep"]))
        seen.append(rt.end["args"]["no_entry"])
    check(seen[0] == seen[1], "no_entry the same at any depth: %s" % seen)
    # Profile mode aggregates by probe: every call counted as python_call.
    prof = os.path.join(tmp, "prof.pfw.gz")
    r = run([RUNTIME, "-m", "profile", "-o", prof, obj, "--", PYTHON, prog, out])
    check(r.returncode == 0, "profile mode: " + r.stderr[-2000:])
    pt = Trace(prof)
    check(not pt.errors, "profile format: %s" % pt.errors[:3])
    counted = sum(json.loads(l).get("args", {}).get("count", 0) for l in pt.lines[1:-1]
                  if '"python_call"' in l and '"ph":"C"' in l)
    check(counted >= sum(CALLS.values()), "profile: %d python_call calls counted" % counted)
done()
