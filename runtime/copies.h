/* SPDX-License-Identifier: MIT */
#ifndef DC_COPIES_H
#define DC_COPIES_H

#include <sys/stat.h>

#include "ldneeded.h"
#include "session.h"

/* The files one target's probes go on, each a different inode. */
struct dc_copies {
	char path[DC_COPIES_MAX][DC_TARGET_MAX];
	struct stat st[DC_COPIES_MAX];
	size_t n;
};

/* Each copy of @d's library to probe, into @c (see copies.c). */
void dc_find_copies(const struct dc_needed_set *needed,
		    const struct dc_probe_info *d, struct dc_copies *c);
/* The libraries COMMAND maps at start, and those of each ELF executable
 * among its arguments (the program of "mpirun -n 4 ./app"), into @s. */
void dc_needed_by_command(const struct dc_session *sess,
			  struct dc_needed_set *s);

#endif
