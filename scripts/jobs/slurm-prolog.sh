#!/bin/sh
# SLURM Prolog (slurm.conf: Prolog=/etc/datacrumbs/slurm-prolog.sh): runs as
# root on every node of a job before it starts.
exec /usr/local/libexec/datacrumbs/datacrumbs-job start "$SLURM_JOB_ID" "${SLURM_JOB_UID:-0}"
