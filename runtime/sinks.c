// SPDX-License-Identifier: MIT
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "sinks.h"

struct dc_sink {
	struct dc_pfw w;
	int fd;
	char path[PATH_MAX];
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

/* A new file, never an existing one or a symlink: O_EXCL | O_NOFOLLOW. */
static int create(struct dc_rt *rt, struct dc_proc *p, struct dc_sink *s)
{
	char host[64] = "host", proc[64], name[sizeof(p->comm)];
	struct stat st;

	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	file_name(p->comm, name, sizeof(name));
	for (int n = 0; n < 100; n++) {
		snprintf(s->path, sizeof(s->path),
			 "%s/%s-%s-job%u%s%.0d.pfw.gz", rt->sink_dir, name,
			 host, p->job, n ? "-" : "", n);
		s->fd = open(
		    s->path,
		    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0640);
		if (s->fd >= 0 || errno != EEXIST)
			break;
	}
	if (s->fd < 0)
		return -errno;
	/* The trace belongs to whom the job belongs to, not to root. */
	snprintf(proc, sizeof(proc), "/proc/%u", p->pid);
	if (p->owner_known) {
		st.st_uid = p->uid;
		st.st_gid = p->gid;
	} else if (stat(proc, &st)) {
		return 0;
	}
	if (fchown(s->fd, st.st_uid, st.st_gid))
		dc_warn("%s: cannot give it to uid %u: %s", s->path, st.st_uid,
			strerror(errno));
	return 0;
}

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

struct dc_pfw *dc_sink(struct dc_rt *rt, struct dc_proc *p)
{
	struct dc_sink *s;
	struct dc_buf args = {};
	int err;

	if (!rt->server || !p || !p->job)
		return &rt->w;
	s = dc_map_get(&rt->sinks, p->job);
	if (s)
		return &s->w;
	s = calloc(1, sizeof(*s));
	if (!s)
		return &rt->w;
	err = create(rt, p, s);
	if (!err)
		err = dc_pfw_open(&s->w, s->fd, &rt->ps, &rt->wo);
	if (!err)
		err = dc_map_put(&rt->sinks, p->job, s);
	if (err) {
		dc_warn("job %u: cannot create its trace in %s: %s; its events "
			"go to %s",
			p->job, rt->sink_dir, strerror(-err), rt->w_path);
		if (s->fd > 0)
			close(s->fd);
		free(s);
		return &rt->w;
	}
	s->w.paths = rt->w.paths;
	s->w.npaths = rt->w.npaths;
	s->w.xpaths = rt->w.xpaths;
	s->w.nxpaths = rt->w.nxpaths;
	dc_buf_addf(&args, "\"job\":%u,\"cmd\":", p->job);
	dc_json_str(&args, p->comm, strlen(p->comm));
	dc_buf_addf(&args, ",\"mode\":\"%s\"",
		    rt->profile ? "profile" : "trace");
	dc_buf_add(&args, "", 1);
	dc_pfw_marker(&s->w, "start", mono_ns(), args.p);
	dc_buf_free(&args);
	dc_info("job %u (%s, pid %u): %s", p->job, p->comm, p->pid, s->path);
	return &s->w;
}

struct dc_pfw *dc_sink_of_pid(struct dc_rt *rt, uint32_t pid)
{
	return dc_sink(rt, dc_map_get(&rt->ps.procs, pid));
}

size_t dc_sinks_close(struct dc_rt *rt, const char *end_args)
{
	size_t n = 0;
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	dc_map_foreach (&rt->sinks, i) {
		struct dc_sink *s = rt->sinks.vals[i];

		dc_pfw_marker(&s->w, "end",
			      t.tv_sec * 1000000000ull + t.tv_nsec, end_args);
		if (dc_pfw_close(&s->w) || close(s->fd))
			dc_err("writing %s failed", s->path);
		free(s);
		n++;
	}
	dc_map_free(&rt->sinks, NULL);
	return n;
}
