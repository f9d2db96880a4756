/* SPDX-License-Identifier: MIT */
#ifndef DC_RUNTIME_H
#define DC_RUNTIME_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "filter.h"
#include "procs.h"
#include "session.h"
#include "sinks.h"
#include "trace.h"

/* One of each stage of the pipeline (docs/design.md), for main.c to run
 * and for the ring buffer's consumer (ringbuf.c, enrich.c); the other
 * stages take their own struct and what they need of these. */
struct dc_rt {
	struct dc_session sess; /* the object, loaded and attached */
	/* sources */
	struct ring_buffer *rb;
	uint64_t records;	    /* ring buffer records consumed */
	unsigned int batch;	    /* records taken in this wait */
	bool rb_more;		    /* the last wait stopped at a full batch */
	FILE *save;		    /* --save-records, for bench/replay */
	struct dc_profile *profile; /* profile mode, else NULL */
	/* enrichment */
	struct dc_procs ps;
	uint64_t bad_records; /* malformed records (a bug if ever non-zero) */
	/* filters and sinks */
	struct dc_filter filter; /* --paths, --exclude-paths */
	struct dc_sinks out;	 /* where calls are written */
	/* server mode */
	bool want_probes; /* a process joined: the server attaches them */
	/* what the run cost, for its summary */
	uint64_t cpu0_ns;   /* the runtime's own CPU time when tracing began */
	uint64_t detach_ns; /* wall time detaching took */
	uint64_t detach_cpu_ns;
};

/* ringbuf.c: the ring buffer's consumer. */
void dc_ringbuf_close(struct dc_rt *rt);
int dc_ringbuf_open(struct dc_rt *rt);
/* Wait up to @timeout_ms (not at all if records are left over), then
 * take a batch of records. 0 or -errno. */
int dc_ringbuf_poll(struct dc_rt *rt, int timeout_ms);
/* Take a batch of records without waiting. 0 or -errno. */
int dc_ringbuf_consume(struct dc_rt *rt);
/* Consume everything left, then write what threads still hold. */
int dc_ringbuf_drain(struct dc_rt *rt);
/* Take every record reserved before now, and no more: what a flood
 * writes meanwhile waits for the next poll. 0 or -errno. */
int dc_ringbuf_catch_up(struct dc_rt *rt);

/* enrich.c: records become calls, handed on. */
/* Decode and hand on one raw record (the ring buffer's callback). */
int dc_enrich_record(struct dc_rt *rt, const void *data, size_t size);
/* Write the calls threads still hold (nested in calls never returned). */
void dc_enrich_flush(struct dc_rt *rt);

#endif
