#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Python functions through CPython's USDT probes (probes.d/python.yaml):
a program run by /usr/bin/python3 calls one function exactly 100 times,
each doing one os.write, and others a known number of times (a generator,
a function that raises, a thread's function among them). Each call is one
PYTHON event named by its function with its source file and first line,
and each write nests in the call that made it; a return whose entry was
not seen is counted, not paired; stacks deeper than 32 traced calls
leave the rest paired. datacrumbs-report lists the functions by name.
The runtime puts probes.d/python first on the command's PYTHONPATH, the
user's own kept after it; --no-python-setup leaves it alone."""
import json
import os
import shutil
import subprocess
import tempfile

from dctest import REPORT, RUNTIME, SRC, Trace, check, done, generate, need_bpf, run, skip

PYTHON = "/usr/bin/python3"
# Sets the profile function CPython 3.11 needs for function__entry.
SITE = os.path.join(SRC, "probes.d", "python")

need_bpf()
if not os.access(PYTHON, os.X_OK):
    skip("no %s" % PYTHON)
if not shutil.which("readelf"):
    skip("no readelf to read %s's USDT notes" % PYTHON)
notes = subprocess.run(["readelf", "-n", os.path.realpath(PYTHON)], capture_output=True, text=True).stdout
if "function__entry" not in notes or "function__return" not in notes:
    skip("%s has no python:function__entry/return USDT notes" % PYTHON)

WORKLOAD = '''import os, sys, threading

def write_one(fd):
    os.write(fd, b"x")

def helper(i):
    return i + 1

def gen(n):
    for i in range(n):
        yield i

def boom():
    raise ValueError("boom")

def worker(fd):
    for _ in range(10):
        write_one(fd)

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
    t = threading.Thread(target=worker, args=(fd,))
    t.start()
    t.join()
    os.close(fd)

main()
'''
# main's thread, and the worker's (write_one 10 times there).
CALLS = {"write_one": 110, "helper": 37, "gen": 5, "boom": 5, "main": 1, "worker": 1}

# The profile function set by the program itself, after its module began:
# that frame's return has no entry. rec() goes DEPTH deep, writes there,
# then write_one writes again at the top.
REC = '''import ctypes, os, sys
api = ctypes.pythonapi
api.PyEval_SetProfile.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
api.PyEval_SetProfile(ctypes.cast(api.PyCallable_Check, ctypes.c_void_p), None)

def rec(n, fd):
    if n:
        return rec(n - 1, fd)
    os.write(fd, b"y")

def write_one(fd):
    os.write(fd, b"x")

def main():
    fd = os.open(sys.argv[2], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    rec(int(sys.argv[1]), fd)
    write_one(fd)
    os.close(fd)

main()
'''


def def_line(src, name):
    lines = src.split("\n")
    return lines.index(next(l for l in lines if l.startswith("def %s(" % name))) + 1


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, [os.path.join(SRC, "probes.d", "python.yaml"),
                         os.path.join(SRC, "probes.d", "posix.yaml")])
    prog = os.path.join(tmp, "work.py")
    out = os.path.join(tmp, "out.bin")
    open(prog, "w").write(WORKLOAD)
    # No setup by the user: the runtime sets PYTHONPATH itself.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    trace = os.path.join(tmp, "py.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", PYTHON, prog, out], env=env)
    check(r.returncode == 0, "runtime: " + r.stderr[-2000:])
    check(os.path.getsize(out) == 110, "the program wrote its 110 bytes")
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    ids = {e["id"]: e for e in t.events}
    for name, n in CALLS.items():
        calls = [e for e in t.select(cat="PYTHON", name=name) if e["args"].get("srcfile") == prog]
        check(len(calls) == n, "%s: %d PYTHON events, called %d times" % (name, len(calls), n))
    calls = t.select(cat="PYTHON", name="write_one")
    check(all(e["args"]["srcfile"] == prog and e["args"]["line"] == def_line(WORKLOAD, "write_one")
              and "fhash" not in e["args"] for e in calls),
          "write_one's file and first line in args, no fhash: %s" % calls[:1])
    check(sum(ids.get(e["args"]["p_idx"], {}).get("name") == "main" for e in calls) == 100 and
          sum(ids.get(e["args"]["p_idx"], {}).get("name") == "worker" for e in calls) == 10,
          "write_one nested in main 100 times, in the thread's worker 10")
    # Each write to the file is inside a write_one call of its thread.
    writes = [e for e in t.select(cat="POSIX", name="write") if t.file(e) == out]
    check(len(writes) == 110, "110 writes to the file: %d" % len(writes))
    inside = 0
    for w in writes:
        p = ids.get(w["args"]["p_idx"])
        inside += (p is not None and p["name"] == "write_one" and p["cat"] == "PYTHON"
                   and (p["pid"], p["tid"]) == (w["pid"], w["tid"])
                   and p["ts"] <= w["ts"] and w["ts"] + w["dur"] <= p["ts"] + p["dur"])
    check(inside == 110, "%d of 110 writes nested in a write_one call" % inside)
    check(len({w["args"]["p_idx"] for w in writes}) == 110, "one write per write_one call")
    # Startup's frames returned before the profile function was set:
    # counted as no_entry, but no call was lost (dropped, --strict).
    end = t.end["args"]
    check(end["no_entry"] >= 1 and end["dropped"] == 0 and
          "PYTHON/python:function__return" not in end["lost"],
          "returns without an entry counted apart from losses: %s" %
          {k: end[k] for k in ("no_entry", "dropped", "lost")})
    check(end["no_return"] == 0, "no call left open")
    # The report lists the functions by name under PYTHON.
    rep = json.loads(run([REPORT, "-q", "--json", trace]).stdout)
    funcs = {(f["layer"], f["name"]): f["calls"] for f in rep["functions"]}
    check(funcs.get(("PYTHON", "write_one")) == 110 and funcs.get(("PYTHON", "helper")) == 37,
          "report: write_one and helper under PYTHON: %s" %
          {k: v for k, v in funcs.items() if k[0] == "PYTHON" and v < 200})

    # Deeper than 32 traced calls: the deeper ones (the write at the
    # bottom too) are counted as too deep at entry, their returns leave
    # the rest paired, and a return is never counted twice: no_entry is
    # the same at any depth, and write_one afterwards is at level 2.
    rec = os.path.join(tmp, "rec.py")
    open(rec, "w").write(REC)
    seen = []
    for depth in (10, 40):
        rtrace = os.path.join(tmp, "rec%d.pfw.gz" % depth)
        # REC sets the profile function itself, once its module runs.
        r = run([RUNTIME, "-q", "--no-python-setup", "-o", rtrace, obj, "--", PYTHON, rec,
                 str(depth), out], env=env)
        rt = Trace(rtrace)
        check(r.returncode == 0 and not rt.errors, "recursion %d: %s" % (depth, r.stderr[-500:]))
        # main at level 1, rec(depth) .. rec(0) under it, the write under that.
        kept = min(depth + 1, 31)
        n = len(rt.select(cat="PYTHON", name="rec"))
        check(n == kept, "recursion %d: %d rec events, %d kept" % (depth, n, kept))
        deep = depth + 1 - kept + (depth + 3 > 32)
        check(rt.end["args"]["too_deep"] == deep,
              "recursion %d: too_deep %d, want %d" % (depth, rt.end["args"]["too_deep"], deep))
        w1 = rt.select(cat="PYTHON", name="write_one")
        ww = [e for e in rt.select(cat="POSIX", name="write") if rt.file(e) == out]
        check(len(w1) == 1 and w1[0]["args"]["level"] == 2 and
              any(e["args"]["p_idx"] == w1[0]["id"] and e["args"]["level"] == 3 for e in ww),
              "recursion %d: write_one after it at level 2, its write in it" % depth)
        seen.append(rt.end["args"]["no_entry"])
    check(seen[0] == seen[1], "no_entry the same at any depth: %s" % seen)

    # The helper runs the sitecustomize it hides.
    other = os.path.join(tmp, "other")
    os.mkdir(other)
    open(os.path.join(other, "sitecustomize.py"), "w").write("import sys\nsys.hidden_ran = True\n")
    r = run([PYTHON, "-c", "import sys; print(getattr(sys, 'hidden_ran', False))"],
            env=dict(os.environ, PYTHONPATH=SITE + ":" + other))
    check(r.stdout.strip() == "True", "the hidden sitecustomize ran: %s %s" % (r.stdout, r.stderr))

    # The user's own PYTHONPATH is kept after ours: the program imports
    # a module from it, and the sitecustomize there still runs.
    own = os.path.join(tmp, "own")
    os.mkdir(own)
    open(os.path.join(own, "mymod.py"), "w").write("def f():\n    return 7\n")
    open(os.path.join(own, "sitecustomize.py"), "w").write("import sys\nsys.own_ran = True\n")
    seen_py = os.path.join(tmp, "seen.txt")
    probe = ("import os, sys, mymod; open(%r, 'w').write('%%s %%s %%s' %% (mymod.f(), "
             "getattr(sys, 'own_ran', False), os.environ['PYTHONPATH']))" % seen_py)
    otrace = os.path.join(tmp, "own.pfw.gz")
    r = run([RUNTIME, "-q", "-o", otrace, obj, "--", PYTHON, "-c", probe],
            env=dict(env, PYTHONPATH=own))
    got = open(seen_py).read().split(" ", 2) if os.path.exists(seen_py) else []
    check(r.returncode == 0 and got[:2] == ["7", "True"] and
          got[2] == os.path.realpath(SITE) + ":" + own,
          "the user's PYTHONPATH kept after ours, their sitecustomize ran: %s %s" %
          (got, r.stderr[-500:]))

    # --no-python-setup: PYTHONPATH is left alone, so CPython 3.11 fires
    # no function__entry: write_one's returns are counted, not paired.
    ntrace = os.path.join(tmp, "nosetup.pfw.gz")
    r = run([RUNTIME, "-q", "--no-python-setup", "-o", ntrace, obj, "--", PYTHON, prog, out],
            env=env)
    nt = Trace(ntrace)
    check(r.returncode == 0 and not nt.errors, "--no-python-setup: " + r.stderr[-500:])
    check(not nt.select(cat="PYTHON", name="write_one") and nt.end["args"]["no_entry"] >= 110,
          "--no-python-setup: no write_one call paired, %d returns without entry" %
          nt.end["args"]["no_entry"])

    # Profile mode aggregates by probe: every call counted as python_call.
    prof = os.path.join(tmp, "prof.pfw.gz")
    r = run([RUNTIME, "-m", "profile", "-o", prof, obj, "--", PYTHON, prog, out], env=env)
    check(r.returncode == 0, "profile mode: " + r.stderr[-2000:])
    pt = Trace(prof)
    check(not pt.errors, "profile format: %s" % pt.errors[:3])
    counted = sum(json.loads(l).get("args", {}).get("count", 0) for l in pt.lines[1:-1]
                  if '"python_call"' in l and '"ph":"C"' in l)
    check(counted >= sum(CALLS.values()), "profile: %d python_call calls counted" % counted)
done()
