#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What the server's callers see of each other, and what they can put in
its log. dc-alice and dc-bob, real unprivileged users, each have a
process traced: each one's --status lists their own pid and neither the
other's nor the server's trace; root's lists both and the trace. A
request full of terminal controls (ESC, BEL, DEL, C1 in UTF-8 and as a
raw byte) reaches the server's log escaped, never as those bytes."""
import os
import signal
import subprocess
import tempfile
import time

from dctest import RUNTIME, check, done, generate, hostile_user, need_bpf, wait_ready

need_bpf()
PY = "/usr/bin/python3"  # alice's: not root's pyenv build
SEND = r"""
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
s.sendall(bytes.fromhex(sys.argv[2]))
s.shutdown(socket.SHUT_WR)
print(s.recv(8192))
"""

alice, bob = hostile_user("dc-alice"), hostile_user("dc-bob")
with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o711)  # the users reach the socket and the script
    obj = generate(tmp, ["probes.d/sys.yaml"])
    sock, ready = os.path.join(tmp, "dc.sock"), os.path.join(tmp, "ready")
    trace = os.path.join(tmp, "server.pfw.gz")
    srv = subprocess.Popen([RUNTIME, "--server", "--socket", sock, "--ready-file", ready,
                            "-o", trace, obj], stderr=subprocess.PIPE)
    wait_ready(ready, srv)
    check(os.path.exists(ready), "the server is ready")

    procs = {}
    for u in (alice, bob):
        procs[u.name] = u.start(["sleep", "60"])
        r = u.run([RUNTIME, "--socket", sock, "--track", str(procs[u.name].pid)])
        check(r.returncode == 0, "%s tracks her own process: %s" % (u.name, r.stdout + r.stderr))
    a, b = str(procs["dc-alice"].pid), str(procs["dc-bob"].pid)

    for u, mine, theirs in ((alice, a, b), (bob, b, a)):
        r = u.run([RUNTIME, "--socket", sock, "--status"])
        words = r.stdout.replace(";", " ").split()
        check(r.returncode == 0 and "2 processes" in r.stdout and mine in words,
              "%s's --status counts both and lists her pid: %s" % (u.name, r.stdout))
        check(theirs not in words and trace not in r.stdout,
              "%s's --status shows neither the other's pid nor the server's trace: %s"
              % (u.name, r.stdout))
    r = subprocess.run([RUNTIME, "--socket", sock, "--status"], stdout=subprocess.PIPE, text=True)
    words = r.stdout.replace(";", " ").split()
    check(a in words and b in words and trace in r.stdout,
          "root's --status shows every pid and the trace: %s" % r.stdout)

    # Terminal controls in a request: a window title (ESC ] ... BEL), a
    # CSI as C1 in UTF-8 and as a raw byte, DEL.
    hostile = b"\x1b]0;owned\x07\xc2\x9b2J\x9b\x7f x\n"
    script = os.path.join(tmp, "send.py")
    with open(script, "w") as f:
        f.write(SEND)
    os.chmod(script, 0o644)
    r = alice.run([PY, script, sock, hostile.hex()])
    check("error" in r.stdout, "the hostile request is refused: %s" % (r.stdout + r.stderr))

    for p in procs.values():
        p.kill()
        p.wait()
    srv.send_signal(signal.SIGTERM)
    err = srv.communicate(timeout=60)[1]
    logged = [l for l in err.split(b"\n") if b"request from uid %d" % alice.uid in l]
    check(logged, "alice's requests are logged")
    bad = [c for c in (b"\x1b", b"\x07", b"\x7f", b"\xc2\x9b", b"\x9b") if c in err]
    check(not bad, "no terminal control reaches the log: %s in %r" % (bad, logged[-1:]))
    check(any(b"\\x1b]0;owned\\x07" in l for l in logged),
          "the request is logged, escaped: %r" % logged[-1:])
done()
