/* SPDX-License-Identifier: MIT */
#ifndef DC_MOUNTS_H
#define DC_MOUNTS_H

/*
 * The file systems mounted in the runtime's namespace, as the "mounts"
 * member of a start record (docs/trace-format.md): each mount point with
 * its type and preferred I/O size (statfs's f_bsize), from which the
 * report gives Darshan's mount point, file system and file alignment of
 * each file. A malloc'd string ("\"mounts\":{...}"), or NULL with errno
 * set.
 */
char *dc_mounts_json(void);

#endif
