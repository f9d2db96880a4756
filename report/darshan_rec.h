/* SPDX-License-Identifier: MIT */
#ifndef DC_DARSHAN_REC_H
#define DC_DARSHAN_REC_H

#include <stdbool.h>
#include <stdint.h>

#include <datacrumbs/abi.h>

#include "darshan.h"

/* What report/darshan*.c share: one record of Darshan's counters per
 * module, process and file, and the rules every module counts by. */

enum {
	DC_DM_POSIX = 1,
	DC_DM_STDIO,
	DC_DM_MPIIO,
	DC_DM_H5F,
	DC_DM_H5D,
	DC_DM_N
};

/* Darshan follows the 32 most frequent values it met first. */
#define DC_DCOMMON_MAX 32

struct dc_dcommon {
	int64_t val[DC_DCOMMON_MAX];
	int64_t freq[DC_DCOMMON_MAX];
	int n;
};

#define DC_DREC_MAX 64 /* counters of the largest module */

/* Darshan's timing counters (seconds from the trace's start), in one
 * order for every module, and their names: each module prints its own of
 * them in its order. */
#define DC_DTIMES(X)                                                           \
	X(OPEN_START, "F_OPEN_START_TIMESTAMP")                                \
	X(READ_START, "F_READ_START_TIMESTAMP")                                \
	X(WRITE_START, "F_WRITE_START_TIMESTAMP")                              \
	X(CLOSE_START, "F_CLOSE_START_TIMESTAMP")                              \
	X(OPEN_END, "F_OPEN_END_TIMESTAMP")                                    \
	X(READ_END, "F_READ_END_TIMESTAMP")                                    \
	X(WRITE_END, "F_WRITE_END_TIMESTAMP")                                  \
	X(CLOSE_END, "F_CLOSE_END_TIMESTAMP")                                  \
	X(READ_TIME, "F_READ_TIME")                                            \
	X(WRITE_TIME, "F_WRITE_TIME")                                          \
	X(META_TIME, "F_META_TIME")                                            \
	X(MAX_READ_TIME, "F_MAX_READ_TIME")                                    \
	X(MAX_WRITE_TIME, "F_MAX_WRITE_TIME")                                  \
	X(FASTEST_RANK_TIME, "F_FASTEST_RANK_TIME")                            \
	X(SLOWEST_RANK_TIME, "F_SLOWEST_RANK_TIME")                            \
	X(VARIANCE_RANK_TIME, "F_VARIANCE_RANK_TIME")                          \
	X(VARIANCE_RANK_BYTES, "F_VARIANCE_RANK_BYTES")

#define DC_DTIME_ENUM(id, name) DC_DT_##id,
enum { DC_DTIMES(DC_DTIME_ENUM) DC_DT_N };
#undef DC_DTIME_ENUM

/*
 * A module's counters, in darshan-parser's order, as one list from which
 * its enum and its names are both made (DC_DCOUNTER_ENUM, _NAME): ONE(X)
 * is counter X; SIZES(X) Darshan's ten size buckets X_0_100 ... X_1G_PLUS;
 * TOP4(X) the four most common values X1_X ... X4_X and their counts
 * X1_COUNT ... X4_COUNT. Enumerators are the module's prefix and X (the
 * first of a group; a TOP4's counts from prefix X_COUNT).
 */
#define DC_DCOUNTER_ENUM(pfx, kind, x) DC_DENUM_##kind(pfx, x)
#define DC_DENUM_ONE(pfx, x)	       pfx##x,
#define DC_DENUM_SIZES(pfx, x)	       pfx##x, pfx##x##_LAST_ = pfx##x + DC_HIST_N - 1,
#define DC_DENUM_TOP4(pfx, x)                                                  \
	pfx##x, pfx##x##_COUNT = pfx##x + 4, pfx##x##_LAST_ = pfx##x + 7,
#define DC_DCOUNTER_NAME(pfx, kind, x) DC_DNAME_##kind(x)
#define DC_DNAME_ONE(x)		       #x,
#define DC_DNAME_SIZES(x)	       DC_DSIZE_NAMES(#x)
#define DC_DNAME_TOP4(x)	       DC_DTOP4_NAMES(#x),
#define DC_DTOP4_NAMES(s)                                                      \
	s "1_" s, s "2_" s, s "3_" s, s "4_" s, s "1_COUNT", s "2_COUNT",      \
	    s "3_COUNT", s "4_COUNT"

/* What a call's time counts as: an open (meta, open timestamps), a read
 * or write (its time, timestamps and the slowest call), a close, other
 * metadata, or a sync (write time only, as Darshan counts fsync). */
enum {
	DC_DK_NONE,
	DC_DK_OPEN,
	DC_DK_READ,
	DC_DK_WRITE,
	DC_DK_CLOSE,
	DC_DK_META,
	DC_DK_SYNC
};

struct dc_drec {
	uint8_t module;
	uint64_t hhash, fhash;
	uint64_t ohash; /* H5D: the dataset's name, in dc_darshan.objects */
	uint32_t pid;
	int rank;    /* its MPI rank, or -1 */
	int sharers; /* processes with a record of this module and file */
	int64_t c[DC_DREC_MAX];
	double f[DC_DT_N];
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
	struct dc_drec *next; /* the next record of the same file */
};

/* The names of Darshan's size buckets of @op ("SIZE_READ_AGG_0_100" ...),
 * and of the buckets alone ("0_100" ...). */
#define DC_DSIZE_NAME(op, bound, name)	op "_" name,
#define DC_DSIZE_NAMES(op)		DC_DBUCKETS(DC_DSIZE_NAME, op)
#define DC_DBUCKET_NAME(a, bound, name) name,

/* Darshan's size bucket of @v bytes (DC_DBUCKETS): 0 to DC_HIST_N - 1. */
int dc_dbucket(int64_t v);
/* How often @v was seen, counting this time; 0 once 32 other values
 * fill @t (Darshan then ignores new ones). */
int64_t dc_dcommon_seen(struct dc_dcommon *t, int64_t v);
/* Keep @vals/@cnts (4 each) the four most frequent values, the larger
 * value first among equals, after @v was seen @freq times (@freq more
 * times if @add: merging another record's counts). */
void dc_dcommon_top4(int64_t *vals, int64_t *cnts, int64_t v, int64_t freq,
		     bool add);
void dc_dcommon_merge(int64_t *vals, int64_t *cnts, const int64_t *rv,
		      const int64_t *rc);

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

/* A call of kind @kind (DC_DK_*) from @t1 to @t2 that moved @n bytes, as
 * Darshan times it: timestamps, time not overlapping the same kind's
 * previous call, the slowest read and write and their sizes. */
void dc_dtime_call(struct dc_drec *r, const struct dc_dtime_layout *l, int kind,
		   double t1, double t2, int64_t n);
/* Into @f and @l's counters of @c, the timing of @module's records of
 * @ohash in @first's list reduced as Darshan reduces a shared record:
 * earliest starts, latest ends, summed times, the slowest calls, and for
 * several records the fastest and slowest rank (by read, write and
 * metadata time) and the population variance of time and bytes. */
void dc_dtime_reduce(const struct dc_drec *first, int module, uint64_t ohash,
		     const struct dc_dtime_layout *l, int64_t *c, double *f);

/* Where a module that counts reads and writes as Darshan's MPI-IO and
 * H5D modules do keeps those counters. */
struct dc_dio_layout {
	int bytes_read, bytes_written, rw_switches;
	int size_read, size_write; /* the first of DC_HIST_N buckets each */
	int access, access_count;  /* counters before access are sums */
	struct dc_dtime_layout t;
};

/* A read or write of @n bytes: bytes, bucket, common access size and
 * read/write switch. */
void dc_dio_call(struct dc_drec *r, const struct dc_dio_layout *l, int64_t n,
		 bool wr);
/* Counter record @k of reads or writes: bytes, buckets and switches the
 * programs kept. */
void dc_dio_count(struct dc_drec *r, const struct dc_dio_layout *l,
		  const struct dc_dcounter *k, bool wr);
/* Whether counter @k needs every call (the slowest calls' sizes, the
 * common access sizes): a counter record does not give it. */
bool dc_dio_needs_calls(const struct dc_dio_layout *l, int k);
/* Into @c, the records of @module and @ohash in @first's list reduced as
 * Darshan reduces a shared record: sums of the counters before access,
 * the common access sizes merged, the slowest calls' sizes, and for a
 * record of several processes the fastest and slowest rank. */
void dc_dio_reduce(const struct dc_drec *first, int module, uint64_t ohash,
		   const struct dc_dio_layout *l, int64_t *c, double *f);

/* The names of the DC_DT_* counters, "F_OPEN_START_TIMESTAMP" ... */
extern const char *const dc_dtime_names[DC_DT_N];
/* Every DC_DT_* counter in order: what most modules print. */
extern const int8_t dc_dtimes_all[DC_DT_N];

/* Darshan's mount table of @d->run: the file systems it keeps, longest
 * mount point first (ties in the order mounted). 0 or -ENOMEM. */
int dc_darshan_fs_table(struct dc_darshan *d);
/* The file system @path is on, as Darshan tells it: the first mount
 * point of the table the path begins with (a prefix, as Darshan
 * compares). NULL: none. */
const struct dc_mount *dc_darshan_mount(const struct dc_darshan *d,
					const char *path);
/* File @fhash's name, or "<fhash HEX>" in @buf (@n bytes). */
const char *dc_darshan_path(const struct dc_darshan *d, uint64_t fhash,
			    char *buf, size_t n);

/*
 * One of Darshan's modules: everything the report knows of it, so that
 * the code that reads, counts and prints dispatches through this table
 * alone (dc_dmodules[], report/darshan_table.c).
 */
struct dc_dmodule {
	const char *prefix; /* of its counters, and its --json key: "MPIIO" */
	const char *label;  /* darshan-parser's module column: "MPI-IO" */
	const char *const *names; /* its counters */
	int n;
	const int8_t
	    *times; /* its DC_DT_* counters, in darshan-parser's order */
	int ntimes;
	/* The module of its library (H5D's: H5F): Darshan does not see a
	 * call inside another of the same library. */
	int family;
	/* A call of its layer that it counts nothing of is still kept: it
	 * hides the calls inside it (fopen's open). */
	bool opless;
	/* Its calls return an MPI status: 0 is success. */
	bool mpi_status;
	/* A record per object (an HDF5 dataset): --json lists them by name. */
	bool per_object;
	/* The trace's layers (cat) it reads. */
	const char *layers[2];
	/* Intake: the op of a call (@call) or counter record of one of its
	 * layers, @cat, named @name; 0 if it counts no such call, -1 if it
	 * does not take it at all. */
	int (*op)(const struct dc_str *cat, const struct dc_str *name,
		  bool call);
	int (*kind)(int op); /* what a call's time counts as: DC_DK_* */
	/* A record of its is made (POSIX: the file system's alignment). */
	void (*made)(struct dc_drec *r, const struct dc_darshan *d);
	/* A call from @t1 to @t2 (seconds from the job's start). */
	void (*call)(struct dc_drec *r, const struct dc_dcall *c, double t1,
		     double t2);
	/* A counter record (profile mode): what it counts besides times. */
	void (*count)(struct dc_drec *r, const struct dc_dcounter *k);
	/* Call @c of another module, inside @parent of this one (HDF5:
	 * what it did through MPI-IO); NULL: none matters. */
	void (*nested)(struct dc_dcall *parent, const struct dc_dcall *c);
	/* Once every record is made and shared (MPI-IO: collective opens);
	 * may be NULL. */
	void (*finish)(struct dc_drec *r);
	/* Whether counter @k needs every call, which counter records do
	 * not give; NULL: none does. */
	bool (*needs_calls)(int k);
	/* Its records of object @ohash in @first's list reduced over
	 * processes, as Darshan reduces a shared record. */
	void (*reduce)(const struct dc_drec *first, uint64_t ohash, int64_t *c,
		       double *f);
	/* Its job summary: its operations, its first read size bucket ("":
	 * none), whether it has common access sizes, whether darshan-util
	 * derives its performance. */
	const char *ops[12];
	const char *hist;
	bool access, perf;
};

extern const struct dc_dmodule dc_dposix, dc_dstdio, dc_dmpiio, dc_dh5f,
    dc_dh5d;
/* The modules by DC_DM_*; [0] is NULL. */
extern const struct dc_dmodule *const dc_dmodules[DC_DM_N];

/* The index of module @m's counter @name ("READS"), or -1. */
int dc_dcounter(int m, const char *name);
/* Into @c and @f, record @x as Darshan logs it: itself, or for a record
 * several processes share, their reduction (rank -1), given for the
 * first of them only. Returns whether @x is logged. */
bool dc_dlogged(const struct dc_darshan *d, const struct dc_drec *x, int64_t *c,
		double *f);

#endif
