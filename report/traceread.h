/* SPDX-License-Identifier: MIT */
#ifndef DC_TRACEREAD_H
#define DC_TRACEREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "event.h"

/* A line longer than this is damaged: status -EINVAL, never held whole. */
#define DC_LINE_MAX (1u << 20)
/* A gzip member inflating to more is streamed on one thread. */
#define DC_MEMBER_CAP (64u << 20)

/* One line of a trace, parsed. */
struct dc_line {
	const char *text; /* past DC_LINE_MAX, only the line's start */
	size_t len;
	uint64_t lineno; /* 1-based, in the decompressed text */
	int status;	 /* dc_event_parse()'s */
	struct dc_trace_event ev;
};

struct dc_read_opts {
	int threads; /* inflating and parsing threads; 0: one per CPU */
	/* Called on the caller's thread for every line, in file order;
	 * a negative return stops the reading with that error. */
	int (*line)(void *ctx, const struct dc_line *l);
	/* How far through the file reading is, in bytes; may be NULL. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *ctx;
	/* Only the gzip members (lines, in a plain trace) that start in
	 * [begin, end); end 0: to the end of the file. */
	uint64_t begin, end;
	bool quiet; /* damage counted, not named on stderr */
};

struct dc_read_stats {
	uint64_t lines;
	uint64_t bytes_in, bytes_out;
	uint64_t members;
	unsigned problems;	/* damage reported: truncated or corrupt gzip */
	uint64_t bad_members;	/* gzip members corrupt or truncated */
	uint64_t bytes_skipped; /* compressed bytes that could not be read */
};

/*
 * Read a .pfw or .pfw.gz trace (told apart by content). A gzip file is a
 * sequence of members; they are found by their headers and inflated and
 * parsed in parallel, and handed over in order, so memory stays bounded
 * for traces of any size. Damage (a truncated or corrupt member) is
 * reported naming the file, the byte offset and the line, and the rest of
 * the file is still read. Returns 0 or a negative errno (the file could
 * not be opened, or the callback stopped the reading).
 */
int dc_trace_read(const char *path, const struct dc_read_opts *o,
		  struct dc_read_stats *st);

/*
 * Cut the trace at @path into @n ranges of about equal size: @offs[0..n]
 * get 0, n - 1 offsets where a gzip member that inflates whole starts (a
 * line starts, in a plain trace), ascending, and the file's size. Equal
 * neighbours are an empty range (fewer members than ranges).
 */
int dc_trace_split(const char *path, int n, uint64_t *offs);

#endif
