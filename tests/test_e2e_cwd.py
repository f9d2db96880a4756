#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Relative paths are named against the directory the process was in
when it made the call: a workload chdir()s (relative, absolute, '..'),
fchdir()s, changes directory in a thread and in a forked child, and opens
relative and *at() paths; every file the trace names is the one the
workload knows it opened. With --exclude-paths on the directory it
chdir()ed into, the file opened there by a relative name is left out and
counted."""
import os
import sys
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()

WORK = r'''
import os, sys, threading
tree = sys.argv[1]
opened = []
def touch(name, **kw):
    os.close(os.open(name, os.O_RDONLY, **kw))
os.chdir(tree)
touch("f0"); opened.append("f0")
os.chdir("a")
touch("f1"); opened.append("a/f1")
d = os.open("b", os.O_RDONLY | os.O_DIRECTORY)
os.fchdir(d)
touch("f2"); opened.append("a/b/f2")
os.chdir("../../private")
touch("secret"); opened.append("private/secret")
a = os.open(tree + "/a", os.O_RDONLY | os.O_DIRECTORY)
touch("f1", dir_fd=a); opened.append("a/f1")
touch("b/./f2", dir_fd=a); opened.append("a/b/f2")
os.chdir("..")
pid = os.fork()
if pid == 0:
    os.chdir("a/b")
    touch("f2")
    os._exit(0)
os.waitpid(pid, 0)
touch("f0")
th = threading.Thread(target=os.chdir, args=("a",))
th.start(); th.join()
touch("f1")
touch("./b//f2")
print("\n".join(os.path.join(tree, o) for o in opened))
'''


def names_under(t, tree):
    return sorted({t.file(e) for e in t.events
                   if e["name"] in ("openat", "open") and (t.file(e) or "").startswith(tree)})


with tempfile.TemporaryDirectory() as tmp:
    tree = os.path.join(tmp, "tree")
    for d in ("a/b", "private"):
        os.makedirs(os.path.join(tree, d))
    for f in ("f0", "a/f1", "a/b/f2", "private/secret"):
        open(os.path.join(tree, f), "w").close()
    # Decoys: where a stale directory would put the names.
    for f in ("f1", "f2", "secret", "a/f2", "a/secret", "a/b/f1"):
        open(os.path.join(tree, f), "a").close()
    prog = os.path.join(tmp, "work.py")
    with open(prog, "w") as f:
        f.write(WORK)
    obj = generate(tmp, ["probes.d/sys.yaml"])
    files = sorted(os.path.join(tree, f) for f in ("a/b/f2", "a/f1", "f0", "private/secret"))
    want = sorted(files + [os.path.join(tree, "a"), os.path.join(tree, "a/b")])

    trace = os.path.join(tmp, "cwd.pfw.gz")
    r = run([RUNTIME, "-o", trace, obj, "--", sys.executable, "-S", prog, tree], cwd=tmp)
    check(r.returncode == 0, "the workload ran: " + r.stderr[-500:])
    check(sorted(set(r.stdout.split())) == files, "the workload says what it opened: %r" % r.stdout)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    got = names_under(t, tree)
    check(got == want,
          "the files named are those opened:\n got  %s\n want %s" % (got, want))

    # --exclude-paths the directory chdir()ed into.
    trace = os.path.join(tmp, "x.pfw.gz")
    private = os.path.join(tree, "private")
    r = run([RUNTIME, "--exclude-paths", private, "-o", trace, obj, "--",
             sys.executable, "-S", prog, tree], cwd=tmp)
    check(r.returncode == 0, "--exclude-paths: the workload ran: " + r.stderr[-500:])
    t = Trace(trace)
    got = names_under(t, tree)
    check(not [n for n in got if n.startswith(private) or "secret" in n],
          "--exclude-paths: nothing under %s: %s" % (private, got))
    check(t.end and t.end["args"].get("filtered_paths", 0) > 0,
          "--exclude-paths: counted: %s" % (t.end and t.end["args"].get("filtered_paths")))
done()
