// SPDX-License-Identifier: MIT
/*
 * Darshan's STDIO counters (darshan-stdio.c of darshan-runtime 3.4.7),
 * from the STDIO layer's calls: stream opens, reads, writes, flushes and
 * seeks, with their bytes and the stream's offset. fileno, a STDIO
 * function, is counted by POSIX (report/darshan.c).
 */
#include <string.h>

#include "darshan_ops.h"
#include "darshan_rec.h"

#define STDIO_COUNTERS(X)                                                      \
	X(S_, ONE, OPENS)                                                      \
	X(S_, ONE, FDOPENS)                                                    \
	X(S_, ONE, READS)                                                      \
	X(S_, ONE, WRITES)                                                     \
	X(S_, ONE, SEEKS)                                                      \
	X(S_, ONE, FLUSHES)                                                    \
	X(S_, ONE, BYTES_WRITTEN)                                              \
	X(S_, ONE, BYTES_READ)                                                 \
	X(S_, ONE, MAX_BYTE_READ)                                              \
	X(S_, ONE, MAX_BYTE_WRITTEN)                                           \
	X(S_, ONE, FASTEST_RANK)                                               \
	X(S_, ONE, FASTEST_RANK_BYTES)                                         \
	X(S_, ONE, SLOWEST_RANK)                                               \
	X(S_, ONE, SLOWEST_RANK_BYTES)

enum { STDIO_COUNTERS(DC_DCOUNTER_ENUM) S_N };
static const char *const names[] = { STDIO_COUNTERS(DC_DCOUNTER_NAME) };

/* Darshan's STDIO module keeps no slowest call. */
static const struct dc_dtime_layout layout = { -1, -1, S_FASTEST_RANK };

static const int8_t times[] = {
	DC_DT_META_TIME,
	DC_DT_WRITE_TIME,
	DC_DT_READ_TIME,
	DC_DT_OPEN_START,
	DC_DT_CLOSE_START,
	DC_DT_WRITE_START,
	DC_DT_READ_START,
	DC_DT_OPEN_END,
	DC_DT_CLOSE_END,
	DC_DT_WRITE_END,
	DC_DT_READ_END,
	DC_DT_FASTEST_RANK_TIME,
	DC_DT_SLOWEST_RANK_TIME,
	DC_DT_VARIANCE_RANK_TIME,
	DC_DT_VARIANCE_RANK_BYTES,
};

static int op(const struct dc_str *cat, const struct dc_str *name, bool call)
{
	(void)cat;
	(void)call;
	return dc_darshan_op(name->p, name->n);
}

static int kind(int op)
{
	switch (op) {
	case DC_DOP_SOPEN:
	case DC_DOP_SFDOPEN: return DC_DK_OPEN;
	case DC_DOP_SREAD: return DC_DK_READ;
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH: return DC_DK_WRITE;
	case DC_DOP_SSEEK:
	case DC_DOP_REWIND: return DC_DK_META;
	case DC_DOP_SCLOSE: return DC_DK_CLOSE;
	default: return DC_DK_NONE;
	}
}

static void call(struct dc_drec *r, const struct dc_dcall *c, double t1,
		 double t2)
{
	int64_t n = (c->has & DC_EV_SIZE) ? c->size : 0;
	int64_t off = r->offset;

	dc_dtime_call(r, &layout, kind(c->op), t1, t2, n);
	switch (c->op) {
	case DC_DOP_SOPEN:
		r->offset = 0;
		r->c[S_OPENS]++;
		break;
	/* A stream on an open fd: the offset goes on from the file's. */
	case DC_DOP_SFDOPEN:
		r->c[S_OPENS]++;
		r->c[S_FDOPENS]++;
		break;
	case DC_DOP_SREAD:
		r->offset = off + n;
		r->c[S_MAX_BYTE_READ] =
		    dc_max64(r->c[S_MAX_BYTE_READ], off + n - 1);
		r->c[S_BYTES_READ] += n;
		r->c[S_READS]++;
		break;
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH:
		r->offset = off + n;
		r->c[S_MAX_BYTE_WRITTEN] =
		    dc_max64(r->c[S_MAX_BYTE_WRITTEN], off + n - 1);
		r->c[S_BYTES_WRITTEN] += n;
		r->c[c->op == DC_DOP_SFLUSH ? S_FLUSHES : S_WRITES]++;
		break;
	case DC_DOP_SSEEK:
		/* The new offset is known for SEEK_SET only. */
		if ((c->has & DC_EV_OFFSET) && (c->has & DC_EV_WHENCE) &&
		    c->whence == 0)
			r->offset = c->offset;
		r->c[S_SEEKS]++;
		break;
	case DC_DOP_REWIND:
		r->offset = 0;
		r->c[S_SEEKS]++;
		break;
	default: break;
	}
}

static void count(struct dc_drec *r, const struct dc_dcounter *k)
{
	bool wr = k->op == DC_DOP_SWRITE || k->op == DC_DOP_SFLUSH;
	int64_t n = k->calls, *c = r->c;

	switch (k->op) {
	case DC_DOP_SOPEN: c[S_OPENS] += n; break;
	case DC_DOP_SFDOPEN:
		c[S_OPENS] += n;
		c[S_FDOPENS] += n;
		break;
	case DC_DOP_SREAD:
	case DC_DOP_SWRITE:
	case DC_DOP_SFLUSH:
		c[k->op == DC_DOP_SREAD	   ? S_READS
		  : k->op == DC_DOP_SFLUSH ? S_FLUSHES
					   : S_WRITES] += n;
		c[wr ? S_BYTES_WRITTEN : S_BYTES_READ] += k->size_sum;
		c[wr ? S_MAX_BYTE_WRITTEN : S_MAX_BYTE_READ] = dc_max64(
		    c[wr ? S_MAX_BYTE_WRITTEN : S_MAX_BYTE_READ], k->max_byte);
		break;
	case DC_DOP_SSEEK:
	case DC_DOP_REWIND: c[S_SEEKS] += n; break;
	default: break;
	}
}

/* Sums and maxima, and the timing. */
static void reduce(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		   double *f)
{
	memset(c, 0, sizeof(int64_t) * DC_DREC_MAX);
	for (const struct dc_drec *x = first; x; x = x->next)
		for (int k = 0; x->module == DC_DM_STDIO && k < S_FASTEST_RANK;
		     k++)
			c[k] = k == S_MAX_BYTE_READ || k == S_MAX_BYTE_WRITTEN
				   ? dc_max64(c[k], x->c[k])
				   : c[k] + x->c[k];
	dc_dtime_reduce(first, DC_DM_STDIO, ohash, &layout, c, f);
}

const struct dc_dmodule dc_dstdio = {
	.prefix = "STDIO",
	.label = "STDIO",
	.names = names,
	.n = S_N,
	.times = times,
	.ntimes = sizeof(times),
	.layers = { "STDIO" },
	.family = DC_DM_STDIO,
	.opless = true,
	.op = op,
	.kind = kind,
	.call = call,
	.count = count,
	.reduce = reduce,
	.ops = { "OPENS", "READS", "WRITES", "SEEKS", "FLUSHES" },
	.hist = "",
	.perf = true,
};
