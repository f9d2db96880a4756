#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""PR records: one set per process with its command (never empty, even
for a process gone before its events are read), the rank, world size and
job id from each launcher's and scheduler's variables, and after an exec
the new command, not a second rank."""
import os
import tempfile

from dctest import RUNTIME, Trace, check, done, generate, need_bpf, run

need_bpf()
STYLES = [
    ({"OMPI_COMM_WORLD_RANK": "2", "OMPI_COMM_WORLD_SIZE": "4", "SLURM_JOB_ID": "991"},
     ("2", "4", "991")),
    ({"PMI_RANK": "1", "PMI_SIZE": "3", "PBS_JOBID": "77.pbs"}, ("1", "3", "77.pbs")),
    ({"PMIX_RANK": "5", "SLURM_NTASKS": "8", "LSB_JOBID": "4242"}, ("5", "8", "4242")),
    ({"SLURM_PROCID": "6", "SLURM_NTASKS": "7", "SLURM_JOB_ID": "12"}, ("6", "7", "12")),
    ({"FLUX_TASK_RANK": "3", "FLUX_JOB_SIZE": "9", "FLUX_JOB_ID": "f2ab"}, ("3", "9", "f2ab")),
]

with tempfile.TemporaryDirectory() as tmp:
    obj = generate(tmp, ["probes.d/sys.yaml"])
    for n, (env, (rank, size, jobid)) in enumerate(STYLES):
        out = os.path.join(tmp, "style%d.pfw.gz" % n)
        clean = {k: v for k, v in os.environ.items()
                 if not k.startswith(("OMPI_", "PMI", "SLURM_", "FLUX_", "PBS_", "LSB_"))}
        # sh execs sleep: one process, two programs. Its facts are read
        # from /proc at the exec; a process gone within a millisecond of
        # it keeps only its name (docs/trace-format.md).
        r = run([RUNTIME, "-o", out, obj, "--", "sh", "-c", "exec sleep 0.3"],
                env=dict(clean, **env))
        check(r.returncode == 0, "run %s: %s" % (env, r.stderr))
        t = Trace(out)
        check(not t.errors, "format: %s" % t.errors[:3])
        pid = next(e["pid"] for e in t.events if e["name"] == "openat")
        pr = [(m["args"]["name"], m["args"]["value"]) for m in t.meta
              if m["name"] == "PR" and m["pid"] == pid]
        facts = dict(pr)
        check(facts.get("rank") == rank and facts.get("size") == size and facts.get("jobid") == jobid,
              "%s: rank/size/jobid %s" % (env, facts))
        check(sum(1 for k, _ in pr if k == "rank") == 1, "one rank record: %s" % pr)
        cmds = [v for k, v in pr if k == "cmd"]
        check(cmds and cmds[-1] == "sleep 0.3" and all(cmds), "cmd after the exec: %s" % cmds)
        check(all(v for m in t.meta if m["name"] == "PR" and m["args"]["name"] == "cmd"
                  for v in [m["args"]["value"]]), "no empty cmd")
done()
