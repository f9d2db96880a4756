/* SPDX-License-Identifier: MIT */
#ifndef DC_RUNTIME_H
#define DC_RUNTIME_H

#include <bpf/libbpf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "filter.h"
#include "links.h"
#include "map.h"
#include "object.h"
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
	struct dc_obj o; /* the loaded object */
	const char *obj_path;
	struct dc_probe_info *descs;
	struct dc_probe *probes;
	size_t nprobes;
	struct dc_links links;
	bool probes_attached; /* server mode: only while a job runs */
	bool want_probes;     /* a process joined: attach them */
	bool profiling;	      /* --mode profile */
	uint64_t idle_since;  /* server: when the last job ended, or 0 */
	bool session;	      /* uprobes as one uprobe.session link per batch */
	bool wrappers;	      /* thin syscall wrappers traced at sys_enter */
	size_t nwrap_sites;   /* ... at this many syscall instructions */
	struct dc_uprobes *uprobes; /* uprobes.c: prepared batches */
	struct ring_buffer *rb;
	struct dc_procs ps;
	struct dc_pfw w;
	struct dc_filter filter; /* --paths, --exclude-paths */
	uint64_t records;	 /* ring buffer records consumed */
	uint64_t bad_records; /* malformed records (a bug if ever non-zero) */
	struct dc_profile *profile; /* profile mode, else NULL */
	const char *layers;	    /* --layers: comma-separated, or NULL */
	bool server;		    /* one trace per job (sinks.c) */
	const char *sink_dir;	    /* where job traces are created */
	const char *w_path;	    /* the run's own trace */
	struct dc_pfw_opts wo;
	struct dc_map sinks;	/* job -> struct dc_sink */
	uint64_t sinks_checked; /* when jobs were last checked for an end */
	uint32_t trace_owner; /* --user's uid: the command's trace is theirs */
	struct dc_withheld held; /* ... and what was kept out of it */
	uint64_t min_dur_ns;	 /* --min-duration */
	uint32_t max_procs;	 /* --max-procs: processes traced at once */
	uint64_t cpu0_ns;   /* the runtime's own CPU time when tracing began */
	uint64_t detach_ns; /* wall time detaching took */
	uint64_t detach_cpu_ns;
	bool verbose;
	FILE *save; /* --save-records, for bench/replay */
};

/* ringbuf.c: the ring buffer's consumer. */
int dc_ringbuf_open(struct dc_rt *rt);
int dc_ringbuf_poll(struct dc_rt *rt, int timeout_ms);
/* Consume everything left, then write what threads still hold. */
int dc_ringbuf_drain(struct dc_rt *rt);

/* enrich.c: records become calls, handed on. */
/* Decode and hand on one raw record (the ring buffer's callback). */
int dc_enrich_record(struct dc_rt *rt, const void *data, size_t size);
/* Write the calls threads still hold (nested in calls never returned). */
void dc_enrich_flush(struct dc_rt *rt);

/* attach.c */
/* Forks, execs, exits (and cgroup moves): which processes are traced. */
int dc_attach_tracking(struct dc_rt *rt);
/* The probes themselves; a no-op while they are attached. */
int dc_attach_probes(struct dc_rt *rt);
int dc_attach_all(struct dc_rt *rt);
/* Detach the probes, leaving process tracking: a server with no job
 * costs the processes on the machine nothing. */
void dc_detach_probes(struct dc_rt *rt);
void dc_detach_all(struct dc_rt *rt);

/* uprobes.c */
/* Where a probe's binary is on this machine: 0 or -errno. */
int dc_probe_binary(const struct dc_probe_info *d, char *path, size_t size);
/* Start finding every uprobe's offset, in a thread: 0 or -ENOMEM. */
int dc_uprobes_prepare(struct dc_rt *rt);
/* Wait for that, then attach: 0 or -errno. */
int dc_uprobes_attach(struct dc_rt *rt);
void dc_uprobes_free(struct dc_rt *rt);

/* loader.c */
/* The object's probe table, without loading anything (bench/replay). */
int dc_probes_read(struct dc_rt *rt, const char *path);
int dc_load(struct dc_rt *rt, const char *path, bool trace_all, bool profile,
	    size_t ringbuf_size);
/* Start tracing process @pid in @job, or stop (@job 0); @if_new: leave
 * it in its job if it is traced already. 0, -ENOSPC when --max-procs are
 * traced already, or another -errno. */
int dc_set_traced(struct dc_rt *rt, int pid, __u32 job, bool if_new);
int dc_trace_pid(struct dc_rt *rt, int pid);
/* Whether any traced process (given, or a descendant) still runs. */
bool dc_traced_alive(struct dc_rt *rt);
/* Whether --layers lets @layer be traced. */
bool dc_layer_enabled(const struct dc_rt *rt, const char *layer);
/* A limit hit outside any probe (enum dc_limit), counted by the BPF side. */
uint64_t dc_limit(struct dc_rt *rt, enum dc_limit which);
/* Processes left untraced because --max-procs were traced already. */
uint64_t dc_untraced_procs(struct dc_rt *rt);
/* Sum the per-CPU loss counters into rt->probes[].lost. */
int dc_read_losses(struct dc_rt *rt);
/* Every event lost so far, as the end record's dropped counts them. */
uint64_t dc_lost_total(struct dc_rt *rt);
void dc_unload(struct dc_rt *rt);

#endif
