/* SPDX-License-Identifier: MIT */
#ifndef DC_LIBPATH_H
#define DC_LIBPATH_H

#include <stddef.h>

/*
 * Resolve a library the way the dynamic loader does: a name with a '/' is
 * a path; otherwise LD_LIBRARY_PATH, then /etc/ld.so.cache, then the
 * default directories; when none has it, the library directories
 * pkg-config knows for its stem ("libhdf5.so" -> hdf5: Debian keeps it in
 * .../hdf5/serial). Writes the real path (symlinks resolved) to @out.
 * Returns 0, -ENOENT if nothing matches, or another -errno.
 */
int dc_resolve_library(const char *name, char *out, size_t size);

/*
 * Like dc_resolve_library(), but @name may also be a bare stem ("hdf5",
 * "mpi"): then "lib<stem>.so" and every "lib<stem>.so.N" the loader cache
 * knows are candidates. If they are different files, returns -ENOTUNIQ
 * and prints each candidate to stderr.
 */
int dc_resolve_target(const char *name, char *out, size_t size);

#endif
