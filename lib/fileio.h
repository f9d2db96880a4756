/* SPDX-License-Identifier: MIT */
#ifndef DC_FILEIO_H
#define DC_FILEIO_H

#include <stddef.h>

/* Write @len bytes to @path through a temporary file and rename(), so a
 * failure never leaves a partial @path. Returns 0 or -errno. */
int dc_write_atomic(const char *path, const void *data, size_t len);

#endif
