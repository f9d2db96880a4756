/* SPDX-License-Identifier: MIT */
#ifndef DC_LIBPATH_H
#define DC_LIBPATH_H

#include <stddef.h>

/*
 * Resolve a library the way the dynamic loader does: a name with a '/' is
 * a path; otherwise LD_LIBRARY_PATH, then /etc/ld.so.cache, then the
 * default directories. Writes the real path (symlinks resolved) to @out.
 * Returns 0, -ENOENT if nothing matches, or another -errno.
 */
int dc_resolve_library(const char *name, char *out, size_t size);

#endif
