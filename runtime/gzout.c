// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "gzout.h"

int dc_gz_open(struct dc_gz *gz, int fd, bool compress, int level,
	       size_t member_size, uint64_t interval_ns)
{
	z_stream *zs;

	memset(gz, 0, sizeof(*gz));
	gz->fd = fd;
	gz->compress = compress;
	gz->level = level;
	gz->member_size = member_size;
	gz->interval_ns = interval_ns;
	if (dc_buf_reserve(&gz->in, member_size + 65536))
		return -ENOMEM;
	if (!compress)
		return 0;
	zs = calloc(1, sizeof(*zs));
	if (!zs)
		return -ENOMEM;
	/* windowBits 15 + 16: a gzip header and trailer around the deflate. */
	if (deflateInit2(zs, level, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK) {
		free(zs);
		return -ENOMEM;
	}
	gz->zs = zs;
	return 0;
}

static int write_all(struct dc_gz *gz, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(gz->fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		n -= w;
	}
	return 0;
}

int dc_gz_flush(struct dc_gz *gz)
{
	z_stream *zs = gz->zs;
	int err = 0;

	if (!gz->in.len)
		return gz->error;
	gz->bytes_in += gz->in.len;
	if (gz->error)
		goto done;
	if (!gz->compress) {
		err = write_all(gz, gz->in.p, gz->in.len);
		gz->bytes_out += gz->in.len;
		goto done;
	}
	if (dc_buf_reserve(&gz->out, deflateBound(zs, gz->in.len))) {
		err = -ENOMEM;
		goto done;
	}
	deflateReset(zs);
	zs->next_in = (Bytef *)gz->in.p;
	zs->avail_in = gz->in.len;
	zs->next_out = (Bytef *)gz->out.p;
	zs->avail_out = gz->out.cap;
	if (deflate(zs, Z_FINISH) != Z_STREAM_END) {
		err = -EIO;
		goto done;
	}
	gz->out.len = gz->out.cap - zs->avail_out;
	err = write_all(gz, gz->out.p, gz->out.len);
	gz->bytes_out += gz->out.len;
done:
	gz->members++;
	gz->in.len = 0;
	gz->opened_ns = 0;
	if (err && !gz->error)
		gz->error = err;
	return gz->error;
}

int dc_gz_line_done(struct dc_gz *gz, uint64_t now_ns)
{
	if (!gz->opened_ns)
		gz->opened_ns = now_ns ? now_ns : 1;
	if (gz->in.len >= gz->member_size)
		return dc_gz_flush(gz);
	return 0;
}

int dc_gz_tick(struct dc_gz *gz, uint64_t now_ns)
{
	if (gz->in.len && now_ns - gz->opened_ns >= gz->interval_ns)
		return dc_gz_flush(gz);
	return 0;
}

int dc_gz_close(struct dc_gz *gz)
{
	int err = dc_gz_flush(gz);

	if (gz->zs) {
		deflateEnd(gz->zs);
		free(gz->zs);
	}
	dc_buf_free(&gz->in);
	dc_buf_free(&gz->out);
	return err;
}
