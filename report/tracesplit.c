// SPDX-License-Identifier: MIT
/* Cutting a trace into ranges that start on a gzip member (or a line). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "tracereader.h"

/* Plain text: the first line starting at or after @off. */
static uint64_t line_start(const struct reader *r, uint64_t off)
{
	const unsigned char *nl;

	if (!off || off >= r->size)
		return off < r->size ? off : r->size;
	nl = memchr(r->map + off - 1, '\n', r->size - (off - 1));
	return nl ? (uint64_t)(nl - r->map) + 1 : r->size;
}

void dc_range_of(struct reader *r, uint64_t begin, uint64_t end)
{
	if (!end || end > r->size)
		end = r->size;
	if (begin > end)
		begin = end;
	r->limit = r->size;
	r->stop_at = end;
	if (!r->gz) {
		begin = line_start(r, begin);
		r->limit = line_start(r, end);
	}
	r->first = r->scan = begin;
}

/* Whether a gzip member the reader would take starts at @off: one that
 * inflates to its end, or to the end of the file (truncated). */
static bool member_at(const struct reader *r, uint64_t off, unsigned char *out,
		      size_t cap)
{
	z_stream zs = {};
	int ret = Z_OK;

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return false;
	zs.next_in = (Bytef *)r->map + off;
	zs.avail_in = r->size - off > UINT32_MAX ? UINT32_MAX : r->size - off;
	while (ret == Z_OK) {
		zs.next_out = out;
		zs.avail_out = cap;
		ret = inflate(&zs, Z_NO_FLUSH);
	}
	inflateEnd(&zs);
	return ret == Z_STREAM_END || (ret == Z_BUF_ERROR && !zs.avail_in);
}

/* The first member at or after @off; the file's size if none. */
static uint64_t member_from(const struct reader *r, uint64_t off,
			    unsigned char *out, size_t cap)
{
	const unsigned char *p;

	while (off < r->size &&
	       (p = memmem(r->map + off, r->size - off, DC_GZ_MAGIC, 3))) {
		off = p - r->map;
		if (member_at(r, off, out, cap))
			return off;
		off++;
	}
	return r->size;
}

int dc_trace_split(const char *path, int n, uint64_t *offs)
{
	struct reader r = {};
	unsigned char *out = NULL;
	struct stat sb;
	int fd, err = 0;

	if (n < 1)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb)) {
		err = -errno;
		goto cleanup;
	}
	if (S_ISDIR(sb.st_mode)) {
		err = -EISDIR;
		goto cleanup;
	}
	r.size = sb.st_size;
	if (r.size) {
		r.map = mmap(NULL, r.size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (r.map == MAP_FAILED) {
			r.map = NULL;
			err = -errno;
			goto cleanup;
		}
	}
	r.gz = r.size >= 2 && r.map[0] == 0x1f && r.map[1] == 0x8b;
	out = malloc(STREAM_OUT);
	if (!out) {
		err = -ENOMEM;
		goto cleanup;
	}
	offs[0] = 0;
	for (int i = 1; i < n; i++) {
		uint64_t off = (unsigned __int128)r.size * i / n;

		if (off < offs[i - 1])
			off = offs[i - 1];
		offs[i] = r.gz ? member_from(&r, off, out, STREAM_OUT)
			       : line_start(&r, off);
	}
	offs[n] = r.size;
cleanup:
	free(out);
	if (r.map)
		munmap((void *)r.map, r.size);
	if (fd >= 0)
		close(fd);
	return err;
}
