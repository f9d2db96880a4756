/* SPDX-License-Identifier: MIT */
#ifndef DC_DARSHAN_REC_H
#define DC_DARSHAN_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "darshan.h"

/* What report/darshan*.c share: one record of Darshan's counters per
 * module, process and file, and the rules every module counts by. */

enum { MOD_POSIX = 1, MOD_STDIO, MOD_MPIIO, MOD_H5F, MOD_H5D, MOD_N };
/* The layer of HDF5's calls, before they are told apart by function. */
#define MOD_HDF5 MOD_N

/* Darshan follows the 32 most frequent values it met first. */
#define DC_DCOMMON_MAX 32

struct dc_dcommon {
	int64_t val[DC_DCOMMON_MAX];
	int64_t freq[DC_DCOMMON_MAX];
	int n;
};

#define DC_DREC_MAX 64 /* counters of the largest module */

/* Darshan's timing counters (seconds from the trace's start), in one
 * order for every module; each prints its own of them in its order. */
enum {
	T_OPEN_START,
	T_READ_START,
	T_WRITE_START,
	T_CLOSE_START,
	T_OPEN_END,
	T_READ_END,
	T_WRITE_END,
	T_CLOSE_END,
	T_READ_TIME,
	T_WRITE_TIME,
	T_META_TIME,
	T_MAX_READ_TIME,
	T_MAX_WRITE_TIME,
	T_FASTEST_RANK_TIME,
	T_SLOWEST_RANK_TIME,
	T_VARIANCE_RANK_TIME,
	T_VARIANCE_RANK_BYTES,
	T_N,
};

/* What a call's time counts as: an open (meta, open timestamps), a read
 * or write (its time, timestamps and the slowest call), a close, other
 * metadata, or a sync (write time only, as Darshan counts fsync). */
enum { DT_NONE, DT_OPEN, DT_READ, DT_WRITE, DT_CLOSE, DT_META, DT_SYNC };

struct drec {
	uint8_t module;
	uint64_t hhash, fhash;
	uint64_t ohash; /* H5D: the dataset's name, in dc_darshan.objects */
	uint32_t pid;
	int rank;    /* its MPI rank, or -1 */
	int sharers; /* processes with a record of this module and file */
	int64_t c[DC_DREC_MAX];
	double f[T_N];
	/* Where the last read, write and metadata call ended, so that
	 * overlapping calls count once; which of f[] are set. */
	double last_end[3];
	unsigned tset;
	int64_t moved; /* bytes read and written */
	/* Darshan's per-record state: one offset per file, not per fd. */
	int64_t offset, last_read, last_written;
	int last_io; /* 0, 'r' or 'w' */
	struct dc_dcommon access, stride;
	/* Made from counter records (profile mode): the counters that need
	 * every call are unknown. */
	bool counted;
	/* H5D: a close told the dataset's shape (its NDIMS, NPOINTS and
	 * DATATYPE_SIZE; -1 until then). */
	bool shaped;
	/* MPI-IO: opens (independent or collective, told once the records
	 * are all made). */
	int64_t opens;
	struct drec *next; /* the next record of the same file */
};

/* The names of Darshan's ten size buckets of @op ("SIZE_READ_AGG"), and
 * of the four common access sizes and their counts. */
#define DC_DSIZE_NAMES(op)                                                     \
	op "_0_100", op "_100_1K", op "_1K_10K", op "_10K_100K",               \
	    op "_100K_1M", op "_1M_4M", op "_4M_10M", op "_10M_100M",          \
	    op "_100M_1G", op "_1G_PLUS"
#define DC_DACCESS_NAMES                                                       \
	"ACCESS1_ACCESS", "ACCESS2_ACCESS", "ACCESS3_ACCESS",                  \
	    "ACCESS4_ACCESS", "ACCESS1_COUNT", "ACCESS2_COUNT",                \
	    "ACCESS3_COUNT", "ACCESS4_COUNT"

/* Darshan's size buckets: 0-100, 100-1K, ... 1G+, as 0 to 9. */
int dc_dbucket(int64_t v);
/* How often @v was seen, counting this time; 0 once 32 other values
 * fill @t (Darshan then ignores new ones). */
int64_t dc_dcommon_seen(struct dc_dcommon *t, int64_t v);
/* Keep @vals/@cnts (4 each) the four most frequent values, the larger
 * value first among equals, after @v was seen @freq times (@freq more
 * times if @add: merging another record's counts). */
void dc_dcommon_top4(int64_t *vals, int64_t *cnts, int64_t v, int64_t freq,
		     bool add);

static inline int64_t dc_max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

/* Where a module keeps the counters its timing sets: the sizes of the
 * slowest read and write (MAX_*_TIME_SIZE) and FASTEST_RANK, followed by
 * its bytes, SLOWEST_RANK and its bytes; -1: the module has none. */
struct dc_dtime_layout {
	int max_read_size, max_write_size, fastest_rank;
};

/* A call of kind @kind (DT_*) from @t1 to @t2 that moved @n bytes, as
 * Darshan times it: timestamps, time not overlapping the same kind's
 * previous call, the slowest read and write and their sizes. */
void dc_dtime_call(struct drec *r, const struct dc_dtime_layout *l, int kind,
		   double t1, double t2, int64_t n);
/* Into @f and @l's counters of @c, the timing of @module's records of
 * @ohash in @first's list reduced as Darshan reduces a shared record:
 * earliest starts, latest ends, summed times, the slowest calls, and for
 * several records the fastest and slowest rank (by read, write and
 * metadata time) and the population variance of time and bytes. */
void dc_dtime_reduce(const struct drec *first, int module, uint64_t ohash,
		     const struct dc_dtime_layout *l, int64_t *c, double *f);

/* Where a module that counts reads and writes as Darshan's MPI-IO and
 * H5D modules do keeps those counters. */
struct dc_dio_layout {
	int bytes_read, bytes_written, rw_switches;
	int size_read, size_write; /* the first of ten buckets each */
	int access, access_count;  /* counters before access are sums */
	struct dc_dtime_layout t;
};

/* A read or write of @n bytes: bytes, bucket, common access size and
 * read/write switch. */
void dc_dio_call(struct drec *r, const struct dc_dio_layout *l, int64_t n,
		 bool wr);
/* Counter record @k of reads or writes: bytes, buckets and switches the
 * programs kept. */
void dc_dio_count(struct drec *r, const struct dc_dio_layout *l,
		  const struct dc_dcounter *k, bool wr);
/* Whether counter @k needs every call (the slowest calls' sizes, the
 * common access sizes): a counter record does not give it. */
bool dc_dio_needs_calls(const struct dc_dio_layout *l, int k);
/* Into @c, the records of @module and @ohash in @first's list reduced as
 * Darshan reduces a shared record: sums of the counters before access,
 * the common access sizes merged, the slowest calls' sizes, and for a
 * record of several processes the fastest and slowest rank. */
void dc_dio_reduce(const struct drec *first, int module, uint64_t ohash,
		   const struct dc_dio_layout *l, int64_t *c, double *f);

/* The names of the T_* counters, "F_OPEN_START_TIMESTAMP" ... */
extern const char *const dc_dtime_names[T_N];

/* The MPI-IO module (report/darshan_mpiio.c). */
#define DC_MPIIO_N 51
extern const char *const dc_mpiio_names[DC_MPIIO_N];
/* Its DT_* kind. */
int dc_mpiio_kind(int op);
/* A call from @t1 to @t2 (seconds from the trace's start). */
void dc_mpiio_call(struct drec *r, const struct dc_dcall *c, double t1,
		   double t2);
/* A counter record (profile mode) of an MPI-IO function. */
void dc_mpiio_count(struct drec *r, const struct dc_dcounter *k);
/* Whether counter @k needs every call, which counter records do not
 * give. */
bool dc_mpiio_needs_calls(int k);
/* Once every record is made: whether its opens were collective. */
void dc_mpiio_finish(struct drec *r);
/* A file's MPI-IO records, reduced over its processes. */
void dc_mpiio_reduce(const struct drec *first, int64_t *c, double *f);

/* The HDF5 modules (report/darshan_hdf5.c). */
#define DC_H5F_N 3
#define DC_H5D_N 49
extern const char *const dc_h5f_names[DC_H5F_N];
extern const char *const dc_h5d_names[DC_H5D_N];
bool dc_h5f_needs_calls(int k);
/* Which module, MOD_H5F or MOD_H5D, counts op @op; 0: none. */
int dc_hdf5_module(int op);
int dc_hdf5_kind(int op);
void dc_hdf5_call(struct drec *r, const struct dc_dcall *c, double t1,
		  double t2);
/* A counter record (profile mode) of an HDF5 function. */
void dc_hdf5_count(struct drec *r, const struct dc_dcounter *k);
bool dc_h5d_needs_calls(int k);
/* A file's H5F records, or one dataset's (@ohash) H5D records, reduced
 * over processes. */
void dc_h5f_reduce(const struct drec *first, int64_t *c, double *f);
void dc_h5d_reduce(const struct drec *first, uint64_t ohash, int64_t *c,
		   double *f);

/* The index of module @m's counter @name ("READS"), or -1. */
int dc_dcounter(int m, const char *name);
/* Its counters' prefix and --json key: "POSIX", "MPIIO". */
const char *dc_dmod_prefix(int m);
/* Into @c and @f, record @x as Darshan logs it: itself, or for a record
 * several processes share, their reduction (rank -1), given for the
 * first of them only. Returns whether @x is logged. */
bool dc_dlogged(const struct dc_darshan *d, const struct drec *x, int64_t *c,
		double *f);

#endif
