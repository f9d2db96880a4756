// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "subproc.h"

extern char **environ;

int dc_spawn(char *const argv[], char *out, size_t size)
{
	posix_spawn_file_actions_t fa;
	int pipefd[2] = { -1, -1 }, status, err;
	size_t len = 0;
	pid_t pid;

	if (posix_spawn_file_actions_init(&fa))
		return -ENOMEM;
	if (out) {
		if (pipe2(pipefd, O_CLOEXEC)) {
			err = -errno;
			goto cleanup;
		}
		posix_spawn_file_actions_adddup2(&fa, pipefd[1], STDOUT_FILENO);
	}
	err = -posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	if (err)
		goto cleanup;
	if (out) {
		char chunk[4096];
		ssize_t n;

		close(pipefd[1]);
		pipefd[1] = -1;
		while ((n = read(pipefd[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			if (len + 1 < size) {
				size_t k = size - 1 - len < (size_t)n
					       ? size - 1 - len
					       : (size_t)n;

				memcpy(out + len, chunk, k);
				len += k;
			}
		}
		out[len] = '\0';
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			err = -errno;
			goto cleanup;
		}
	err = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -EINVAL;
cleanup:
	if (pipefd[0] >= 0)
		close(pipefd[0]);
	if (pipefd[1] >= 0)
		close(pipefd[1]);
	posix_spawn_file_actions_destroy(&fa);
	return err;
}

int dc_which(const char *cmd, char *path, size_t size)
{
	const char *dirs = getenv("PATH");

	if (strchr(cmd, '/')) {
		snprintf(path, size, "%s", cmd);
		return 0;
	}
	for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
		size_t k = strcspn(d, ":");

		snprintf(path, size, "%.*s/%s", (int)k, d, cmd);
		if (!access(path, X_OK))
			return 0;
		d += k + (d[k] == ':');
	}
	return -ENOENT;
}
