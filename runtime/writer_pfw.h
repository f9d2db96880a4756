/* SPDX-License-Identifier: MIT */
#ifndef DC_WRITER_PFW_H
#define DC_WRITER_PFW_H

#include <stdbool.h>
#include <stdint.h>

#include "gzout.h"
#include "map.h"
#include "procs.h"
#include "trace.h"

/*
 * Writes the DFTracer trace format (docs/trace-format.md): a sink that
 * writes what it is handed. Calls come resolved and described (their
 * file, process facts, thread and device names) and filtered; the writer
 * reads nothing from the system and keeps only what its own trace has
 * said so far.
 */
struct dc_pfw {
	struct dc_gz gz;
	uint64_t next_id;
	char hhash[DC_HASH_HEX];
	int64_t clock_offset_ns; /* CLOCK_REALTIME - CLOCK_MONOTONIC */
	uint32_t self_pid;
	uint64_t calls;	       /* call events written */
	uint64_t counters;     /* profile mode: counter records written */
	struct dc_map fh;      /* files whose FH record this trace has */
	struct dc_map lanes;   /* request tracks whose thread_name is written */
	struct dc_map procs;   /* pid -> what the trace said of it */
	struct dc_map threads; /* tid -> what the trace said of it, its lanes */
};

struct dc_pfw_opts {
	bool compress;
	int level;
	size_t member_size;
	uint64_t interval_ns;
};

/* A trace is compressed unless its name ends in ".pfw". */
bool dc_pfw_compressed(const char *path);
/* Start a trace on @fd: the "[" line and the host's HH record. */
int dc_pfw_open(struct dc_pfw *w, int fd, const struct dc_pfw_opts *o);
/* Write one call; returns its id. Metadata it needs comes first. A
 * filtered call takes an id and writes nothing, so nesting holds. */
uint64_t dc_pfw_call(struct dc_pfw *w, const struct dc_call *c, int64_t p_idx);
/* Profile mode: one aggregate of the interval starting at @mono; @object:
 * the HDF5 dataset its handle stands for, or NULL. */
void dc_pfw_counter(struct dc_pfw *w, const struct dc_proc *p,
		    const struct dc_rthread *t, const struct dc_probe *probe,
		    struct dc_file *file, const char *object, bool inner,
		    const struct dc_agg_val *v, uint64_t mono);
/* At a thread's exit: name it @comm if it had no name yet, or was
 * renamed; the writer then forgets it. */
void dc_pfw_thread_exit(struct dc_pfw *w, const struct dc_rthread *t,
			const char *comm, uint64_t mono);
/* At the end: name @comm a thread this trace could not name yet. */
void dc_pfw_thread_unnamed(struct dc_pfw *w, const struct dc_rthread *t,
			   const char *comm, uint64_t mono);
/* At an exec: a process this trace named already is named again, with
 * the new program's facts, though no call of it may follow. */
void dc_pfw_proc_exec(struct dc_pfw *w, const struct dc_proc *p, uint64_t mono);
/* A process gone for good: forget what the trace said of it. */
void dc_pfw_forget_proc(struct dc_pfw *w, const struct dc_proc *p);
/* "start" event; @args_json is the body of its args object after hhash. */
int dc_pfw_marker(struct dc_pfw *w, const char *name, uint64_t mono_ns,
		  const char *args_json);
/* Close a member older than the interval; returns the first write error. */
int dc_pfw_tick(struct dc_pfw *w, uint64_t mono_ns);
/* Write "]" and flush. Returns the first write error, if any. */
int dc_pfw_close(struct dc_pfw *w);
/* Let go of a trace never ended: what was written stays, unended. */
void dc_pfw_free(struct dc_pfw *w);

#endif
