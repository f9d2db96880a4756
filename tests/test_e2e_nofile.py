#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Perf-event uprobes (Linux before 6.6, forced here) take two
descriptors a function: the shipped HDF5 spec needs more than a hard
open-files limit of 256 allows. The runtime, as root, lifts the limit to
the kernel's ceiling and attaches every probe; the traced command still
sees the limits it was started with, soft and hard."""
import os
import shutil
import tempfile

from dctest import RUNTIME, check, done, generate, need_bpf, run, skip

CAP_SYS_RESOURCE = 24

need_bpf()
if not shutil.which("prlimit"):
    skip("no prlimit (util-linux)")
caps = next(int(l.split()[1], 16) for l in open("/proc/self/status") if l.startswith("CapEff:"))
if not caps >> CAP_SYS_RESOURCE & 1:
    skip("no CAP_SYS_RESOURCE here: a hard open-files limit cannot be lifted "
         "(scripts/kernel-test runs this test as a guest's root)")
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/hdf5.yaml"])
    env = dict(os.environ, DATACRUMBS_UPROBE_LINKS="perf")
    r = run(["prlimit", "--nofile=200:256", RUNTIME, "-o", os.path.join(tmp, "t.pfw.gz"), obj,
             "--", "sh", "-c", "ulimit -Sn; ulimit -Hn"], env=env)
    check(r.returncode == 0, "runtime: " + r.stderr[-1500:])
    check("Too many open files" not in r.stderr and "refused" not in r.stderr,
          "every perf-event uprobe attached: " + r.stderr[-1500:])
    check(r.stdout.split() == ["200", "256"],
          "the command sees the limits it was given: %r" % r.stdout)
done()
