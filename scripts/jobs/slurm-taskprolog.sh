#!/bin/sh
# SLURM TaskProlog, where jobs have no cgroup of their own (proctrack
# without cgroups) and a node runs one job at a time: every task loads
# the client library and joins the job's collector over its socket.
echo "export DATACRUMBS_SOCKET=${DATACRUMBS_RUN:-/run/datacrumbs}/job-$SLURM_JOB_ID.sock"
echo "export LD_PRELOAD=/usr/local/lib/libdatacrumbs-client.so${LD_PRELOAD:+:$LD_PRELOAD}"
