#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Asynchronous requests against fio's own counts: fio's io_uring and
libaio engines write and then read a file, buffered and with O_DIRECT,
and its posixaio engine buffered; every request fio reports appears once
on that file with its offset, length, result and latency from submission
to completion (io_uring), to reaping (libaio) or to aio_return (POSIX
AIO): the count, the bytes and the offsets equal fio's, and the report
puts the bytes on the file. A program that knows its POSIX AIO requests
(aio_write, lio_listio, aio_fsync, one never returned) checks each of
them, the count of the unreturned, and that glibc's helper thread does
the I/O on a thread of its own."""
import json
import os
import tempfile
from collections import Counter

from dctest import (BUILD, REPORT, RUNTIME, Trace, check, darshan_lines, darshan_prefix, done,
                    generate, need_bpf, need_tool, probe_table, run)

need_bpf()
need_tool("fio")
BS, SIZE = 4096, 8 << 20

# O_DIRECT needs a file system that has it (not tmpfs): /var/tmp.
plain = tempfile.TemporaryDirectory()
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    # --skip-missing: a kernel without io_uring's BTF tracepoints (before
    # 6.0) leaves that group out of the object, which the test names.
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/io_uring.yaml", "probes.d/libaio.yaml",
                         "probes.d/posixaio.yaml"], extra=["--skip-missing"])
    in_obj = {e["name"] for e in probe_table(obj)[1]}
    names = {("io_uring", "write"): "io_uring_write", ("io_uring", "read"): "io_uring_read",
             ("libaio", "write"): "libaio_pwrite", ("libaio", "read"): "libaio_pread",
             ("posixaio", "write"): "aio_write", ("posixaio", "read"): "aio_read"}
    for engine, direct in (("io_uring", 0), ("io_uring", 1), ("libaio", 0), ("libaio", 1),
                           ("posixaio", 0)):
        data = os.path.join(tmp, "%s%d.dat" % (engine, direct))
        for rw, side in (("write", "write"), ("randread", "read")):
            trace = os.path.join(tmp, "%s-%s%d.pfw.gz" % (engine, rw, direct))
            fio = ["fio", "--name=j", "--ioengine=" + engine, "--rw=" + rw, "--bs=%d" % BS,
                   "--size=%d" % SIZE, "--iodepth=8", "--direct=%d" % direct,
                   "--filename=" + data, "--output-format=json"]
            r = run([RUNTIME, "-q", "-o", trace, obj, "--"] + fio)
            what = "%s %s direct=%d" % (engine, rw, direct)
            check(r.returncode == 0, "%s: runtime: %s" % (what, r.stderr[-500:]))
            job = json.loads(r.stdout)["jobs"][0][side]
            t = Trace(trace)
            check(not t.errors, "%s: format: %s" % (what, t.errors[:3]))
            check(t.end["args"]["dropped"] == 0, "%s: nothing dropped" % what)
            # What the kernel cannot trace (io_uring's BTF tracepoints
            # before 6.0, POSIX AIO without BPF cookies) is named.
            gone = t.start["args"]["unsupported"].split(",")
            if names[(engine, side)] not in in_obj:
                print("%s: not on this kernel (the generator left it out)" % what)
                continue
            if engine in gone:
                print("%s: not on this kernel (the start record's unsupported: %s)"
                      % (what, t.start["args"]["unsupported"]))
                continue
            ev = t.select(cat="AIO", name=names[(engine, side)])
            mine = [e for e in ev if t.file(e) == data]
            check(len(ev) == len(mine) == job["total_ios"] > 0,
                  "%s: %d requests, %d on %s; fio made %d"
                  % (what, len(ev), len(mine), data, job["total_ios"]))
            check(sum(e["args"]["size"] for e in mine) == job["io_bytes"] == SIZE,
                  "%s: %d bytes, fio says %d" % (what, sum(e["args"].get("size", 0) for e in mine),
                                                 job["io_bytes"]))
            check(all(e["args"]["count"] == BS and e["args"]["ret"] == BS for e in mine),
                  "%s: each request asks for and moves %d bytes" % (what, BS))
            # Sequential writes and random reads both cover every block once.
            offs = sorted(e["args"]["offset"] for e in mine)
            check(offs == list(range(0, SIZE, BS)), "%s: every offset once" % what)
            check(all(e["dur"] >= 0 and e["args"]["level"] >= 1 for e in mine), "%s: latencies" % what)
            if engine == "posixaio":
                # glibc's helper threads move the data, a syscall each,
                # marked so the report counts the bytes once.
                sys_io = [e for e in t.select(cat="sys") if t.file(e) == data and
                          e["name"] in ("pwrite64", "pread64")]
                check(len(sys_io) == job["total_ios"] and
                      all(e["args"].get("aio_helper") == 1 for e in sys_io),
                      "%s: %d helper syscalls, fio made %d requests"
                      % (what, len(sys_io), job["total_ios"]))
            rep = json.loads(run([REPORT, "--json", trace]).stdout)
            f = [x for x in rep["files"] if x["name"] == data]
            key = "bytes_written" if side == "write" else "bytes_read"
            check(f and f[0].get(key) == SIZE, "%s: the report's %s of %s: %s"
                  % (what, key, data, f and f[0].get(key)))
    if "posixaio" not in gone:
        # A program that knows its requests: N aio_write waited for with
        # aio_suspend and taken with aio_return, a lio_listio of 8 reads, an
        # aio_fsync, and an aiocb written with twice whose result is never
        # taken (the second submission finds the first pending).
        full = generate(tmp, ["probes.d/posixaio.yaml", "probes.d/posix.yaml", "probes.d/sys.yaml"],
                        "full.bpf.o")
        # In /tmp: Darshan leaves out files under /var.
        data = os.path.join(plain.name, "paio.dat")
        trace, n, size = os.path.join(tmp, "paio.pfw.gz"), 50, 8192
        r = run([RUNTIME, "-q", "-o", trace, full, "--", os.path.join(BUILD, "tests", "posixaio"),
                 str(n), str(size), data])
        check(r.returncode == 0, "posixaio: runtime: %s" % r.stderr[-500:])
        truth = json.loads(r.stdout)
        t = Trace(trace)
        check(not t.errors, "posixaio: format: %s" % t.errors[:3])
        aio = [e for e in t.select(cat="AIO") if e["pid"] == truth["pid"]]
        got = sorted((e["name"], t.file(e), e["args"].get("offset"), e["args"].get("count"),
                      e["args"]["ret"]) for e in aio)
        want = sorted(("aio_" + q["op"], data, q["offset"] if q["op"] != "fsync" else None,
                       q["count"] if q["op"] != "fsync" else None, q["ret"])
                      for q in truth["requests"])
        check(got == want, "posixaio: %d requests, each with its file, offset, length and result: "
              "%s" % (len(want), [x for x in got if x not in want][:3] or got[:3]))
        check(all(e["dur"] >= 0 and e["tid"] != truth["pid"] for e in aio),
              "posixaio: requests on lanes of the submitting thread")
        lost = t.end["args"]["lost"]
        check(t.end["args"]["no_return"] == truth["unreturned"] == lost.get("AIO/aio_write"),
              "posixaio: the requests never returned are counted: %s" % lost)
        # glibc's helper thread moves the data: a pwrite64 per write, on a
        # thread other than the program's, not nested in any request and
        # marked as the helper's; the program's own calls are not.
        helper = [e for e in t.select(cat="POSIX", name="pwrite64") if t.file(e) == data]
        check(len(helper) == n + truth["unreturned"] and
              all(e["tid"] != truth["pid"] and e["args"]["level"] == 1 and
                  e["args"].get("aio_helper") == 1 for e in helper),
              "posixaio: %d helper pwrite64 on their own thread: %s"
              % (len(helper), Counter(e["tid"] for e in helper)))
        check(Counter(e["args"]["offset"] for e in helper) ==
              Counter(q["offset"] for q in truth["requests"] if q["op"] == "write") +
              Counter({n * size: truth["unreturned"]}),
              "posixaio: the helper writes each request's offset")
        check(not [e for e in t.select(pid=truth["pid"]) if e["tid"] == truth["pid"] and
                   "aio_helper" in e["args"]],
              "posixaio: the program's own calls are not the helper's")
        # Each byte once on the file: the requests', not again the helper's.
        rep = json.loads(run([REPORT, "--json", trace]).stdout)
        f = [x for x in rep["files"] if x["name"] == data]
        moved = {op: sum(q["ret"] for q in truth["requests"] if q["op"] == op)
                 for op in ("read", "write")}
        check(f and (f[0]["bytes_read"], f[0]["bytes_written"]) == (moved["read"], moved["write"]),
              "posixaio: the report's bytes on the file, %s, are the requests' %s"
              % (f and (f[0]["bytes_read"], f[0]["bytes_written"]), moved))
        # Darshan's POSIX module counts the same requests as reads and writes.
        pre = darshan_prefix()
        if pre:
            log = os.path.join(tmp, "paio.darshan")
            r = run([os.path.join(BUILD, "tests", "posixaio"), str(n), str(size), data],
                    env=dict(os.environ, LD_PRELOAD=os.path.join(pre, "lib", "libdarshan.so"),
                             DARSHAN_ENABLE_NONMPI="1", DARSHAN_LOGFILE=log))
            check(r.returncode == 0 and os.path.exists(log), "posixaio under Darshan: " + r.stderr)
            keys = ("POSIX_READS", "POSIX_WRITES", "POSIX_BYTES_READ", "POSIX_BYTES_WRITTEN",
                    "POSIX_SEQ_WRITES", "POSIX_CONSEC_WRITES", "POSIX_MAX_BYTE_WRITTEN",
                    "POSIX_SIZE_WRITE_1K_10K", "POSIX_SIZE_READ_1K_10K", "POSIX_FSYNCS")
            theirs = {c: v for _, _, c, v, name in darshan_lines(
                run([os.path.join(pre, "bin", "darshan-parser"), log]).stdout)
                if name == data and c in keys}
            ours = {c: v for _, _, c, v, name in darshan_lines(
                run([REPORT, "--darshan", trace]).stdout) if name == data and c in keys}
            check(len(theirs) == len(keys) and theirs == ours,
                  "posixaio: --darshan %s, Darshan %s" % (ours, theirs))
    # No request of one engine is taken for the other's.
    check(not t.select(cat="AIO", name="io_uring_read"), "libaio's reads are not io_uring's")
    # --layers leaves the requests out like any layer.
    trace = os.path.join(tmp, "layers.pfw.gz")
    r = run([RUNTIME, "-q", "-l", "sys", "-o", trace, obj, "--", "fio", "--name=j",
             "--ioengine=io_uring", "--rw=write", "--bs=%d" % BS, "--size=1M",
             "--filename=" + os.path.join(tmp, "l.dat")])
    t = Trace(trace)
    check(r.returncode == 0 and not t.select(cat="AIO") and t.select(cat="sys"),
          "-l sys: no AIO events, sys ones: %s" % r.stderr[-300:])
plain.cleanup()
done()
