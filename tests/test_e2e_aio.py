#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Asynchronous requests against fio's own counts: fio's io_uring and
libaio engines write and then read a file, buffered and with O_DIRECT,
and every request fio reports appears once on that file with its offset,
length, result and latency from submission to completion (io_uring) or
to reaping (libaio): the count, the bytes and the offsets equal fio's,
and the report puts the bytes on the file."""
import json
import os
import tempfile

from dctest import BUILD, RUNTIME, Trace, check, done, generate, need_bpf, need_tool, run

need_bpf()
need_tool("fio")
REPORT = os.path.join(BUILD, "report", "datacrumbs-report")
BS, SIZE = 4096, 8 << 20

# O_DIRECT needs a file system that has it (not tmpfs): /var/tmp.
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/io_uring.yaml", "probes.d/libaio.yaml"])
    names = {("io_uring", "write"): "io_uring_write", ("io_uring", "read"): "io_uring_read",
             ("libaio", "write"): "libaio_pwrite", ("libaio", "read"): "libaio_pread"}
    for engine, direct in (("io_uring", 0), ("io_uring", 1), ("libaio", 0), ("libaio", 1)):
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
            rep = json.loads(run([REPORT, "--json", trace]).stdout)
            f = [x for x in rep["files"] if x["name"] == data]
            key = "bytes_written" if side == "write" else "bytes_read"
            check(f and f[0].get(key) == SIZE, "%s: the report's %s of %s: %s"
                  % (what, key, data, f and f[0].get(key)))
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
done()
