#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report on traces of the real runtime: what the workloads
say they did (calls, bytes, files, threads) is what the report says, and
every function's count, bytes and time equal an independent reading of
the same trace (dctest.Trace)."""
import json
import os
import tempfile

from dctest import BUILD, REPORT, RUNTIME, Trace, WORKLOAD, check, done, generate, need_bpf, run

need_bpf()


def report_json(*args):
    r = run([REPORT, "-q", "--json"] + list(args))
    check(r.returncode == 0, "report exit %d: %s" % (r.returncode, r.stderr))
    return json.loads(r.stdout)


def by(items, **kw):
    return next((i for i in items if all(i.get(k) == v for k, v in kw.items())), None)


def same_as_trace(j, t):
    """Every function's totals as an independent reader counts them."""
    want = {}
    for e in t.events:
        w = want.setdefault((e["cat"], e["name"]), [0, 0, 0])
        w[0] += 1
        w[1] += e["dur"]
        w[2] += max(e["args"].get("size", 0), 0)
    got = {(f["layer"], f["name"]): [f["calls"], f["time_us"], f["bytes"]]
           for f in j["functions"]}
    diff = [(k, got.get(k), want.get(k)) for k in set(got) | set(want) if got.get(k) != want.get(k)]
    check(not diff, "functions differ from the trace: %s" % diff[:6])
    check(j["calls"] == len(t.events) == t.end["args"]["num_events"], "calls = end's num_events")
    check(j["lost"]["dropped"] == t.end["args"]["dropped"] == 0, "nothing lost")
    roots = sum(l["outermost"]["time_us"] for l in j["layers"])
    split = sum(sum(l["outermost"]["by_layer_us"].values()) for l in j["layers"])
    check(abs(roots - split) < 1e-3 * max(roots, 1), "layers sum honestly: %s vs %s" % (roots, split))


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    trace = os.path.join(tmp, "io.pfw.gz")
    d = os.path.join(tmp, "d")
    os.mkdir(d)
    r = run([RUNTIME, "-o", trace, obj, "--", WORKLOAD, d])
    check(r.returncode == 0, "runtime: " + r.stderr)
    truth = json.loads(r.stdout)
    t = Trace(trace)
    m = truth["main"]
    j = report_json("--file", m["path"], trace)
    same_as_trace(j, t)
    sc = j["file_scope"]
    check([f["name"] for f in sc["files"]] == [m["path"]], "--file matches main.dat only")
    for layer in ("POSIX", "sys"):
        for name, size in (("write", "write_size"), ("pwrite64", "pwrite_size"),
                           ("read", "read_size"), ("pread64", "pread_size")):
            f = by(sc["functions"], layer=layer, name=name)
            check(f and f["calls"] == m[name] and f["bytes"] == m[name] * m[size],
                  "%s %s on main.dat: %s, want %d calls of %d" % (layer, name, f and f["calls"],
                                                                 m[name], m[size]))
    f = by(j["files"], name=m["path"])
    check(f and f["bytes_written"] == m["write"] * m["write_size"] + m["pwrite64"] * m["pwrite_size"]
          and f["bytes_read"] == m["read"] * m["read_size"] + m["pread64"] * m["pread_size"],
          "main.dat bytes counted once across layers: %s" % f)
    for th in truth["threads"]:
        f = by(j["files"], name=th["path"])
        check(f and f["layers"]["POSIX"]["calls"] >= th["write"] and
              f["bytes_written"] == th["write"] * 256, "%s: %s" % (th["name"], f))
    pids = {p["pid"] for p in j["processes"]}
    check({truth["pid"], truth["child"]["pid"], truth["spawned"]} <= pids, "processes: %s" % pids)
    txt = run([REPORT, trace]).stdout
    check("Events lost: 0" in txt and m["path"] in txt, "text summary names the file")

    h5work = os.path.join(BUILD, "tests", "hdf5_calls")
    if os.path.exists(h5work):
        obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/hdf5.yaml"],
                       "h5.bpf.o")
        h5 = os.path.join(tmp, "out.h5")
        trace = os.path.join(tmp, "h5.pfw.gz")
        r = run([RUNTIME, "-o", trace, obj, "--", h5work, h5])
        check(r.returncode == 0, "runtime: " + r.stderr)
        truth = json.loads(r.stdout)
        j = report_json("--file", h5, trace)
        same_as_trace(j, Trace(trace))
        for name, n in truth.items():
            if name.startswith("H5"):
                f = by(j["file_scope"]["functions"], layer="HDF5", name=name)
                check(f and f["calls"] == n, "%s on out.h5: %s, want %d" % (name, f and f["calls"], n))
        h = by(j["layers"], name="HDF5")["outermost"]
        check(h["by_layer_us"].get("sys", 0) > 0 and h["by_layer_us"].get("POSIX", 0) > 0,
              "HDF5 time reaches POSIX and sys: %s" % h)
        folded = run([REPORT, "--folded", trace]).stdout
        check("HDF5;H5Dwrite;POSIX;pwrite64;sys;pwrite64 " in folded, "folded H5Dwrite stack")
done()
