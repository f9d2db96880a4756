#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report on what is not a whole trace: an empty file is an
error, and a trace whose gzip members are mostly corrupt is reported as
damaged (how many members, how many bytes), in text and JSON, never as a
trace that lost nothing; the damage errors are capped, not one per
member."""
import gzip
import json
import os
import tempfile

from dctest import REPORT, check, done, run

HH = '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"n","value":"00000000000000aa"}}'


def event(i):
    return ('{"id":%d,"name":"write","cat":"POSIX","pid":7,"tid":7,"ts":%d,"dur":3,"ph":"X",'
            '"args":{"hhash":"00000000000000aa","ret":10,"size":10,"level":1,"p_idx":-1}}'
            % (i + 2, 1000 + i * 10))


with tempfile.TemporaryDirectory() as tmp:
    empty = os.path.join(tmp, "empty.pfw.gz")
    open(empty, "w").close()
    r = run([REPORT, empty])
    check(r.returncode == 1 and "empty" in r.stderr and empty in r.stderr,
          "an empty file is an error naming it: %d %s" % (r.returncode, r.stderr))

    # 25 members of 40 events each; all but the first corrupted, then
    # every other one.
    members = [gzip.compress(("[\n" + HH + "\n").encode())]
    for m in range(25):
        lines = "".join(event(m * 40 + k) + "\n" for k in range(40))
        members.append(gzip.compress(lines.encode()))

    def spoil(m):
        b = bytearray(m)
        for k in range(12, len(b) - 8, 7):
            b[k] ^= 0x5a
        return bytes(b)

    bad = os.path.join(tmp, "bad.pfw.gz")
    with open(bad, "wb") as f:
        f.write(b"".join(members[:2] + [spoil(m) for m in members[2:]]))
    r = run([REPORT, bad])
    check(r.returncode == 1, "damage is exit status 1: %d" % r.returncode)
    check("Damaged: 24 gzip members" in r.stdout, "the text says what is damaged:\n" + r.stdout[-600:])
    check("Events lost: 0 (" not in r.stdout, "never 'Events lost: 0' as if complete")
    r = run([REPORT, "--json", bad])
    j = json.loads(r.stdout)
    check(j.get("damaged", {}).get("members") == 24 and j["damaged"]["bytes_skipped"] > 0,
          "JSON damaged: %s" % j.get("damaged"))
    check(j["calls"] == 40, "the readable member's 40 calls are counted: %d" % j["calls"])

    # Twelve damaged places: ten named, the rest counted.
    holes = os.path.join(tmp, "holes.pfw.gz")
    with open(holes, "wb") as f:
        f.write(b"".join(m if i % 2 == 0 or i < 2 else spoil(m) for i, m in enumerate(members)))
    r = run([REPORT, holes])
    errs = [l for l in r.stderr.splitlines() if "corrupt gzip member" in l]
    check(len(errs) == 10 and "2 more damaged places" in r.stderr,
          "damage errors capped: %d named\n%s" % (len(errs), r.stderr[-400:]))
done()
