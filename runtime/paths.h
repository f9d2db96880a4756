/* SPDX-License-Identifier: MIT */
/* Paths made absolute and lexically clean: the runtime names a file this
 * way for every call that passes a path. */
#ifndef DATACRUMBS_PATHS_H
#define DATACRUMBS_PATHS_H

#include "buf.h"

/* @path against the directory @base ("" when @path is absolute), with
 * "." and empty components dropped and ".." taking the one before it
 * (links are not followed), as the NUL-terminated contents of @out,
 * grown as needed: "/" at least. 0, or -ENOMEM. */
int dc_path_join(struct dc_buf *out, const char *base, const char *path);

#endif
