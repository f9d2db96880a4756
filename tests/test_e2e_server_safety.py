#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The server under unlucky and hostile conditions: a job's trace is
flushed every second, so a server killed with SIGKILL leaves it readable
with the events of seconds before; a finished job's descriptor and memory
are released; a job whose trace cannot be made is warned about once, with
a count; and the server never removes a file it did not make nor takes a
live server's socket."""
import glob
import os
import signal
import subprocess
import tempfile
import time

from dctest import (BUILD, RUNTIME, Trace, check, done, generate, need_bpf, run, slack,
                    start_server)

need_bpf()
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")


def start(tmp, name):
    sock = os.path.join(tmp, name + ".sock")
    return start_server(obj, sock, os.path.join(tmp, name + ".ready"),
                        os.path.join(tmp, name + ".pfw.gz")), sock


def fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def lowest_free_fd(pid):
    """The number the server's next descriptor would get: a limit of it
    leaves none (the limit bounds numbers, and a server that has closed
    some holds fewer descriptors than its highest number), once the
    count holds still three times in a row (an emulated guest may still
    be answering a job)."""
    seen = []
    deadline = time.monotonic() + slack(10)
    while time.monotonic() < deadline:
        seen.append(fds(pid))
        if len(seen) >= 3 and len(set(seen[-3:])) == 1:
            break
        time.sleep(0.3)
    used = {int(fd) for fd in os.listdir("/proc/%d/fd" % pid)}
    return next(n for n in range(len(used) + 1) if n not in used)


def job_traces(tmp, name):
    return sorted(glob.glob(os.path.join(tmp, "%s-*-job*.pfw.gz" % name)))


with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml"])
    srv, sock = start(tmp, "a")

    # Refusals: a live server's socket, a file that is not a socket, an
    # existing ready file. Nothing of theirs is removed.
    r = run([RUNTIME, "--server", "--socket", sock, "-o", os.path.join(tmp, "b.pfw.gz"), obj])
    check(r.returncode != 0 and "another datacrumbs-runtime --server is listening" in r.stderr
          and os.path.exists(sock), "a live server's socket is not taken: " + r.stderr)
    plain = os.path.join(tmp, "plain")
    with open(plain, "w") as f:
        f.write("keep\n")
    r = run([RUNTIME, "--server", "--socket", plain, "-o", os.path.join(tmp, "c.pfw.gz"), obj])
    check(r.returncode != 0 and "not a socket" in r.stderr and open(plain).read() == "keep\n",
          "a regular file is not a socket to replace: " + r.stderr)
    r = run([RUNTIME, "--server", "--socket", os.path.join(tmp, "d.sock"), "--ready-file", plain,
             "-o", os.path.join(tmp, "d.pfw.gz"), obj])
    check(r.returncode != 0 and "exists" in r.stderr and open(plain).read() == "keep\n",
          "an existing --ready-file is refused and kept: " + r.stderr)

    # Jobs that end give back their descriptor: twelve jobs one after the
    # other, and the server holds as many descriptors as before them.
    joined = dict(os.environ, LD_PRELOAD=CLIENT, DATACRUMBS_SOCKET=sock)
    time.sleep(0.5)
    base = fds(srv.pid)
    for i in range(12):
        r = run(["sh", "-c", "echo x >> %s/r%d.txt" % (tmp, i)], env=joined)
        check(r.returncode == 0, "job %d ran" % i)
    time.sleep(4)
    check(fds(srv.pid) == base, "descriptors after 12 ended jobs: %d, before %d" % (fds(srv.pid), base))
    ended = [Trace(p) for p in job_traces(tmp, "sh")]
    check(len(ended) == 12 and all(not t.errors and t.end is not None for t in ended),
          "12 job traces, each closed with its end record while the server runs")

    # A job whose trace cannot be made (no descriptor left): one warning,
    # then a count, and its events in the server's own trace. Another job
    # keeps the probes attached meanwhile (attaching needs descriptors).
    keep = subprocess.Popen(["sh", "-c", "echo x > /dev/null; sleep %d" % slack(30)], env=joined,
                            start_new_session=True)
    deadline = time.monotonic() + slack(10)
    while len(job_traces(tmp, "sh")) < 13 and time.monotonic() < deadline:
        time.sleep(0.1)
    subprocess.run(["prlimit", "--pid", str(srv.pid), "--nofile=%d:" % lowest_free_fd(srv.pid)],
                   check=True)
    out = os.path.join(tmp, "many.txt")
    r = run(["sh", "-c", "i=0; while [ $i -lt 200 ]; do echo x >> %s; i=$((i+1)); done" % out],
            env=joined)
    time.sleep(slack(0.5))
    subprocess.run(["prlimit", "--pid", str(srv.pid), "--nofile=1024:"], check=True)
    time.sleep(3)
    os.killpg(keep.pid, signal.SIGKILL)
    keep.wait()

    # A job killed with the server: its trace is readable up to the last
    # second, holding the writes made seconds before the kill.
    flushed = os.path.join(tmp, "flushed.txt")
    job = subprocess.Popen(["sh", "-c", "i=0; while [ $i -lt 50 ]; do echo x >> %s; i=$((i+1)); done;"
                            " sleep 30" % flushed], env=joined)
    time.sleep(3)
    srv.send_signal(signal.SIGKILL)
    err = srv.communicate(timeout=30)[1]
    job.kill()
    job.wait()
    check(err.count("cannot create its trace") == 1 and "events went to" in err,
          "one warning for the job without a trace, then a count: " + err[-800:])
    hits = []
    for p in job_traces(tmp, "sh"):
        t = Trace(p, complete=False)
        w = t.select(cat="sys", name="write", path=flushed)
        if w:
            hits.append((p, t, len(w)))
    check(len(hits) == 1 and hits[0][2] == 50 and not hits[0][1].errors,
          "after kill -9 of the server the job's 50 writes are in its trace: %s"
          % [(p, n) for p, _, n in hits])
done()
