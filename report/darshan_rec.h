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

struct drec {
	uint8_t module;
	uint64_t hhash, fhash;
	uint64_t ohash; /* H5D: the dataset's name, in dc_darshan.objects */
	uint32_t pid;
	int rank;    /* its MPI rank, or -1 */
	int sharers; /* processes with a record of this module and file */
	int64_t c[DC_DREC_MAX];
	/* Darshan's per-record state: one offset per file, not per fd. */
	int64_t offset, last_read, last_written;
	int last_io; /* 0, 'r' or 'w' */
	struct dc_dcommon access, stride;
	/* MPI-IO: opens (independent or collective, told once the records
	 * are all made); MPI-IO and H5D: the slowest read and write, and
	 * time in its calls. */
	int64_t opens, max_rdur, max_wdur, time;
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

/* Where a module that counts reads and writes as Darshan's MPI-IO and
 * H5D modules do keeps those counters. */
struct dc_dio_layout {
	int bytes_read, bytes_written, rw_switches;
	int max_read_size, max_write_size; /* MAX_*_TIME_SIZE */
	int size_read, size_write;	   /* the first of ten buckets each */
	int access, access_count;	   /* counters before access are sums */
	int fastest_rank; /* then its bytes, the slowest rank, its bytes */
};

/* A read or write of @n bytes that took @dur (µs): bytes, bucket, common
 * access size, read/write switch and the slowest call's size. */
void dc_dio_call(struct drec *r, const struct dc_dio_layout *l, int64_t n,
		 int64_t dur, bool wr);
/* Into @c, the records of @module and @ohash in @first's list reduced as
 * Darshan reduces a shared record: sums of the counters before access,
 * the common access sizes merged, the slowest calls' sizes, and for a
 * record of several processes the fastest and slowest rank. */
void dc_dio_reduce(const struct drec *first, int module, uint64_t ohash,
		   const struct dc_dio_layout *l, int64_t *c);

/* The MPI-IO module (report/darshan_mpiio.c). */
#define DC_MPIIO_N 51
extern const char *const dc_mpiio_names[DC_MPIIO_N];
/* The op of MPI-IO function @name, or 0 if Darshan does not count it. */
int dc_mpiio_op(const char *name, size_t n);
void dc_mpiio_call(struct drec *r, const struct dc_dcall *c);
/* Once every record is made: whether its opens were collective. */
void dc_mpiio_finish(struct drec *r);
/* A file's MPI-IO records, reduced over its processes. */
void dc_mpiio_reduce(const struct drec *first, int64_t *c);

/* The HDF5 modules (report/darshan_hdf5.c). */
#define DC_H5F_N 2
#define DC_H5D_N 42
extern const char *const dc_h5f_names[DC_H5F_N];
extern const char *const dc_h5d_names[DC_H5D_N];
/* The op of HDF5 function @name, or 0 if Darshan does not count it. */
int dc_hdf5_op(const char *name, size_t n);
/* Which module, MOD_H5F or MOD_H5D, counts op @op; 0: none. */
int dc_hdf5_module(int op);
void dc_hdf5_call(struct drec *r, const struct dc_dcall *c);
/* A file's H5F records, or one dataset's (@ohash) H5D records, reduced
 * over processes. */
void dc_h5f_reduce(const struct drec *first, int64_t *c);
void dc_h5d_reduce(const struct drec *first, uint64_t ohash, int64_t *c);

#endif
