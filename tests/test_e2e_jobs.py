#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The job integration script (what the SLURM/Flux prolog and epilog run):
'datacrumbs-job start' brings up a collector that follows the job's cgroup
v2; a program in that cgroup is traced, exactly; one outside it is not;
'datacrumbs-job stop' drains, closes the traces and stops the collector."""
import glob
import os
import subprocess
import tempfile

from dctest import BUILD, RUNTIME, SRC, Trace, check, done, generate, need_bpf, new_cgroup, run

need_bpf()
JOB = os.path.join(SRC, "scripts", "jobs", "datacrumbs-job")
N = 77
with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml"])
    conf = os.path.join(tmp, "datacrumbs.conf")
    out, rundir = os.path.join(tmp, "traces"), os.path.join(tmp, "run")
    open(conf, "w").write("DATACRUMBS_OBJECT=%s\nDATACRUMBS_RUNTIME=%s\nDATACRUMBS_OUTPUT=%s\n"
                          "DATACRUMBS_MODE=trace\nDATACRUMBS_RUN=%s\n" % (obj, RUNTIME, out, rundir))
    env = dict(os.environ, DATACRUMBS_CONF=conf)
    cg = new_cgroup("job_dctest%d" % os.getpid())
    try:
        r = run(["sh", JOB, "start", "dctest", "0", cg], env=env)
        check(r.returncode == 0 and "tracing into" in r.stderr, "start: " + r.stderr)
        inside, outside = os.path.join(tmp, "inside"), os.path.join(tmp, "outside")
        run(["sh", "-c", "echo $$ > %s/cgroup.procs && exec dd if=/dev/zero of=%s bs=4k count=%d status=none"
             % (cg, inside, N)])
        run(["dd", "if=/dev/zero", "of=" + outside, "bs=4k", "count=5", "status=none"])
        pid = int(open(os.path.join(rundir, "job-dctest.pid")).read())
        r = run(["sh", JOB, "stop", "dctest"], env=env)
        check(r.returncode == 0, "stop: " + r.stderr)
        check(subprocess.run(["kill", "-0", str(pid)], stderr=subprocess.DEVNULL).returncode != 0,
              "the collector has exited")
    finally:
        os.rmdir(cg)
    jobs = glob.glob(os.path.join(out, "dctest", "*", "*-job*.pfw.gz"))
    check(len(jobs) == 1, "one job trace on this node: %s" % jobs)
    if jobs:
        t = Trace(jobs[0])
        check(not t.errors and t.end is not None, "job trace complete: %s" % t.errors[:3])
        check(len(t.select(cat="sys", name="write", path=inside)) == N, "the job's %d writes" % N)
        check(not t.select(path=outside), "nothing from outside the job's cgroup")
done()
