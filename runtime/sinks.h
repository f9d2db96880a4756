/* SPDX-License-Identifier: MIT */
#ifndef DC_SINKS_H
#define DC_SINKS_H

#include <stdbool.h>
#include <stdint.h>

#include "buf.h"
#include "cgroup.h"
#include "map.h"
#include "procs.h"
#include "safeopen.h"
#include "writer_pfw.h"

/* Events kept out of a trace: their processes gained privileges. */
#define DC_WITHHELD_PIDS 16
struct dc_withheld {
	uint64_t events;
	uint32_t pids[DC_WITHHELD_PIDS];
	int npids;
};

/* The traces a run writes, owned by sinks.c: it opens and closes their
 * writers; the caller opens and closes the files and fills in the rest. */
struct dc_sinks {
	struct dc_pfw w;       /* the run's own trace */
	bool w_open;	       /* ... its writer open (dc_sinks_open) */
	const char *w_path;    /* ... its path */
	struct dc_pfw_opts wo; /* how traces are written */
	const char *dir;       /* server: where job traces are created, */
	int dirfd;	       /* ... as the run's trace reached it */
	struct dc_map jobs;    /* server: job -> struct dc_sink */
	struct dc_map owners;  /* server: job -> struct dc_ids, who asked */
	uint64_t checked;      /* when jobs were last checked for an end */
	uint32_t owner;	       /* --user's uid: the command's trace is theirs */
	char *mounts; /* the file systems mounted as the run began, as start
			 records give them (mounts.c), or NULL */
	struct dc_withheld held; /* ... and what was kept out of it */
	bool server;  /* server mode: jobs have traces of their own */
	bool profile; /* profile mode, said in job traces */
	/* The run's events lost so far, for a job's end (read from the
	 * BPF maps when a job ends). */
	uint64_t (*lost)(void *ctx);
	void *lost_ctx;
};

/* Start the run's trace on @fd (@path names it in messages). 0 or -errno. */
int dc_sinks_open(struct dc_sinks *out, int fd, const char *path);
/* End the run's trace with an "end" record of @end_args and close its
 * writer, saying what was withheld. 0, or -errno after a message. */
int dc_sinks_end(struct dc_sinks *out, const char *end_args);
/* Let go of the run's writer if it was not ended (an error path). */
void dc_sinks_free(struct dc_sinks *out);

/*
 * Where a process's events are written: the run's one trace, or in server
 * mode the trace of its job (a process that joined, with its children, or
 * a followed cgroup), created on the job's first event in the server's
 * directory, owned by the process's user, mode 0640, never through a
 * symlink.
 */
struct dc_pfw *dc_sink(struct dc_sinks *out, struct dc_proc *p);
/* Server mode: job @job's trace is for @who (who joined, tracked or
 * followed). 0 or -ENOMEM. */
int dc_sinks_job_owner(struct dc_sinks *out, uint32_t job,
		       const struct dc_ids *who);
/* A process exec'd: its trace, if it named it, names it again, unless
 * the exec gave it rights the trace's owner lacks (dc_withhold()). */
void dc_sink_exec(struct dc_sinks *out, struct dc_proc *p, uint64_t mono);
/* A process gone for good: its trace, if it has one, forgets it. */
void dc_sink_forget(struct dc_sinks *out, const struct dc_proc *p);
/* Server mode, from the main loop: flush the jobs' traces (a gzip member
 * a second) and end those whose processes (in @ps) are all gone and
 * whose cgroup (in @cg) is no longer followed. */
void dc_sinks_tick(struct dc_sinks *out, uint64_t now,
		   const struct dc_procs *ps, const struct dc_cgroups *cg);
/*
 * Whether a call of @p is kept out of its trace, and counted: a process
 * that has rights the trace's owner lacks (dc_privs_gained(): a setuid
 * or setgid program, capabilities) never reaches the trace of a less
 * privileged user, a job's, a --user command's or one -p gave to the
 * traced process's owner. Root's traces keep everything.
 */
bool dc_withhold(struct dc_sinks *out, struct dc_proc *p);
/* A warning naming @path, if anything was withheld from it. */
void dc_withheld_say(const struct dc_withheld *h, const char *path);
/* Server mode: end and close every job's trace; returns how many. */
size_t dc_sinks_close(struct dc_sinks *out, const char *end_args);

#endif
