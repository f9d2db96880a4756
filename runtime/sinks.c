// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "records.h"
#include "safeopen.h"
#include "sinks.h"

struct dc_sink {
	struct dc_pfw w;
	int fd; /* -1: the trace could not be made; events go to the server's */
	char path[PATH_MAX];
	uint32_t job;
	uint64_t idle_since; /* when its last process was seen gone, or 0 */
	uint64_t diverted;   /* events written to the server's trace */
	uint32_t owner;	     /* the trace's owner; 0 (root) sees all */
	struct dc_withheld held;
};

/* A process names itself (prctl PR_SET_NAME takes any bytes, '/' too):
 * in a file name root creates, only plain characters. */
static void file_name(const char *comm, char *out, size_t size)
{
	size_t i;

	for (i = 0; comm[i] && i + 1 < size; i++)
		out[i] =
		    isalnum((unsigned char)comm[i]) || strchr("._+-", comm[i])
			? comm[i]
			: '_';
	out[i] = '\0';
}

/* Whom a job's trace is for: who asked for the job, else its process's
 * user; root when neither is known (root sees all). */
static struct dc_ids job_owner(struct dc_sinks *out, const struct dc_proc *p)
{
	const struct dc_ids *asked = dc_map_get(&out->owners, p->job);
	uint32_t uid, gid;

	if (asked)
		return *asked;
	if (dc_proc_owner(p, &uid, &gid))
		return (struct dc_ids){};
	return (struct dc_ids){ uid, gid };
}

/* A new file, never an existing one or a symlink, in the directory the
 * server was given (as it was when the server started), created by the
 * job's owner: where they could not create it, there is no trace. */
static int create(struct dc_sinks *out, struct dc_proc *p, struct dc_sink *s)
{
	char host[64] = "host", name[NAME_MAX + 1], comm[sizeof(p->comm)];
	struct dc_ids who = job_owner(out, p);

	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	file_name(p->comm, comm, sizeof(comm));
	for (int n = 0; n < 100; n++) {
		snprintf(name, sizeof(name), "%s-%s-job%u%s%.0d.pfw.gz", comm,
			 host, p->job, n ? "-" : "", n);
		s->fd =
		    dc_open_as(&who, out->dirfd, name,
			       O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0640);
		if (s->fd != -EEXIST)
			break;
	}
	snprintf(s->path, sizeof(s->path), "%s/%s", out->dir, name);
	if (s->fd < 0)
		return s->fd;
	s->owner = who.uid;
	return 0;
}

int dc_sinks_job_owner(struct dc_sinks *out, uint32_t job,
		       const struct dc_ids *who)
{
	struct dc_ids *u = dc_map_get(&out->owners, job);

	if (!u) {
		u = malloc(sizeof(*u));
		if (!u || dc_map_put(&out->owners, job, u)) {
			free(u);
			return -ENOMEM;
		}
	}
	*u = *who;
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

struct dc_pfw *dc_sink(struct dc_sinks *out, struct dc_proc *p)
{
	struct dc_sink *s;
	struct dc_buf args = {};
	int err;

	if (!out->server || !p || !p->job)
		return &out->w;
	s = dc_map_get(&out->jobs, p->job);
	if (s && s->fd < 0)
		s->diverted++;
	if (s)
		return s->fd < 0 ? &out->w : &s->w;
	s = calloc(1, sizeof(*s));
	if (!s || dc_map_put(&out->jobs, p->job, s)) {
		free(s);
		return &out->w;
	}
	s->job = p->job;
	err = create(out, p, s);
	if (!err)
		err = dc_pfw_open(&s->w, s->fd, &out->wo);
	if (err) {
		/* Said once; the count comes when the job ends. */
		dc_warn("job %u: cannot create its trace in %s: %s; its events "
			"go to %s",
			p->job, out->dir, strerror(-err), out->w_path);
		if (s->fd >= 0)
			close(s->fd);
		s->fd = -1;
		s->diverted = 1;
		return &out->w;
	}
	dc_rec_job_start(&args, p->job, p->comm, out->profile, out->mounts);
	dc_pfw_marker(&s->w, "start", mono_ns(), args.p);
	dc_buf_free(&args);
	dc_info("job %u (%s, pid %u): %s", p->job, p->comm, p->pid, s->path);
	return &s->w;
}

void dc_sink_exec(struct dc_sinks *out, struct dc_proc *p, uint64_t mono)
{
	struct dc_sink *s =
	    out->server && p->job ? dc_map_get(&out->jobs, p->job) : NULL;
	bool job = s && s->fd >= 0;

	if (!dc_privs_gained(p, job ? s->owner : out->owner))
		dc_pfw_proc_exec(job ? &s->w : &out->w, p, mono);
}

void dc_sink_forget(struct dc_sinks *out, const struct dc_proc *p)
{
	struct dc_sink *s =
	    out->server && p->job ? dc_map_get(&out->jobs, p->job) : NULL;

	dc_pfw_forget_proc(s && s->fd >= 0 ? &s->w : &out->w, p);
}

/* Write the job's end record and let go of its file and memory. */
static void sink_end(struct dc_sinks *out, struct dc_sink *s, uint64_t now,
		     const char *end_args)
{
	struct dc_buf args = {};

	if (s->fd >= 0) {
		dc_rec_job_end(&args, end_args, s->w.calls,
			       out->lost(out->lost_ctx), &s->held);
		dc_pfw_marker(&s->w, "end", now, args.p);
		dc_buf_free(&args);
		dc_withheld_say(&s->held, s->path);
		if (dc_pfw_close(&s->w) || close(s->fd))
			dc_err("writing %s failed", s->path);
	} else {
		dc_warn("job %u: %llu events went to %s", s->job,
			(unsigned long long)s->diverted, out->w_path);
	}
	free(dc_map_del(&out->owners, s->job));
	free(s);
}

void dc_sinks_tick(struct dc_sinks *out, uint64_t now,
		   const struct dc_procs *ps, const struct dc_cgroups *cg)
{
	struct dc_map alive = {};

	/* A complete gzip member at least every second, as for a command's
	 * trace: a killed server leaves every job readable. */
	dc_map_foreach (&out->jobs, i) {
		struct dc_sink *s = out->jobs.vals[i];

		if (s->fd >= 0 && dc_pfw_tick(&s->w, now))
			dc_err("writing %s failed", s->path);
	}
	if (now - out->checked < 1000000000ull)
		return;
	out->checked = now;
	dc_map_foreach (&ps->procs, i) {
		struct dc_proc *p = ps->procs.vals[i];

		if (p->job && !p->exited_ns && dc_map_put(&alive, p->job, p))
			goto cleanup;
	}
	/* A job ends two seconds after its last process, when its last
	 * events have been read; a followed cgroup's may get new ones
	 * until the cgroup is removed. */
	dc_map_foreach (&out->jobs, i) {
		struct dc_sink *s = out->jobs.vals[i];

		if (dc_map_get(&alive, s->job) ||
		    dc_cgroups_has_job(cg, s->job)) {
			s->idle_since = 0;
		} else if (!s->idle_since) {
			s->idle_since = now;
		} else if (now - s->idle_since >= 2000000000ull) {
			dc_map_del(&out->jobs, s->job);
			if (s->fd >= 0)
				dc_info("job %u ended: %s", s->job, s->path);
			sink_end(out, s, now, NULL);
		}
	}
cleanup:
	dc_map_free(&alive, NULL);
}

size_t dc_sinks_close(struct dc_sinks *out, const char *end_args)
{
	size_t n = 0;

	dc_map_foreach (&out->jobs, i) {
		sink_end(out, out->jobs.vals[i], mono_ns(), end_args);
		n++;
	}
	dc_map_free(&out->jobs, NULL);
	dc_map_free(&out->owners, free);
	return n;
}

int dc_sinks_open(struct dc_sinks *out, int fd, const char *path)
{
	int err = dc_pfw_open(&out->w, fd, &out->wo);

	if (err)
		return err;
	out->w_path = path;
	out->w_open = true;
	return 0;
}

int dc_sinks_end(struct dc_sinks *out, const char *end_args)
{
	int err;

	dc_pfw_marker(&out->w, "end", mono_ns(), end_args);
	err = dc_pfw_close(&out->w);
	out->w_open = false;
	if (err)
		dc_err("writing %s failed: %s; the trace holds what was "
		       "written before",
		       out->w_path, strerror(-err));
	dc_withheld_say(&out->held, out->w_path);
	return err;
}

void dc_sinks_free(struct dc_sinks *out)
{
	if (out->w_open)
		dc_pfw_free(&out->w);
	out->w_open = false;
}

void dc_withheld_say(const struct dc_withheld *h, const char *path)
{
	if (h->events)
		dc_warn("%s: %llu events of %d processes that gained "
			"privileges (pid %u%s) were left out of it",
			path, (unsigned long long)h->events, h->npids,
			h->pids[0], h->npids > 1 ? ", ..." : "");
}

static void hold(struct dc_withheld *h, uint32_t pid)
{
	int i;

	h->events++;
	for (i = 0; i < h->npids && h->pids[i] != pid; i++)
		;
	if (i == h->npids && h->npids < DC_WITHHELD_PIDS)
		h->pids[h->npids++] = pid;
}

bool dc_withhold(struct dc_sinks *out, struct dc_proc *p)
{
	struct dc_sink *s;

	if (!p)
		return false;
	if (out->server && p->job) {
		dc_sink(out, p);
		s = dc_map_get(&out->jobs, p->job);
		if (!s || s->fd < 0 || !dc_privs_gained(p, s->owner))
			return false;
		hold(&s->held, p->pid);
		return true;
	}
	if (!dc_privs_gained(p, out->owner))
		return false;
	hold(&out->held, p->pid);
	return true;
}
