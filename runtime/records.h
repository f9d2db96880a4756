/* SPDX-License-Identifier: MIT */
#ifndef DC_RECORDS_H
#define DC_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "cli.h"
#include "runtime.h"

/*
 * The args of a trace's "start" and "end" records (docs/trace-format.md),
 * built here alone for the run's trace and for each job's. Each ends
 * with its NUL, ready for dc_pfw_marker().
 */

/* The run: its command (or --all, --pid), version, date, mode, probes,
 * and the file systems mounted (rt->out.mounts). */
void dc_rec_start(struct dc_buf *b, const struct dc_rt *rt, char **cmd,
		  const struct dc_opts *o, const char *date);
/* The run's end: events written and lost, per reason and probe (each
 * loss also said on stderr unless @quiet, then in one line). Returns
 * the events lost. */
uint64_t dc_rec_end(struct dc_buf *b, struct dc_rt *rt, bool quiet);
/* A job's trace in server mode; @mounts as the run's has them. */
void dc_rec_job_start(struct dc_buf *b, uint32_t job, const char *comm,
		      bool profile, const char *mounts);
/* A job's end: the run's end args @run_end when the server stops, else
 * the job's own counts; and what was withheld from it. */
void dc_rec_job_end(struct dc_buf *b, const char *run_end, uint64_t events,
		    uint64_t lost, const struct dc_withheld *held);

#endif
