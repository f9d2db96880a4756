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

#define H5F_COUNTERS(X)                                                        \
	X(F_, ONE, OPENS)                                                      \
	X(F_, ONE, FLUSHES)                                                    \
	X(F_, ONE, USE_MPIIO)

#define H5D_COUNTERS(X)                                                        \
	X(D_, ONE, OPENS)                                                      \
	X(D_, ONE, READS)                                                      \
	X(D_, ONE, WRITES)                                                     \
	X(D_, ONE, FLUSHES)                                                    \
	X(D_, ONE, BYTES_READ)                                                 \
	X(D_, ONE, BYTES_WRITTEN)                                              \
	X(D_, ONE, RW_SWITCHES)                                                \
	X(D_, ONE, REGULAR_HYPERSLAB_SELECTS)                                  \
	X(D_, ONE, IRREGULAR_HYPERSLAB_SELECTS)                                \
	X(D_, ONE, POINT_SELECTS)                                              \
	X(D_, ONE, MAX_READ_TIME_SIZE)                                         \
	X(D_, ONE, MAX_WRITE_TIME_SIZE)                                        \
	X(D_, SIZES, SIZE_READ_AGG)                                            \
	X(D_, SIZES, SIZE_WRITE_AGG)                                           \
	X(D_, TOP4, ACCESS)                                                    \
	X(D_, ONE, DATASPACE_NDIMS)                                            \
	X(D_, ONE, DATASPACE_NPOINTS)                                          \
	X(D_, ONE, DATATYPE_SIZE)                                              \
	X(D_, ONE, USE_MPIIO_COLLECTIVE)                                       \
	X(D_, ONE, USE_DEPRECATED)                                             \
	X(D_, ONE, FASTEST_RANK)                                               \
	X(D_, ONE, FASTEST_RANK_BYTES)                                         \
	X(D_, ONE, SLOWEST_RANK)                                               \
	X(D_, ONE, SLOWEST_RANK_BYTES)

enum { H5F_COUNTERS(DC_DCOUNTER_ENUM) F_N };
enum { H5D_COUNTERS(DC_DCOUNTER_ENUM) D_N };
static const char *const h5f_names[] = { H5F_COUNTERS(DC_DCOUNTER_NAME) };
static const char *const h5d_names[] = { H5D_COUNTERS(DC_DCOUNTER_NAME) };

_Static_assert(D_N <= DC_DREC_MAX, "an H5D record fits a dc_drec");

static const int8_t h5f_times[] = {
	DC_DT_OPEN_START, DC_DT_CLOSE_START, DC_DT_OPEN_END,
	DC_DT_CLOSE_END,  DC_DT_META_TIME,
};

/* The module, DC_DM_H5F or DC_DM_H5D, that counts op @op; 0: none. */
static int module_of(int op)
{
	return op == DC_HOP_FOPEN || op == DC_HOP_FFLUSH || op == DC_HOP_FCLOSE
		   ? DC_DM_H5F
	       : op ? DC_DM_H5D
		    : 0;
}

/* HDF5's calls, told apart by function: @module's (H5F's or H5D's). */
static int hdf5_op(int module, const struct dc_str *name)
{
	int op = dc_darshan_hdf5_op(name->p, name->n);

	return module_of(op) == module ? op : 0;
}

static int h5f_op(const struct dc_str *cat, const struct dc_str *name,
		  bool call)
{
	(void)cat;
	(void)call;
	return hdf5_op(DC_DM_H5F, name);
}

static int h5d_op(const struct dc_str *cat, const struct dc_str *name,
		  bool call)
{
	(void)cat;
	(void)call;
	return hdf5_op(DC_DM_H5D, name);
}

static int kind(int op)
{
	switch (op) {
	case DC_HOP_FOPEN:
	case DC_HOP_DOPEN:
	case DC_HOP_DOPEN_DEPRECATED: return DC_DK_OPEN;
	case DC_HOP_FCLOSE:
	case DC_HOP_DCLOSE: return DC_DK_CLOSE;
	case DC_HOP_FFLUSH:
	case DC_HOP_DFLUSH: return DC_DK_META;
	case DC_HOP_DREAD: return DC_DK_READ;
	case DC_HOP_DWRITE: return DC_DK_WRITE;
	default: return DC_DK_NONE;
	}
}

static const struct dc_dio_layout layout = {
	.bytes_read = D_BYTES_READ,
	.bytes_written = D_BYTES_WRITTEN,
	.rw_switches = D_RW_SWITCHES,
	.size_read = D_SIZE_READ_AGG,
	.size_write = D_SIZE_WRITE_AGG,
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
static void selection(struct dc_drec *r, const struct dc_dcall *c)
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

/* A call whose bytes the trace could not tell (args.size_unknown)
 * makes its direction's bytes -1, darshan-parser's missing value, and
 * counts in no size bucket. */
static void io(struct dc_drec *r, const struct dc_dcall *c, bool wr)
{
	int bytes = wr ? D_BYTES_WRITTEN : D_BYTES_READ;
	bool unknown = (c->has & DC_EV_SIZE_UNKNOWN) || r->c[bytes] < 0;

	r->c[wr ? D_WRITES : D_READS]++;
	selection(r, c);
	if (!(c->has & DC_EV_SIZE_UNKNOWN))
		dc_dio_call(r, &layout, (c->has & DC_EV_SIZE) ? c->size : 0,
			    wr);
	if (unknown)
		r->c[bytes] = -1;
}

/* The dataset's shape, as its close tells it: -1 until one does. */
static void shape(struct dc_drec *r, const struct dc_dcall *c)
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

static void call(struct dc_drec *r, const struct dc_dcall *c, double t1,
		 double t2)
{
	if (r->module == DC_DM_H5D)
		shape(r, c);
	dc_dtime_call(r, r->module == DC_DM_H5F ? &h5f_layout : &layout.t,
		      kind(c->op), t1, t2, (c->has & DC_EV_SIZE) ? c->size : 0);
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

static void count(struct dc_drec *r, const struct dc_dcounter *k)
{
	switch (k->op) {
	case DC_HOP_FOPEN: r->c[F_OPENS] += k->calls; break;
	case DC_HOP_FFLUSH: r->c[F_FLUSHES] += k->calls; break;
	case DC_HOP_DOPEN_DEPRECATED:
		r->c[D_USE_DEPRECATED] = 1;
		__attribute__((fallthrough));
	case DC_HOP_DOPEN: r->c[D_OPENS] += k->calls; break;
	case DC_HOP_DREAD:
	case DC_HOP_DWRITE: {
		int bytes =
		    k->op == DC_HOP_DWRITE ? D_BYTES_WRITTEN : D_BYTES_READ;
		bool unknown = k->unsized || r->c[bytes] < 0;

		r->c[k->op == DC_HOP_DWRITE ? D_WRITES : D_READS] += k->calls;
		dc_dio_count(r, &layout, k, k->op == DC_HOP_DWRITE);
		/* As io() does for a call of unknown bytes. */
		if (unknown)
			r->c[bytes] = -1;
		break;
	}
	case DC_HOP_DFLUSH: r->c[D_FLUSHES] += k->calls; break;
	default: break;
	}
}

/* Besides the common access sizes and slowest calls: the selection kinds
 * and the shape are the calls' arguments, which counter records do not
 * keep. */
static bool h5d_needs_calls(int k)
{
	return dc_dio_needs_calls(&layout, k) ||
	       (k >= D_REGULAR_HYPERSLAB_SELECTS && k <= D_POINT_SELECTS) ||
	       (k >= D_DATASPACE_NDIMS && k <= D_USE_MPIIO_COLLECTIVE);
}

/* Whether the file was opened through MPI-IO: the nesting of calls. */
static bool h5f_needs_calls(int k)
{
	return k == F_USE_MPIIO;
}

static void h5f_reduce(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		       double *f)
{
	memset(c, 0, sizeof(int64_t) * F_N);
	for (const struct dc_drec *r = first; r; r = r->next)
		for (int k = 0; r->module == DC_DM_H5F && k < F_N; k++)
			c[k] =
			    k == F_USE_MPIIO ? c[k] | r->c[k] : c[k] + r->c[k];
	dc_dtime_reduce(first, DC_DM_H5F, ohash, &h5f_layout, c, f);
}

static void h5d_reduce(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		       double *f)
{
	dc_dio_reduce(first, DC_DM_H5D, ohash, &layout, c, f);
	/* Whether any process used the deprecated calls; the selection
	 * kinds are unknown if a process's are. */
	for (const struct dc_drec *r = first; r; r = r->next) {
		if (r->module != DC_DM_H5D || r->ohash != ohash)
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

/* What an HDF5 call did through MPI-IO, as Darshan asks HDF5's property
 * lists: the MPI-IO calls inside it opened its file or transferred
 * collectively. */
static void nested(struct dc_dcall *parent, const struct dc_dcall *c)
{
	if (c->module == DC_DM_MPIIO)
		parent->via |=
		    c->op == DC_MOP_OPEN ? DC_VIA_MPIIO_OPEN
		    : c->op == DC_MOP_COLL_READ || c->op == DC_MOP_COLL_WRITE
			? DC_VIA_MPIIO_COLL
			: 0;
}

const struct dc_dmodule dc_dh5f = {
	.prefix = "H5F",
	.label = "H5F",
	.names = h5f_names,
	.n = F_N,
	.times = h5f_times,
	.ntimes = sizeof(h5f_times),
	.layers = { "HDF5" },
	.family = DC_DM_H5F,
	.op = h5f_op,
	.kind = kind,
	.call = call,
	.count = count,
	.nested = nested,
	.needs_calls = h5f_needs_calls,
	.reduce = h5f_reduce,
	.ops = { "OPENS", "FLUSHES" },
	.hist = "",
};

const struct dc_dmodule dc_dh5d = {
	.prefix = "H5D",
	.label = "H5D",
	.names = h5d_names,
	.n = D_N,
	.times = dc_dtimes_all,
	.ntimes = DC_DT_N,
	.layers = { "HDF5" },
	.family = DC_DM_H5F,
	.per_object = true,
	.op = h5d_op,
	.kind = kind,
	.call = call,
	.count = count,
	.nested = nested,
	.needs_calls = h5d_needs_calls,
	.reduce = h5d_reduce,
	.ops = { "OPENS", "READS", "WRITES", "FLUSHES" },
	.hist = "SIZE_READ_AGG_0_100",
	.access = true,
	.perf = true,
};
