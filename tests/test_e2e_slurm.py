#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The SLURM path for real: munge, slurmctld and slurmd from Debian's
slurm-wlm on this machine on loopback, with the job scripts of
scripts/jobs as Prolog, Epilog and TaskProlog. A batch job runs an MPI
program with mpirun (4 ranks); its traces appear under
<output>/<job id>/<node>/, with every rank's MPI-IO calls and its rank,
and the collector is gone when the job ends."""
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from dctest import BUILD, RUNTIME, SRC, Trace, check, done, generate, need_bpf, run, skip

need_bpf()
SLICE = "/sys/fs/cgroup/system.slice"
for tool in ("slurmctld", "slurmd", "munged", "sbatch", "mpirun"):
    if not shutil.which(tool):
        skip("needs %s (scripts/setup installs slurm-wlm, munge and OpenMPI)" % tool)
WORK = os.path.join(BUILD, "tests", "mpiio_calls")
if not os.path.exists(WORK):
    skip("the MPI-IO workload was not built (no OpenMPI when building)")
JOB = os.path.join(SRC, "scripts", "jobs", "datacrumbs-job")
CLIENT = os.path.join(BUILD, "client", "libdatacrumbs-client.so")
NP = 4

with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
    os.chmod(tmp, 0o755)
    host = socket.gethostname().split(".")[0]
    obj = generate(tmp, ["probes.d/sys.yaml", "probes.d/posix.yaml", "probes.d/mpiio.yaml"])
    out, rundir = os.path.join(tmp, "traces"), os.path.join(tmp, "run")
    conf = os.path.join(tmp, "datacrumbs.conf")
    open(conf, "w").write("DATACRUMBS_OBJECT=%s\nDATACRUMBS_RUNTIME=%s\nDATACRUMBS_OUTPUT=%s\n"
                          "DATACRUMBS_MODE=trace\nDATACRUMBS_RUN=%s\n" % (obj, RUNTIME, out, rundir))
    scripts = {
        "prolog.sh": 'DATACRUMBS_CONF=%s exec sh %s start "$SLURM_JOB_ID" "${SLURM_JOB_UID:-0}"' % (conf, JOB),
        "epilog.sh": 'DATACRUMBS_CONF=%s exec sh %s stop "$SLURM_JOB_ID"' % (conf, JOB),
        # No cgroups here (proctrack/linuxproc): the tasks preload the
        # client, which joins the job's collector over its socket.
        "taskprolog.sh": 'echo "export DATACRUMBS_SOCKET=%s/job-$SLURM_JOB_ID.sock"; '
                         'echo "export LD_PRELOAD=%s"' % (rundir, CLIENT),
    }
    for name, body in scripts.items():
        path = os.path.join(tmp, name)
        open(path, "w").write("#!/bin/sh\n" + body + "\n")
        os.chmod(path, 0o755)
    for d in ("state", "spool", "munge"):
        os.mkdir(os.path.join(tmp, d))
    key = os.path.join(tmp, "munge", "munge.key")
    open(key, "wb").write(os.urandom(1024))
    os.chmod(key, 0o400)
    msock = os.path.join(tmp, "munge", "munge.sock")
    slurm_conf = os.path.join(tmp, "slurm.conf")
    open(slurm_conf, "w").write("""ClusterName=dctest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={msock}
CredType=cred/munge
StateSaveLocation={tmp}/state
SlurmdSpoolDir={tmp}/spool
SlurmctldPidFile={tmp}/slurmctld.pid
SlurmdPidFile={tmp}/slurmd.pid
SlurmctldPort=16817
SlurmdPort=16818
SlurmctldLogFile={tmp}/slurmctld.log
SlurmdLogFile={tmp}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
Prolog={tmp}/prolog.sh
Epilog={tmp}/epilog.sh
TaskProlog={tmp}/taskprolog.sh
NodeName={host} NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=debug Nodes={host} Default=YES MaxTime=INFINITE State=UP
""".format(host=host, msock=msock, tmp=tmp))
    # slurmd's cgroup/v2 plugin makes its scope through systemd's dbus;
    # where there is none (a kernel-test guest), it makes it itself.
    # Its scope goes under system.slice, which only systemd makes: made
    # here where it is missing, and removed after.
    open(os.path.join(tmp, "cgroup.conf"), "w").write("IgnoreSystemdOnFailure=yes\n")
    made_slice = None
    if os.path.exists("/sys/fs/cgroup/cgroup.controllers") and not os.path.isdir(SLICE):
        os.mkdir(SLICE)
        made_slice = SLICE
    env = dict(os.environ, SLURM_CONF=slurm_conf)
    daemons = []
    try:
        r = run(["munged", "--force", "--key-file=" + key, "--socket=" + msock,
                 "--pid-file=" + os.path.join(tmp, "munge", "pid"),
                 "--log-file=" + os.path.join(tmp, "munge", "log"),
                 "--seed-file=" + os.path.join(tmp, "munge", "seed")])
        check(r.returncode == 0, "munged: " + r.stderr)
        for d in ("slurmctld", "slurmd"):
            daemons.append(subprocess.Popen([d, "-D", "-f", slurm_conf], env=env,
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            time.sleep(1)
        # Seconds natively; minutes in a TCG guest (scripts/kernel-test):
        # the limits only stop a hang.
        t0 = time.monotonic()
        while time.monotonic() - t0 < 300:
            if run(["sinfo", "-h", "-o", "%t"], env=env).stdout.strip() == "idle":
                break
            time.sleep(0.2)
        state = run(["sinfo", "-h", "-o", "%t"], env=env).stdout.strip()
        if not check(state == "idle", "the node is idle: %s" % state):
            for log in ("slurmctld.log", "slurmd.log"):
                path = os.path.join(tmp, log)
                print("%s:\n%s" % (log, open(path).read()[-1500:] if os.path.exists(path) else "(none)"),
                      file=sys.stderr)
            done()  # no node to run a job on: sbatch --wait would wait 15 minutes
        data, jobout = os.path.join(tmp, "shared.dat"), os.path.join(tmp, "job.out")
        r = run(["timeout", "900", "sbatch", "--wait", "-n1", "-o", jobout, "--wrap",
                 "mpirun --allow-run-as-root --oversubscribe -np %d %s %s" % (NP, WORK, data)],
                env=env)
        check(r.returncode == 0, "the job ran: %s %s" % (r.stdout, r.stderr))
        jobid = r.stdout.split()[-1]
        truth = json.loads(open(jobout).read().strip().splitlines()[-1])
        # The epilog runs after the job; give it its moment.
        pidf = os.path.join(rundir, "job-%s.pid" % jobid)
        for _ in range(100):
            if not os.path.exists(pidf):
                break
            time.sleep(0.1)
        check(not os.path.exists(pidf), "the epilog stopped the collector")
        traces = glob.glob(os.path.join(out, jobid, host, "*-job*.pfw.gz"))
        check(len(traces) == 1, "one job trace where the docs say: %s" % traces)
        if traces:
            t = Trace(traces[0])
            check(not t.errors and t.end is not None, "complete: %s" % t.errors[:3])
            ranks = {m["pid"]: int(m["args"]["value"]) for m in t.meta
                     if m["name"] == "PR" and m["args"]["name"] == "rank"}
            mpi = t.select(cat="MPIIO", name="MPI_File_write_at")
            pids = {e["pid"] for e in mpi}
            check(sorted(ranks.get(p, -1) for p in pids) == list(range(NP)),
                  "every rank's MPI-IO calls, with its rank: %s" % sorted(ranks.get(p, -1) for p in pids))
            check(len(mpi) == NP * truth["MPI_File_write_at"] and all(t.file(e) == data for e in mpi),
                  "MPI_File_write_at: %d calls on the shared file" % len(mpi))
    finally:
        for d in daemons:
            d.terminate()
            d.wait(timeout=20)
        if made_slice:
            for scope in glob.glob(os.path.join(made_slice, "*.scope")) + [made_slice]:
                try:
                    os.rmdir(scope)
                except OSError:
                    pass
        pid = os.path.join(tmp, "munge", "pid")
        if os.path.exists(pid):
            mpid = open(pid).read().strip()
            subprocess.run(["kill", mpid])
            # munged writes its seed file as it exits: wait, or the
            # directory's removal races with it.
            for _ in range(100):
                if not os.path.exists("/proc/" + mpid):
                    break
                time.sleep(0.05)
done()
