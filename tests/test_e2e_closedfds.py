#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The runtime started with stderr (or stdin, stdout, all three) closed:
the trace does not take a standard descriptor's number, so the runtime's
messages never land in it. Each trace is whole and holds no message."""
import os
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml"])
    for closed in ("2>&-", "1>&- 2>&-", "0<&- 1>&- 2>&-", "0<&-"):
        trace = os.path.join(tmp, "t%d.pfw.gz" % len(os.listdir(tmp)))
        # -v: plenty of messages.
        r = run(["sh", "-c", 'exec "$0" -v -o "$1" "$2" -- cat /etc/hostname %s' % closed,
                 RUNTIME, trace, obj])
        check(r.returncode == 0, "%s: the runtime ran: %s" % (closed, r.returncode))
        t = Trace(trace)
        check(not t.errors, "%s: the trace is whole: %s" % (closed, t.errors[:3]))
        msgs = [l for l in t.lines if "datacrumbs-runtime" in l or "libbpf" in l]
        check(not msgs, "%s: no message in the trace: %s" % (closed, msgs[:2]))
        check(any(e["name"] == "openat" and t.file(e) == "/etc/hostname" for e in t.events),
              "%s: the command is traced" % closed)
done()
