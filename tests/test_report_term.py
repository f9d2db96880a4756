#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report's text outputs (summary, --folded, --darshan,
--summary) on a trace whose strings hold terminal escapes: ESC
sequences, C1 controls (U+009B, CSI, and U+009D, OSC) and lone bytes a
terminal in an 8-bit mode reads as C1. None reaches the terminal: each
is written as \\xNN. --json keeps the strings as they were, as valid
JSON."""
import json
import os
import tempfile

from dctest import REPORT, check, done, run

HH, FH = "00000000000000aa", "00000000000000bb"
# ESC: a title change, a colour; U+009B and U+009D as UTF-8.
BAD = "\x1b]0;owned\x07\x1b[31m\u009b2J\u009d0;x\u009c"


def controls(data):
    """The bytes of @data that drive a terminal: C0 but tab and newline,
    DEL, C1 (as UTF-8) and bytes that are not UTF-8."""
    text = data.decode("utf-8", "surrogateescape")
    return sorted(set("%04x" % ord(c) for c in text
                      if (ord(c) < 0x20 and c not in "\t\n") or 0x7f <= ord(c) <= 0x9f
                      or 0xdc80 <= ord(c) <= 0xdcff))


ev = [{"id": 1, "name": "HH", "cat": "dftracer", "pid": 1, "tid": 1, "ph": "M",
       "args": {"name": "host" + BAD, "value": HH}},
      {"id": 2, "name": "FH", "cat": "dftracer", "pid": 1, "tid": 1, "ph": "M",
       "args": {"hhash": HH, "name": "/d/f" + BAD, "value": FH}},
      {"id": 3, "name": "start", "cat": "dftracer", "pid": 7, "tid": 7, "ph": "X",
       "ts": 1000, "dur": 0,
       "args": {"hhash": HH, "cmd": "app" + BAD,
                "mounts": {"/d": {"type": "ext4" + BAD, "bsize": 4096}}}}]
i = 4
for k in range(3):
    ts = 2000 + k * 100
    ev += [{"id": i, "name": "open" + BAD, "cat": "POSIX" + BAD, "pid": 7, "tid": 7, "ph": "X",
            "ts": ts, "dur": 10, "args": {"hhash": HH, "fhash": FH, "ret": 3, "level": 1,
                                          "p_idx": -1}},
           {"id": i + 1, "name": "write", "cat": "POSIX", "pid": 7, "tid": 7, "ph": "X",
            "ts": ts + 20, "dur": 30, "args": {"hhash": HH, "fhash": FH, "size": 100,
                                               "ret": 100, "level": 1, "p_idx": -1}}]
    i += 2
ev.append({"id": i, "name": "end", "cat": "dftracer", "pid": 7, "tid": 7, "ph": "X",
           "ts": 9000, "dur": 0, "args": {"hhash": HH, "dropped": 0, "lost" + BAD: 2}})
lines = [json.dumps(e).encode() for e in ev]
# A lone 0x9b byte (CSI to an 8-bit terminal) in a function's name.
lines.append(json.dumps({"id": i + 1, "name": "readXX", "cat": "POSIX", "pid": 7, "tid": 7,
                         "ph": "X", "ts": 3000, "dur": 5,
                         "args": {"hhash": HH, "fhash": FH, "size": 1, "ret": 1, "level": 1,
                                  "p_idx": -1}}).encode().replace(b"XX", b"\x9b\\u001b"))

with tempfile.TemporaryDirectory() as tmp:
    trace = os.path.join(tmp, "t.pfw")
    with open(trace, "wb") as f:
        f.write(b"".join(l + b"\n" for l in lines))
    for opts in ([], ["--folded"], ["--darshan"], ["--summary"], ["--file", "/d/"]):
        r = run([REPORT] + opts + [trace], text=False)
        check(r.returncode == 0, "%s: exit %d %s" % (opts, r.returncode, r.stderr[-300:]))
        check(not controls(r.stdout), "%s: no terminal controls in the output: %s"
              % (opts or "text", controls(r.stdout)))
        check(not controls(r.stderr), "%s: none in the messages: %s"
              % (opts or "text", controls(r.stderr)))
    r = run([REPORT] + [trace], text=False)
    out = r.stdout.decode("utf-8", "replace")
    for what in ("POSIX\\x1b]0;owned\\x07", "lost\\x1b]0", "/d/f\\x1b]0;", "\\xc2\\x9b2J",
                 "read\\x9b\\x1b"):
        check(what in out, "the text shows %s escaped" % what)

    r = run([REPORT, "--json", trace])
    try:
        j = json.loads(r.stdout)
    except ValueError as e:
        j = {}
        check(False, "--json is valid JSON: %s" % e)
    if j:
        check(any(l["name"] == "POSIX" + BAD for l in j["layers"]),
              "--json keeps the layer's name as it is")
        check(j["files"][0]["name"] == "/d/f" + BAD, "--json keeps the file's name")
        check(j["lost"].get("lost" + BAD) == 2, "--json keeps the end record's key")
done()
