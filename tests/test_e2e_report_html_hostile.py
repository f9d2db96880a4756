#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""datacrumbs-report --html and -g on a hostile trace: every string a
trace carries (layer, function, file and host names, process names,
ranks, the command, cwd, mount points, end-record keys, HDF5 objects)
holds markup that would run a script. In headless Chromium no script
runs: no marker element in the DOM, the page keeps its title. The flame
graph SVG is well-formed XML even with controls and bytes that are not
UTF-8 in names. A control page with the same payload unescaped proves
the check can fail."""
import gzip
import json
import os
import re
import shutil
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from html.parser import HTMLParser

from dctest import REPORT, check, done, skip

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
if not CHROMIUM:
    skip("needs Debian's chromium (scripts/setup installs it)")


def payload(field):
    """Breaks out of an attribute, <title>, SVG <text> and <svg>; if it
    lands as markup, an <img> whose id marks the DOM and whose error
    handler sets the title."""
    return ("\"'></title></text></svg></script><img src=x id=pwned-%s "
            "onerror=document.title=this.id>" % field)


def dump_dom(path):
    """The DOM after the page's scripts ran; three tries (a loaded machine
    sometimes makes headless Chromium exit early)."""
    for _ in range(3):
        r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
                            "--virtual-time-budget=3000", "--dump-dom", "file://" + path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        if r.stdout.strip():
            return r.stdout
    check(False, "chromium dumped %s: %s" % (path, r.stderr[-300:]))
    return ""


class Dom(HTMLParser):
    """The elements' ids and the <title>'s text of a DOM dump."""

    def __init__(self, text):
        super().__init__()
        self.ids, self.title, self.in_title = [], "", False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        self.ids += [v for k, v in attrs if k == "id" and v]
        self.in_title = self.in_title or tag == "title"

    def handle_endtag(self, tag):
        self.in_title = self.in_title and tag != "title"

    def handle_data(self, data):
        if self.in_title:
            self.title += data


def injected(dom):
    """Marker elements: markup from the trace, not its text."""
    return sorted(set(i for i in Dom(dom).ids if i.startswith("pwned-")))


def title_of(dom):
    return Dom(dom).title


HH = "08cf3707b570dbec"
FH = "00000000000000aa"
P = payload


def meta(i, kind, pid, **args):
    return {"id": i, "name": kind, "cat": "dftracer", "pid": pid, "tid": pid, "ph": "M",
            "args": args}


def call(i, cat, name, ts, dur, pid, p_idx=-1, **a):
    args = {"hhash": HH, "level": 1 if p_idx < 0 else 2, "p_idx": p_idx}
    args.update(a)
    return {"id": i, "name": name, "cat": cat, "pid": pid, "tid": pid, "ts": ts, "dur": dur,
            "ph": "X", "args": args}


t0 = 1700000000000000
ev = [meta(1, "HH", 1, name=P("host"), value=HH),
      meta(2, "FH", 1, hhash=HH, name="/p/" + P("file"), value=FH),
      meta(3, "process_name", 100, hhash=HH, name=P("proc")),
      meta(4, "PR", 100, hhash=HH, name="rank", value=P("rank")),
      meta(5, "process_name", 101, hhash=HH, name=P("proc")),
      {"id": 6, "name": "start", "cat": "dftracer", "pid": 100, "tid": 100, "ph": "X",
       "ts": t0, "dur": 0,
       "args": {"hhash": HH, "cmd": P("cmd"), "cwd": P("cwd"),
                "mounts": {"/p" + P("mnt"): {"type": P("fstype"), "bsize": 4096}}}}]
i = 7
for k in range(20):
    ts = t0 + 10 + k * 1000
    for pid in (100, 101):
        ev.append(call(i, P("cat"), "H5Dwrite" + P("func"), ts, 900, pid, fhash=FH,
                       object="/g/" + P("object"), size=4096))
        ev.append(call(i + 1, "POSIX", "pwrite64", ts + 100, 600, pid, i, fhash=FH,
                       size=4096, ret=4096, offset=k * 4096))
        ev.append(call(i + 2, "sys\u0001", "pwrite64", ts + 150, 500, pid, i + 1, fhash=FH,
                       size=4096, ret=4096))
        i += 3
ev.append({"id": i, "name": "end", "cat": "dftracer", "pid": 100, "tid": 100, "ph": "X",
           "ts": t0 + 30000, "dur": 0,
           "args": {"hhash": HH, "dropped": 0, P("endkey"): 3}})
lines = [json.dumps(e).encode() for e in ev]
# A function name with a byte that is not UTF-8.
lines.append(json.dumps(call(i + 1, "POSIX", "fsyncXX", t0 + 29000, 700, 100, fhash=FH))
             .encode().replace(b"XX", b"\xff\xfe"))

with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    # Control: the payload unescaped in a cell and an SVG <title> runs.
    ctl = os.path.join(tmp, "ctl.html")
    with open(ctl, "w") as f:
        f.write("<!DOCTYPE html><html><head><title>ok</title></head><body><table><tr>"
                "<td>%s</td></tr></table><svg><rect><title>%s</title></rect></svg></body></html>"
                % (P("ctl"), P("ctl2")))
    dom = dump_dom(ctl)
    check(injected(dom) == ["pwned-ctl", "pwned-ctl2"] and title_of(dom).startswith("pwned-"),
          "control: the check sees an injected script (%s, title %r)"
          % (injected(dom), title_of(dom)))

    trace = os.path.join(tmp, "app.pfw.gz")
    with open(trace, "wb") as f:
        f.write(gzip.compress(b"[\n" + b"".join(l + b"\n" for l in lines)))
    page = os.path.join(tmp, "report.html")
    flame = os.path.join(tmp, "flame.svg")
    r = subprocess.run([REPORT, "-q", "-S", "--html", page, "-g", flame, trace],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    check(r.returncode == 0, "report --html -g: %d %s" % (r.returncode, r.stderr[-300:]))
    with open(page, "rb") as f:
        raw = f.read()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "the page is UTF-8 whatever the trace held: %s" % e)
    html = raw.decode("utf-8", "replace")
    # Every string the page shows is in it, as text.
    for field in ("cat", "func", "file", "rank", "cmd", "endkey"):
        check("id=pwned-%s " % field in html.replace("&lt;", "<"),
              "the page shows the %s, escaped" % field)
    check("<script" not in html, "no <script> element")
    dom = dump_dom(page)
    check(not injected(dom), "no markup from the trace in the page's DOM: %s" % injected(dom))
    check(title_of(dom).startswith("DataCrumbs I/O report: "),
          "the page keeps its title: %r" % title_of(dom)[:80])

    # The flame graph alone: XML (any name), and no script runs in it.
    try:
        ET.parse(flame)
        wellformed = True
    except ET.ParseError as e:
        wellformed = False
        check(False, "the flame graph is well-formed XML: %s" % e)
    if wellformed:
        with open(flame, encoding="utf-8") as f:
            svg = f.read()
        check("pwned-func" in svg and "\ufffd" in svg,
              "the flame graph names the functions (bad bytes as U+FFFD)")
        dom = dump_dom(flame)
        check("pwned-func" in dom and not injected(dom),
              "no markup from the trace in the flame graph's DOM: %s" % injected(dom))
done()
