/* SPDX-License-Identifier: MIT */
#ifndef DC_GZOUT_H
#define DC_GZOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/*
 * Trace output as a sequence of gzip members, each holding whole lines:
 * a member is closed when its buffer reaches the member size, when
 * dc_gz_tick() finds it older than the interval, and at close. So every
 * closed member stays readable if the process is killed, and readers can
 * split the file at member boundaries. With @compress false the lines are
 * written as plain text at the same points.
 */
struct dc_gz {
	int fd;
	bool compress;
	int level;
	size_t member_size;
	uint64_t interval_ns;
	uint64_t opened_ns; /* when the current member got its first line */
	struct dc_buf in;
	struct dc_buf out;
	void *comp; /* the compressor (gzout.c) */
	int error;  /* first write error (-errno); later writes are skipped */
	bool hold;  /* lines of one group are being written: no size cut */
	uint64_t bytes_in, bytes_out, members;
};

int dc_gz_open(struct dc_gz *gz, int fd, bool compress, int level,
	       size_t member_size, uint64_t interval_ns);
/* The buffer the next line goes into; call dc_gz_line_done() after. */
static inline struct dc_buf *dc_gz_buf(struct dc_gz *gz)
{
	return &gz->in;
}
int dc_gz_line_done(struct dc_gz *gz, uint64_t now_ns);
/* The lines between these two calls go into one member, whatever its size:
 * a tree of nested calls is never cut, so a reader of a range of members
 * sees whole trees. */
static inline void dc_gz_hold(struct dc_gz *gz)
{
	gz->hold = true;
}
int dc_gz_release(struct dc_gz *gz, uint64_t now_ns);
/* Returns the first write error, if any, so a caller notices it early. */
int dc_gz_tick(struct dc_gz *gz, uint64_t now_ns);
int dc_gz_flush(struct dc_gz *gz);
/* Flush and free; does not close fd. Returns the first error, if any. */
int dc_gz_close(struct dc_gz *gz);

#endif
