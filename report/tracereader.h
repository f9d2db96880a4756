/* SPDX-License-Identifier: MIT */
/* The trace reader's state: shared by traceread.c, inflate.c, tracesplit.c. */
#ifndef DC_TRACEREADER_H
#define DC_TRACEREADER_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "traceread.h"

#define WINDOW	   8	      /* tasks in flight */
#define STREAM_OUT (4u << 20) /* output piece when streaming */
/* A gzip member's first bytes: its magic and deflate. */
#define DC_GZ_MAGIC "\x1f\x8b\x08"

enum result { RES_OK, RES_BAD, RES_TRUNC, RES_BIG };

/* One piece of the file: a gzip member (or a candidate that turns out
 * not to be one) or a chunk of plain text. */
struct task {
	uint64_t off, end;
	int state; /* 0 free, 1 being worked on, 2 done */
	enum result res;
	char *text; /* inflated text (in buf), or a pointer into the mapping */
	size_t len;
	/* Kept from task to task: fresh pages cost a fault each. */
	char *buf;
	size_t cap;
	/* The lines after the first '\n' and up to the last, parsed. */
	struct dc_line *lines;
	size_t nlines, lines_cap;
	size_t first_nl, last_nl; /* SIZE_MAX when there is no '\n' */
};

struct reader {
	const char *path;
	const struct dc_read_opts *o;
	struct dc_read_stats *st;
	const unsigned char *map;
	size_t size;
	uint64_t first; /* where reading starts */
	uint64_t limit; /* plain text: where it ends (the file's size) */
	uint64_t
	    stop_at; /* gzip: members starting here or later are not read */
	bool gz;
	pthread_mutex_t mu;
	pthread_cond_t work, done;
	struct task slots[WINDOW];
	uint64_t next_task, consumed;
	/* Tasks at or past stop_at not yet consumed: one at a time, as the
	 * first that inflates ends the range. */
	uint64_t beyond;
	uint64_t scan;	   /* where the search for the next task goes on */
	uint64_t released; /* pages before this were given back */
	bool scan_done, stop;
#ifdef DC_HAVE_ISAL
	pthread_key_t dkey;
#endif
	/* Consumer state: the line so far (its first DC_LINE_MAX + 1 bytes:
	 * a longer one is damaged, and is not held), the line count. */
	struct dc_buf carry;
	size_t carry_len;
	uint64_t lineno;
	int err;
};

/* inflate.c */
/* Inflate the member at @in, @avail bytes of input, into @t with zlib. */
enum result dc_inflate_zlib(const unsigned char *in, size_t avail,
			    struct task *t);
#ifdef DC_HAVE_ISAL
/* The member of @t with igzip: false if it cannot (then zlib tries). */
bool dc_inflate_fast(struct reader *r, struct task *t);
/* Free a thread's igzip state (r->dkey's destructor). */
void dc_free_decompressor(void *d);
#endif

/* tracesplit.c */
/* Set @r to read the members (lines) that start in [@begin, @end). */
void dc_range_of(struct reader *r, uint64_t begin, uint64_t end);

#endif
