/* SPDX-License-Identifier: MIT */
#ifndef DC_LIBPATH_H
#define DC_LIBPATH_H

#include <stdbool.h>
#include <stddef.h>

/* A library name may be a glob, with ksh's alternatives:
 * "libhdf5@(|_serial|_openmpi|_mpich).so.*" (fnmatch's FNM_EXTMATCH). */
bool dc_lib_is_glob(const char *name);
bool dc_lib_matches(const char *pattern, const char *file);
/* Call @fn on each file named by @pattern in the colon-separated
 * directories @dirs, until it returns non-zero: that value, or 0. */
int dc_lib_glob(const char *dirs, const char *pattern,
		int (*fn)(const char *path, void *arg), void *arg);

/*
 * Resolve a library the way the dynamic loader does: a name with a '/' is
 * a path; otherwise LD_LIBRARY_PATH, then /etc/ld.so.cache, then the
 * default directories; when none has it, the library directories
 * pkg-config knows for its stem ("libhdf5.so" -> hdf5: Debian keeps it in
 * .../hdf5/serial). A name may be a glob (dc_lib_matches()): its first
 * match in that order. Writes the real path (symlinks resolved) to @out.
 * Returns 0, -ENOENT if nothing matches, or another -errno.
 */
int dc_resolve_library(const char *name, char *out, size_t size);

/*
 * Resolve a DT_NEEDED @name as the dynamic loader does for the object
 * that needs it: the directories of @rpath (DT_RPATH of it and the
 * objects that loaded it, used only where it has no DT_RUNPATH), then
 * LD_LIBRARY_PATH, then @runpath (its DT_RUNPATH), the loader cache and
 * the default directories. Either may be NULL; "$ORIGIN" already
 * expanded. Returns 0 with the real path in @out, or -ENOENT.
 */
int dc_resolve_needed(const char *name, const char *rpath, const char *runpath,
		      char *out, size_t size);

/*
 * Like dc_resolve_library(), but @name may also be a bare stem ("hdf5",
 * "mpi"): then "lib<stem>.so" and every "lib<stem>.so.N" the loader cache
 * knows are candidates. If they are different files, returns -ENOTUNIQ
 * and prints each candidate to stderr.
 */
int dc_resolve_target(const char *name, char *out, size_t size);

#endif
