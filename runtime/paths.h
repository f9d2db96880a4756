/* SPDX-License-Identifier: MIT */
/* Paths made absolute and lexically clean, without allocating: the
 * runtime names a file this way for every call that passes a path. */
#ifndef DATACRUMBS_PATHS_H
#define DATACRUMBS_PATHS_H

#include <stddef.h>

/* @path against the directory @base ("" when @path is absolute), with
 * "." and empty components dropped and ".." taking the one before it
 * (links are not followed), into @out of @size bytes: "/" at least.
 * 0, or -ENAMETOOLONG with @out unusable. */
int dc_path_join(char *out, size_t size, const char *base, const char *path);

#endif
