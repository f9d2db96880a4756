/* SPDX-License-Identifier: MIT */
#ifndef DC_EVENT_H
#define DC_EVENT_H

#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <datacrumbs/abi.h>

/* Text inside the parsed line: a string's contents (@quoted), still
 * JSON-escaped when @esc, or a raw value such as a number. */
struct dc_str {
	const char *p;
	uint32_t n;
	uint16_t esc;
	uint16_t quoted;
};

/* Which optional fields a line had. */
enum {
	DC_EV_ID = 1 << 0,
	DC_EV_PIDX = 1 << 1,
	DC_EV_LEVEL = 1 << 2,
	DC_EV_TS = 1 << 3,
	DC_EV_DUR = 1 << 4,
	DC_EV_FHASH = 1 << 5,
	DC_EV_HHASH = 1 << 6,
	DC_EV_SIZE = 1 << 7,
	DC_EV_RET = 1 << 8,
	DC_EV_COUNT = 1 << 9,
	DC_EV_DUR_SUM = 1 << 10,
	DC_EV_SIZE_SUM = 1 << 11,
	DC_EV_ARG_NAME = 1 << 12,
	DC_EV_ARG_VALUE = 1 << 13,
	DC_EV_PID = 1 << 14,
	DC_EV_TID = 1 << 15,
	DC_EV_OFFSET = 1 << 16,
	DC_EV_WHENCE = 1 << 17,
	DC_EV_FLAGS = 1 << 18,
	DC_EV_OBJECT = 1 << 19,
	DC_EV_AIO_HELPER = 1 << 20, /* args.aio_helper: a POSIX AIO request's
				       I/O, made by the C library's thread */
	DC_EV_MODE = 1 << 21,
	DC_EV_SELECTION = 1 << 22,    /* args.selection (and args.regular) */
	DC_EV_SHAPE = 1 << 23,	      /* args.ndims, npoints and typesize */
	DC_EV_SIZE_UNKNOWN = 1 << 24, /* args.size_unknown: it moved bytes
					 the tracer could not tell */
};

/* Lane tracks of kernel requests: tid | DC_LANE_BIT | lane << 22. */
#define DC_LANE_BIT (1u << 30)
#define DC_TID_MASK 0x3fffffu

/*
 * One line of a DFTracer trace (ours or DFTracer's own): keys in any
 * order, unknown keys skipped. Hashes are 16 hex digits in a string or,
 * in DFTracer's older traces, decimal numbers; both become a u64. Not
 * the BPF record, struct dc_event of <datacrumbs/abi.h>.
 */
struct dc_trace_event {
	char ph; /* 'X', 'C', 'M', ... or 0 when missing */
	uint32_t has;
	struct dc_str name, cat;
	struct dc_str object; /* args.object: an HDF5 dataset or group */
	uint64_t id;
	int64_t p_idx, level;
	uint32_t pid, tid;
	int64_t ts, dur;
	uint64_t fhash, hhash;
	int64_t size, ret, offset, whence, flags, mode;
	int64_t selection, regular;	   /* HDF5: the file selection's kind */
	int64_t ndims, npoints, typesize;  /* ... a dataset's shape */
	uint64_t count, dur_sum, size_sum; /* counter events */
	/* ... and their Darshan counters (docs/trace-format.md): 0 when
	 * not written. */
	uint64_t seq, consec, switches, errs, hist[DC_HIST_N];
	/* args.size_unknown: calls whose bytes could not be told (1 on a
	 * call, the count on a counter), none in size or size_sum */
	uint64_t unsized;
	int64_t max_byte;
	bool inner;
	/* Metadata: args.name, and args.value as a string or raw number. */
	struct dc_str arg_name, arg_value;
	/* The whole args object, for readers of other keys (the end record). */
	const char *args;
	size_t args_len;
	/* On failure: what was wrong and where (0-based byte column). */
	const char *err;
	size_t err_col;
};

#define DC_EVENT_SKIP 1 /* a "[" or "]" line, or a blank one */

/* Times (ts, dur) a trace may have, in us: [0, 2^62). A line with
 * another is damaged. */
#define DC_TIME_MAX (INT64_C(1) << 62)

/* Parse one line (without its '\n'): 0, DC_EVENT_SKIP, or -EINVAL with
 * ev->err and ev->err_col set. Never reads outside @line[0..len). */
int dc_event_parse(const char *line, size_t len, struct dc_trace_event *ev);

/* A parsed line's @status (dc_event_parse()'s) after the rules every
 * record keeps: -EINVAL with ev->err set when it breaks one. */
int dc_event_check(int status, struct dc_trace_event *ev);

/* Iterate a flat JSON object's members: *@pos starts at its '{'. Returns
 * 1 with the key and the raw value text, 0 at the end, -EINVAL if bad. */
int dc_json_member(const char *s, size_t len, size_t *pos, struct dc_str *key,
		   struct dc_str *val);

/* Unescape @s into @out (at most @cap - 1 bytes and a NUL); returns the
 * length written. */
size_t dc_str_copy(const struct dc_str *s, char *out, size_t cap);

/* Whether @s is the text @w (as written: escapes are not undone).
 * Inline: with @w a literal, its length is known where it is called. */
static inline bool dc_str_is(const struct dc_str *s, const char *w)
{
	size_t n = strlen(w);

	return s->n == n && !memcmp(s->p, w, n);
}

/* A hash written as a hex string or a decimal number: 0 if neither. */
uint64_t dc_hash_value(const struct dc_str *raw);

#endif
