/* SPDX-License-Identifier: MIT */
#ifndef DC_FILEIO_H
#define DC_FILEIO_H

#include <stddef.h>

/* Write @len bytes to @path through a temporary file and rename(), so a
 * failure never leaves a partial @path. Returns 0 or -errno. */
int dc_write_atomic(const char *path, const void *data, size_t len);

/*
 * Read all of @path into *@data, malloc'd and NUL-terminated (the NUL not
 * counted in *@len, which may be NULL). Reads to the end of the file, not
 * to its size: /proc and tracefs files say they are empty. Returns 0,
 * -EISDIR for a directory, or another -errno; *@data is untouched then.
 */
int dc_read_file(const char *path, char **data, size_t *len);

#endif
