/* SPDX-License-Identifier: MIT */
#ifndef DC_RUNTIME_H
#define DC_RUNTIME_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "filter.h"
#include "map.h"
#include "session.h"
#include "procs.h"
#include "trace.h"
#include "writer_pfw.h"

/* Events kept out of a trace: their processes gained privileges. */
#define DC_WITHHELD_PIDS 16
struct dc_withheld {
	uint64_t events;
	uint32_t pids[DC_WITHHELD_PIDS];
	int npids;
};

/* State shared by the runtime's parts. */
struct dc_rt {
	struct dc_session sess; /* the object, loaded and attached */
	bool want_probes;	/* a process joined: attach them */
	uint64_t idle_since;	/* server: when the last job ended, or 0 */
	struct ring_buffer *rb;
	struct dc_procs ps;
	struct dc_pfw w;
	struct dc_filter filter; /* --paths, --exclude-paths */
	uint64_t records;	 /* ring buffer records consumed */
	uint64_t bad_records; /* malformed records (a bug if ever non-zero) */
	struct dc_profile *profile; /* profile mode, else NULL */
	const char *sink_dir;	    /* where job traces are created */
	const char *w_path;	    /* the run's own trace */
	struct dc_pfw_opts wo;
	struct dc_map sinks;	/* job -> struct dc_sink */
	uint64_t sinks_checked; /* when jobs were last checked for an end */
	uint32_t trace_owner; /* --user's uid: the command's trace is theirs */
	struct dc_withheld held; /* ... and what was kept out of it */
	uint64_t cpu0_ns;   /* the runtime's own CPU time when tracing began */
	uint64_t detach_ns; /* wall time detaching took */
	uint64_t detach_cpu_ns;
	bool verbose;
	FILE *save; /* --save-records, for bench/replay */
};

/* ringbuf.c: the ring buffer's consumer. */
void dc_ringbuf_close(struct dc_rt *rt);
int dc_ringbuf_open(struct dc_rt *rt);
int dc_ringbuf_poll(struct dc_rt *rt, int timeout_ms);
/* Consume everything left, then write what threads still hold. */
int dc_ringbuf_drain(struct dc_rt *rt);

/* enrich.c: records become calls, handed on. */
/* Decode and hand on one raw record (the ring buffer's callback). */
int dc_enrich_record(struct dc_rt *rt, const void *data, size_t size);
/* Write the calls threads still hold (nested in calls never returned). */
void dc_enrich_flush(struct dc_rt *rt);

#endif
