#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A multi-threaded, forking, spawning workload that reports what it did:
every count, size, file name, pid and tid in the trace must match, in the
POSIX and sys layers, and strace -f -c agrees on every traced syscall."""
import json
import os
import tempfile

from dctest import (RUNTIME, WORKLOAD, Trace, check, check_against_strace, done, generate,
                    need_bpf, need_tool, run)

need_bpf()
need_tool("strace")
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    trace = os.path.join(tmp, "io.pfw.gz")
    cmd = [WORKLOAD, tmp]
    r = run([RUNTIME, "-o", trace, obj, "--"] + cmd)
    check(r.returncode == 0, "runtime exit %d: %s" % (r.returncode, r.stderr))
    truth = json.loads(r.stdout)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:5])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    pid, m = truth["pid"], truth["main"]

    def count(cat, name, path, **kw):
        return [e for e in t.select(cat=cat, name=name, path=path)
                if all(e[k] == v for k, v in kw.items())]

    for cat in ("POSIX", "sys"):
        for name, size in (("write", "write_size"), ("pwrite64", "pwrite_size"),
                           ("read", "read_size"), ("pread64", "pread_size")):
            ev = count(cat, name, m["path"], pid=pid, tid=pid)
            check(len(ev) == m[name], "%s %s on main.dat: %d, want %d" % (cat, name, len(ev), m[name]))
            check(all(e["args"].get("size") == m[size] for e in ev), "%s %s sizes" % (cat, name))
        ls = count(cat, "lseek", m["path"], pid=pid)
        check(len(ls) == m["lseek"], "%s lseek: %d, want %d" % (cat, len(ls), m["lseek"]))
        check([e["args"]["offset"] for e in ls] == [-i * 100 for i in range(m["lseek"])],
              "%s lseek offsets" % cat)
        pw = count(cat, "pwrite64", m["path"], pid=pid)
        check(sorted(e["args"]["offset"] for e in pw) == [i * 512 for i in range(m["pwrite64"])],
              "%s pwrite offsets" % cat)
        check(len(count(cat, "fsync", m["path"], pid=pid)) == 1, "%s fsync" % cat)
        for th in truth["threads"]:
            ev = count(cat, "write", th["path"])
            check(len(ev) == th["write"], "%s writes by %s: %d, want %d" % (cat, th["name"], len(ev), th["write"]))
            check(all(e["pid"] == pid and e["tid"] == th["tid"] for e in ev), "%s pid/tid of %s" % (cat, th["name"]))
            check(t.thread_names.get(th["tid"]) == th["name"], "thread_name of %s" % th["name"])
        c = truth["child"]
        ev = count(cat, "write", c["path"])
        check(len(ev) == c["write"], "%s child writes: %d, want %d" % (cat, len(ev), c["write"]))
        check(all(e["pid"] == c["pid"] and e["tid"] == c["pid"] and e["args"]["size"] == 4096 for e in ev),
              "%s child pid/tid/size" % cat)
    # The posix_spawn'ed program is traced from its first instruction: the
    # dynamic loader's opens.
    spawned = t.select(cat="sys", name="openat", pid=truth["spawned"])
    check(any(t.file(e) == "/etc/ld.so.cache" for e in spawned), "spawned process traced from exec")
    check(t.process_names.get(truth["spawned"]) == "true", "spawned process named")

    check_against_strace(t, cmd, os.path.join(tmp, "strace.txt"))
done()
