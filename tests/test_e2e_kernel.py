#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The kernel layer through tracepoints: block requests of O_DIRECT writes
are nested under each write syscall and add up to its bytes; an fsync'd
file's data reaches the device in requests nested under the fsync, issued
by the right process; page-cache adds carry the file's inode (os.stat); a
file written a page at a time has each page dirtied once, under its write
(writeback_dirty_folio, or writeback_dirty_page before Linux 5.18)."""
import os
import subprocess
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
N, BS = 16, 65536
PAGES = 64
# /tmp may be a tmpfs on some machines: /var/tmp is on a block device.
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/kernel.yaml"])
    direct, synced = os.path.join(tmp, "direct"), os.path.join(tmp, "synced")
    paged = os.path.join(tmp, "paged")
    trace = os.path.join(tmp, "k.pfw.gz")
    # Page-sized writes dirty one page-sized folio each, on kernels with
    # large folios too.
    script = ("dd if=/dev/zero of=%s bs=%d count=%d oflag=direct status=none && "
              "dd if=/dev/zero of=%s bs=1M count=8 conv=fsync status=none && "
              "dd if=/dev/zero of=%s bs=4096 count=%d status=none"
              % (direct, BS, N, synced, paged, PAGES))
    r = run([RUNTIME, "-o", trace, obj, "--", "sh", "-c", script])
    check(r.returncode == 0, "runtime: " + r.stderr)
    t = Trace(trace)
    check(not t.errors, "format: %s" % t.errors[:3])
    check(t.end["args"]["dropped"] == 0, "nothing dropped")
    byid = {e["id"]: e for e in t.events}
    blocks = t.select(cat="kernel", name="block_rq")
    dev = os.stat(direct).st_dev

    writes = t.select(cat="sys", name="write", path=direct)
    check(len(writes) == N, "O_DIRECT writes: %d, want %d" % (len(writes), N))
    # A request is the write's when the write's task issued it. When the
    # device is busy, blk-mq dispatches from the kblockd worker instead:
    # such a request is left out, never given to another call.
    attributed = 0
    source = subprocess.run(["findmnt", "-no", "SOURCE", "-T", tmp], stdout=subprocess.PIPE,
                            text=True).stdout.strip()
    for w in writes:
        under = [b for b in blocks if b["args"]["p_idx"] == w["id"]]
        got = sum(b["args"]["bytes"] for b in under)
        check(got in (0, BS), "block requests under write id %d: %d bytes, want %d or 0"
              % (w["id"], got, BS))
        attributed += got == BS
        # A request is on a lane of its thread: tid + 2^30 + lane * 2^22.
        check(all(b["pid"] == w["pid"] and b["tid"] & 0x3fffff == w["tid"]
                  and b["tid"] & 1 << 30 and b["args"]["level"] == 3
                  for b in under), "issued by the writing thread, level 3 under POSIX write")
        check(all(b["ts"] >= w["ts"] and b["ts"] + b["dur"] <= w["ts"] + w["dur"] for b in under),
              "block requests inside the write in time")
        # Direction from rwbs; the device by name, as the file system's
        # source names it (findmnt), and its number as stat gives it.
        check(all("W" in b["args"]["rwbs"] and "R" not in b["args"]["rwbs"] for b in under),
              "write requests: %s" % [b["args"]["rwbs"] for b in under])
        check(all(source.startswith("/dev/" + b["args"]["device"]) for b in under),
              "device %s backs %s" % ({b["args"]["device"] for b in under}, source))
    check(attributed >= N // 2, "most O_DIRECT writes' requests attributed: %d of %d" % (attributed, N))

    fs = t.select(cat="sys", name="fsync", path=synced)
    check(len(fs) == 1, "one fsync on the synced file")
    if fs:
        # As for the O_DIRECT writes, a request kblockd dispatched (or
        # the flusher wrote before the fsync) is not the fsync's: most
        # of the 8 MiB, and no more than it and some metadata.
        under = [b for b in blocks if b["args"]["p_idx"] == fs[0]["id"]]
        got = sum(b["args"]["bytes"] for b in under)
        check(4 << 20 <= got <= 9 << 20, "fsync's requests carry most of the 8 MiB: %d" % got)
        check(all(b["pid"] == fs[0]["pid"] for b in under), "fsync's requests tied to dd")
        syncs = [e for e in t.select(cat="kernel", name="ext4_sync_file") if e["args"]["p_idx"] == fs[0]["id"]]
        check(len(syncs) == 1 and syncs[0]["args"]["ino"] == os.stat(synced).st_ino,
              "ext4_sync_file under fsync with the file's inode")

    ino = os.stat(synced).st_ino
    adds = [e for e in t.select(cat="kernel", name="page_cache_add") if e["args"]["i_ino"] == ino]
    check(adds and all(byid[e["args"]["p_idx"]]["cat"] in ("sys", "POSIX") for e in adds),
          "page-cache adds of the buffered file, nested under its writes")
    # Every page of the fresh file dirtied once, by dd's write of it.
    ino = os.stat(paged).st_ino
    dirty = [e for e in t.select(cat="kernel", name="dirty_folio") if e["args"]["ino"] == ino]
    check(sorted(e["args"]["index"] for e in dirty) == list(range(PAGES)),
          "pages dirtied: %d, want each of %d once" % (len(dirty), PAGES))
    check(all(byid[e["args"]["p_idx"]]["name"] == "write"
              and t.file(byid[e["args"]["p_idx"]]) == paged for e in dirty),
          "each dirtied page under a write of its file")
    check(all(e["pid"] in {w["pid"] for w in t.select(cat="sys")} for e in t.select(cat="kernel")),
          "every kernel event belongs to a traced process")
done()
