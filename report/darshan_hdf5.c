// SPDX-License-Identifier: MIT
/*
 * Darshan's H5F and H5D counters (darshan-hdf5.c of darshan-runtime
 * 3.4.7), from the HDF5 layer's calls: file opens and flushes, and per
 * dataset (named in its file, "/grp/data") opens, reads, writes, bytes
 * (elements selected times the dataset's type size, the trace's size),
 * switches, size buckets and common access sizes. What Darshan learns by
 * asking HDF5 (selection kinds, dataspace and chunk shapes, MPI-IO
 * property lists) the trace does not hold; those counters are left out.
 */
#include <string.h>

#include "darshan_rec.h"

const char *const dc_h5f_names[DC_H5F_N] = { "OPENS", "FLUSHES" };

enum { F_OPENS, F_FLUSHES };

enum {
	D_OPENS,
	D_READS,
	D_WRITES,
	D_FLUSHES,
	D_BYTES_READ,
	D_BYTES_WRITTEN,
	D_RW_SWITCHES,
	D_MAX_READ_TIME_SIZE,
	D_MAX_WRITE_TIME_SIZE,
	D_SIZE_READ,
	D_SIZE_WRITE = D_SIZE_READ + 10,
	D_ACCESS = D_SIZE_WRITE + 10,
	D_ACCESS_COUNT = D_ACCESS + 4,
	D_USE_DEPRECATED = D_ACCESS_COUNT + 4,
	D_FASTEST_RANK,
	D_FASTEST_RANK_BYTES,
	D_SLOWEST_RANK,
	D_SLOWEST_RANK_BYTES,
	D_N,
};

_Static_assert(D_N == DC_H5D_N, "dc_h5d_names has every counter");
_Static_assert(D_N <= DC_DREC_MAX, "an H5D record fits a drec");

const char *const dc_h5d_names[DC_H5D_N] = {
	"OPENS",
	"READS",
	"WRITES",
	"FLUSHES",
	"BYTES_READ",
	"BYTES_WRITTEN",
	"RW_SWITCHES",
	"MAX_READ_TIME_SIZE",
	"MAX_WRITE_TIME_SIZE",
	DC_DSIZE_NAMES("SIZE_READ_AGG"),
	DC_DSIZE_NAMES("SIZE_WRITE_AGG"),
	DC_DACCESS_NAMES,
	"USE_DEPRECATED",
	"FASTEST_RANK",
	"FASTEST_RANK_BYTES",
	"SLOWEST_RANK",
	"SLOWEST_RANK_BYTES",
};

enum hop {
	HOP_NONE,
	HOP_FOPEN,
	HOP_FFLUSH,
	HOP_DOPEN,
	HOP_DOPEN_DEPRECATED,
	HOP_DREAD,
	HOP_DWRITE,
	HOP_DFLUSH,
};

static const struct {
	const char *name;
	int op;
} hops[] = {
	{ "H5Fcreate", HOP_FOPEN },
	{ "H5Fopen", HOP_FOPEN },
	{ "H5Fflush", HOP_FFLUSH },
	{ "H5Dcreate2", HOP_DOPEN },
	{ "H5Dopen2", HOP_DOPEN },
	{ "H5Dcreate1", HOP_DOPEN_DEPRECATED },
	{ "H5Dopen1", HOP_DOPEN_DEPRECATED },
	{ "H5Dread", HOP_DREAD },
	{ "H5Dwrite", HOP_DWRITE },
	{ "H5Dflush", HOP_DFLUSH },
};

int dc_hdf5_op(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(hops) / sizeof(hops[0]); i++)
		if (n == strlen(hops[i].name) && !memcmp(name, hops[i].name, n))
			return hops[i].op;
	return HOP_NONE;
}

int dc_hdf5_module(int op)
{
	return op == HOP_FOPEN || op == HOP_FFLUSH ? MOD_H5F : op ? MOD_H5D : 0;
}

static void io(struct drec *r, const struct dc_dcall *c, bool wr)
{
	int64_t n = (c->has & DC_EV_SIZE) ? c->size : 0;
	int64_t *slowest = wr ? &r->max_wdur : &r->max_rdur;

	r->c[wr ? D_WRITES : D_READS]++;
	if (r->last_io && r->last_io != (wr ? 'w' : 'r'))
		r->c[D_RW_SWITCHES]++;
	r->last_io = wr ? 'w' : 'r';
	r->c[wr ? D_BYTES_WRITTEN : D_BYTES_READ] += n;
	r->c[(wr ? D_SIZE_WRITE : D_SIZE_READ) + dc_dbucket(n)]++;
	dc_dcommon_top4(&r->c[D_ACCESS], &r->c[D_ACCESS_COUNT], n,
			dc_dcommon_seen(&r->access, n), false);
	/* As for MPI-IO: the slowest call's size, kept as duration + 1. */
	if (c->dur + 1 > *slowest) {
		*slowest = c->dur + 1;
		r->c[wr ? D_MAX_WRITE_TIME_SIZE : D_MAX_READ_TIME_SIZE] = n;
	}
}

void dc_hdf5_call(struct drec *r, const struct dc_dcall *c)
{
	r->time += c->dur;
	switch (c->op) {
	case HOP_FOPEN: r->c[F_OPENS]++; break;
	case HOP_FFLUSH: r->c[F_FLUSHES]++; break;
	case HOP_DOPEN_DEPRECATED:
		r->c[D_USE_DEPRECATED] = 1;
		__attribute__((fallthrough));
	case HOP_DOPEN: r->c[D_OPENS]++; break;
	case HOP_DREAD: io(r, c, false); break;
	case HOP_DWRITE: io(r, c, true); break;
	case HOP_DFLUSH: r->c[D_FLUSHES]++; break;
	default: break;
	}
}

/* A dataset's records (one per process) reduced as Darshan reduces a
 * shared one; H5F records are sums. */
void dc_hdf5_reduce(const struct drec *first, int module, uint64_t ohash,
		    int64_t *c)
{
	const struct drec *fast = NULL, *slow = NULL, *rmax = NULL,
			  *wmax = NULL;
	int nrecs = 0;

	memset(c, 0, sizeof(int64_t) * D_N);
	for (const struct drec *r = first; r; r = r->next) {
		if (r->module != module || r->ohash != ohash)
			continue;
		nrecs++;
		if (module == MOD_H5F) {
			c[F_OPENS] += r->c[F_OPENS];
			c[F_FLUSHES] += r->c[F_FLUSHES];
			continue;
		}
		for (int k = 0; k < D_ACCESS; k++)
			if (k != D_MAX_READ_TIME_SIZE &&
			    k != D_MAX_WRITE_TIME_SIZE)
				c[k] += r->c[k];
		for (int j = 0; j < 4; j++)
			dc_dcommon_top4(&c[D_ACCESS], &c[D_ACCESS_COUNT],
					r->c[D_ACCESS + j],
					r->c[D_ACCESS_COUNT + j], true);
		c[D_USE_DEPRECATED] |= r->c[D_USE_DEPRECATED];
		if (!rmax || r->max_rdur > rmax->max_rdur)
			rmax = r;
		if (!wmax || r->max_wdur > wmax->max_wdur)
			wmax = r;
		if (!fast || r->time < fast->time)
			fast = r;
		if (!slow || r->time > slow->time)
			slow = r;
	}
	if (module == MOD_H5F || !nrecs)
		return;
	c[D_MAX_READ_TIME_SIZE] = rmax->c[D_MAX_READ_TIME_SIZE];
	c[D_MAX_WRITE_TIME_SIZE] = wmax->c[D_MAX_WRITE_TIME_SIZE];
	if (nrecs > 1) {
		c[D_FASTEST_RANK] = fast->rank;
		c[D_FASTEST_RANK_BYTES] =
		    fast->c[D_BYTES_READ] + fast->c[D_BYTES_WRITTEN];
		c[D_SLOWEST_RANK] = slow->rank;
		c[D_SLOWEST_RANK_BYTES] =
		    slow->c[D_BYTES_READ] + slow->c[D_BYTES_WRITTEN];
	}
}
