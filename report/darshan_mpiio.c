// SPDX-License-Identifier: MIT
/*
 * Darshan's MPI-IO counters (darshan-mpiio.c of darshan-runtime 3.4.7),
 * from the MPIIO layer's calls: each read and write counts its bytes
 * (count x MPI_Type_size, the trace's size), its size bucket and access
 * size, and whether it was independent, collective, split or
 * non-blocking, by the function's name.
 */
#include <string.h>

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

enum mop {
	MOP_NONE,
	MOP_OPEN,
	MOP_SYNC,
	MOP_VIEW,
	MOP_CLOSE,
	/* Reads and writes: the counter they bump. */
	MOP_IO = 16,
};

static const struct {
	const char *name;
	int op;
} mops[] = {
	{ "MPI_File_open", MOP_OPEN },
	{ "MPI_File_sync", MOP_SYNC },
	{ "MPI_File_set_view", MOP_VIEW },
	{ "MPI_File_close", MOP_CLOSE },
	{ "MPI_File_read", MOP_IO + M_INDEP_READS },
	{ "MPI_File_read_at", MOP_IO + M_INDEP_READS },
	{ "MPI_File_read_shared", MOP_IO + M_INDEP_READS },
	{ "MPI_File_read_all", MOP_IO + M_COLL_READS },
	{ "MPI_File_read_at_all", MOP_IO + M_COLL_READS },
	{ "MPI_File_read_ordered", MOP_IO + M_COLL_READS },
	{ "MPI_File_read_all_begin", MOP_IO + M_SPLIT_READS },
	{ "MPI_File_read_at_all_begin", MOP_IO + M_SPLIT_READS },
	{ "MPI_File_read_ordered_begin", MOP_IO + M_SPLIT_READS },
	{ "MPI_File_iread", MOP_IO + M_NB_READS },
	{ "MPI_File_iread_at", MOP_IO + M_NB_READS },
	{ "MPI_File_iread_shared", MOP_IO + M_NB_READS },
	{ "MPI_File_write", MOP_IO + M_INDEP_WRITES },
	{ "MPI_File_write_at", MOP_IO + M_INDEP_WRITES },
	{ "MPI_File_write_shared", MOP_IO + M_INDEP_WRITES },
	{ "MPI_File_write_all", MOP_IO + M_COLL_WRITES },
	{ "MPI_File_write_at_all", MOP_IO + M_COLL_WRITES },
	{ "MPI_File_write_ordered", MOP_IO + M_COLL_WRITES },
	{ "MPI_File_write_all_begin", MOP_IO + M_SPLIT_WRITES },
	{ "MPI_File_write_at_all_begin", MOP_IO + M_SPLIT_WRITES },
	{ "MPI_File_write_ordered_begin", MOP_IO + M_SPLIT_WRITES },
	{ "MPI_File_iwrite", MOP_IO + M_NB_WRITES },
	{ "MPI_File_iwrite_at", MOP_IO + M_NB_WRITES },
	{ "MPI_File_iwrite_shared", MOP_IO + M_NB_WRITES },
};

int dc_mpiio_op(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(mops) / sizeof(mops[0]); i++)
		if (n == strlen(mops[i].name) && !memcmp(name, mops[i].name, n))
			return mops[i].op;
	return MOP_NONE;
}

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

static bool is_write(int counter)
{
	return counter == M_INDEP_WRITES || counter == M_COLL_WRITES ||
	       counter == M_SPLIT_WRITES || counter == M_NB_WRITES;
}

int dc_mpiio_kind(int op)
{
	switch (op) {
	case MOP_OPEN: return DT_OPEN;
	case MOP_SYNC: return DT_SYNC;
	case MOP_VIEW: return DT_META;
	case MOP_CLOSE: return DT_CLOSE;
	default:
		return op < MOP_IO	       ? DT_NONE
		       : is_write(op - MOP_IO) ? DT_WRITE
					       : DT_READ;
	}
}

void dc_mpiio_call(struct drec *r, const struct dc_dcall *c, double t1,
		   double t2)
{
	int64_t n = (c->has & DC_EV_SIZE) ? c->size : 0;

	switch (c->op) {
	case MOP_OPEN:
		r->opens++;
		if (c->has & DC_EV_FLAGS)
			r->c[M_MODE] = c->flags;
		break;
	case MOP_SYNC: r->c[M_SYNCS]++; break;
	case MOP_VIEW: r->c[M_VIEWS]++; break;
	case MOP_CLOSE: break;
	default:
		if (c->op >= MOP_IO) {
			r->c[c->op - MOP_IO]++;
			dc_dio_call(r, &layout, n, is_write(c->op - MOP_IO));
		}
		break;
	}
	dc_dtime_call(r, &layout.t, dc_mpiio_kind(c->op), t1, t2, n);
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
