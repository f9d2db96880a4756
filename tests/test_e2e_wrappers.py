#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Syscall wrappers traced at the syscall tracepoint give the events the
uprobe path gives. The same workloads (threads, a fork, a spawn, STDIO,
dd, a read restarted after a signal) run three ways: --wrappers uprobe,
the default (wrappers recognised at sys_enter), and with every site
matched by its code bytes, as when a mapping cannot be resolved. The
POSIX and sys events must be equal in count, name, file, fd, size,
offset and return, and nest alike; the restarted read stays one call.
stat, lstat and fstat are one call each, with no fstatat inside."""
import collections
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
IOCALLS = os.path.join(BUILD, "tests", "iocalls")
STDIO = os.path.join(BUILD, "tests", "stdio_calls")
RESTART = os.path.join(BUILD, "tests", "restart")
WAYS = {"uprobe": (["--wrappers", "uprobe"], {}),
        "tp": ([], {}),
        "by-code": ([], {"DATACRUMBS_WRAPPERS_BY_CODE": "1"})}
# What a call is, apart from when it ran and who ran it; threads race to
# open their files, so which fd each gets varies (its file does not).
DROP = {"hhash", "fhash", "level", "p_idx", "fd"}
O_CREAT, O_TMPFILE = 0o100, 0o20200000
NEW_FD = {"open", "open64", "openat", "creat", "dup", "dup2", "dup3", "fcntl"}


def norm(path, work):
    """The run's directory differs from run to run. Descriptors opened
    by calls not traced (pipe2) are named from /proc if the process is
    still there when the runtime asks: named or not varies too."""
    if path is None or path.startswith("pipe:"):
        return "?"
    return path.replace(work, "WORK")


# glibc's stat, lstat and fstat jump into fstatat: one call each, as
# Darshan counts them. Recognised at the syscall that is so; with
# --wrappers uprobe fstatat's own uprobe fires too, under theirs.
JUMPS_INTO = {"stat", "lstat", "fstat"}


def folded(t):
    """Ids of the uprobe path's fstatat calls inside stat, lstat, fstat."""
    byid = {e["id"]: e for e in t.events}
    out = set()
    for e in t.events:
        p = byid.get(e["args"]["p_idx"])
        if (e["cat"], e["name"]) == ("POSIX", "fstatat") and p and p["cat"] == "POSIX" \
                and p["name"] in JUMPS_INTO:
            out.add(e["id"])
    return out


def calls(t, work):
    """Each POSIX and sys call as (cat, name, file, args), counted. What
    differs from run to run is left out: addresses mmap returns, and the
    lengths of the workloads' reports (they hold pids)."""
    out = collections.Counter()
    skip = folded(t)
    for e in t.events:
        if e["cat"] not in ("POSIX", "sys") or e["id"] in skip:
            continue
        f = norm(t.file(e), work)
        args = {k: v for k, v in e["args"].items() if k not in DROP}
        if e["name"].startswith("mmap") or e["name"] in NEW_FD:
            args.pop("ret", None)
        # open's mode is read only with O_CREAT or O_TMPFILE: the uprobe
        # path takes whatever the register held, the syscall gets 0.
        flags = args.get("flags", 0)
        if "mode" in args and not (flags & O_CREAT or flags & O_TMPFILE == O_TMPFILE):
            args.pop("mode")
        # The workloads' reports go to /dev/null or the pipe run()
        # reads; they hold pids, whose digits vary with pid wraparound.
        if f == "/dev/null" or (f == "?" and e["name"] == "write"):
            args = {}
        out[(e["cat"], e["name"], f, tuple(sorted(args.items())))] += 1
    return out


def nesting(t):
    """(parent cat/name, child cat/name, child level), counted."""
    byid = {e["id"]: e for e in t.events}
    out = collections.Counter()
    skip = folded(t)
    for e in t.events:
        if e["cat"] not in ("POSIX", "sys") or e["id"] in skip:
            continue
        p, level = byid.get(e["args"]["p_idx"]), e["args"]["level"]
        if p and p["id"] in skip:
            p, level = byid.get(p["args"]["p_idx"]), level - 1
        out[(p and (p["cat"], p["name"]), (e["cat"], e["name"]), level)] += 1
    return out


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/stdio.yaml"])
    got = {}
    for way, (flags, env) in WAYS.items():
        work = os.path.join(tmp, way)
        os.mkdir(work)
        trace = os.path.join(tmp, way + ".pfw.gz")
        script = ("%s %s >/dev/null && %s %s >/dev/null && "
                  "dd if=/dev/zero of=%s/dd bs=4k count=300 status=none && %s"
                  % (IOCALLS, work, STDIO, work, work, RESTART))
        r = run([RUNTIME, "-o", trace] + flags + [obj, "--", "sh", "-c", script],
                env=dict(os.environ, **env))
        check(r.returncode == 0, "%s: runtime exit %d: %s" % (way, r.returncode, r.stderr[-2000:]))
        truth = json.loads(r.stdout.strip().splitlines()[-1])
        t = Trace(trace)
        check(not t.errors, "%s: format: %s" % (way, t.errors[:3]))
        a = t.end["args"]
        check(a["dropped"] == 0 and a.get("unmatched_wrappers", 0) == 0,
              "%s: nothing dropped or unmatched: %s" % (way, a))
        n = t.start["args"]["wrappers_at_syscalls"]
        check(n == 0 if way == "uprobe" else n >= 10, "%s: %d wrappers at syscalls" % (way, n))
        # The restarted read: one POSIX read on the pipe over two syscalls.
        mine = [e for e in t.events if e["pid"] == truth["pid"] and e["args"].get("fd") == 3
                and e["args"].get("count") == 1]
        reads = [e for e in mine if e["cat"] == "POSIX" and e["name"] == "read"]
        sysreads = [e for e in mine if e["cat"] == "sys" and e["name"] == "read"]
        check(len(reads) == truth["read"] and reads[0]["args"]["ret"] == 1,
              "%s: restarted read is one call: %s" % (way, [e["args"] for e in reads]))
        check(len(sysreads) == 2 and all(e["args"]["p_idx"] == reads[0]["id"] for e in sysreads),
              "%s: both read syscalls under it: %s" % (way, [e["args"] for e in sysreads]))
        got[way] = (calls(t, work), nesting(t))
    base_calls, base_nest = got["uprobe"]
    check(sum(base_calls.values()) > 2000, "uprobe path: %d calls" % sum(base_calls.values()))
    for way in ("tp", "by-code"):
        c, nest = got[way]
        for k in sorted(set(c) | set(base_calls), key=str):
            check(c[k] == base_calls[k], "%s: %s: %d, uprobe path %d" % (way, k, c[k], base_calls[k]))
        for k in sorted(set(nest) | set(base_nest), key=str):
            check(nest[k] == base_nest[k], "%s: nesting %s: %d, uprobe path %d" % (way, k, nest[k], base_nest[k]))
done()
