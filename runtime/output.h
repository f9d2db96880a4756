/* SPDX-License-Identifier: MIT */
#ifndef DC_OUTPUT_H
#define DC_OUTPUT_H

#include <stddef.h>

#include "cli.h"

/* The trace's path: -o (@opt) as a file, or NAME-HOST-DATE-PID.pfw.gz in
 * -o's directory, NAME from @name. 0 or -errno (said). */
int dc_output_path(const char *opt, const char *name, char *out, size_t size);
/* Create the trace at @path for the user who asked: the fd (locked), or
 * -errno after a message; *@dirfd is its directory (O_PATH), as it was
 * reached, for the caller to close. See output.c for the rules. */
int dc_output_open(const char *path, const struct dc_opts *o, int *dirfd);
/* Create @path, which must not exist: 0 or -errno. */
int dc_output_touch(const char *path);

#endif
