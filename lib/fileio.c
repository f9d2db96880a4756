// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "fileio.h"

/* The mode a plain creat() would give: mkstemp() makes 0600. */
static mode_t creat_mode(void)
{
	mode_t mask = umask(0);

	umask(mask);
	return 0666 & ~mask;
}

int dc_write_atomic(const char *path, const void *data, size_t len)
{
	const char *p = data;
	char tmp[PATH_MAX];
	ssize_t n;
	int fd, err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* A name nobody could have planted a link at: mkstemp() creates
	 * with O_EXCL, in the target's own directory so rename() is atomic. */
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (len) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto cleanup;
		}
		p += n;
		len -= n;
	}
	if (fchmod(fd, creat_mode()))
		err = -errno;
cleanup:
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

int dc_read_file(const char *path, char **data, size_t *len)
{
	struct dc_buf b = {};
	struct stat st;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		goto cleanup;
	}
	if (S_ISDIR(st.st_mode)) {
		err = -EISDIR;
		goto cleanup;
	}
	/* The size is a first guess: one byte more holds the NUL, another
	 * finds the end without growing. */
	if (dc_buf_reserve(&b,
			   st.st_size > 0 ? (size_t)st.st_size + 2 : 4096)) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (;;) {
		if (b.len + 1 == b.cap && dc_buf_reserve(&b, b.cap)) {
			err = -ENOMEM;
			goto cleanup;
		}
		n = read(fd, b.p + b.len, b.cap - b.len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = -errno;
			goto cleanup;
		}
		if (!n)
			break;
		b.len += n;
	}
	b.p[b.len] = '\0';
	*data = b.p;
	if (len)
		*len = b.len;
	b.p = NULL;
cleanup:
	dc_buf_free(&b);
	close(fd);
	return err;
}
