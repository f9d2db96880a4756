/* SPDX-License-Identifier: MIT */
#ifndef DC_LAUNCH_H
#define DC_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

/* Whom a launched command runs as (--user); root's own self when !set. */
struct dc_user {
	bool set;
	bool named; /* has a passwd entry: its groups are taken too */
	uid_t uid;
	gid_t gid;
	char name[64];
};

/* A user name or numeric uid. Returns 0 or -ENOENT. */
int dc_user_parse(const char *s, struct dc_user *u);
/* Fork @argv stopped before exec, as @u when it is set, with @env (a
 * "NAME=VALUE", or NULL) added to its environment; returns its pid or
 * -errno. *@exec_fd reads the exec's errno, or end of file once it ran. */
pid_t dc_launch_stopped(char *const argv[], const struct dc_user *u, char *env,
			int *exec_fd);
/* Let a child from dc_launch_stopped() exec and close @exec_fd. Returns 0
 * once it has, or the exec's -errno (the child then exits). */
int dc_launch_release(pid_t pid, int exec_fd);
/* Exit status of a finished child in the shell's convention. */
int dc_exit_code(int wstatus);

#endif
