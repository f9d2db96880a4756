// SPDX-License-Identifier: MIT
/*
 * Darshan's POSIX counters (darshan-posix.c of darshan-runtime 3.4.7),
 * from the POSIX layer's calls and POSIX AIO requests: opens, reads and
 * writes with their bytes, offsets, size buckets, common access sizes and
 * strides, seeks, stats, syncs, and the file system's alignment.
 */
#include <fcntl.h>
#include <limits.h>
#include <string.h>

#include "darshan_ops.h"
#include "darshan_rec.h"
#include "report.h"

#define POSIX_COUNTERS(X)                                                      \
	X(P_, ONE, OPENS)                                                      \
	X(P_, ONE, FILENOS)                                                    \
	X(P_, ONE, DUPS)                                                       \
	X(P_, ONE, READS)                                                      \
	X(P_, ONE, WRITES)                                                     \
	X(P_, ONE, SEEKS)                                                      \
	X(P_, ONE, STATS)                                                      \
	X(P_, ONE, MMAPS)                                                      \
	X(P_, ONE, FSYNCS)                                                     \
	X(P_, ONE, FDSYNCS)                                                    \
	X(P_, ONE, MODE)                                                       \
	X(P_, ONE, BYTES_READ)                                                 \
	X(P_, ONE, BYTES_WRITTEN)                                              \
	X(P_, ONE, MAX_BYTE_READ)                                              \
	X(P_, ONE, MAX_BYTE_WRITTEN)                                           \
	X(P_, ONE, CONSEC_READS)                                               \
	X(P_, ONE, CONSEC_WRITES)                                              \
	X(P_, ONE, SEQ_READS)                                                  \
	X(P_, ONE, SEQ_WRITES)                                                 \
	X(P_, ONE, RW_SWITCHES)                                                \
	X(P_, ONE, FILE_NOT_ALIGNED)                                           \
	X(P_, ONE, FILE_ALIGNMENT)                                             \
	X(P_, ONE, MAX_READ_TIME_SIZE)                                         \
	X(P_, ONE, MAX_WRITE_TIME_SIZE)                                        \
	X(P_, SIZES, SIZE_READ)                                                \
	X(P_, SIZES, SIZE_WRITE)                                               \
	X(P_, TOP4, STRIDE)                                                    \
	X(P_, TOP4, ACCESS)                                                    \
	X(P_, ONE, FASTEST_RANK)                                               \
	X(P_, ONE, FASTEST_RANK_BYTES)                                         \
	X(P_, ONE, SLOWEST_RANK)                                               \
	X(P_, ONE, SLOWEST_RANK_BYTES)

enum { POSIX_COUNTERS(DC_DCOUNTER_ENUM) P_N };
static const char *const names[] = { POSIX_COUNTERS(DC_DCOUNTER_NAME) };

_Static_assert(P_N <= DC_DREC_MAX, "a POSIX record fits a dc_drec");

static const struct dc_dtime_layout layout = {
	P_MAX_READ_TIME_SIZE,
	P_MAX_WRITE_TIME_SIZE,
	P_FASTEST_RANK,
};

/* The POSIX layer's functions; a POSIX AIO request (probes.d/posixaio.yaml)
 * Darshan counts as a read or a write, from submission to aio_return. */
static int op(const struct dc_str *cat, const struct dc_str *name, bool call)
{
	if (dc_str_is(cat, "AIO"))
		return !call			      ? -1
		       : dc_str_is(name, "aio_read")  ? DC_DOP_READ
		       : dc_str_is(name, "aio_write") ? DC_DOP_WRITE
						      : -1;
	return dc_darshan_op(name->p, name->n);
}

static int kind(int op)
{
	switch (op) {
	case DC_DOP_OPEN:
	case DC_DOP_DUP:
	case DC_DOP_FILENO: return DC_DK_OPEN;
	case DC_DOP_READ: return DC_DK_READ;
	case DC_DOP_WRITE: return DC_DK_WRITE;
	case DC_DOP_SEEK:
	case DC_DOP_STAT: return DC_DK_META;
	case DC_DOP_FSYNC:
	case DC_DOP_FDSYNC: return DC_DK_SYNC;
	case DC_DOP_CLOSE: return DC_DK_CLOSE;
	default: return DC_DK_NONE;
	}
}

/* POSIX_FILE_ALIGNMENT: the file system's preferred I/O size (Darshan
 * takes 1 MiB on Lustre, whose statfs says 4 KiB, and 4 KiB when statfs
 * failed), -1 on none Darshan keeps. */
static void made(struct dc_drec *r, const struct dc_darshan *d)
{
	char buf[64];
	const struct dc_mount *m =
	    dc_darshan_mount(d, dc_darshan_path(d, r->fhash, buf, sizeof(buf)));

	r->c[P_FILE_ALIGNMENT] = !m			      ? -1
				 : !strcmp(m->type, "lustre") ? 1 << 20
				 : m->bsize > 0		      ? m->bsize
							      : 4096;
}

static void io(struct dc_drec *r, const struct dc_dcall *c, bool wr)
{
	int64_t n = c->ret, off, stride,
		*last = wr ? &r->last_written : &r->last_read;
	int seq = wr ? P_SEQ_WRITES : P_SEQ_READS;

	off = (c->has & DC_EV_OFFSET) ? c->offset : r->offset;
	if (off > *last)
		r->c[seq]++;
	if (off == *last + 1)
		r->c[seq - 2]++; /* CONSEC_ */
	stride = off > 0 && off > *last && *last ? off - *last - 1 : 0;
	*last = off + n - 1;
	r->offset = off + n;
	if (wr)
		r->c[P_MAX_BYTE_WRITTEN] =
		    dc_max64(r->c[P_MAX_BYTE_WRITTEN], off + n - 1);
	else
		r->c[P_MAX_BYTE_READ] =
		    dc_max64(r->c[P_MAX_BYTE_READ], off + n - 1);
	r->c[wr ? P_BYTES_WRITTEN : P_BYTES_READ] += n;
	r->c[wr ? P_WRITES : P_READS]++;
	r->c[(wr ? P_SIZE_WRITE : P_SIZE_READ) + dc_dbucket(n)]++;
	dc_dcommon_top4(&r->c[P_ACCESS], &r->c[P_ACCESS_COUNT], n,
			dc_dcommon_seen(&r->access, n), false);
	dc_dcommon_top4(&r->c[P_STRIDE], &r->c[P_STRIDE_COUNT], stride,
			dc_dcommon_seen(&r->stride, stride), false);
	if (r->last_io && r->last_io != (wr ? 'w' : 'r'))
		r->c[P_RW_SWITCHES]++;
	r->last_io = wr ? 'w' : 'r';
	if (r->c[P_FILE_ALIGNMENT] > 0 && off % r->c[P_FILE_ALIGNMENT])
		r->c[P_FILE_NOT_ALIGNED]++;
}

static void call(struct dc_drec *r, const struct dc_dcall *c, double t1,
		 double t2)
{
	dc_dtime_call(r, &layout, kind(c->op), t1, t2, c->ret);
	switch (c->op) {
	case DC_DOP_OPEN:
		r->offset = r->last_read = r->last_written = 0;
		r->c[P_OPENS]++;
		/* The mode an open creates with (creat's is always): Darshan
		 * keeps the last one given. */
		if ((c->has & DC_EV_MODE) && c->mode &&
		    (!(c->has & DC_EV_FLAGS) || (c->flags & O_CREAT)))
			r->c[P_MODE] = c->mode;
		break;
	case DC_DOP_DUP:
		r->c[P_OPENS]++;
		r->c[P_DUPS]++;
		break;
	case DC_DOP_FILENO:
		r->c[P_OPENS]++;
		r->c[P_FILENOS]++;
		break;
	case DC_DOP_READ: io(r, c, false); break;
	case DC_DOP_WRITE: io(r, c, true); break;
	case DC_DOP_SEEK:
		r->offset = c->ret;
		r->c[P_SEEKS]++;
		break;
	case DC_DOP_STAT: r->c[P_STATS]++; break;
	case DC_DOP_MMAP: r->c[P_MMAPS]++; break;
	case DC_DOP_FSYNC: r->c[P_FSYNCS]++; break;
	case DC_DOP_FDSYNC: r->c[P_FDSYNCS]++; break;
	default: break;
	}
}

static void count(struct dc_drec *r, const struct dc_dcounter *k)
{
	bool wr = k->op == DC_DOP_WRITE;
	int64_t n = k->calls, *c = r->c;

	switch (k->op) {
	case DC_DOP_OPEN: c[P_OPENS] += n; break;
	case DC_DOP_DUP:
		c[P_OPENS] += n;
		c[P_DUPS] += n;
		break;
	case DC_DOP_FILENO:
		c[P_OPENS] += n;
		c[P_FILENOS] += n;
		break;
	case DC_DOP_READ:
	case DC_DOP_WRITE:
		c[wr ? P_WRITES : P_READS] += n;
		c[wr ? P_BYTES_WRITTEN : P_BYTES_READ] += k->size_sum;
		c[wr ? P_SEQ_WRITES : P_SEQ_READS] += k->seq;
		c[wr ? P_CONSEC_WRITES : P_CONSEC_READS] += k->consec;
		c[P_RW_SWITCHES] += k->switches;
		c[wr ? P_MAX_BYTE_WRITTEN : P_MAX_BYTE_READ] = dc_max64(
		    c[wr ? P_MAX_BYTE_WRITTEN : P_MAX_BYTE_READ], k->max_byte);
		for (int i = 0; i < DC_HIST_N; i++)
			c[(wr ? P_SIZE_WRITE : P_SIZE_READ) + i] += k->hist[i];
		break;
	case DC_DOP_SEEK: c[P_SEEKS] += n; break;
	case DC_DOP_STAT: c[P_STATS] += n; break;
	case DC_DOP_MMAP: c[P_MMAPS] += n; break;
	case DC_DOP_FSYNC: c[P_FSYNCS] += n; break;
	case DC_DOP_FDSYNC: c[P_FDSYNCS] += n; break;
	default: break;
	}
}

/* The mode is the open's argument and the alignment needs each call's
 * offset: no counter keeps them. */
static bool needs_calls(int k)
{
	return k == P_MODE || k == P_FILE_NOT_ALIGNED ||
	       k == P_MAX_READ_TIME_SIZE || k == P_MAX_WRITE_TIME_SIZE ||
	       (k >= P_STRIDE && k < P_FASTEST_RANK);
}

/* Sums and maxima, the common access sizes and strides merged, and the
 * timing. */
static void reduce(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		   double *f)
{
	int mode_rank = INT_MIN;

	memset(c, 0, sizeof(int64_t) * DC_DREC_MAX);
	for (const struct dc_drec *x = first; x; x = x->next) {
		if (x->module != DC_DM_POSIX)
			continue;
		/* Sums and maxima come before the strides. */
		for (int k = 0; k < P_STRIDE; k++) {
			if (k == P_MAX_READ_TIME_SIZE ||
			    k == P_MAX_WRITE_TIME_SIZE)
				continue;
			/* Darshan's reduction keeps the mode of the record
			 * it merges in last: under MPI's binomial tree, the
			 * highest rank's (0 for a file only rank 0 made). */
			if (k == P_MODE) {
				if (x->rank >= mode_rank) {
					c[k] = x->c[k];
					mode_rank = x->rank;
				}
				continue;
			}
			/* Darshan keeps one rank's; all agree (one file). */
			if (k == P_FILE_ALIGNMENT) {
				c[k] = x->c[k];
				continue;
			}
			c[k] = k == P_MAX_BYTE_READ || k == P_MAX_BYTE_WRITTEN
				   ? dc_max64(c[k], x->c[k])
				   : c[k] + x->c[k];
		}
		dc_dcommon_merge(&c[P_ACCESS], &c[P_ACCESS_COUNT],
				 &x->c[P_ACCESS], &x->c[P_ACCESS_COUNT]);
		dc_dcommon_merge(&c[P_STRIDE], &c[P_STRIDE_COUNT],
				 &x->c[P_STRIDE], &x->c[P_STRIDE_COUNT]);
	}
	dc_dtime_reduce(first, DC_DM_POSIX, ohash, &layout, c, f);
}

const struct dc_dmodule dc_dposix = {
	.prefix = "POSIX",
	.label = "POSIX",
	.names = names,
	.n = P_N,
	.times = dc_dtimes_all,
	.ntimes = DC_DT_N,
	.layers = { "POSIX", "AIO" },
	.family = DC_DM_POSIX,
	.opless = true,
	.op = op,
	.kind = kind,
	.made = made,
	.call = call,
	.count = count,
	.needs_calls = needs_calls,
	.reduce = reduce,
	.ops = { "OPENS", "READS", "WRITES", "SEEKS", "STATS", "MMAPS",
		 "FSYNCS", "FDSYNCS", "DUPS", "FILENOS" },
	.hist = "SIZE_READ_0_100",
	.access = true,
	.perf = true,
};
