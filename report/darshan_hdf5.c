// SPDX-License-Identifier: MIT
/*
 * Darshan's H5F and H5D counters (darshan-hdf5.c of darshan-runtime
 * 3.4.7), from the HDF5 layer's calls: file opens and flushes, and per
 * dataset (named in its file, "/grp/data") opens, reads, writes, bytes
 * (elements selected times the dataset's type size, the trace's size),
 * switches, size buckets and common access sizes, the kinds of the file
 * selections read and written (the trace's args.selection and
 * args.regular) and the dataset's rank, elements and type size (args.ndims,
 * npoints and typesize, which H5Dclose carries). Whether a file was
 * opened through MPI-IO and a dataset transferred collectively, which
 * Darshan asks HDF5's property lists, is what the MPI-IO calls nested
 * under the HDF5 call did (so it needs the MPI-IO layer traced). What
 * else Darshan learns by asking HDF5 (chunk shapes, access lengths and
 * strides) the trace does not hold; those counters are left out.
 */
#include <string.h>

#include "darshan_ops.h"
#include "darshan_rec.h"

const char *const dc_h5f_names[DC_H5F_N] = { "OPENS", "FLUSHES", "USE_MPIIO" };

enum { F_OPENS, F_FLUSHES, F_USE_MPIIO };

enum {
	D_OPENS,
	D_READS,
	D_WRITES,
	D_FLUSHES,
	D_BYTES_READ,
	D_BYTES_WRITTEN,
	D_RW_SWITCHES,
	D_REGULAR_HYPERSLAB_SELECTS,
	D_IRREGULAR_HYPERSLAB_SELECTS,
	D_POINT_SELECTS,
	D_MAX_READ_TIME_SIZE,
	D_MAX_WRITE_TIME_SIZE,
	D_SIZE_READ,
	D_SIZE_WRITE = D_SIZE_READ + 10,
	D_ACCESS = D_SIZE_WRITE + 10,
	D_ACCESS_COUNT = D_ACCESS + 4,
	D_DATASPACE_NDIMS = D_ACCESS_COUNT + 4,
	D_DATASPACE_NPOINTS,
	D_DATATYPE_SIZE,
	D_USE_MPIIO_COLLECTIVE,
	D_USE_DEPRECATED,
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
	"REGULAR_HYPERSLAB_SELECTS",
	"IRREGULAR_HYPERSLAB_SELECTS",
	"POINT_SELECTS",
	"MAX_READ_TIME_SIZE",
	"MAX_WRITE_TIME_SIZE",
	DC_DSIZE_NAMES("SIZE_READ_AGG"),
	DC_DSIZE_NAMES("SIZE_WRITE_AGG"),
	DC_DACCESS_NAMES,
	"DATASPACE_NDIMS",
	"DATASPACE_NPOINTS",
	"DATATYPE_SIZE",
	"USE_MPIIO_COLLECTIVE",
	"USE_DEPRECATED",
	"FASTEST_RANK",
	"FASTEST_RANK_BYTES",
	"SLOWEST_RANK",
	"SLOWEST_RANK_BYTES",
};

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

/* HDF5's H5S_sel_type, and what HDF5 1.10 keeps of a hyperslab's
 * shape (docs/trace-format.md). */
enum { SEL_POINTS = 1, SEL_HYPERSLABS = 2 };
enum { SHAPE_REGULAR = 2 };

/* The kind of the file selection of a read or write: -1 for all three
 * once a call did not say (a trace of another spec). */
static void selection(struct drec *r, const struct dc_dcall *c)
{
	if (!(c->has & DC_EV_SELECTION)) {
		r->c[D_REGULAR_HYPERSLAB_SELECTS] = -1;
		r->c[D_IRREGULAR_HYPERSLAB_SELECTS] = -1;
		r->c[D_POINT_SELECTS] = -1;
	}
	if (r->c[D_POINT_SELECTS] < 0)
		return;
	if (c->selection == SEL_POINTS)
		r->c[D_POINT_SELECTS]++;
	else if (c->selection == SEL_HYPERSLABS && c->regular == SHAPE_REGULAR)
		r->c[D_REGULAR_HYPERSLAB_SELECTS]++;
	else if (c->selection == SEL_HYPERSLABS)
		r->c[D_IRREGULAR_HYPERSLAB_SELECTS]++;
}

static void io(struct drec *r, const struct dc_dcall *c, bool wr)
{
	r->c[wr ? D_WRITES : D_READS]++;
	selection(r, c);
	dc_dio_call(r, &layout, (c->has & DC_EV_SIZE) ? c->size : 0, wr);
}

/* The dataset's shape, as its close tells it: -1 until one does. */
static void shape(struct drec *r, const struct dc_dcall *c)
{
	if (c->op == DC_HOP_DCLOSE && (c->has & DC_EV_SHAPE)) {
		r->c[D_DATASPACE_NDIMS] = c->ndims;
		r->c[D_DATASPACE_NPOINTS] = c->npoints;
		r->c[D_DATATYPE_SIZE] = c->typesize;
		r->shaped = true;
	} else if (!r->shaped) {
		r->c[D_DATASPACE_NDIMS] = -1;
		r->c[D_DATASPACE_NPOINTS] = -1;
		r->c[D_DATATYPE_SIZE] = -1;
	}
}

void dc_hdf5_call(struct drec *r, const struct dc_dcall *c, double t1,
		  double t2)
{
	if (r->module == MOD_H5D)
		shape(r, c);
	dc_dtime_call(r, r->module == MOD_H5F ? &h5f_layout : &layout.t,
		      dc_hdf5_kind(c->op), t1, t2,
		      (c->has & DC_EV_SIZE) ? c->size : 0);
	switch (c->op) {
	case DC_HOP_FOPEN:
		r->c[F_OPENS]++;
		r->c[F_USE_MPIIO] |= !!(c->via & DC_VIA_MPIIO_OPEN);
		break;
	case DC_HOP_FFLUSH: r->c[F_FLUSHES]++; break;
	case DC_HOP_DOPEN_DEPRECATED:
		r->c[D_USE_DEPRECATED] = 1;
		__attribute__((fallthrough));
	case DC_HOP_DOPEN: r->c[D_OPENS]++; break;
	case DC_HOP_DREAD:
	case DC_HOP_DWRITE:
		io(r, c, c->op == DC_HOP_DWRITE);
		r->c[D_USE_MPIIO_COLLECTIVE] |= !!(c->via & DC_VIA_MPIIO_COLL);
		break;
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

/* Besides the common access sizes and slowest calls: the selection kinds
 * and the shape are the calls' arguments, which counter records do not
 * keep. */
bool dc_h5d_needs_calls(int k)
{
	return dc_dio_needs_calls(&layout, k) ||
	       (k >= D_REGULAR_HYPERSLAB_SELECTS && k <= D_POINT_SELECTS) ||
	       (k >= D_DATASPACE_NDIMS && k <= D_USE_MPIIO_COLLECTIVE);
}

/* Whether the file was opened through MPI-IO: the nesting of calls. */
bool dc_h5f_needs_calls(int k)
{
	return k == F_USE_MPIIO;
}

void dc_h5f_reduce(const struct drec *first, int64_t *c, double *f)
{
	memset(c, 0, sizeof(int64_t) * DC_H5F_N);
	for (const struct drec *r = first; r; r = r->next)
		for (int k = 0; r->module == MOD_H5F && k < DC_H5F_N; k++)
			c[k] =
			    k == F_USE_MPIIO ? c[k] | r->c[k] : c[k] + r->c[k];
	dc_dtime_reduce(first, MOD_H5F, 0, &h5f_layout, c, f);
}

void dc_h5d_reduce(const struct drec *first, uint64_t ohash, int64_t *c,
		   double *f)
{
	dc_dio_reduce(first, MOD_H5D, ohash, &layout, c, f);
	/* Whether any process used the deprecated calls; the selection
	 * kinds are unknown if a process's are. */
	for (const struct drec *r = first; r; r = r->next) {
		if (r->module != MOD_H5D || r->ohash != ohash)
			continue;
		c[D_USE_DEPRECATED] |= r->c[D_USE_DEPRECATED];
		c[D_USE_MPIIO_COLLECTIVE] |= r->c[D_USE_MPIIO_COLLECTIVE];
		for (int k = D_DATASPACE_NDIMS; k <= D_DATATYPE_SIZE; k++)
			c[k] = r == first ? r->c[k] : dc_max64(c[k], r->c[k]);
		for (int k = D_REGULAR_HYPERSLAB_SELECTS;
		     r->c[D_POINT_SELECTS] < 0 && k <= D_POINT_SELECTS; k++)
			c[k] = -1;
	}
}
