#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`python3 -m datacrumbs summary` on hostile traces: times out of range
(ts -2^63, dur past 2^62 ns) are damaged lines; a 4 MB gzip holding one
4 GiB line is read in bounded memory and time, the line counted as
damaged and the lines after it read; a trace naming 200,000 files
gets a text summary of its top 10 in bounded memory; and strings holding
terminal escapes (ESC, C1 controls such as U+009B) reach the terminal
escaped, the JSON as JSON escapes. Every run is bounded in address
space and time, so a reader that holds a line whole fails fast."""
import gzip
import json
import os
import resource
import subprocess
import tempfile
import zlib

from dcpy import PY, env, need_pandas
from dctest import check, done

need_pandas()

HH = "08cf3707b570dbec"
T0 = 1700000000000000
MAX_TIME_US = 1 << 62  # exclusive, as datacrumbs-report's DC_TIME_MAX
MEM = 1 << 30  # address space of a summary: it needs under 500 MB


def line(o):
    return json.dumps(o, separators=(",", ":")) + "\n"


def call(i, ts, dur=5, name="write", cat="POSIX", **args):
    a = {"hhash": HH, "level": 1, "p_idx": -1}
    a.update(args)
    return line({"id": i, "name": name, "cat": cat, "pid": 10, "tid": 10, "ts": ts, "dur": dur,
                 "ph": "X", "args": a})


def bounded():
    resource.setrlimit(resource.RLIMIT_AS, (MEM, MEM))
    # Threads reserve address space (stacks, malloc arenas): as many
    # as on a 2-CPU node, whatever this one has.
    os.sched_setaffinity(0, sorted(os.sched_getaffinity(0))[:2])


def summary(traces, *opts, timeout=300):
    """(exit status, stdout, stderr) of the summary, in at most @timeout
    seconds and MEM bytes of address space."""
    try:
        r = subprocess.run([PY, "-m", "datacrumbs", "summary"] + list(opts) + list(traces),
                           capture_output=True, env=env(), timeout=timeout, preexec_fn=bounded)
    except subprocess.TimeoutExpired:
        return None, "", "timed out after %d s" % timeout
    return (r.returncode, r.stdout.decode("utf-8", "surrogateescape"),
            r.stderr.decode("utf-8", "surrogateescape"))


def head(n=3, first_id=1):
    out = line({"id": first_id, "name": "HH", "cat": "dftracer", "pid": 10, "tid": 10,
                "ph": "M", "args": {"name": "node1", "value": HH}})
    for k in range(n):
        out += call(first_id + 1 + k, T0 + 100 * k)
    return out


def long_line_gz(path, text_before, gib, text_after):
    """A gzip of @text_before, then one line of @gib GiB (a name of 'a's),
    then @text_after; made without ever holding the long line: one
    full-flushed deflate block of 1 MiB of 'a' repeated, with the trailer's
    CRC and length computed piece by piece."""
    block = b"a" * (1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, 31)
    crc = 0
    with open(path, "wb") as f:
        f.write(gzip.compress(text_before.encode()))
        start = b'{"id":50,"name":"'
        f.write(c.compress(start) + c.flush(zlib.Z_FULL_FLUSH))
        crc = zlib.crc32(start, crc)
        rep = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
        again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
        assert rep == again, "full-flushed blocks of the same text deflate the same"
        f.write(rep + again)
        crc = zlib.crc32(block, zlib.crc32(block, crc))
        for _ in range((gib << 10) - 2):
            f.write(rep)
            crc = zlib.crc32(block, crc)
        end = b'","cat":"POSIX","ph":"X","ts":%d,"dur":1}\n' % T0 + text_after.encode()
        tail = c.compress(end) + c.flush()
        crc = zlib.crc32(end, crc)
        total = len(start) + (gib << 30) + len(end)
        f.write(tail[:-8] + crc.to_bytes(4, "little") + (total & 0xFFFFFFFF).to_bytes(4, "little"))


with tempfile.TemporaryDirectory() as tmp:
    p = lambda name: os.path.join(tmp, name)  # noqa: E731

    # Times out of range: each such line is damaged, named, skipped.
    bad_times = [("ts", -(1 << 63)), ("ts", (1 << 63) - 1), ("ts", MAX_TIME_US),
                 ("ts", -1), ("dur", -4), ("dur", MAX_TIME_US), ("dur", -(1 << 63)),
                 ("ts", 1 << 64)]
    text = head(3)
    for k, (field, v) in enumerate(bad_times):
        o = json.loads(call(100 + k, T0 + 1000))
        o[field] = v
        text += line(o)
    text += call(200, MAX_TIME_US - 10, 10) + call(201, 0, 0)  # the edges are times
    with open(p("times.pfw"), "w") as f:
        f.write(text)
    for opts in ([], ["--partition-size", "300"]):
        st, out, err = summary([p("times.pfw")], "--json", *opts)
        j = json.loads(out) if st in (0, 1) and out else {}
        check(st == 1 and j.get("bad_lines") == len(bad_times) and j.get("calls") == 5
              and "Traceback" not in err,
              "times out of range %s: exit %s, bad_lines %s (want %d), calls %s (want 5): %s"
              % (opts, st, j.get("bad_lines"), len(bad_times), j.get("calls"), err[-1500:]))
        # The messages are libdatacrumbs-report's, datacrumbs-report's.
        for n, (field, _) in enumerate(bad_times):
            check("times.pfw: line %d: ts or dur outside 0..2^62" % (5 + n) in err,
                  "line %d (%s) named as out of range: %s" % (5 + n, field, err[-1500:]))
        check(j.get("run", {}).get("end_us") == MAX_TIME_US, "run end %s" % j.get("run"))

    # One line of 4 GiB in a 4 MB gzip: read in bounded pieces, counted
    # as one damaged line; the lines after it are read.
    before, after = head(3), head(2, 300)
    long_line_gz(p("long.pfw.gz"), before, 4, after)
    check(os.path.getsize(p("long.pfw.gz")) < 8 << 20,
          "4 GiB of text in %d bytes" % os.path.getsize(p("long.pfw.gz")))
    st, out, err = summary([p("long.pfw.gz")], "--json", timeout=400)
    j = json.loads(out) if st in (0, 1) and out else {}
    check(st == 1 and j.get("bad_lines") == 1 and j.get("calls") == 5 and j.get("lines") == 8
          and "long.pfw.gz: line 5: line longer than 1 MiB" in err
          and "Traceback" not in err,
          "a 4 GiB line: exit %s, bad_lines %s, calls %s, lines %s: %s"
          % (st, j.get("bad_lines"), j.get("calls"), j.get("lines"), err[-1500:]))

    # Long lines in plain text, across partitions of 1 MiB: each is one
    # damaged line wherever the partitions are cut, and the FH record
    # of the line after is read.
    fh = line({"id": 400, "name": "FH", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
               "args": {"hhash": HH, "name": "/data/after", "value": "00000000000000aa"}})
    with open(p("long.pfw"), "w") as f:
        f.write(head(3))
        f.write('{"id":50,"name":"FH","cat":"dftracer","ph":"M","args":{"name":"'
                + "b" * (3 << 20) + '","value":"00000000000000aa"}}\n')
        f.write(fh + call(401, T0 + 50, fhash="00000000000000aa"))
        f.write('{"name":"' + "c" * ((1 << 20) - 9) + "\n")  # exactly 1 MiB: not too long
        f.write("d" * ((5 << 20) + 3))  # the last line, no newline
    for opts in ([], ["--partition-size", "1M"], ["--partition-size", "100"]):
        st, out, err = summary([p("long.pfw")], "--json", *opts)
        j = json.loads(out) if st in (0, 1) and out else {}
        files = [f["name"] for f in j.get("files", [])]
        check(st == 1 and j.get("bad_lines") == 3 and j.get("calls") == 4
              and j.get("lines") == 9 and files == ["/data/after"]
              and "long.pfw: line 5: line longer than" in err
              and "long.pfw: line 8: unterminated string" in err
              and "long.pfw: line 9: line longer than" in err,
              "long plain lines %s: exit %s, bad %s, calls %s, lines %s, files %s: %s"
              % (opts, st, j.get("bad_lines"), j.get("calls"), j.get("lines"),
                 [f[:80] for f in files],
                 err[-1500:]))

    # 200,000 distinct files: the text summary shows 10 and holds no
    # more of them than its tables need (the JSON of every file, built
    # and parsed again, took more than MEM).
    nfiles = 200000
    with gzip.open(p("files.pfw.gz"), "wt", compresslevel=1) as f:
        f.write(head(0))
        for k in range(nfiles):
            f.write(line({"id": 10 + 2 * k, "name": "FH", "cat": "dftracer", "pid": 10,
                          "tid": 10, "ph": "M", "args": {"hhash": HH, "value": "%016x" % (k + 1),
                                                         "name": "/data/dir/file-%09d" % k}}))
            f.write(call(11 + 2 * k, T0 + 10 * k, 1 + k % 1000, name="open",
                         fhash="%016x" % (k + 1), ret=3))
    st, out, err = summary([p("files.pfw.gz")], "--workers", "0")
    # The rows of the files table (the slowest calls name files too).
    table = out.split("Top files by I/O time\n", 1)[-1].split("\n\n", 1)[0]
    rows = [ln for ln in table.splitlines() if "/data/dir/file-" in ln]
    check(st == 0 and "%d calls, 1 processes, %d files" % (nfiles, nfiles) in out
          and len(rows) == 10 and "file-000000999 " in rows[0],
          "%d files: exit %s, %d rows: %s %s" % (nfiles, st, len(rows), out[:1500], err[-800:]))

    # Terminal escapes in every string a trace can name: the text summary
    # shows them escaped, the JSON as JSON (ESC as \u001b) that parses
    # back to the same strings, and the messages escape them too.
    evil = "\x1b]0;owned\x07\x1b[2J\u009b31m\x7f\r"
    events = [{"id": 1, "name": "HH", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
               "args": {"name": "host" + evil, "value": HH}},
              {"id": 2, "name": "start", "cat": "dftracer", "pid": 10, "tid": 10, "ts": T0,
               "dur": 0, "ph": "X", "args": {"hhash": HH, "cmd": "cmd" + evil}},
              {"id": 3, "name": "process_name", "cat": "dftracer", "pid": 10, "tid": 10,
               "ph": "M", "args": {"hhash": HH, "name": "proc" + evil}},
              {"id": 4, "name": "PR", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
               "args": {"hhash": HH, "name": "rank", "value": "7" + evil}},
              {"id": 5, "name": "FH", "cat": "dftracer", "pid": 10, "tid": 10, "ph": "M",
               "args": {"hhash": HH, "name": "/data/file" + evil, "value": "00000000000000bb"}}]
    text = "".join(line(e) for e in events)
    text += call(6, T0 + 10, 50, name="write" + evil, cat="LAYER" + evil, size=10,
                 fhash="00000000000000bb")
    text += call(7, T0 + 20, 30, name="w" + evil, cat="P" + evil, size=10,
                 fhash="00000000000000bb")
    text += line({"id": 8, "name": "end", "cat": "dftracer", "pid": 10, "tid": 10,
                  "ts": T0 + 100, "dur": 0, "ph": "X", "args": {"lost" + evil: 2}})
    bad_name = p("bad\x1b[31m\u009b.pfw")
    with open(p("evil.pfw"), "w") as f:
        f.write(text)
    with open(bad_name, "w") as f:
        f.write(text + "not json" + evil + "\n")
    st, out, err = summary([p("evil.pfw"), bad_name], "--top", "20")
    shown = [c for c in out if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    check(st == 1 and not shown and "\\x1b]0;owned\\x07\\x1b[2J\\xc2\\x9b31m\\x7f\\x0d" in out,
          "text summary: exit %s, control characters shown raw: %r: %r %r"
          % (st, shown[:10], out[:3000], err[-800:]))
    # Process names are in the JSON (below), not in the text summary.
    for what in ("LAYER", "/data/file", "cmd", "write", "lost"):
        check(what + "\\x1b]0;" in out, "%s shown escaped: %r" % (what, out[:3000]))
    raw = [c for c in err if (ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0]
    check(not raw and "bad\\x1b[31m\\u009b.pfw: line 9:" in err,
          "messages escape names: %r %r" % (raw[:10], err[-800:]))
    st, out, err = summary([p("evil.pfw")], "--json")
    j = json.loads(out) if st == 0 and out else {}
    check("\x1b" not in out and "\x07" not in out and "\\u001b" in out,
          "the JSON escapes C0 controls: %r" % out[:600])
    check(j.get("command") == "cmd" + evil and j.get("hosts") == ["host" + evil]
          and [f["name"] for f in j.get("files", [])] == ["/data/file" + evil]
          and {l["name"] for l in j.get("layers", [])} == {"LAYER" + evil, "P" + evil}
          and j.get("lost", {}).get("lost" + evil) == 2
          and [q["name"] for q in j.get("processes", [])] == ["proc" + evil],
          "the JSON gives the strings back as they were: %r" % out[:1500])
done()
