/* SPDX-License-Identifier: MIT */
#ifndef DC_SESSION_H
#define DC_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "kuring.h"
#include "links.h"
#include "object.h"
#include "trace.h"

/* What a session is asked for, from the command line. */
struct dc_session_opts {
	const char *layers;  /* --layers: comma-separated, or NULL */
	bool trace_all;	     /* --all */
	bool profile;	     /* --mode profile */
	bool server;	     /* probes attached per job; cgroups followed */
	bool wrappers;	     /* thin syscall wrappers traced at sys_enter */
	uint64_t min_dur_ns; /* --min-duration */
	uint32_t max_procs;  /* --max-procs: processes traced at once */
	size_t ringbuf_size; /* --ringbuf-size */
	bool verifier_stats; /* -vv: each program's verification, said */
	const char *command; /* COMMAND's executable, or NULL ... */
	char *const *argv;   /* ... and its argv: uprobes go on the copies
				of libraries they map (uprobes.c) */
};

/* A file, as stat() tells it apart. */
struct dc_usdt_file {
	dev_t dev;
	ino_t ino;
};

/*
 * The session: a generated object, loaded, its probes and what of it is
 * attached (loader.c loads, attach.c, uprobes.c, uprobe_links.c,
 * usdts.c and latelib.c attach). The stages downstream read its probes; only
 * these files change it.
 */
struct dc_session {
	struct dc_session_opts opt;
	const char *path;
	struct dc_obj o;
	struct dc_probe_info *descs; /* the object's probe table */
	struct dc_probe *probes;     /* ... as the runtime sees each */
	char *json_names;	     /* their names and layers, as JSON */
	size_t nprobes;
	struct dc_links links;
	bool probes_attached; /* server mode: only while a job runs */
	bool libs_watched;    /* libraries mapped later (latelib.c) */
	bool libs_at_exit;    /* ... seen by the sys_exit program */
	bool uprobe_session;  /* uprobes as one uprobe.session link a batch */
	bool uprobe_multi;    /* ... else uprobe_multi links, else one perf
				 event a function (Linux < 6.6) */
	int uring_shape;      /* enum dc_uring_shape: io_uring's events */
	const char *uring_submit; /* ... and its submission event's name */
	size_t nwrap_sites;    /* wrappers traced at this many syscall sites */
	char unsupported[512]; /* mechanisms and tracepoints this kernel
				  cannot trace, named in the start record
				  ("io_uring,ext4/ext4_sync_file_enter") */
	struct dc_uprobes *uprobes; /* uprobes.c: prepared batches */
	/* A traced process may be stopped at a mapping until the runtime
	 * or exec until the runtime continues it (latelib.c, usdts.c): set
	 * once watching began, never unset. */
	bool libs_stopping;
	struct {
		struct dc_usdt_file *v;
		size_t n;
	} usdt_files; /* usdts.c: files of late copies USDT went into */
};

/* loader.c */
/* The object's probe table, without loading anything (bench/replay). */
int dc_probes_read(struct dc_session *sess, const char *path);
/* Read, open, configure from @sess->opt and load @path: 0 or -errno
 * (said). */
int dc_load(struct dc_session *sess, const char *path);
/* Start tracing process @pid in @job, or stop (@job 0); @if_new: leave
 * it in its job if it is traced already. 0, -ENOSPC when --max-procs are
 * traced already, or another -errno. */
int dc_set_traced(struct dc_session *sess, int pid, __u32 job, bool if_new);
int dc_trace_pid(struct dc_session *sess, int pid);
/* Call @fn on each traced process's pid, in the map's order, until it
 * returns non-zero; that value, or 0. */
int dc_traced_each(struct dc_session *sess,
		   int (*fn)(struct dc_session *sess, __u32 pid, void *ctx),
		   void *ctx);
/* Whether any traced process (given, or a descendant) still runs. */
bool dc_traced_alive(struct dc_session *sess);
/* Whether --layers lets @layer be traced. */
bool dc_layer_enabled(const struct dc_session *sess, const char *layer);
/* A limit hit outside any probe (enum dc_limit), counted by the BPF side. */
uint64_t dc_limit(struct dc_session *sess, enum dc_limit which);
/* Processes left untraced because --max-procs were traced already. */
uint64_t dc_untraced_procs(struct dc_session *sess);
/* Sum the per-CPU loss counters into probes[].lost. */
int dc_read_losses(struct dc_session *sess);
/* Every event lost so far, as the end record's dropped counts them. */
uint64_t dc_lost_total(struct dc_session *sess);
void dc_unload(struct dc_session *sess);

/* attach.c */
/* Forks, execs, exits (and cgroup moves): which processes are traced. */
int dc_attach_tracking(struct dc_session *sess);
/* The probes themselves; a no-op while they are attached. */
int dc_attach_probes(struct dc_session *sess);
int dc_attach_all(struct dc_session *sess);
/* Detach the probes, leaving process tracking: a server with no job
 * costs the processes on the machine nothing. */
void dc_detach_probes(struct dc_session *sess);
void dc_detach_all(struct dc_session *sess);

/* copies.c */
/* Copies of one library probed at most (a module's, Spack's, Debian's):
 * each probe is attached up to this many times. */
#define DC_COPIES_MAX 8
/* Where a probe's binary is on this machine: 0 or -errno. */
int dc_probe_binary(const struct dc_probe_info *d, char *path, size_t size);

/* uprobes.c */
/* Start finding every uprobe's offset, in a thread: 0 or -ENOMEM. */
int dc_uprobes_prepare(struct dc_session *sess);
/* Wait for that, then attach: 0 or -errno. */
int dc_uprobes_attach(struct dc_session *sess);
/* Add the syscalls of the wrappers recognised at them to @bits. */
void dc_uprobes_sysnrs(const struct dc_session *sess, __u64 *bits);
/* A copy of probe @i's library, open as @fd and said as @name, that
 * process @pid mapped after start: its target's probes attached there.
 * 0, -ENOENT if it has none of their functions, or -errno (said). */
int dc_uprobes_late(struct dc_session *sess, size_t i, int fd, const char *name,
		    const struct stat *st, unsigned pid);
/* The @k-th file checked for the specs' libraries before the command
 * started (each copy probed, then each library the command maps) into
 * @st's st_dev and st_ino: 0, -ENOENT past the last, or another -errno
 * for one that cannot be read. */
int dc_uprobes_checked(const struct dc_session *sess, size_t k,
		       struct stat *st);
/* Whether the file of @st has the uprobes of @target already. */
bool dc_uprobes_probed(const struct dc_session *sess, const char *target,
		       const struct stat *st);
void dc_uprobes_free(struct dc_session *sess);
/* Name each library whose probes saw no call, and the files probed for
 * it: no traced program loaded it, or none called it. */
void dc_uprobes_say_idle(const struct dc_session *sess);

/* uprobe_links.c */
/* Uprobes (@ret: return probes) on @path at @offsets, with @cookies: one
 * uprobe_multi link, or on kernels without them one perf-event uprobe
 * each. All or none; 0 or -errno. */
int dc_attach_uprobes(struct dc_session *sess, struct bpf_program *p,
		      const char *path, const unsigned long *offsets,
		      const __u64 *cookies, size_t n, bool ret);

/* usdts.c */
/* Whether probe @i is a USDT probe to attach. */
bool dc_usdt_probe(const struct dc_session *sess, size_t i);
/* Attach probe @i's sites in the file @path (@name in messages), for
 * process @pid only or 0 for all. 0, or -ENOMEM; a probe that cannot be
 * attached is said and left out. */
int dc_usdt_attach(struct dc_session *sess, size_t i, const char *path,
		   const char *name, __u32 pid);
/* Whether the USDT probes in @path attach to one process at a time: a
 * PIE or a shared library on a kernel without BPF cookies. */
bool dc_usdt_per_process(const struct dc_session *sess, const char *path);
/* Whether probe @i's target is the file @st. */
bool dc_usdt_target_is(const struct dc_session *sess, size_t i,
		       const struct stat *st);
/* Attach every USDT probe in the file its target names now (or, one
 * process at a time, once each runs or maps it). */
int dc_usdts_attach(struct dc_session *sess);
/* The file of the @k-th USDT probe's target, in @st: 0, -EINVAL when
 * it has none, -EAGAIN when it is attached one process at a time,
 * -ENOENT past the last. */
int dc_usdts_file(const struct dc_session *sess, size_t k, struct stat *st);
/* Whether @st's file was given to dc_usdts_seen() before (1), else 0,
 * remembering it; -ENOMEM. */
int dc_usdts_seen(struct dc_session *sess, const struct stat *st);
void dc_usdts_free(struct dc_session *sess);

#endif
