/* SPDX-License-Identifier: MIT */
#ifndef DC_RECORDS_H
#define DC_RECORDS_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "cli.h"
#include "session.h"
#include "sinks.h"

/*
 * The args of a trace's "start" and "end" records (docs/trace-format.md),
 * built here alone for the run's trace and for each job's. Each ends
 * with its NUL, ready for dc_pfw_marker().
 */

/* The run: its command (or --all, --pid), version, date, mode, probes,
 * and the file systems mounted (@mounts, from sinks). */
void dc_rec_start(struct dc_buf *b, const struct dc_session *sess,
		  const char *mounts, char **cmd, const struct dc_opts *o,
		  const char *date);
/* What the run's end says beyond its probes' counts and losses (which
 * the caller has read: dc_read_losses()). */
struct dc_rec_counts {
	uint64_t unmatched;   /* wrapper calls not matched to a syscall */
	uint64_t untraced;    /* processes past --max-procs */
	uint64_t filtered;    /* calls --paths kept out */
	uint64_t bad_records; /* malformed ring buffer records */
};
/* The run's end: events written and lost, per reason and probe (each
 * loss also said on stderr unless @quiet, then in one line), and what
 * was withheld. Returns the events lost. */
uint64_t dc_rec_end(struct dc_buf *b, const struct dc_session *sess,
		    const struct dc_rec_counts *n,
		    const struct dc_withheld *held, bool quiet);
/* A job's trace in server mode; @mounts as the run's has them. */
void dc_rec_job_start(struct dc_buf *b, uint32_t job, const char *comm,
		      bool profile, const char *mounts);
/* A job's end: the run's end args @run_end when the server stops, else
 * the job's own counts; and what was withheld from it. */
void dc_rec_job_end(struct dc_buf *b, const char *run_end, uint64_t events,
		    uint64_t lost, const struct dc_withheld *held);

#endif
