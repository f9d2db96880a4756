#!/bin/sh
# SLURM Epilog (slurm.conf: Epilog=/etc/datacrumbs/slurm-epilog.sh): runs as
# root on every node of a job after it ends; closes its traces.
exec /usr/local/libexec/datacrumbs/datacrumbs-job stop "$SLURM_JOB_ID"
