// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "log.h"
#include "sysenv.h"

/*
 * The child stops itself before exec, so the runtime can register it as
 * traced while nothing of the command has run yet: its first instruction
 * (the dynamic loader's first open) is in the trace.
 */
int dc_user_parse(const char *s, struct dc_user *u)
{
	const struct passwd *pw = getpwnam(s);
	long uid = -1;
	char *end;

	memset(u, 0, sizeof(*u));
	if (!pw) {
		uid = strtol(s, &end, 10);
		if (!*s || *end || uid < 0 || uid >= INT_MAX)
			return -ENOENT;
		pw = getpwuid(uid);
	}
	u->set = true;
	if (!pw) { /* a uid without a name: a group id alike, no groups */
		u->uid = u->gid = uid;
		return 0;
	}
	u->named = true;
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof(u->name), "%s", pw->pw_name);
	return 0;
}

/* In the child: become @u, groups first while still allowed. */
static int become(const struct dc_user *u)
{
	if (u->named ? initgroups(u->name, u->gid) : setgroups(0, NULL))
		return -errno;
	if (setgid(u->gid) || setuid(u->uid))
		return -errno;
	return 0;
}

pid_t dc_launch_stopped(char *const argv[], const struct dc_user *u, char *env,
			int *exec_fd)
{
	int status, p[2];
	pid_t pid;

	/* The child's end closes at a successful exec: the parent reads
	 * end of file; a failed exec writes its errno instead. */
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -errno;
	}
	if (pid == 0) {
		sigset_t none;
		int err;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		err = u && u->set ? become(u) : 0;
		if (err) {
			fprintf(stderr, "%s: cannot run as uid %u: %s\n",
				dc_prog(), u->uid, strerror(-err));
			_exit(126);
		}
		close(p[0]);
		dc_restore_nofile();
		if (env && putenv(env))
			_exit(126);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		err = errno;
		if (write(p[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(err == ENOENT ? 127 : 126);
	}
	close(p[1]);
	while (waitpid(pid, &status, WUNTRACED) < 0)
		if (errno != EINTR) {
			close(p[0]);
			return -errno;
		}
	if (!WIFSTOPPED(status)) {
		close(p[0]);
		return -ECHILD;
	}
	*exec_fd = p[0];
	return pid;
}

int dc_launch_release(pid_t pid, int exec_fd)
{
	int err = 0;
	ssize_t n;

	if (kill(pid, SIGCONT))
		err = -errno;
	while (!err && (n = read(exec_fd, &err, sizeof(err))) < 0 &&
	       errno == EINTR)
		;
	close(exec_fd);
	return err > 0 ? -err : err;
}

int dc_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}
