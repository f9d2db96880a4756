#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`python3 -m datacrumbs summary` on a trace big enough for worker
processes (>= 8 MiB) opens no listening socket: while it runs, neither
it nor any of its descendants holds a TCP or TCP6 socket in LISTEN, and
a real unprivileged user (dc-alice), who finds listening ports the way
an attacker does (/proc/net/tcp), cannot connect to one of it. The
summary still equals datacrumbs-report's."""
import json
import os
import subprocess
import tempfile
import time

from dcpy import PY, env, need_pandas, report
from dctest import check, done, hostile_user, skip

if os.geteuid() != 0:
    skip("needs root: the summary runs as root and a real unprivileged user attacks it")
need_pandas()
alice = hostile_user("dc-alice")

HH = "08cf3707b570dbec"
T0 = 1700000000000000


def big_trace(path, size):
    """A plain-text trace of at least @size bytes: POSIX writes with
    syscalls nested under them, over many files."""
    with open(path, "w") as f:
        f.write("[\n")
        f.write('{"id":1,"name":"HH","cat":"dftracer","pid":10,"tid":10,"ph":"M",'
                '"args":{"name":"node1","value":"%s"}}\n' % HH)
        for k in range(64):
            f.write('{"id":%d,"name":"FH","cat":"dftracer","pid":10,"tid":10,"ph":"M",'
                    '"args":{"hhash":"%s","name":"/data/f%d","value":"%016x"}}\n'
                    % (2 + k, HH, k, 0x1000 + k))
        i = 100
        while f.tell() < size:
            fh = "%016x" % (0x1000 + i % 64)
            f.write('{"id":%d,"name":"write","cat":"POSIX","pid":10,"tid":%d,"ts":%d,"dur":%d,'
                    '"ph":"X","args":{"hhash":"%s","fhash":"%s","size":4096,"ret":4096,'
                    '"level":1,"p_idx":-1}}\n' % (i, 10 + i % 4, T0 + 10 * i, 3 + i % 97, HH, fh))
            f.write('{"id":%d,"name":"write","cat":"sys","pid":10,"tid":%d,"ts":%d,"dur":%d,'
                    '"ph":"X","args":{"hhash":"%s","fhash":"%s","size":4096,"ret":4096,'
                    '"level":2,"p_idx":%d}}\n' % (i + 1, 10 + i % 4, T0 + 10 * i + 1,
                                                  2 + i % 89, HH, fh, i))
            i += 2
        f.write("]\n")


def tree(root):
    """@root and its descendants, by the ppid of every process."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        ppid = int(st[st.rfind(")") + 2:].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += kids.get(p, [])
    return out


def sockets(pids):
    """The socket inodes the processes @pids hold open."""
    out = set()
    for p in pids:
        try:
            fds = os.listdir("/proc/%d/fd" % p)
        except OSError:
            continue
        for fd in fds:
            try:
                link = os.readlink("/proc/%d/fd/%s" % (p, fd))
            except OSError:
                continue
            if link.startswith("socket:["):
                out.add(int(link[8:-1]))
    return out


def listening():
    """{inode: "addr:port"} of every TCP and TCP6 socket in LISTEN (0A)."""
    out = {}
    for name in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(name) as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            c = row.split()
            if c[3] == "0A":
                out[int(c[9])] = c[1]
    return out


# What alice runs: the listening ports /proc/net/tcp shows on the
# loopback (or any address), less those listening before the summary,
# each tried with connect(); prints the ones that accepted.
ATTACK = r"""
import socket, sys
before = set(sys.argv[1:])
got = []
for name, fam, host in (("/proc/net/tcp", socket.AF_INET, "127.0.0.1"),
                        ("/proc/net/tcp6", socket.AF_INET6, "::1")):
    try:
        rows = open(name).read().splitlines()[1:]
    except OSError:
        continue
    for row in rows:
        c = row.split()
        if c[3] != "0A" or c[1] in before:
            continue
        port = int(c[1].split(":")[1], 16)
        s = socket.socket(fam)
        s.settimeout(1)
        try:
            s.connect((host, port))
            got.append("%s:%d" % (host, port))
        except OSError:
            pass
        s.close()
print(" ".join(got))
"""

with tempfile.TemporaryDirectory() as tmp:
    os.chmod(tmp, 0o755)
    trace = os.path.join(tmp, "big.pfw")
    big_trace(trace, 9 << 20)
    check(os.path.getsize(trace) >= 8 << 20, "the trace is over 8 MiB")
    before = listening()
    out = os.path.join(tmp, "summary.json")
    with open(out, "w") as o, open(os.path.join(tmp, "summary.err"), "w") as e:
        p = subprocess.Popen([PY, "-m", "datacrumbs", "summary", "--json", trace],
                             stdout=o, stderr=e, env=env())
    listeners, reached, most = {}, set(), 1
    deadline = time.time() + 600
    while p.poll() is None and time.time() < deadline:
        pids = tree(p.pid)
        most = max(most, len(pids))
        held = sockets(pids)
        now = listening()
        for ino, addr in now.items():
            if ino in held:
                listeners[ino] = addr
        if any(ino not in before for ino in now):
            r = alice.run([PY, "-c", ATTACK] + list(before.values()), timeout=60)
            # Only the summary's ports count: other programs on this
            # machine may start listening meanwhile.
            mine = {int(a.split(":")[1], 16) for ino, a in listening().items()
                    if ino in sockets(tree(p.pid))}
            reached |= {a for a in r.stdout.split() if int(a.rsplit(":", 1)[1]) in mine}
        time.sleep(0.05)
    if p.poll() is None:
        p.kill()
        p.wait()
        check(False, "the summary finished within 600 s")
    with open(os.path.join(tmp, "summary.err")) as f:
        err = f.read()
    check(most > 1, "the summary of a %d-byte trace started worker processes (saw %d "
          "processes)" % (os.path.getsize(trace), most))
    check(not listeners, "the summary and its workers listen on TCP: %s"
          % sorted(listeners.values()))
    check(not reached, "dc-alice connected to the summary's ports: %s" % sorted(reached))
    want = report([trace])
    with open(out) as f:
        got = f.read()
    check(p.returncode == want.returncode and got == want.stdout,
          "the summary equals datacrumbs-report's: exit %d (want %d) %s"
          % (p.returncode, want.returncode, err[-1500:]))
    check(json.loads(want.stdout or "{}").get("calls", 0) > 40000, "the trace has its calls")
done()
