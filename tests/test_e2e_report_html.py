#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --html in a real headless Chromium: the page loads
with no console message, and each plot (bandwidth, transfer sizes,
timeline, flame graph), rendered on its own, draws in the layers' colours
on its white background. A control page with a console.error proves the
console check can fail."""
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import zlib

from dctest import REPORT, check, done, skip, slack

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    skip("needs Debian's chromium (scripts/setup installs it)")

# report/folded.c's palette: the first layers' colours.
COLORS = {"#e45756": (0xe4, 0x57, 0x56), "#4c78a8": (0x4c, 0x78, 0xa8),
          "#f58518": (0xf5, 0x85, 0x18), "#54a24b": (0x54, 0xa2, 0x4b)}


def png_pixels(path):
    """Decode an 8-bit RGB/RGBA PNG with zlib alone: (width, height, rows)."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and ctype in (2, 6), "PNG type %d/%d" % (depth, ctype)
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    rows, prev = [], bytearray(stride)
    for y in range(h):
        ft = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                line[i] = (line[i] + a) & 255
            elif ft == 2:
                line[i] = (line[i] + b) & 255
            elif ft == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def shoot(html, png, size="1300,900"):
    """Render a page; returns Chromium's console lines and load errors.
    A loaded machine sometimes makes headless Chromium exit before its
    screenshot: try again, up to three times."""
    for _ in range(3):
        if os.path.exists(png):
            os.unlink(png)
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--hide-scrollbars", "--enable-logging=stderr", "--v=0",
                            "--window-size=" + size, "--screenshot=" + png, "file://" + html],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=slack(120))
        if os.path.exists(png):
            break
    check(os.path.exists(png), "chromium wrote %s: %s" % (png, r.stderr[-300:]))
    return [l for l in r.stderr.splitlines() if "CONSOLE" in l or "Page load failed" in l]


def color_counts(png):
    if not os.path.exists(png):
        return {k: 0 for k in COLORS}, 0
    _, _, rows = png_pixels(png)
    counts = {k: 0 for k in COLORS}
    other = 0
    for row in rows:
        for px in row:
            for k, c in COLORS.items():
                if all(abs(px[i] - c[i]) <= 8 for i in range(3)):
                    counts[k] += 1
                    break
            else:
                if px != (255, 255, 255):
                    other += 1
    return counts, other


def call(i, cat, name, ts, dur, pid, p_idx=-1, **a):
    args = {"hhash": "08cf3707b570dbec"}
    args.update(a)
    args.update({"level": 1 if p_idx < 0 else 2, "p_idx": p_idx})
    return {"id": i, "name": name, "cat": cat, "pid": pid, "tid": pid, "ts": ts, "dur": dur,
            "ph": "X", "args": args}


with tempfile.TemporaryDirectory() as tmp:
    # Control: the console check sees a console.error.
    ctl = os.path.join(tmp, "ctl.html")
    with open(ctl, "w") as f:
        f.write("<html><body><script>console.error('boom')</script></body></html>")
    check(any("boom" in l for l in shoot(ctl, os.path.join(tmp, "ctl.png"), "300,200")),
          "a console.error is detected")

    # Four ranks writing through HDF5 -> POSIX -> sys with block requests.
    ev = [{"id": 1, "name": "HH", "cat": "dftracer", "pid": 1, "tid": 1, "ph": "M",
           "args": {"name": "node1", "value": "08cf3707b570dbec"}},
          {"id": 2, "name": "FH", "cat": "dftracer", "pid": 1, "tid": 1, "ph": "M",
           "args": {"hhash": "08cf3707b570dbec", "name": "/p/out.h5", "value": "00000000000000aa"}}]
    i, t0 = 3, 1700000000000000
    for rank in range(4):
        pid = 100 + rank
        ev.append({"id": i, "name": "PR", "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
                   "args": {"hhash": "08cf3707b570dbec", "name": "rank", "value": str(rank)}})
        i += 1
        for k in range(50):
            ts = t0 + k * 2000 + rank * 300
            size = 4096 << (k % 6)
            ev.append(call(i, "HDF5", "H5Dwrite", ts, 900, pid, fhash="00000000000000aa"))
            ev.append(call(i + 1, "POSIX", "pwrite64", ts + 100, 600, pid, i,
                           fhash="00000000000000aa", size=size, ret=size))
            ev.append(call(i + 2, "sys", "pwrite64", ts + 150, 500, pid, i + 1,
                           fhash="00000000000000aa", size=size, ret=size))
            ev.append(call(i + 3, "kernel", "block_rq", ts + 200, 300, pid, i + 2, size=size))
            i += 4
    trace = os.path.join(tmp, "app.pfw.gz")
    with open(trace, "wb") as f:
        f.write(gzip.compress(("[\n" + "".join(json.dumps(e) + "\n" for e in ev)).encode()))
    page = os.path.join(tmp, "report.html")
    r = subprocess.run([REPORT, "-q", "--html", page, trace], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    check(r.returncode == 0, "report --html: %s" % r.stderr)
    with open(page) as f:
        html = f.read()
    check("http://" not in html.replace("http://www.w3.org/2000/svg", "")
          and "https://" not in html and "<script" not in html, "self-contained: nothing fetched")
    check("{{" not in html, "every slot filled")

    # The top of the page: tables, bandwidth, sizes and timeline.
    console = shoot(page, os.path.join(tmp, "page.png"), "1300,1500")
    check(not console, "no console messages: %s" % console[:3])
    counts, other = color_counts(os.path.join(tmp, "page.png"))
    check(all(n > 200 for n in counts.values()), "page shows every layer's colour: %s" % counts)

    # Each plot alone must draw in its layers' colours (in order of first
    # appearance: HDF5, POSIX, sys, kernel; HDF5 moves no bytes itself).
    for div, want in (("bandwidth", ["#4c78a8", "#f58518", "#54a24b"]),
                      ("sizes", ["#4c78a8", "#f58518", "#54a24b"]),
                      ("timeline", ["#4c78a8"]),
                      ("flame", ["#e45756", "#4c78a8", "#f58518", "#54a24b"])):
        m = re.search(r'<div id="%s">(.*?)</div>' % div, html, re.S)
        check(m and "<svg" in m.group(1), "%s plot present" % div)
        if not m:
            continue
        one = os.path.join(tmp, div + ".html")
        with open(one, "w") as f:
            f.write("<!DOCTYPE html><html><body style='margin:0;background:#fff'>%s</body></html>"
                    % m.group(1))
        png = os.path.join(tmp, div + ".png")
        check(not shoot(one, png, "1250,700"), "%s: no console messages" % div)
        counts, other = color_counts(png)
        check(all(counts[c] > 30 for c in want) and other > 100,
              "%s plot drawn: colours %s, other ink %d" % (div, counts, other))
done()
