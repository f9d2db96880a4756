#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The HTML page's bandwidth plot spreads a call's bytes over its
duration: a 10 s read of 1 MB is 0.1 MB/s all along, not a spike in the
bin where it started."""
import gzip
import os
import re
import tempfile

from dctest import REPORT, check, done, run

HH = '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"n","value":"00000000000000aa"}}'


def call(i, name, ts, dur, size):
    return ('{"id":%d,"name":"%s","cat":"POSIX","pid":7,"tid":%d,"ts":%d,"dur":%d,"ph":"X",'
            '"args":{"hhash":"00000000000000aa","ret":%d,"size":%d,"level":1,"p_idx":-1}}'
            % (i, name, i, ts, dur, size, size))


with tempfile.TemporaryDirectory() as tmp:
    t0 = 1_700_000_000_000_000
    lines = ["[", HH, call(2, "read", t0 + 5_000_000, 10_000_000, 1_000_000),
             call(3, "fsync", t0, 20_000_000, 0), "]"]
    trace = os.path.join(tmp, "t.pfw.gz")
    with open(trace, "wb") as f:
        f.write(gzip.compress(("\n".join(lines) + "\n").encode()))
    page = os.path.join(tmp, "r.html")
    r = run([REPORT, "-q", "--html", page, trace])
    check(r.returncode == 0, "report: " + r.stderr)
    html = open(page).read()
    plot = html[html.index("bandwidth over time"):]
    top = float(re.search(r'text-anchor="end">([0-9.e+-]+)</text>', plot).group(1))
    check(0.09 < top < 0.15, "the plot's peak is %.3g MB/s, want about 0.1" % top)
done()
