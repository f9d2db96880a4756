#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python package on traces written here, whose every quirk is known:
`python3 -m datacrumbs summary --json` equals datacrumbs-report --json
(nesting with children scaled to their parent, DFTracer's own dialect in
one gzip member, counters, several traces, every kind of damage), cut
into partitions of any size, on threads or worker processes; load()
gives one row per call with the names resolved; and the interpreter,
usage and bad input get one clear message, never a traceback."""
import gzip
import json
import os
import shutil
import subprocess
import tempfile

from dcpy import PKG, PY, REPORT, env, need_pandas, same, summary
from dctest import BUILD, check, done

need_pandas()

HH, HH2 = "08cf3707b570dbec", "5c3b2a1908f7e6d4"
T0 = 1700000000000000


def line(o):
    return json.dumps(o, separators=(",", ":")) + "\n"


def meta(i, kind, name, value, pid=10, hh=HH):
    return {"id": i, "name": kind, "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
            "args": {"hhash": hh, "name": name, "value": value}}


def call(i, cat, name, ts, dur, p_idx=-1, level=1, pid=10, tid=10, **args):
    a = {"hhash": HH}
    a.update(args)
    a.update({"level": level, "p_idx": p_idx})
    return {"id": i, "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "ph": "X", "args": a}


def ours(n_writes=40):
    """Our dialect: an H5Dwrite whose block requests overlap (their time
    is scaled into their syscall's), threads, a failed read, a process
    named before the HH record, and start/end records with losses."""
    ev = [{"id": 1, "name": "process_name", "cat": "dftracer", "pid": 11, "tid": 11, "ph": "M",
           "args": {"name": "early"}},
          meta(2, "HH", "node1", HH),
          {"id": 3, "name": "start", "cat": "dftracer", "pid": 9, "tid": 9, "ts": T0, "dur": 0,
           "ph": "X", "args": {"hhash": HH, "cmd": "app --x \"q\"", "version": "0.1.0"}},
          {"id": 4, "name": "process_name", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
           "args": {"name": "app"}},
          meta(5, "PR", "rank", "3"),
          meta(6, "FH", "/data/a.h5", "1111111111111111"),
          meta(7, "FH", "/data/b \u00e9\\.dat", "2222222222222222")]
    i = 8
    for k in range(3):
        base = T0 + 1000 * k
        ev += [call(i, "HDF5", "H5Dwrite", base + 10, 100 + k, fhash="1111111111111111", ret=0),
               call(i + 1, "POSIX", "pwrite64", base + 20, 61, p_idx=i, level=2,
                    fhash="1111111111111111", ret=4096, size=4096),
               call(i + 2, "sys", "pwrite64", base + 25, 53, p_idx=i + 1, level=3,
                    fhash="1111111111111111", ret=4096, size=4096),
               call(i + 3, "kernel", "block_rq", base + 30, 41, p_idx=i + 2, level=4, size=4096),
               call(i + 4, "kernel", "block_rq", base + 31, 47, p_idx=i + 2, level=4, size=4096),
               call(i + 5, "fs", "ext4_sync_file", base + 32, 30, p_idx=i + 2, level=4)]
        i += 6
    ev.append(call(i, "POSIX", "read", T0 + 5000, 5, fhash="2222222222222222", ret=-9))
    i += 1
    for k in range(n_writes):
        tid = 10 + k % 3
        ev.append(call(i, "POSIX", "write", T0 + 6000 + 37 * k, 3 + (k * 7919) % 400,
                       tid=tid, fhash="2222222222222222", ret=1000 + k, size=1000 + k))
        ev.append(call(i + 1, "sys", "write", T0 + 6001 + 37 * k, 2 + (k * 7919) % 390,
                       tid=tid, p_idx=i, level=2, fhash="2222222222222222", ret=1000 + k,
                       size=1000 + k))
        i += 2
    ev.append(call(i, "sys", "close", T0 + 90000, 1, pid=11, tid=11, fhash="3333333333333333",
                   ret=0))
    ev.append({"id": i + 1, "name": "end", "cat": "dftracer", "pid": 9, "tid": 9,
               "ts": T0 + 100000, "dur": 0, "ph": "X",
               "args": {"hhash": HH, "num_events": i - 7, "dropped": 3, "ringbuf_full": 3,
                        "lost": {"POSIX/write": 3}}})
    return "[\n" + "".join(line(e) for e in ev) + "]\n"


def dftracer():
    """DFTracer's dialect: no brackets, decimal and opaque hashes, keys in
    another order, reads that give their size only as ret, counters
    without counts, instant events; hosts defined twice."""
    out = ['{"id":1,"name":"HH","cat":"dftracer","pid":20,"tid":20,"ph":"M",'
           '"args":{"name":"node2","value":51242}}\n',
           '{"id":2,"name":"HH","cat":"dftracer","pid":20,"tid":20,"ph":"M",'
           '"args":{"name":"node3","value":"h-node3"}}\n',
           '{"id":3,"name":"FH","cat":"dftracer","pid":20,"tid":20,"ph":"M",'
           '"args":{"name":"/data/c.npz","value":39537}}\n',
           '{"id":4,"name":"FH","cat":"dftracer","pid":20,"tid":20,"ph":"M",'
           '"args":{"name":"/data/d.npz","value":"fh-d"}}\n']
    for k in range(300):
        out.append('{"ph":"X","args":{"ret":%d,"fhash":%s,"hhash":%s,"level":1},'
                   '"dur":%d,"ts":%d,"tid":%d,"pid":20,"cat":"POSIX","name":"%s","id":%d}\n'
                   % (2048 + k, '39537' if k % 2 else '"fh-d"', '51242' if k % 5 else '"h-node3"',
                      7 + k % 97, T0 + 10 * k, 21 + k % 4, "read" if k % 3 else "open64", 5 + k))
        if k % 50 == 0:
            out.append('{"name":"cpu","cat":"PROFILE","pid":20,"tid":21,"ts":%d,"dur":0,'
                       '"ph":"C","args":{"value":%d}}\n' % (T0 + 10 * k, k))
            out.append('{"name":"mark","cat":"app","pid":20,"tid":21,"ts":%d,"ph":"i"}\n'
                       % (T0 + 10 * k))
    out.append('{"name":"read","cat":"PROFILE","pid":20,"tid":21,"ts":%d,"dur":0,"ph":"C",'
               '"args":{"count":4,"dur_sum":80,"size_sum":1000,"hhash":51242,"fhash":39537}}\n'
               % (T0 + 5000))
    return "".join(out)


def damaged_lines():
    """Lines the report rejects or skips, and ones it takes as they are
    (times out of range, a negative dur too, are damaged lines:
    test_python_hostile.py)."""
    return ("\n"
            "[\n"
            '{"id":90,"name":"write","cat":"POSIX","pid":10,"tid"10}\n'
            '{"id":91,"cat":"POSIX","pid":10,"tid":10,"ts":1,"dur":1,"ph":"X"}\n'
            '{"id":92,"name":"write","cat":"POSIX","pid":10,"tid":10,"ts":"1","ph":"X"}\n'
            '{"id":93,"name":"write","cat":"POSIX","pid":10,"tid":10,"dur":1,"ph":"X"}\n'
            '{"id":94,"name":"write","cat":"POSIX","pid":10,"tid":10,"ts":1,"ph":5}\n'
            '{"id":95,"name":"write","cat":"POSIX","pid":10,"tid":10,"ts":NaN,"ph":"X"}\n'
            '{"id":96,"name":"write","cat":"POSIX","pid":10,"tid":10,"ts":%d,"dur":4,"ph":"X",'
            '"args":{"fhash":"9999999999999999","size":-1,"ret":-5}},\n'
            '[{"id":97,"name":"fsync","cat":"POSIX","pid":10,"tid":10,"ts":%d.9e3,"dur":2.5,'
            '"ph":"X","args":{"p_idx":4242,"level":2}}\n'
            '{"id":98,"name":"x","cat":"POSIX","ph":"X","ts":1} trailing\n'
            "not json at all\n"
            '{"name":"cnt","cat":"CTR","pid":12,"tid":12,"ts":%d,"ph":"C","args":{"count":0,'
            '"dur_sum":9}}\n'
            '{"name":"cnt","cat":"CTR","pid":12,"tid":12,"ts":%d,"ph":"C","args":{"count":2,'
            '"dur_sum":30,"size_sum":64}}\n'
            "]\n" % (T0 + 7, T0 + 8, T0 + 9, T0 + 10))


def members(path, texts):
    with open(path, "wb") as f:
        for t in texts:
            f.write(gzip.compress(t.encode()))


def split(text, n):
    """@text cut into about @n pieces at line ends."""
    out, start = [], 0
    for k in range(1, n):
        cut = text.find("\n", len(text) * k // n) + 1
        if cut > start:
            out.append(text[start:cut])
            start = cut
    out.append(text[start:])
    return out


with tempfile.TemporaryDirectory() as tmp:
    p = lambda name: os.path.join(tmp, name)  # noqa: E731
    text = ours()
    members(p("ours.pfw.gz"), split(text, 5))
    with open(p("dft.pfw"), "w") as f:
        f.write(dftracer())
    with open(p("dft.pfw.gz"), "wb") as f:
        f.write(gzip.compress(dftracer().encode()))  # one member, as gzip(1) makes
    for t in ("ours.pfw.gz", "dft.pfw", "dft.pfw.gz"):
        for opts in ([], ["--partition-size", "1K"], ["--partition-size", "300"]):
            j = same([p(t)], *opts, what="%s %s" % (t, " ".join(opts)))
    j = same([p("ours.pfw.gz")])
    check(j and j["layers"][0]["name"] == "HDF5" and j["layers"][0]["outermost"]["by_layer_us"]
          .get("kernel", 0) % 1 != 0, "the kernel's share is scaled (not whole us): %s"
          % (j and j["layers"][0]["outermost"]))
    check(j and j["processes"][0]["name"] == "early" and j["processes"][0]["host"] is None,
          "a process named before the HH record has no host: %s" % (j and j["processes"][:1]))

    # Several traces; lines the report takes, skips or rejects; members
    # with garbage between them, a corrupt one, a truncated last one.
    members(p("damaged.pfw.gz"), [text, damaged_lines()])
    members(p("nl.pfw.gz"), [text[:-1]])  # no newline after the last line
    good = gzip.compress(text.encode())
    bad = bytearray(gzip.compress(dftracer().encode()))
    bad[len(bad) // 2] ^= 0x55
    crc = bytearray(gzip.compress(damaged_lines().encode()))
    crc[-6] ^= 1  # the CRC of the data
    with open(p("broken.pfw.gz"), "wb") as f:
        f.write(good + b"garbage between members" + bytes(bad) + good + bytes(crc) + good
                + gzip.compress(text.encode())[:-40])
    with open(p("tail.pfw.gz"), "wb") as f:
        f.write(good + b"\x1f\x8b\x08 trailing junk")
    for t in ("damaged.pfw.gz", "nl.pfw.gz", "broken.pfw.gz", "tail.pfw.gz"):
        for opts in ([], ["--partition-size", "2K"]):
            same([p(t)], *opts, what="%s %s" % (t, " ".join(opts)))
    r = summary([p("broken.pfw.gz")], "--json")
    check(r.returncode == 1 and "broken.pfw.gz: line" in r.stderr and "corrupt gzip member"
          in r.stderr and "truncated gzip member" in r.stderr and "data that is not gzip"
          in r.stderr and "Traceback" not in r.stderr,
          "damage named with the file, line and byte: %s" % r.stderr[-1500:])
    everything = [p(t) for t in ("ours.pfw.gz", "dft.pfw", "damaged.pfw.gz", "dft.pfw.gz",
                                 "broken.pfw.gz")]
    same(everything, several=True, what="five traces")
    same(everything, "--partition-size", "4K", several=True, what="five traces, 4K partitions")
    same(everything, "--workers", "2", "--partition-size", "8K", several=True,
         what="five traces on two worker processes")

    # The same traces as a task each on two worker processes, their
    # partial reports merged: Darshan's rows, the job summary and the
    # text summary are datacrumbs-report's, byte for byte.
    code = """
import json, sys
from datacrumbs import cluster, graph
runner = cluster.connect(None, 2)
try:
    res = graph.summarize(sys.argv[1:], runner, ["DARSHAN", "TEXT", "SUMMARY"], 10,
                          darshan=True)
finally:
    runner.close()
print(json.dumps(res))
"""
    r = subprocess.run([PY, "-c", code] + everything, capture_output=True, text=True,
                       env=env())
    got = json.loads(r.stdout) if r.returncode == 0 else {}
    want_d = subprocess.run([REPORT, "-q", "--darshan"] + everything, capture_output=True,
                            text=True)
    want_s = subprocess.run([REPORT, "-q", "-S"] + everything, capture_output=True, text=True)
    out = got.get("out", {})
    check(r.returncode == 0 and out.get("DARSHAN") == want_d.stdout
          and out.get("TEXT", "") + out.get("SUMMARY", "") == want_s.stdout
          and got.get("problems", 0) > 0 and want_d.returncode == 1,
          "merged parts on two workers: Darshan's rows and -S as the report's: %s %s"
          % (r.stderr[-1500:], [k for k in ("DARSHAN", "TEXT", "SUMMARY") if k in out]))

    # The text summary shows the same tables.
    r = summary([p("ours.pfw.gz")])
    check(r.returncode == 1 and "1 traces, 100 calls" in r.stdout and "H5Dwrite" in r.stdout
          and "Events lost: 3" in r.stdout and "/data/a.h5" in r.stdout,
          "text summary: %s %s" % (r.stdout[:600], r.stderr[-500:]))

    # load(): one row per call, names resolved, from any reader's view.
    code = """
import json, sys, datacrumbs
df = datacrumbs.load(sys.argv[1:], partition_size=64)
pdf = df.compute()
print(json.dumps({"npartitions": df.npartitions, "rows": len(pdf),
    "columns": list(pdf.columns),
    "calls": {"/".join(k): v for k, v in pdf.groupby(["cat", "name"]).size().items()},
    "bytes": int(pdf["size"].fillna(0).sum()), "dur": int(pdf["dur"].sum()),
    "files": sorted(set(pdf["file"].dropna())), "hosts": sorted(set(pdf["host"].dropna())),
    "unnamed": sorted(set(pdf.loc[pdf["file"].isna() & pdf["fhash"].notna(), "fhash"])),
    "lines": pdf["line"].tolist()[:3]}))
"""
    r = subprocess.run([PY, "-c", code, p("ours.pfw.gz"), p("dft.pfw.gz")], capture_output=True,
                       text=True, env=env())
    check(r.returncode == 0, "load(): %s" % r.stderr[-2000:])
    got = json.loads(r.stdout) if r.returncode == 0 else {}
    want_calls, want_bytes, want_dur = {}, 0, 0
    for t in (text, dftracer()):
        for ln in t.splitlines():
            if not ln.startswith("{"):
                continue
            e = json.loads(ln)
            if e["ph"] in ("X", "C") and e.get("cat") != "dftracer":
                k = "%s/%s" % (e["cat"], e["name"])
                want_calls[k] = want_calls.get(k, 0) + 1
                want_bytes += e.get("args", {}).get("size", 0)
                want_dur += e.get("dur", 0)
    check(got.get("calls") == want_calls, "load(): calls per function %s, want %s"
          % (got.get("calls"), want_calls))
    check(got.get("bytes") == want_bytes and got.get("dur") == want_dur,
          "load(): bytes %s dur %s, want %s %s" % (got.get("bytes"), got.get("dur"),
                                                   want_bytes, want_dur))
    check(got.get("files") == ["/data/a.h5", "/data/b \u00e9\\.dat", "/data/c.npz",
                               "/data/d.npz"] and got.get("hosts") == ["node1", "node2", "node3"]
          and got.get("unnamed") == ["3333333333333333"],
          "load(): names resolved: %s" % {k: got.get(k) for k in ("files", "hosts", "unnamed")})
    check(got.get("npartitions", 0) > 4, "load(): a partition per gzip member: %s" % got.get("npartitions"))

    # The interpreter: one that cannot see Debian's packages (here
    # /usr/bin/python3 without site-packages, and pyenv's python3 if it is
    # on PATH) says which packages and which interpreter, once.
    others = [[PY, "-S"]]
    path_py = shutil.which("python3")
    if path_py and os.path.realpath(path_py) != os.path.realpath(PY):
        others.append([path_py])
    for interp in others:
        r = subprocess.run(interp + ["-m", "datacrumbs", "summary", "--json", p("dft.pfw")],
                           capture_output=True, text=True, env=env())
        check(r.returncode == 2 and "cannot import pandas" in r.stderr
              and "python3-pandas" in r.stderr
              and "/usr/bin/python3 -m datacrumbs summary --json " + p("dft.pfw") in r.stderr
              and "Traceback" not in r.stderr and not r.stdout,
              "%s: %d %s" % (" ".join(interp), r.returncode, r.stderr))

    # Usage and bad input: the file is named, the status is non-zero.
    with open(p("notes.txt"), "w") as f:
        f.write("these are my notes\nnot a trace\n")
    with open(p("random.bin"), "wb") as f:
        f.write(bytes(range(256)) * 64)
    cases = [([p("missing.pfw.gz")], 2, "missing.pfw.gz: No such file or directory"),
             ([tmp], 2, "is a directory"),
             ([p("dft.pfw"), p("missing.pfw.gz")], 2, "missing.pfw.gz"),
             ([p("notes.txt")], 1, "notes.txt: not a trace"),
             ([p("random.bin")], 1, "random.bin: line 1:"),
             ([p("broken.pfw.gz")], 1, "broken.pfw.gz: line"),
             (["--partition-size", "0", p("dft.pfw")], 2, "not a size"),
             (["--bogus", p("dft.pfw")], 2, "usage:"),
             ([], 2, "usage:")]
    for args, status, msg in cases:
        r = summary(args)
        check(r.returncode == status and msg in r.stderr and "Traceback" not in r.stderr,
              "%s: exit %d, want %d and %r: %s" % (args, r.returncode, status, msg,
                                                  r.stderr[-800:]))
    for t in ("notes.txt", "random.bin"):
        same([p(t)], what=t)
    # meson install puts the package where Debian's python3 looks under
    # the prefix, complete: the installed copy gives the same summary.
    meson = shutil.which("meson")
    if meson:
        dest = p("dest")
        r = subprocess.run([meson, "install", "-C", BUILD, "--destdir", dest, "--no-rebuild",
                            "--quiet"], capture_output=True, text=True)
        check(r.returncode == 0, "meson install: %s" % r.stderr[-800:])
        opts = json.loads(subprocess.run([meson, "introspect", "--buildoptions", BUILD],
                                         capture_output=True, text=True).stdout or "[]")
        prefix = next((o["value"] for o in opts if o["name"] == "prefix"), None)
        found = [top for top, _, fs in os.walk(dest)
                 if "__main__.py" in fs and top.endswith("/datacrumbs")]
        check(len(found) == 1, "one installed package: %s" % found)
        site = os.path.dirname(found[0]) if found else dest
        sitepkgs = subprocess.run([PY, "-c", "import site; print(site.getsitepackages())"],
                                  capture_output=True, text=True).stdout
        if prefix in ("/usr", "/usr/local"):
            check("'%s'" % site[len(dest):] in sitepkgs,
                  "%s is where %s looks: %s" % (site[len(dest):], PY, sitepkgs))
        r = subprocess.run([PY, "-m", "datacrumbs", "summary", "--json", p("dft.pfw")],
                           capture_output=True, text=True, env=env(PYTHONPATH=site))
        want = subprocess.run([REPORT, "-q", "--json", p("dft.pfw")], capture_output=True,
                              text=True).stdout
        check(r.returncode == 0 and r.stdout == want, "installed package: %s" % r.stderr[-800:])
    r = summary(["--help"])
    check(r.returncode == 0 and len(r.stdout.splitlines()) < 25 and "--scheduler" in r.stdout,
          "--help fits a screen")
    check(os.path.isdir(os.path.join(PKG, "datacrumbs")), "package in python/")
done()
