#!/bin/sh
# Flux job prolog (/etc/flux/system/prolog.d/datacrumbs.sh, run by the
# perilog plugin as root on each node of a job).
exec /usr/local/libexec/datacrumbs/datacrumbs-job start "$FLUX_JOB_ID" "${FLUX_JOB_USERID:-0}"
