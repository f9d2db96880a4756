#!/bin/sh
# Flux job epilog (/etc/flux/system/epilog.d/datacrumbs.sh).
exec /usr/local/libexec/datacrumbs/datacrumbs-job stop "$FLUX_JOB_ID"
