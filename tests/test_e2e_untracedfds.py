#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Descriptors made by calls no probe traces (a pipe, one received over a
socket) are named from /proc when the runtime meets them, some time after
the call: only if no close since the call can have freed the number. A
descriptor received, written, closed, and its number taken by the open
of another file, before the runtime reads /proc, is never named as that
other file; a pipe made on numbers seen closed before is named as the
pipe it is."""
import json
import os
import subprocess
import sys
import tempfile
import time

from dctest import RUNTIME, Trace, check, done, generate, need_bpf

need_bpf()

WORK = r"""
import json, os, socket, sys
d, rounds = sys.argv[1], int(sys.argv[2])
s1, s2 = socket.socketpair()
if os.fork() == 0:
    for i in range(rounds):
        fd = os.open(os.path.join(d, "sent-%d" % i), os.O_CREAT | os.O_WRONLY, 0o644)
        socket.send_fds(s2, [b"x"], [fd])
    os._exit(0)
os.wait()
others = []
for i in range(rounds):
    # a number this process never used: the others stay open
    _, fds, _, _ = socket.recv_fds(s1, 1, 1)
    os.write(fds[0], b"z" * 206)
    os.close(fds[0])
    others.append(os.open(os.path.join(d, "other-%d" % i), os.O_CREAT | os.O_WRONLY, 0o644))
    assert others[-1] == fds[0]
# after every close above, none after these writes; on two numbers the
# runtime saw opened and closed
os.close(others[0])
os.close(others[1])
r, w = os.pipe()
assert w in others[:2]
print(json.dumps({"pipe": "pipe:[%d]" % os.fstat(w).st_ino}), flush=True)
for i in range(rounds):
    os.write(w, b"p" * 7)
    os.read(r, 7)
sys.stdin.read(1)  # alive until the runtime has named the pipe's writes
"""


def pipe_writes(trace):
    """The 7-byte writes the runtime has written to @trace so far."""
    try:
        t = Trace(trace, complete=False)
    except (OSError, ValueError, EOFError):
        return []
    return [t.file(e) for e in t.select(cat="POSIX", name="write") if e["args"]["size"] == 7]


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/posix.yaml"])
    rounds = 20
    trace = os.path.join(tmp, "t.pfw.gz")
    p = subprocess.Popen([RUNTIME, "-o", trace, obj, "--", sys.executable, "-c", WORK, tmp,
                          str(rounds)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    truth = json.loads(p.stdout.readline())
    # The program waits while the runtime names its pipe writes from
    # /proc (they reach the trace once named); then it may end.
    for _ in range(600):
        if len(pipe_writes(trace)) == rounds:
            break
        time.sleep(0.1)
    out, err = p.communicate("x")
    check(p.returncode == 0, "the program ran: %s" % err[-300:])
    t = Trace(trace)
    check(not t.errors, "a valid trace: %s" % t.errors[:3])
    pipe = pipe_writes(trace)
    check(pipe == [truth["pipe"]] * rounds,
          "the pipe's %d writes named %s: %s" % (rounds, truth["pipe"], sorted(set(map(str, pipe)))))
    writes = [(e["args"]["size"], t.file(e)) for e in t.select(cat="POSIX", name="write")]
    got = [f for n, f in writes if n == 206]
    check(len(got) == rounds, "%d writes of 206 bytes: %d" % (rounds, len(got)))
    wrong = [f for f in got if f and "/other-" in f]
    check(not wrong, "no write on a received descriptor named as the file opened on its number "
          "after it was closed: %s" % wrong[:5])
    check(all(f is None or os.path.basename(f).startswith("sent-") for f in got),
          "each is named as the file it went to, or not at all: %s" % sorted(set(map(str, got)))[:5])
    closes = sorted(t.file(e) for e in t.select(cat="POSIX", name="close")
                    if t.file(e) and "/other-" in t.file(e))
    check(closes == [os.path.join(tmp, "other-%d" % i) for i in (0, 1)],
          "only the two other files closed are named by a close: %s" % closes[:5])
done()
