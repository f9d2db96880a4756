// SPDX-License-Identifier: MIT
/*
 * Darshan's MPI-IO counters (darshan-mpiio.c of darshan-runtime 3.4.7),
 * from the MPIIO layer's calls: each read and write counts its bytes
 * (count x MPI_Type_size, the trace's size), its size bucket and access
 * size, and whether it was independent, collective, split or
 * non-blocking, by the function's name.
 */
#include <limits.h>
#include <string.h>

#include "darshan_ops.h"
#include "darshan_rec.h"

#define MPIIO_COUNTERS(X)                                                      \
	X(M_, ONE, INDEP_OPENS)                                                \
	X(M_, ONE, COLL_OPENS)                                                 \
	X(M_, ONE, INDEP_READS)                                                \
	X(M_, ONE, INDEP_WRITES)                                               \
	X(M_, ONE, COLL_READS)                                                 \
	X(M_, ONE, COLL_WRITES)                                                \
	X(M_, ONE, SPLIT_READS)                                                \
	X(M_, ONE, SPLIT_WRITES)                                               \
	X(M_, ONE, NB_READS)                                                   \
	X(M_, ONE, NB_WRITES)                                                  \
	X(M_, ONE, SYNCS)                                                      \
	X(M_, ONE, HINTS)                                                      \
	X(M_, ONE, VIEWS)                                                      \
	X(M_, ONE, MODE)                                                       \
	X(M_, ONE, BYTES_READ)                                                 \
	X(M_, ONE, BYTES_WRITTEN)                                              \
	X(M_, ONE, RW_SWITCHES)                                                \
	X(M_, ONE, MAX_READ_TIME_SIZE)                                         \
	X(M_, ONE, MAX_WRITE_TIME_SIZE)                                        \
	X(M_, SIZES, SIZE_READ_AGG)                                            \
	X(M_, SIZES, SIZE_WRITE_AGG)                                           \
	X(M_, TOP4, ACCESS)                                                    \
	X(M_, ONE, FASTEST_RANK)                                               \
	X(M_, ONE, FASTEST_RANK_BYTES)                                         \
	X(M_, ONE, SLOWEST_RANK)                                               \
	X(M_, ONE, SLOWEST_RANK_BYTES)

enum { MPIIO_COUNTERS(DC_DCOUNTER_ENUM) M_N };
static const char *const names[] = { MPIIO_COUNTERS(DC_DCOUNTER_NAME) };

_Static_assert(M_N <= DC_DREC_MAX, "an MPI-IO record fits a dc_drec");

static const struct dc_dio_layout layout = {
	.bytes_read = M_BYTES_READ,
	.bytes_written = M_BYTES_WRITTEN,
	.rw_switches = M_RW_SWITCHES,
	.size_read = M_SIZE_READ_AGG,
	.size_write = M_SIZE_WRITE_AGG,
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

static int op(const struct dc_str *cat, const struct dc_str *name, bool call)
{
	(void)cat;
	(void)call;
	return dc_darshan_mpiio_op(name->p, name->n);
}

static int kind(int op)
{
	switch (op) {
	case DC_MOP_OPEN: return DC_DK_OPEN;
	case DC_MOP_SYNC: return DC_DK_SYNC;
	case DC_MOP_VIEW: return DC_DK_META;
	case DC_MOP_CLOSE: return DC_DK_CLOSE;
	default:
		return !dc_mop_is_io(op)     ? DC_DK_NONE
		       : dc_mop_is_write(op) ? DC_DK_WRITE
					     : DC_DK_READ;
	}
}

static void call(struct dc_drec *r, const struct dc_dcall *c, double t1,
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
	dc_dtime_call(r, &layout.t, kind(c->op), t1, t2, n);
}

static void count(struct dc_drec *r, const struct dc_dcounter *k)
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

static bool needs_calls(int k)
{
	/* The mode is the open's argument, which no counter keeps. */
	return k == M_MODE || dc_dio_needs_calls(&layout, k);
}

static void finish(struct dc_drec *r)
{
	/* Darshan: an open on a communicator of one process is independent.
	 * The trace does not hold the communicator: an open of a file that
	 * other processes opened too is taken as collective. */
	r->c[r->sharers > 1 ? M_COLL_OPENS : M_INDEP_OPENS] = r->opens;
}

static void reduce(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		   double *f)
{
	int mode_rank = INT_MIN;

	dc_dio_reduce(first, DC_DM_MPIIO, ohash, &layout, c, f);
	/* The mode is not a sum: as for POSIX_MODE, Darshan keeps the
	 * highest rank's, whatever order the records came in. */
	for (const struct dc_drec *r = first; r; r = r->next)
		if (r->module == DC_DM_MPIIO && r->ohash == ohash &&
		    r->rank >= mode_rank) {
			c[M_MODE] = r->c[M_MODE];
			mode_rank = r->rank;
		}
}

const struct dc_dmodule dc_dmpiio = {
	.prefix = "MPIIO",
	.label = "MPI-IO",
	.names = names,
	.n = M_N,
	.times = dc_dtimes_all,
	.ntimes = DC_DT_N,
	.layers = { "MPIIO" },
	.family = DC_DM_MPIIO,
	.opless = true,
	.mpi_status = true,
	.op = op,
	.kind = kind,
	.call = call,
	.count = count,
	.finish = finish,
	.needs_calls = needs_calls,
	.reduce = reduce,
	.ops = { "INDEP_OPENS", "COLL_OPENS", "INDEP_READS", "INDEP_WRITES",
		 "COLL_READS", "COLL_WRITES", "SPLIT_READS", "SPLIT_WRITES",
		 "NB_READS", "NB_WRITES", "SYNCS", "VIEWS" },
	.hist = "SIZE_READ_AGG_0_100",
	.access = true,
	.perf = true,
};
