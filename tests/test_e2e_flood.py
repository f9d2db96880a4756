#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A flood of events does not take the runtime's loop away from its
other work. Four processes write one byte at a time flat out while the
runtime runs at nice 10, so the ring buffer fills faster than it is read
(events are lost, and counted). Even so a server answers --status within
seconds, each time with a larger count, and stops on SIGTERM; a traced
command's --duration ends on time; both traces are complete and their
end records count what was lost."""
import json
import os
import re
import signal
import subprocess
import tempfile
import time

from dctest import BUILD, RUNTIME, check, done, generate, gzip_members, need_bpf, run, slack, wait_ready

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
FLOOD = "dd if=/dev/zero of=/dev/null bs=1 count=1000000000 2>/dev/null"
PRODUCERS = 4
# A call's start: any category but the trace's own records.
TS = re.compile(rb'"cat":"(?!dftracer")[^"]*","pid":\d+,"tid":\d+,"ts":(\d+)')


def status(sock):
    """--status's counts (events, lost), and how long it took to answer."""
    t0 = time.monotonic()
    try:
        r = run([RUNTIME, "--socket", sock, "--status"], timeout=30)
    except subprocess.TimeoutExpired:
        return None, None, time.monotonic() - t0
    took = time.monotonic() - t0
    words = r.stdout.replace(";", "").split()
    try:
        return int(words[words.index("events,") - 1]), int(words[words.index("lost") - 1]), took
    except (ValueError, IndexError):
        check(False, "--status: " + r.stdout + r.stderr)
        return None, None, took


def ends(path):
    """A trace's start and end records (None where the trace is not
    whole), and the latest time a call began: the flood's millions of
    calls are scanned for that alone."""
    with open(path, "rb") as f:
        members, truncated = gzip_members(f.read())
    rec, last = {}, 0
    for text in members:
        for line in text.split(b"\n"):
            line = line.strip().rstrip(b",")
            if line.startswith(b"{") and b'"cat":"dftracer"' in line:
                e = json.loads(line)
                rec[e["name"]] = e
        last = max([last] + [int(t) for t in TS.findall(text)])
    if truncated:
        return None, None, last
    return rec.get("start"), rec.get("end"), last


def ringbuf_full(end):
    return (end or {}).get("args", {}).get("ringbuf_full", 0)


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])

    # A server: the floods join it through the client library.
    sock, ready = os.path.join(tmp, "dc.sock"), os.path.join(tmp, "ready")
    trace = os.path.join(tmp, "server.pfw.gz")
    srv = subprocess.Popen(["nice", "-n", "10", RUNTIME, "--server", "--socket", sock,
                            "--ready-file", ready, "-o", trace, obj],
                           stderr=subprocess.PIPE, text=True)
    wait_ready(ready, srv)
    check(os.path.exists(ready), "the server is ready")
    joined = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock)
    floods = [subprocess.Popen(["sh", "-c", "exec " + FLOOD], env=joined)
              for _ in range(PRODUCERS)]
    time.sleep(2)
    counts = []
    for i in range(3):
        events, lost, took = status(sock)
        check(events is not None and took < slack(5),
              "--status %d under a flood answered in %.1f s (at most %g)" % (i, took, slack(5)))
        counts.append((events or 0) + (lost or 0))
    check(counts[0] < counts[1] < counts[2], "the counts grow between answers: %s" % counts)
    t0 = time.monotonic()
    srv.send_signal(signal.SIGTERM)
    try:
        err = srv.communicate(timeout=slack(30))[1]
    except subprocess.TimeoutExpired:
        srv.kill()
        err = srv.communicate()[1]
    took = time.monotonic() - t0
    for p in floods:
        p.kill()
        p.wait()
    check(srv.returncode == 0 and took < slack(10),
          "SIGTERM under a flood: exit %s after %.1f s (at most %g): %s"
          % (srv.returncode, took, slack(10), err[-300:]))
    start, end, _ = ends(trace)
    check(start and end, "the server's trace is whole")
    check(ringbuf_full(end) > 0 and "(ringbuf_full)" in err,
          "the flood's losses are counted (%d) and said: %s" % (ringbuf_full(end), err[-300:]))

    # A traced command that floods for 8 s, at nice 0 again: --duration 2
    # ends tracing after 2 s (the runtime then waits for its status).
    out = os.path.join(tmp, "cmd.pfw.gz")
    cmd = "".join("%s & p%d=$!; " % (FLOOD, i) for i in range(PRODUCERS))
    cmd += "sleep 8; kill " + " ".join("$p%d" % i for i in range(PRODUCERS))
    log = open(os.path.join(tmp, "cmd.log"), "w+")
    t0 = time.monotonic()
    # Its output goes to a file: the floods go on holding it.
    # A small ring buffer: it overflows however fast this machine lets
    # the runtime read, with floods at nice -10 beside it.
    rt = subprocess.Popen(["nice", "-n", "10", RUNTIME, "--duration", "2", "--ringbuf-size", "64K",
                           "-o", out, obj, "--",
                           "nice", "-n", "-10", "sh", "-c", cmd], stdout=log, stderr=log)
    try:
        rt.wait(timeout=60)
    except subprocess.TimeoutExpired:
        rt.kill()
        rt.wait()
    log.seek(0)
    check(rt.returncode == 0, "the traced command: exit %s: %s" % (rt.returncode, log.read()[-300:]))
    start, end, last = ends(out)
    check(start and end, "the command's trace is whole")
    # What was in the ring buffer is still written after the 2 s (slowly,
    # at nice 10); no call begun much later is.
    traced = (last - (start or {}).get("ts", 0)) / 1e6
    check(traced < 2 + 1, "--duration 2 under a flood: the last call traced began after %.1f s"
          % traced)
    check(ringbuf_full(end) > 0, "the command's trace counts its losses: %d" % ringbuf_full(end))
done()
