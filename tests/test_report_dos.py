#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report on traces made to exhaust it: a ts of -2^63 (which
made the time bins loop forever), times at the edge of the range, and a
4 MB gzip holding one 4 GiB line. Each hostile line is a damaged line,
counted and named; the rest is reported; the report finishes in bounded
time and memory (a resource limit makes a regression fail fast instead
of eating the machine)."""
import gzip
import json
import os
import resource
import struct
import subprocess
import tempfile
import zlib

from dctest import REPORT, check, done

HH = '{"id":1,"name":"HH","cat":"dftracer","pid":1,"tid":1,"ph":"M","args":{"name":"n","value":"00000000000000aa"}}'


def event(i, ts, dur=3):
    return ('{"id":%d,"name":"write","cat":"POSIX","pid":7,"tid":7,"ts":%s,"dur":%s,"ph":"X",'
            '"args":{"hhash":"00000000000000aa","size":10,"ret":10,"level":1,"p_idx":-1}}'
            % (i, ts, dur))


# ASan reserves terabytes of shadow address space: under it no address
# space limit can be set, and redzones make memory slopes meaningless;
# the plain build measures memory, this one checks the rest.
SANITIZED = b"__asan_init" in open(REPORT, "rb").read()


def limited(mem):
    def f():
        resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    return None if SANITIZED else f


def report(args, mem=1 << 30, timeout=60):
    """Run the report with at most @mem bytes of address space and
    @timeout seconds; None if it ran out of time."""
    try:
        return subprocess.run([REPORT, "-q", "-t", "2"] + args, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=timeout,
                              preexec_fn=limited(mem))
    except subprocess.TimeoutExpired:
        return None


def gzip_line(path, head, tail, fill, n):
    """A gzip file of @head, @n MiB of @fill and @tail, written piece by
    piece: the same deflate blocks after a full flush, never held whole."""
    chunk = fill * (1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head)
    for _ in range(n):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(tail, crc)
    with open(path, "wb") as f:
        f.write(b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03")
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        f.write(c.compress(head) + c.flush(zlib.Z_FULL_FLUSH))
        for _ in range(n):
            f.write(piece)
        c = zlib.compressobj(9, zlib.DEFLATED, -15)
        f.write(c.compress(tail) + c.flush())
        f.write(struct.pack("<II", crc, (len(head) + n * len(chunk) + len(tail)) & 0xffffffff))


with tempfile.TemporaryDirectory() as tmp:
    # ts -2^63 (and other times out of 0..2^62) in every mode: damaged
    # lines, each named; the good calls are reported.
    bad = os.path.join(tmp, "ts.pfw")
    with open(bad, "w") as f:
        f.write("\n".join([HH, event(2, 1000), event(3, "-9223372036854775808"),
                           event(4, 2000, -5), event(5, 4611686018427387904),
                           event(6, 3000, 9223372036854775807), event(7, 4000)]) + "\n")
    html, svg = os.path.join(tmp, "r.html"), os.path.join(tmp, "f.svg")
    for opts in ([], ["--json"], ["--folded"], ["--darshan"], ["-S"], ["--html", html],
                 ["-g", svg]):
        r = report(opts + [bad], timeout=10)
        check(r is not None, "%s: finishes with a ts of -2^63" % opts)
        if r is None:
            continue
        check(r.returncode == 1, "%s: exit status 1 (damaged): %d" % (opts, r.returncode))
        for line in (3, 4, 5, 6):
            check("line %d: ts or dur outside 0..2^62" % line in r.stderr,
                  "%s: line %d named: %s" % (opts, line, r.stderr[-300:]))
        if opts == ["--json"]:
            j = json.loads(r.stdout)
            check(j["calls"] == 2 and j["bad_lines"] == 4,
                  "the two good calls counted, four bad lines: %d %d"
                  % (j["calls"], j["bad_lines"]))

    # Times at the ends of the range: valid, and the bins' arithmetic
    # holds (the sanitizers' builds check it).
    edge = os.path.join(tmp, "edge.pfw")
    with open(edge, "w") as f:
        f.write("\n".join([HH, event(2, 4611686018427387903, 4611686018427387903),
                           event(3, 0, 0), event(4, 1, 4611686018427387903)]) + "\n")
    for opts in ([], ["--html", html]):
        r = report(opts + [edge], timeout=10)
        check(r is not None and r.returncode == 0,
              "%s: times at 0 and 2^62-1 are reported: %s" % (opts, r and r.stderr[-300:]))

    # One 4 GiB line in a 4 MB gzip, between two good events: a damaged
    # line; memory stays far below the line's size.
    big = os.path.join(tmp, "big.pfw.gz")
    gzip_line(big, (HH + "\n" + event(2, 1000) + '\n{"id":3,"name":"').encode(),
              ('","cat":"POSIX","ph":"X","ts":5}\n' + event(4, 2000) + "\n").encode(),
              b"A", 4096)
    check(os.path.getsize(big) < 8 << 20, "the 4 GiB line is a small file")
    r = report(["--json", big], timeout=240)
    # The largest child's: the runs before were small.
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    check(r is not None, "a 4 GiB line is read in bounded time")
    if r is not None:
        check(r.returncode == 1 and "line 3: line longer than 1 MiB" in r.stderr,
              "the long line is named as damaged: %d %s" % (r.returncode, r.stderr[-300:]))
        j = json.loads(r.stdout) if r.stdout else {"calls": 0, "bad_lines": 0}
        check(j["calls"] == 2 and j["bad_lines"] == 1,
              "the good calls around it counted: %d calls, %d bad lines"
              % (j["calls"], j["bad_lines"]))
        check(rss < 256 << 10,
              "memory stays bounded: %d MiB at most" % (rss >> 10))

    # Distinct files: memory grows by a few hundred bytes each (800
    # before: 2.3 GB for 2 million), measured as the slope between
    # 100,000 and 300,000 files, each with its FH record and one call,
    # in gzip members of 4,000 lines as the runtime writes them.
    def files_trace(path, n):
        lines = [HH]
        with open(path, "wb") as f:
            for i in range(n):
                fh = "%016x" % (i + 0x100)
                lines.append('{"id":%d,"name":"FH","cat":"dftracer","pid":1,"tid":1,"ph":"M",'
                             '"args":{"name":"/data/run/file-%09d","value":"%s"}}'
                             % (2 * i + 2, i, fh))
                lines.append(event(2 * i + 3, 1000 + i).replace(
                    '"size"', '"fhash":"%s","size"' % fh))
                if len(lines) >= 4000 or i == n - 1:
                    f.write(gzip.compress(("\n".join(lines) + "\n").encode(), 1))
                    lines = []

    def peak(path):
        p = subprocess.Popen([REPORT, "-q", "-t", "2", path], stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, preexec_fn=limited(2 << 30))
        _, status, ru = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        check(p.returncode == 0, "%s reported: %d" % (path, p.returncode))
        return ru.ru_maxrss * 1024

    sizes = {}
    for n in (100000, 300000):
        path = os.path.join(tmp, "files%d.pfw.gz" % n)
        files_trace(path, n)
        sizes[n] = peak(path)
        os.unlink(path)
    per_file = (sizes[300000] - sizes[100000]) / 200000
    check(SANITIZED or per_file < 500, "memory per distinct file: %.0f bytes" % per_file)
done()
