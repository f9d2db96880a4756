/* SPDX-License-Identifier: MIT */
#ifndef DC_SUBPROC_H
#define DC_SUBPROC_H

#include <stddef.h>

/*
 * Run @argv (searched on PATH) and wait for it. If @out is not NULL, its
 * standard output is collected there (at most @size - 1 bytes kept, always
 * NUL-terminated). Its standard error passes through. Returns 0 if it exited
 * with status 0, -EINVAL if it failed, or -errno if it could not run.
 */
int dc_spawn(char *const argv[], char *out, size_t size);

/* The executable @cmd names, in @path: itself if it has a '/', else
 * found on PATH as execvp() finds it. 0, or -ENOENT. */
int dc_which(const char *cmd, char *path, size_t size);

#endif
