#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Tracepoints a kernel lacks. A probe whose event is missing takes the
first of its stand-ins ('alt') this kernel has: a file written a page at a
time has each page dirtied once, as with the event itself. A probe whose
event (or end) no kernel has is kept by datacrumbs-gen --skip-missing with
a warning naming its line, and left out by the runtime: named in the start
record's "unsupported" and in one line, the rest traced. The same with
every fallback forced (one program a tracepoint side: those of the probes
left out are not loaded)."""
import os
import tempfile

from dctest import GEN, RUNTIME, Trace, check, done, need_bpf, run

need_bpf()
PAGES = 32
SPEC = """layer: kernel
mechanism: tracepoint
probes:
  - name: dirty
    event: nosuch/dirty
    alt: [nosuch/older, writeback/writeback_dirty_folio, writeback/writeback_dirty_page]
    fields: [ino, index]
  - name: gone
    event: nosuch/gone
    fields: [ino]
  - name: unended
    event: block/block_rq_issue
    end: nosuch/complete
    key: [dev, sector]
    fields: [bytes]
"""

# A disk-backed directory: its pages are dirtied, not a tmpfs's.
with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    spec = os.path.join(tmp, "tp.yaml")
    open(spec, "w").write(SPEC)
    r = run([GEN, "-n", spec])
    check(r.returncode == 1 and "%s:9:12: error: no tracepoint 'nosuch/gone'" % spec in r.stderr,
          "without --skip-missing a missing tracepoint is an error at its line:\n" + r.stderr)
    obj = os.path.join(tmp, "tp.bpf.o")
    gen = run([GEN, "--skip-missing", "-o", obj, spec])
    check(gen.returncode == 0, "datacrumbs-gen -s: " + gen.stderr)
    for line in ("tp.yaml:9:12: warning: no tracepoint 'nosuch/gone' in this kernel",
                 "tp.yaml:13:10: warning: no tracepoint 'nosuch/complete' in this kernel"):
        check(line in gen.stderr, "generator warns %r:\n%s" % (line, gen.stderr))
    for env in ({}, {"DATACRUMBS_FALLBACKS": "all"}):
        paged = os.path.join(tmp, "paged")
        trace = os.path.join(tmp, "t.pfw.gz")
        r = run([RUNTIME, "-o", trace, "--force", obj, "--", "dd", "if=/dev/zero", "of=" + paged,
                 "bs=4096", "count=%d" % PAGES, "status=none"], env=dict(os.environ, **env))
        check(r.returncode == 0, "runtime %s: %s" % (env, r.stderr))
        lines = [l for l in r.stderr.splitlines() if "lacks" in l]
        check(len(lines) == 1 and "nosuch/gone (kernel gone)" in lines[0]
              and "nosuch/complete (kernel unended)" in lines[0],
              "one line names the tracepoints left out: %s" % lines)
        t = Trace(trace)
        check(not t.errors, "format: %s" % t.errors[:3])
        check(t.start["args"]["unsupported"] == "nosuch/gone,nosuch/complete",
              "start record's unsupported: %r" % t.start["args"]["unsupported"])
        check(t.start["args"]["probes"] == 1, "one probe attached: %s" % t.start["args"]["probes"])
        ino = os.stat(paged).st_ino
        dirty = [e for e in t.select(cat="kernel", name="dirty") if e["args"]["ino"] == ino]
        check(sorted(e["args"]["index"] for e in dirty) == list(range(PAGES)),
              "%s: pages dirtied %d, want each of %d once" % (env, len(dirty), PAGES))
        check(not t.select(name="gone") and not t.select(name="unended"),
              "nothing of the probes left out")
        os.unlink(paged)
done()
