// SPDX-License-Identifier: MIT
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch.h"
#include "log.h"

/*
 * The child stops itself before exec, so the runtime can register it as
 * traced while nothing of the command has run yet: its first instruction
 * (the dynamic loader's first open) is in the trace.
 */
pid_t dc_launch_stopped(char *const argv[])
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: cannot run %s: %s\n", dc_prog(), argv[0],
			strerror(errno));
		_exit(errno == ENOENT ? 127 : 126);
	}
	while (waitpid(pid, &status, WUNTRACED) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFSTOPPED(status))
		return -ECHILD;
	return pid;
}

int dc_launch_release(pid_t pid)
{
	return kill(pid, SIGCONT) ? -errno : 0;
}

int dc_exit_code(int wstatus)
{
	if (WIFEXITED(wstatus))
		return WEXITSTATUS(wstatus);
	if (WIFSIGNALED(wstatus))
		return 128 + WTERMSIG(wstatus);
	return 1;
}
