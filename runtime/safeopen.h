/* SPDX-License-Identifier: MIT */
#ifndef DC_SAFEOPEN_H
#define DC_SAFEOPEN_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Opening files for a user, as root. Root runs next to users' jobs and
 * writes where they asked, so a path is walked a component at a time
 * and a symbolic link is followed only when root owns it (one an
 * administrator made, such as /scratch -> /lustre/scratch); any other
 * link gives -ELOOP. The open is made with the ids and groups of the
 * user it is for, so it succeeds only where that user could open or
 * create the file themselves.
 */
struct dc_ids {
	uid_t uid;
	gid_t gid;
};

/* Walk @path from @dirfd (AT_FDCWD or a directory) as the caller is,
 * and open it with @flags (O_NOFOLLOW is implied). Returns the
 * descriptor or -errno. */
int dc_open_walk(int dirfd, const char *path, int flags, mode_t mode);

/* dc_open_walk() as @who: in a child that has taken @who's ids and
 * groups, the descriptor passed back. The caller's own ids need no
 * child. Returns the descriptor or the -errno @who would get. */
int dc_open_as(const struct dc_ids *who, int dirfd, const char *path, int flags,
	       mode_t mode);

#endif
