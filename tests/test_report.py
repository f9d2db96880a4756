#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report on hand-written traces whose every number is known:
counts, times, percentiles, bytes, the split of nested time among layers,
folded stacks, DFTracer's own dialect (decimal hashes, no brackets, other
key order), several traces at once, --file, and damaged input (a bad line,
an undefined hash, a truncated gzip member), each named with its file and
line while the rest is still reported."""
import gzip
import json
import os
import subprocess
import tempfile

from dctest import REPORT, check, done, run

HH = "08cf3707b570dbec"


def meta(i, kind, name, value, pid=10):
    return {"id": i, "name": kind, "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
            "args": {"hhash": HH, "name": name, "value": value}}


def call(i, cat, name, ts, dur, p_idx=-1, level=1, pid=10, tid=10, **args):
    a = {"hhash": HH}
    a.update(args)
    a.update({"level": level, "p_idx": p_idx})
    return {"id": i, "name": name, "cat": cat, "pid": pid, "tid": tid, "ts": ts, "dur": dur,
            "ph": "X", "args": a}


def lines(events, brackets=True):
    text = "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in events)
    return ("[\n" + text + "]\n") if brackets else text


def write_gz(path, texts):
    """One gzip member per text, as the runtime writes them."""
    with open(path, "wb") as f:
        for t in texts:
            f.write(gzip.compress(t.encode()))


def report(*args):
    r = run([REPORT, "-q"] + list(args))
    return r


def report_json(*args):
    r = report("--json", *args)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        check(False, "JSON output: %r %s" % (r.stdout[:200], r.stderr))
        return r, {}


def by(items, **kw):
    for it in items:
        if all(it.get(k) == v for k, v in kw.items()):
            return it
    return None


FILE_A, FILE_B = "/data/a.h5", "/data/b.dat"
FH_A, FH_B = "1111111111111111", "2222222222222222"
T0 = 1700000000000000


def nested_trace():
    """One H5Dwrite (100 us) -> POSIX pwrite64 (60) -> sys pwrite64 (50) ->
    two block requests of 40 us each in flight together; then a lone read
    and 4 POSIX writes of 10, 20, 30, 40 us of 1000 bytes each on b."""
    ev = [meta(1, "HH", "node1", HH),
          {"id": 2, "name": "start", "cat": "dftracer", "pid": 9, "tid": 9, "ts": T0, "dur": 0,
           "ph": "X", "args": {"hhash": HH, "cmd": "app --x", "version": "0.1.0"}},
          {"id": 3, "name": "process_name", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
           "args": {"name": "app"}},
          meta(4, "PR", "rank", "0"),
          meta(5, "FH", FILE_A, FH_A), meta(6, "FH", FILE_B, FH_B),
          call(7, "HDF5", "H5Dwrite", T0 + 10, 100, fhash=FH_A, ret=0),
          call(8, "POSIX", "pwrite64", T0 + 20, 60, p_idx=7, level=2, fhash=FH_A, ret=4096,
               size=4096),
          call(9, "sys", "pwrite64", T0 + 25, 50, p_idx=8, level=3, fhash=FH_A, ret=4096,
               size=4096),
          call(10, "kernel", "block_rq", T0 + 30, 40, p_idx=9, level=4, size=4096),
          call(11, "kernel", "block_rq", T0 + 31, 40, p_idx=9, level=4, size=4096),
          call(12, "POSIX", "read", T0 + 200, 5, fhash=FH_B, ret=-9)]
    i = 13
    for k, d in enumerate((10, 20, 30, 40)):
        ev.append(call(i, "POSIX", "write", T0 + 300 + 100 * k, d, fhash=FH_B, ret=1000,
                       size=1000))
        i += 1
    ev.append({"id": i, "name": "end", "cat": "dftracer", "pid": 9, "tid": 9, "ts": T0 + 1000,
               "dur": 0, "ph": "X", "args": {"hhash": HH, "num_events": 10, "dropped": 3,
                                             "ringbuf_full": 3, "lost": {"POSIX/write": 3}}})
    return ev


with tempfile.TemporaryDirectory() as tmp:
    # Two members, split between lines, as the runtime writes them.
    ev = nested_trace()
    text = lines(ev)
    cut = text.index("\n", len(text) // 2) + 1
    t1 = os.path.join(tmp, "t1.pfw.gz")
    write_gz(t1, [text[:cut], text[cut:]])
    r, j = report_json(t1)
    check(r.returncode == 0, "clean trace: exit %d %s" % (r.returncode, r.stderr))
    check(j.get("calls") == 10, "10 calls: %s" % j.get("calls"))
    check(j["run"]["time_us"] == 1000, "run time from start to end: %s" % j["run"])
    check(j.get("command") == "app --x", "command from the start record")
    w = by(j["functions"], layer="POSIX", name="write")
    check(w and w["calls"] == 4 and w["time_us"] == 100 and w["mean_us"] == 25,
          "POSIX write: 4 calls, 100 us: %s" % w)
    # Nearest rank: p50 of (10,20,30,40) is 20, p99 is 40; all < 64 us are exact.
    check(w and w["p50_us"] == 20 and w["p99_us"] == 40 and w["min_us"] == 10
          and w["max_us"] == 40, "POSIX write percentiles: %s" % w)
    check(w and w["bytes"] == 4000 and w["bytes_written"] == 4000 and w["io_time_us"] == 100
          and w["bandwidth_bps"] == 40000000, "POSIX write bytes and bandwidth: %s" % w)
    rd = by(j["functions"], layer="POSIX", name="read")
    check(rd and rd["errors"] == 1 and rd["bytes"] == 0, "failed read: an error, no bytes")
    blk = by(j["layers"], name="kernel")
    check(blk and blk["calls"] == 2 and blk["bytes"] == 8192, "kernel layer: %s" % blk)
    # 100 us of H5Dwrite: HDF5 40, POSIX 10, sys 0, kernel 50 (the two
    # 40 us requests overlap inside a 50 us syscall: scaled to 50).
    h = by(j["layers"], name="HDF5")
    split = h["outermost"]["by_layer_us"] if h else {}
    check(split == {"HDF5": 40, "POSIX": 10, "kernel": 50},
          "H5Dwrite's time split among layers: %s" % split)
    p = by(j["layers"], name="POSIX")
    check(p and p["outermost"]["calls"] == 5 and p["outermost"]["time_us"] == 105,
          "outermost POSIX calls: %s" % (p and p["outermost"]))
    fa = by(j["files"], name=FILE_A)
    check(fa and fa["calls"] == 1 and fa["time_us"] == 100 and fa["bytes_written"] == 4096,
          "a.h5: one outermost call of 100 us, 4096 bytes counted once: %s" % fa)
    check(fa and fa["layers"] == {"HDF5": {"calls": 1, "time_us": 100},
                                  "POSIX": {"calls": 1, "time_us": 60},
                                  "sys": {"calls": 1, "time_us": 50}},
          "a.h5 per layer: %s" % (fa and fa["layers"]))
    fb = by(j["files"], name=FILE_B)
    check(fb and fb["calls"] == 5 and fb["bytes_written"] == 4000, "b.dat: %s" % fb)
    check([f["name"] for f in j["files"]] == [FILE_B, FILE_A], "files by I/O time")
    check(j["slowest"][0]["name"] == "H5Dwrite" and j["slowest"][0]["dur_us"] == 100
          and j["slowest"][0]["file"] == FILE_A, "slowest call: %s" % j["slowest"][:1])
    check(j["lost"].get("dropped") == 3 and j["lost"].get("ringbuf_full") == 3
          and j["lost"].get("end_records") == 1, "losses from the end record: %s" % j["lost"])
    pr = j["processes"]
    check(by(pr, pid=10, name="app", rank="0", host="node1") is not None, "process: %s" % pr)

    r = report("--folded", t1)
    folded = dict(l.rsplit(" ", 1) for l in r.stdout.splitlines())
    want = {"HDF5;H5Dwrite": "40", "HDF5;H5Dwrite;POSIX;pwrite64": "10",
            "HDF5;H5Dwrite;POSIX;pwrite64;sys;pwrite64;kernel;block_rq": "50",
            "POSIX;read": "5", "POSIX;write": "100"}
    check(folded == want, "folded stacks: %s" % folded)

    txt = report(t1).stdout
    check("HDF5" in txt and "H5Dwrite" in txt and "Events lost: 3" in txt,
          "text summary: %s" % txt[:300])
    check(max(len(l) for l in txt.splitlines()) <= 100, "text fits 100 columns")

    svg = os.path.join(tmp, "f.svg")
    r = report("--flamegraph", svg, t1)
    with open(svg) as f:
        s = f.read()
    check(s.startswith("<svg") and "block_rq" in s and s.count("<rect") >= 6,
          "flame graph drawn with every frame")

    # --file: the calls on a.h5 and all nested in them, kernel included.
    r, j = report_json("--file", "*.h5", t1)
    sc = j.get("file_scope", {})
    check([f["name"] for f in sc.get("files", [])] == [FILE_A], "matching files: %s" % sc.get("files"))
    check({l["name"]: l["calls"] for l in sc.get("layers", [])} ==
          {"HDF5": 1, "POSIX": 1, "sys": 1, "kernel": 2}, "file scope layers: %s" % sc.get("layers"))
    check(sc.get("by_layer_us") == {"HDF5": 40, "POSIX": 10, "kernel": 50},
          "file scope split: %s" % sc.get("by_layer_us"))

    # DFTracer's own dialect: no brackets, decimal hashes, keys in another
    # order, an uncompressed file; read together with t1.
    dft = os.path.join(tmp, "dft.pfw")
    with open(dft, "w") as f:
        f.write('{"id":1,"name":"HH","cat":"dftracer","pid":20,"tid":20,"ph":"M","args":{"name":"node2","value":51242}}\n')
        f.write('{"id":2,"name":"FH","cat":"dftracer","pid":20,"tid":20,"ph":"M","args":{"name":"/data/c.npz","value":39537}}\n')
        for k in range(3):
            f.write('{"ph":"X","args":{"size":2048,"fhash":39537,"hhash":51242,"level":1},'
                    '"dur":7,"ts":%d,"tid":21,"pid":20,"cat":"POSIX","name":"read","id":%d}\n'
                    % (T0 + 10 * k, 3 + k))
    r, j = report_json(t1, dft)
    check(r.returncode == 0, "two traces: exit %d %s" % (r.returncode, r.stderr))
    rd = by(j["functions"], layer="POSIX", name="read")
    check(rd and rd["calls"] == 4 and rd["bytes_read"] == 6144, "reads of both traces: %s" % rd)
    c = by(j["files"], name="/data/c.npz")
    check(c and c["calls"] == 3 and c["bytes_read"] == 6144, "decimal fhash joined: %s" % c)
    check(sorted(j["hosts"]) == ["node1", "node2"] and j["traces"] == 2, "two hosts")

    # C++ overloads differ past 16 characters: the text report writes a
    # long name whole, on a line above its numbers.
    cxx = os.path.join(tmp, "cxx.pfw.gz")
    long_names = ["H5::DataSet::write(void const*, H5::DataType const&) const",
                  "H5::DataSet::write(std::string const&, H5::DataType const&) const"]
    write_gz(cxx, [lines([call(1 + k, "HDF5", n, T0 + 100 * k, 10) for k, n in enumerate(long_names)])])
    txt = report("-q", cxx).stdout
    check(all("  HDF5   " + n + "\n" in txt for n in long_names) and
          sum(l.startswith("         ") and " 1 " in l for l in txt.splitlines()) >= 2,
          "long names whole, numbers on the next line:\n%s" % txt)

    # Damage: a bad line, an undefined hash, a truncated last member.
    bad = lines(ev).splitlines(True)
    bad.insert(8, '{"id":99,"name":"write","cat":"POSIX","pid":10,"tid"10}\n')
    bad.insert(9, json.dumps(call(98, "POSIX", "write", T0 + 900, 3, fhash="dddddddddddddddd",
                                  size=1), separators=(",", ":")) + "\n")
    t2 = os.path.join(tmp, "t2.pfw.gz")
    first, second = "".join(bad[:14]), "".join(bad[14:])
    with open(t2, "wb") as f:
        f.write(gzip.compress(first.encode()))
        z = gzip.compress(second.encode())
        f.write(z[:len(z) // 2])
    r, j = report_json(t2)
    check(r.returncode == 1, "damaged input: exit 1, got %d" % r.returncode)
    check("t2.pfw.gz: line 9: expected ':'" in r.stderr, "bad line named: %s" % r.stderr)
    check("t2.pfw.gz: line 10: fhash dddddddddddddddd has no FH record" in r.stderr,
          "undefined hash named: %s" % r.stderr)
    check("t2.pfw.gz: line 15: truncated gzip member" in r.stderr,
          "truncated member named: %s" % r.stderr)
    # The 6 calls in the first member are still reported (the one on the
    # undefined hash too); the rest is lost with the truncated member.
    check(j.get("calls") == 6 and j.get("bad_lines") == 1, "rest reported: %s" % j.get("calls"))
    check(by(j["files"], fhash="dddddddddddddddd", name="<fhash dddddddddddddddd>"),
          "unknown file shown by its hash")

    # Garbage that is not gzip at all, and a missing file.
    junk = os.path.join(tmp, "junk.pfw")
    with open(junk, "wb") as f:
        f.write(b"\x00\x01binary\n")
    r = report(junk)
    check(r.returncode == 1 and "junk.pfw: line 1:" in r.stderr, "junk named: %s" % r.stderr)
    # dftracer-utils' rules: ph must be a string, timed events need ts.
    rules = os.path.join(tmp, "rules.pfw")
    with open(rules, "w") as f:
        f.write('{"id":1,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":88}\n')
        f.write('{"id":2,"name":"read","cat":"POSIX","pid":1,"tid":1,"dur":1,"ph":"X"}\n')
        f.write('{"id":3,"name":"read","cat":"POSIX","pid":1,"tid":1,"ts":5,"dur":1,"ph":"X"}\n')
    r, j = report_json(rules)
    check(r.returncode == 1 and "rules.pfw: line 1: no ph, or ph is not a string" in r.stderr
          and "rules.pfw: line 2: no ts" in r.stderr and j.get("calls") == 1,
          "format rules enforced: %s" % r.stderr)
    # A progress bar on a terminal for large inputs, none otherwise.
    big = os.path.join(tmp, "big.pfw")
    with open(big, "w") as f:
        f.write(lines(ev[:6], brackets=False))
        one = json.dumps(call(1, "POSIX", "write", T0, 3, size=1), separators=(",", ":"))
        f.write((one + "\n") * (17 * 2**20 // len(one) + 1))
    r = run([REPORT, big])
    check(r.returncode == 0 and r.stderr == "", "no progress bar off a terminal: %r" % r.stderr[:80])
    r = run(["script", "-qec", "%s %s >/dev/null" % (REPORT, big), "/dev/null"])
    check("[#" in r.stdout and "M events" in r.stdout, "progress bar on a terminal: %r" % r.stdout[:80])
    # Two ranks write one dataset; rank 1's copy of HDF5 could not tell
    # its bytes: the shared (rank -1) record's bytes are unknown (-1),
    # never rank 0's bytes minus one.
    shared = os.path.join(tmp, "unsized.pfw")
    with open(shared, "w") as f:
        f.write(lines([meta(1, "FH", "/data/s.h5", FH_A), meta(2, "PR", "rank", "0", pid=10),
                       meta(3, "PR", "rank", "1", pid=11),
                       call(4, "HDF5", "H5Dwrite", T0, 5, pid=10, tid=10, fhash=FH_A, ret=0,
                            object="/d", size=8),
                       call(5, "HDF5", "H5Dwrite", T0 + 1, 5, pid=11, tid=11, fhash=FH_A,
                            ret=0, object="/d", size_unknown=1)]))
    got = {(f[1], f[3]): f[4] for f in (l.split("\t") for l in
                                        report("--darshan", shared).stdout.splitlines())
           if len(f) == 8 and f[0] == "H5D"}
    check((got.get(("0", "H5D_BYTES_WRITTEN")), got.get(("1", "H5D_BYTES_WRITTEN")),
           got.get(("-1", "H5D_WRITES")), got.get(("-1", "H5D_BYTES_WRITTEN")),
           got.get(("-1", "H5D_SLOWEST_RANK_BYTES"))) == ("8", "-1", "2", "-1", "-1"),
          "a rank's unknown bytes make the shared record's unknown: %s" % got)
    r = report(os.path.join(tmp, "missing.pfw"))
    check(r.returncode == 2 and "missing.pfw" in r.stderr, "missing file: %s" % r.stderr)
    # Names come from the traced program: a newline or a tab in a file,
    # function or dataset name must not forge lines or columns of the
    # text forms; they show as \xNN. JSON keeps the name exact.
    evil = "/tmp/a\nPOSIX\t0\t/etc/shadow\tPOSIX_BYTES_READ\t999"
    forged = os.path.join(tmp, "forged.pfw")
    with open(forged, "w") as f:
        f.write(lines([meta(1, "FH", evil, FH_A),
                       call(2, "POSIX", "read\nfake", T0, 5, fhash=FH_A, fd=3, ret=10, size=10),
                       call(3, "POSIX", "pread64", T0 + 10, 5, fhash=FH_A, fd=3, ret=10,
                            size=10, offset=0),
                       call(4, "HDF5", "H5Dwrite", T0 + 20, 5, fhash=FH_A, ret=0, size=8,
                            object="/d\tset")]))
    for args in ([], ["--darshan"]):
        r = report(*args + [forged])
        out = r.stdout.splitlines()
        check(r.returncode == 0 and not [l for l in out if "/etc/shadow" in l and
                                         not l.count("\\x0a")],
              "%s: no line of its own from a name: %s" % (args, out))
        check(any("\\x0a" in l for l in out), "%s: the newline shown as \\x0a" % args)
    dl = [l.split("\t") for l in report("--darshan", forged).stdout.splitlines()
          if not l.startswith("#")]
    check(dl and all(len(f) == 8 for f in dl), "--darshan: darshan-parser's eight columns a line: %s"
          % dl[:3])
    check(any(f[5].endswith(":/d\\x09set") for f in dl), "the dataset's tab escaped")
    r, j = report_json(forged)
    check([f["name"] for f in j.get("files", [])] == [evil], "JSON keeps the exact name")
    folded = report("--folded", forged).stdout.splitlines()
    check(len(folded) == 3 and "POSIX;read\\x0afake 5" in folded,
          "--folded: one stack a line: %s" % folded)
done()
