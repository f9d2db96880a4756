/* SPDX-License-Identifier: MIT */
#ifndef DC_DARSHAN_H
#define DC_DARSHAN_H

#include <stdint.h>
#include <stdio.h>

#include "buf.h"
#include "event.h"
#include "map.h"

struct dc_mount;
struct dcr_proc;

/*
 * Darshan's POSIX and STDIO counters, computed from a trace's calls under
 * Darshan's names and with its rules (darshan-runtime 3.4.7), so that a
 * user compares them with darshan-parser's line for line. Calls a library
 * makes inside libc (fopen's open) are left out, as Darshan, which sees
 * only calls that cross into libc, never sees them.
 */
struct dc_dcall {
	uint64_t key, parent; /* trace number << 40 | id; parent 0: none */
	uint64_t fhash, hhash;
	uint64_t ohash; /* args.object's name hash, 0 if none */
	uint32_t pid;
	uint8_t op, module;
	uint8_t via; /* HDF5: DC_VIA_* its MPI-IO calls under it showed */
	int64_t size, offset, ret, whence, flags, mode, ts, dur;
	int64_t selection, regular; /* H5D: args.selection, args.regular */
	int64_t ndims, npoints, typesize; /* H5D: the dataset's shape */
	uint32_t has;
};

/* What an HDF5 call did through MPI-IO, as Darshan asks HDF5's property
 * lists: opened its file with MPI_File_open (H5F_USE_MPIIO), or made a
 * collective transfer (H5D_USE_MPIIO_COLLECTIVE). */
enum { DC_VIA_MPIIO_OPEN = 1, DC_VIA_MPIIO_COLL = 2 };

/* A profile-mode counter record of one function, process and file (and
 * HDF5 dataset). */
struct dc_dcounter {
	uint64_t fhash, hhash;
	uint64_t ohash; /* H5D: the dataset's name hash, as dc_dcall's */
	uint32_t pid;
	uint8_t op, module;
	uint64_t calls; /* that did not fail */
	uint64_t size_sum, dur_sum, seq, consec, switches, hist[DC_HIST_N];
	int64_t max_byte;
	uint64_t unsized; /* calls whose bytes could not be told */
};

/* What Darshan's counters read of the finished aggregate (report.h). */
struct dc_darshan_run {
	const struct dc_map *fnames; /* fhash -> file name */
	const struct dc_mount *mounts;
	size_t nmounts;
	struct dcr_proc *const *procs; /* their MPI ranks */
	size_t nprocs;
	int64_t t0; /* the job's start (us): Darshan's times are from it */
};

struct dc_darshan {
	struct dc_dcall *calls;
	size_t ncalls, cap;
	struct dc_dcounter *counters;
	size_t ncounters, ccap;
	uint64_t trace_no;
	struct dc_map recs; /* (module, hhash, pid, fhash) -> struct dc_drec */
	struct dc_map byfile;  /* fhash -> its first struct dc_drec */
	struct dc_map objects; /* name hash -> object name ("/grp/data") */
	void **vrecs;
	size_t nrecs;
	/* Darshan's mount table: the run's mounts it keeps, longest
	 * mount point first (indexes). */
	size_t *fs, nfs;
	struct dc_darshan_run run; /* as dc_darshan_finish() was given */
	/* The last layer no module reads: most events are of a few layers,
	 * and those of it are passed over at once. */
	char skip[32];
	uint32_t skip_n;
};

void dc_darshan_init(struct dc_darshan *d);
void dc_darshan_free(struct dc_darshan *d);
/* A record that dc_event_check() passed: the calls and counter records
 * of Darshan's layers are kept. Returns 0 or -ENOMEM. */
int dc_darshan_line(struct dc_darshan *d, const struct dc_trace_event *ev);
void dc_darshan_trace_done(struct dc_darshan *d);
/* Compute the counters once every trace is read, from @run (which must
 * outlive @d's outputs). 0 or -ENOMEM. */
int dc_darshan_finish(struct dc_darshan *d, const struct dc_darshan_run *run);
/* darshan-parser's lines: module, rank, file, counter, value. */
int dc_darshan_text(const struct dc_darshan *d, FILE *out);

/* Append ,"darshan":{"POSIX":{...},"STDIO":{...}} for file @fhash, its
 * records reduced over processes. 0 or -ENOMEM. */
int dc_darshan_json(const struct dc_darshan *d, uint64_t fhash,
		    struct dc_buf *b);

/* Darshan's job summary per module (darshan-parser --total, --file and
 * --perf's figures) as text, or as a section of the HTML page. 0 or
 * -errno. */
int dc_darshan_summary_text(const struct dc_darshan *d, FILE *out);
int dc_darshan_summary_html(const struct dc_darshan *d, struct dc_buf *b);

#endif
