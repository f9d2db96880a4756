// SPDX-License-Identifier: MIT
/*
 * Darshan's MPI-IO counters (darshan-mpiio.c of darshan-runtime 3.4.7),
 * from the MPIIO layer's calls: each read and write counts its bytes
 * (count x MPI_Type_size, the trace's size), its size bucket and access
 * size, and whether it was independent, collective, split or
 * non-blocking, by the function's name.
 */
#include <string.h>

#include "darshan_ops.h"
#include "darshan_rec.h"

enum {
	M_INDEP_OPENS,
	M_COLL_OPENS,
	M_INDEP_READS,
	M_INDEP_WRITES,
	M_COLL_READS,
	M_COLL_WRITES,
	M_SPLIT_READS,
	M_SPLIT_WRITES,
	M_NB_READS,
	M_NB_WRITES,
	M_SYNCS,
	M_HINTS,
	M_VIEWS,
	M_MODE,
	M_BYTES_READ,
	M_BYTES_WRITTEN,
	M_RW_SWITCHES,
	M_MAX_READ_TIME_SIZE,
	M_MAX_WRITE_TIME_SIZE,
	M_SIZE_READ,
	M_SIZE_WRITE = M_SIZE_READ + 10,
	M_ACCESS = M_SIZE_WRITE + 10,
	M_ACCESS_COUNT = M_ACCESS + 4,
	M_FASTEST_RANK = M_ACCESS_COUNT + 4,
	M_FASTEST_RANK_BYTES,
	M_SLOWEST_RANK,
	M_SLOWEST_RANK_BYTES,
	M_N,
};

_Static_assert(M_N == DC_MPIIO_N, "dc_mpiio_names has every counter");
_Static_assert(M_N <= DC_DREC_MAX, "an MPI-IO record fits a drec");

const char *const dc_mpiio_names[DC_MPIIO_N] = {
	"INDEP_OPENS",
	"COLL_OPENS",
	"INDEP_READS",
	"INDEP_WRITES",
	"COLL_READS",
	"COLL_WRITES",
	"SPLIT_READS",
	"SPLIT_WRITES",
	"NB_READS",
	"NB_WRITES",
	"SYNCS",
	"HINTS",
	"VIEWS",
	"MODE",
	"BYTES_READ",
	"BYTES_WRITTEN",
	"RW_SWITCHES",
	"MAX_READ_TIME_SIZE",
	"MAX_WRITE_TIME_SIZE",
	DC_DSIZE_NAMES("SIZE_READ_AGG"),
	DC_DSIZE_NAMES("SIZE_WRITE_AGG"),
	DC_DACCESS_NAMES,
	"FASTEST_RANK",
	"FASTEST_RANK_BYTES",
	"SLOWEST_RANK",
	"SLOWEST_RANK_BYTES",
};

static const struct dc_dio_layout layout = {
	.bytes_read = M_BYTES_READ,
	.bytes_written = M_BYTES_WRITTEN,
	.rw_switches = M_RW_SWITCHES,
	.size_read = M_SIZE_READ,
	.size_write = M_SIZE_WRITE,
	.access = M_ACCESS,
	.access_count = M_ACCESS_COUNT,
	.t = { M_MAX_READ_TIME_SIZE, M_MAX_WRITE_TIME_SIZE, M_FASTEST_RANK },
};

/* The counter a read or write bumps: MPIIO_INDEP_READS ... NB_WRITES are
 * in the order of enum dc_mop. */
static int io_counter(int op)
{
	return M_INDEP_READS + op - DC_MOP_INDEP_READ;
}

int dc_mpiio_kind(int op)
{
	switch (op) {
	case DC_MOP_OPEN: return DT_OPEN;
	case DC_MOP_SYNC: return DT_SYNC;
	case DC_MOP_VIEW: return DT_META;
	case DC_MOP_CLOSE: return DT_CLOSE;
	default:
		return !dc_mop_is_io(op)     ? DT_NONE
		       : dc_mop_is_write(op) ? DT_WRITE
					     : DT_READ;
	}
}

void dc_mpiio_call(struct drec *r, const struct dc_dcall *c, double t1,
		   double t2)
{
	int64_t n = (c->has & DC_EV_SIZE) ? c->size : 0;

	switch (c->op) {
	case DC_MOP_OPEN:
		r->opens++;
		if (c->has & DC_EV_FLAGS)
			r->c[M_MODE] = c->flags;
		break;
	case DC_MOP_SYNC: r->c[M_SYNCS]++; break;
	case DC_MOP_VIEW: r->c[M_VIEWS]++; break;
	case DC_MOP_CLOSE: break;
	default:
		if (dc_mop_is_io(c->op)) {
			r->c[io_counter(c->op)]++;
			dc_dio_call(r, &layout, n, dc_mop_is_write(c->op));
		}
		break;
	}
	dc_dtime_call(r, &layout.t, dc_mpiio_kind(c->op), t1, t2, n);
}

void dc_mpiio_count(struct drec *r, const struct dc_dcounter *k)
{
	switch (k->op) {
	case DC_MOP_OPEN: r->opens += k->calls; break;
	case DC_MOP_SYNC: r->c[M_SYNCS] += k->calls; break;
	case DC_MOP_VIEW: r->c[M_VIEWS] += k->calls; break;
	default:
		if (dc_mop_is_io(k->op)) {
			r->c[io_counter(k->op)] += k->calls;
			dc_dio_count(r, &layout, k, dc_mop_is_write(k->op));
		}
		break;
	}
}

bool dc_mpiio_needs_calls(int k)
{
	/* The mode is the open's argument, which no counter keeps. */
	return k == M_MODE || dc_dio_needs_calls(&layout, k);
}

void dc_mpiio_finish(struct drec *r)
{
	/* Darshan: an open on a communicator of one process is independent.
	 * The trace does not hold the communicator: an open of a file that
	 * other processes opened too is taken as collective. */
	r->c[r->sharers > 1 ? M_COLL_OPENS : M_INDEP_OPENS] = r->opens;
}

void dc_mpiio_reduce(const struct drec *first, int64_t *c, double *f)
{
	dc_dio_reduce(first, MOD_MPIIO, 0, &layout, c, f);
	/* The mode is the file's, not a sum. */
	for (const struct drec *r = first; r; r = r->next)
		if (r->module == MOD_MPIIO)
			c[M_MODE] = r->c[M_MODE];
}
