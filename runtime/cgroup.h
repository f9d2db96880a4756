/* SPDX-License-Identifier: MIT */
#ifndef DC_CGROUP_H
#define DC_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

struct dc_session;

/* A user follows this many cgroups at most at once; root, any number
 * up to the map's size. */
#define DC_CGROUPS_PER_USER 16

/* One followed cgroup. */
struct dc_cgroup {
	uint64_t id;  /* its directory's inode, as the kernel names it */
	uint32_t job; /* the job its tasks are traced in */
	uid_t uid;    /* who asked: the job's traces are theirs */
	int fd;	      /* its directory (O_PATH): no files once removed */
};

/* Server mode's followed cgroups, owned by cgroup.c. */
struct dc_cgroups {
	struct dc_cgroup *v;
	size_t n;
	uint32_t last_job;
};

/*
 * "follow-cgroup PATH" from @cred, first checked: PATH must be a cgroup
 * v2 directory, reached as the caller would reach it and through no
 * symbolic link but root's, and owned by the caller (root may name
 * any). 0 with *@c filled, or -errno with the answer in @out.
 */
int dc_cgroup_check(const struct dc_cgroups *cg, const struct ucred *cred,
		    const char *path, struct dc_cgroup *c, char *out,
		    size_t size);
/* The job the next cgroup followed will be: the caller names its
 * traces' owner (dc_sinks_job_owner) before dc_cgroup_add(). */
uint32_t dc_cgroups_next_job(const struct dc_cgroups *cg);
/* ... then followed (the probes are in): its tasks of the caller's own
 * (every task for root), now and as they move in, are traced in a new
 * job, dc_cgroups_next_job(). The answer goes to @out; @c's descriptor
 * is the table's or closed. */
void dc_cgroup_add(struct dc_cgroups *cg, struct dc_session *sess,
		   struct dc_cgroup *c, const char *path, char *out,
		   size_t size);
/* Stop following the cgroups that were removed. */
void dc_cgroups_tick(struct dc_cgroups *cg, struct dc_session *sess);
size_t dc_cgroups_count(const struct dc_cgroups *cg);
/* Is @job a followed cgroup's, still there? */
bool dc_cgroups_has_job(const struct dc_cgroups *cg, uint32_t job);
void dc_cgroups_free(struct dc_cgroups *cg);

#endif
