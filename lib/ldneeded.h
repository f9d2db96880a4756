/* SPDX-License-Identifier: MIT */
#ifndef DC_LDNEEDED_H
#define DC_LDNEEDED_H

#include <stddef.h>

/* A shared library a program maps at start. */
struct dc_needed {
	char *name; /* as a DT_NEEDED entry asked for it (its soname) */
	char *path; /* the real path the loader finds it at */
};

struct dc_needed_set {
	struct dc_needed *v;
	size_t n;
};

/*
 * Add to @s (zeroed at first) the shared libraries the dynamic loader
 * maps when the executable @exe starts: its DT_NEEDED entries and
 * theirs, each resolved as the loader would (DT_RPATH, LD_LIBRARY_PATH of
 * this process, DT_RUNPATH, "$ORIGIN", the cache; lib/libpath.c). A name
 * found nowhere is left out, as is what the program dlopen()s later.
 * Returns 0 (none for a static executable) or -errno: -ENOEXEC if @exe is
 * not 64-bit ELF; on error @s may hold some of them.
 */
int dc_needed_add(const char *exe, struct dc_needed_set *s);
void dc_needed_free(struct dc_needed_set *s);

#endif
