// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "fileio.h"

int dc_write_atomic(const char *path, const void *data, size_t len)
{
	char tmp[PATH_MAX];
	FILE *f;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	if (fwrite(data, 1, len, f) != len)
		err = -errno ?: -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}
