// SPDX-License-Identifier: MIT
/* Server mode's followed cgroups: which a caller may follow, the tasks of
 * theirs already in one, and when one is gone. */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "cgroup.h"
#include "privs.h"
#include "procs.h"
#include "safeopen.h"
#include "session.h"

#define PROCS_MAX (1u << 20) /* bytes of cgroup.procs read at most */

static size_t of_user(const struct dc_cgroups *cg, uid_t uid)
{
	size_t n = 0;

	for (size_t i = 0; i < cg->n; i++)
		n += cg->v[i].uid == uid;
	return n;
}

static struct dc_cgroup *find(const struct dc_cgroups *cg, uint64_t id)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->v[i].id == id)
			return &cg->v[i];
	return NULL;
}

int dc_cgroup_check(const struct dc_cgroups *cg, const struct ucred *cred,
		    const char *path, struct dc_cgroup *c, char *out,
		    size_t size)
{
	struct dc_ids who = { cred->uid, cred->gid };
	struct statfs sf;
	struct stat st;
	int fd;

	if (cred->uid && of_user(cg, cred->uid) >= DC_CGROUPS_PER_USER) {
		snprintf(out, size,
			 "error: you follow %d cgroups already, the most a "
			 "user may",
			 DC_CGROUPS_PER_USER);
		return -EDQUOT;
	}
	if (cg->n >= DC_CGROUPS_MAX) {
		snprintf(out, size,
			 "error: the server follows %d cgroups "
			 "already, the most it can",
			 DC_CGROUPS_MAX);
		return -ENOSPC;
	}
	if (*path != '/') {
		snprintf(out, size, "error: %s: not an absolute path", path);
		return -EINVAL;
	}
	/* Reached as the caller would: what they cannot see is an error
	 * they would get themselves, and tells them nothing more. */
	fd = dc_open_as(&who, AT_FDCWD, path, O_PATH | O_DIRECTORY, 0);
	if (fd < 0) {
		snprintf(out, size, "error: %s: %s", path,
			 fd == -ELOOP ? "a symbolic link of another user than "
					"root is on its way"
				      : strerror(-fd));
		return fd;
	}
	if (fstatfs(fd, &sf) || sf.f_type != CGROUP2_SUPER_MAGIC ||
	    fstat(fd, &st)) {
		snprintf(out, size, "error: %s: not a cgroup v2 directory",
			 path);
		close(fd);
		return -ENOTDIR;
	}
	if (cred->uid && cred->uid != st.st_uid) {
		snprintf(out, size, "error: cgroup %s is not yours", path);
		close(fd);
		return -EPERM;
	}
	/* On cgroup v2 a cgroup's id is its directory's inode. */
	*c = (struct dc_cgroup){ .id = st.st_ino, .uid = cred->uid, .fd = fd };
	return 0;
}

/* Does @pid run as @uid, with no rights beyond theirs (privs.c)? */
static bool runs_as(int pid, uid_t uid)
{
	struct dc_proc p = { .pid = pid };

	dc_privs_read(&p);
	return !dc_privs_gained(&p, uid);
}

/* Trace the tasks in @c's cgroup now that may be: the caller's own (all
 * for root). Returns how many were left out, or -errno. */
static int mark_tasks(struct dc_session *sess, const struct dc_cgroup *c)
{
	char *buf = NULL, *p, *end;
	int fd, skipped = 0, err = 0;
	ssize_t n, len = 0;
	long pid;

	/* Not a FIFO nor a link: cgroupfs' own file, read without
	 * blocking. */
	fd = openat(c->fd, "cgroup.procs",
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(PROCS_MAX + 1);
	if (!buf) {
		err = -ENOMEM;
		goto cleanup;
	}
	while (len < PROCS_MAX &&
	       (n = read(fd, buf + len, PROCS_MAX - len)) > 0)
		len += n;
	buf[len] = '\0';
	for (p = buf; !err && *p; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid <= 0)
			continue;
		if (c->uid && !runs_as(pid, c->uid))
			skipped++;
		else
			err = dc_set_traced(sess, pid, c->job, false);
	}
cleanup:
	free(buf);
	close(fd);
	return err ?: skipped;
}

uint32_t dc_cgroups_next_job(const struct dc_cgroups *cg)
{
	return DC_CGROUP_JOBS + cg->last_job + 1;
}

void dc_cgroup_add(struct dc_cgroups *cg, struct dc_session *sess,
		   struct dc_cgroup *c, const char *path, char *out,
		   size_t size)
{
	struct dc_cgroup_follow val;
	struct dc_cgroup *v;
	int fd = bpf_map__fd(sess->o.maps.cgroups), n;

	if (find(cg, c->id)) {
		snprintf(out, size, "error: cgroup %s is followed already",
			 path);
		goto fail;
	}
	v = realloc(cg->v, (cg->n + 1) * sizeof(*v));
	if (!v) {
		snprintf(out, size, "error: %s", strerror(ENOMEM));
		goto fail;
	}
	cg->v = v;
	c->job = dc_cgroups_next_job(cg);
	cg->last_job++;
	val = (struct dc_cgroup_follow){ c->job, c->uid };
	if (bpf_map_update_elem(fd, &c->id, &val, BPF_NOEXIST)) {
		snprintf(out, size, "error: %s", strerror(errno));
		goto fail;
	}
	cg->v[cg->n++] = *c;
	n = mark_tasks(sess, c);
	if (n < 0)
		snprintf(out, size, "error: %s/cgroup.procs: %s", path,
			 strerror(-n));
	else if (n)
		snprintf(out, size,
			 "ok following cgroup %s (id %llu); %d of its "
			 "processes are not yours and are not traced",
			 path, (unsigned long long)c->id, n);
	else
		snprintf(out, size, "ok following cgroup %s (id %llu)", path,
			 (unsigned long long)c->id);
	return;
fail:
	close(c->fd);
}

void dc_cgroups_tick(struct dc_cgroups *cg, struct dc_session *sess)
{
	struct stat st;

	for (size_t i = 0; i < cg->n;) {
		struct dc_cgroup *c = &cg->v[i];

		/* A removed cgroup's directory has no files left. */
		if (!fstatat(c->fd, "cgroup.procs", &st, 0) ||
		    (errno != ENOENT && errno != ENODEV)) {
			i++;
			continue;
		}
		bpf_map_delete_elem(bpf_map__fd(sess->o.maps.cgroups), &c->id);
		close(c->fd);
		cg->v[i] = cg->v[--cg->n];
	}
}

size_t dc_cgroups_count(const struct dc_cgroups *cg)
{
	return cg->n;
}

bool dc_cgroups_has_job(const struct dc_cgroups *cg, uint32_t job)
{
	for (size_t i = 0; i < cg->n; i++)
		if (cg->v[i].job == job)
			return true;
	return false;
}

void dc_cgroups_free(struct dc_cgroups *cg)
{
	for (size_t i = 0; i < cg->n; i++)
		close(cg->v[i].fd);
	free(cg->v);
	*cg = (struct dc_cgroups){};
}
