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

#include "darshan_ops.h"
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

int dc_hdf5_op(const char *name, size_t n)
{
	return dc_darshan_hdf5_op(name, n);
}

int dc_hdf5_module(int op)
{
	return op == DC_HOP_FOPEN || op == DC_HOP_FFLUSH || op == DC_HOP_FCLOSE
		   ? MOD_H5F
	       : op ? MOD_H5D
		    : 0;
}

int dc_hdf5_kind(int op)
{
	switch (op) {
	case DC_HOP_FOPEN:
	case DC_HOP_DOPEN:
	case DC_HOP_DOPEN_DEPRECATED: return DT_OPEN;
	case DC_HOP_FCLOSE:
	case DC_HOP_DCLOSE: return DT_CLOSE;
	case DC_HOP_FFLUSH:
	case DC_HOP_DFLUSH: return DT_META;
	case DC_HOP_DREAD: return DT_READ;
	case DC_HOP_DWRITE: return DT_WRITE;
	default: return DT_NONE;
	}
}

static const struct dc_dio_layout layout = {
	.bytes_read = D_BYTES_READ,
	.bytes_written = D_BYTES_WRITTEN,
	.rw_switches = D_RW_SWITCHES,
	.size_read = D_SIZE_READ,
	.size_write = D_SIZE_WRITE,
	.access = D_ACCESS,
	.access_count = D_ACCESS_COUNT,
	.t = { D_MAX_READ_TIME_SIZE, D_MAX_WRITE_TIME_SIZE, D_FASTEST_RANK },
};

/* H5F records have no slowest call and no fastest rank. */
static const struct dc_dtime_layout h5f_layout = { -1, -1, -1 };

static void io(struct drec *r, const struct dc_dcall *c, bool wr)
{
	r->c[wr ? D_WRITES : D_READS]++;
	dc_dio_call(r, &layout, (c->has & DC_EV_SIZE) ? c->size : 0, wr);
}

void dc_hdf5_call(struct drec *r, const struct dc_dcall *c, double t1,
		  double t2)
{
	dc_dtime_call(r, r->module == MOD_H5F ? &h5f_layout : &layout.t,
		      dc_hdf5_kind(c->op), t1, t2,
		      (c->has & DC_EV_SIZE) ? c->size : 0);
	switch (c->op) {
	case DC_HOP_FOPEN: r->c[F_OPENS]++; break;
	case DC_HOP_FFLUSH: r->c[F_FLUSHES]++; break;
	case DC_HOP_DOPEN_DEPRECATED:
		r->c[D_USE_DEPRECATED] = 1;
		__attribute__((fallthrough));
	case DC_HOP_DOPEN: r->c[D_OPENS]++; break;
	case DC_HOP_DREAD: io(r, c, false); break;
	case DC_HOP_DWRITE: io(r, c, true); break;
	case DC_HOP_DFLUSH: r->c[D_FLUSHES]++; break;
	default: break;
	}
}

void dc_hdf5_count(struct drec *r, const struct dc_dcounter *k)
{
	switch (k->op) {
	case DC_HOP_FOPEN: r->c[F_OPENS] += k->calls; break;
	case DC_HOP_FFLUSH: r->c[F_FLUSHES] += k->calls; break;
	case DC_HOP_DOPEN_DEPRECATED:
		r->c[D_USE_DEPRECATED] = 1;
		__attribute__((fallthrough));
	case DC_HOP_DOPEN: r->c[D_OPENS] += k->calls; break;
	case DC_HOP_DREAD:
	case DC_HOP_DWRITE:
		r->c[k->op == DC_HOP_DWRITE ? D_WRITES : D_READS] += k->calls;
		dc_dio_count(r, &layout, k, k->op == DC_HOP_DWRITE);
		break;
	case DC_HOP_DFLUSH: r->c[D_FLUSHES] += k->calls; break;
	default: break;
	}
}

bool dc_h5d_needs_calls(int k)
{
	return dc_dio_needs_calls(&layout, k);
}

void dc_h5f_reduce(const struct drec *first, int64_t *c, double *f)
{
	memset(c, 0, sizeof(int64_t) * DC_H5F_N);
	for (const struct drec *r = first; r; r = r->next)
		for (int k = 0; r->module == MOD_H5F && k < DC_H5F_N; k++)
			c[k] += r->c[k];
	dc_dtime_reduce(first, MOD_H5F, 0, &h5f_layout, c, f);
}

void dc_h5d_reduce(const struct drec *first, uint64_t ohash, int64_t *c,
		   double *f)
{
	dc_dio_reduce(first, MOD_H5D, ohash, &layout, c, f);
	/* Whether any process used the deprecated calls. */
	for (const struct drec *r = first; r; r = r->next)
		if (r->module == MOD_H5D && r->ohash == ohash)
			c[D_USE_DEPRECATED] |= r->c[D_USE_DEPRECATED];
}
