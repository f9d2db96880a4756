// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef DC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#else
#include <zlib.h>
#endif

#include "gzout.h"

/* Each member is compressed whole, so a one-shot compressor serves:
 * ISA-L's igzip where it was built in (4.4 times libdeflate's speed at
 * level 1 on our traces, 3% larger; see docs/performance.md), else
 * zlib. */
#ifdef DC_HAVE_ISAL
struct isal {
	struct isal_zstream s; /* 80 KiB: not for the stack */
	int level;
	uint8_t *level_buf;
	uint32_t level_buf_size;
};

static void *compressor_new(int level)
{
	/* igzip's levels are 0-3; 3 is its densest. */
	static const uint32_t bufsz[] = { 0, ISAL_DEF_LVL1_DEFAULT,
					  ISAL_DEF_LVL2_DEFAULT,
					  ISAL_DEF_LVL3_DEFAULT };
	struct isal *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->level = level < 3 ? level : 3;
	c->level_buf_size = bufsz[c->level];
	c->level_buf = malloc(c->level_buf_size);
	if (!c->level_buf) {
		free(c);
		return NULL;
	}
	return c;
}

/* Stored blocks bound igzip's output: the input, a block header per
 * 64 KiB, and the gzip header and trailer. */
static size_t compress_bound(void *c, size_t n)
{
	(void)c;
	return n + 5 * (n / 65535 + 1) + ISAL_DEF_MAX_HDR_SIZE + 64;
}

/* Returns the member's size, or 0 on failure. */
static size_t compress_member(void *c, const void *in, size_t n, void *out,
			      size_t cap)
{
	struct isal *z = c;
	struct isal_zstream *s = &z->s;

	/* The init leaves part of the state as it was: with the stream on
	 * the stack, some members came out 14 times larger (literals, no
	 * matches). */
	memset(s, 0, sizeof(*s));
	isal_deflate_stateless_init(s);
	s->level = z->level;
	s->level_buf = z->level_buf;
	s->level_buf_size = z->level_buf_size;
	s->gzip_flag = IGZIP_GZIP;
	s->end_of_stream = 1;
	s->flush = NO_FLUSH;
	s->next_in = (uint8_t *)in;
	s->avail_in = n;
	s->next_out = out;
	s->avail_out = cap;
	return isal_deflate_stateless(s) == COMP_OK ? s->total_out : 0;
}

static void compressor_free(void *c)
{
	free(((struct isal *)c)->level_buf);
	free(c);
}
#else
static void *compressor_new(int level)
{
	z_stream *zs = calloc(1, sizeof(*zs));

	/* windowBits 15 + 16: a gzip header and trailer around the deflate. */
	if (zs && deflateInit2(zs, level, Z_DEFLATED, 15 + 16, 8,
			       Z_DEFAULT_STRATEGY) != Z_OK) {
		free(zs);
		return NULL;
	}
	return zs;
}

static size_t compress_bound(void *c, size_t n)
{
	return deflateBound(c, n);
}

static size_t compress_member(void *c, const void *in, size_t n, void *out,
			      size_t cap)
{
	z_stream *zs = c;

	deflateReset(zs);
	zs->next_in = (Bytef *)in;
	zs->avail_in = n;
	zs->next_out = out;
	zs->avail_out = cap;
	return deflate(zs, Z_FINISH) == Z_STREAM_END ? cap - zs->avail_out : 0;
}

static void compressor_free(void *c)
{
	deflateEnd(c);
	free(c);
}
#endif

int dc_gz_open(struct dc_gz *gz, int fd, bool compress, int level,
	       size_t member_size, uint64_t interval_ns)
{
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
	gz->comp = compressor_new(level);
	return gz->comp ? 0 : -ENOMEM;
}

static int write_all(struct dc_gz *gz, const char *p, size_t n)
{
	off_t start = lseek(gz->fd, 0, SEEK_CUR);

	while (n) {
		ssize_t w = write(gz->fd, p, n);

		if (w < 0) {
			int err = -errno;

			if (err == -EINTR)
				continue;
			/* A partial member would end the file in garbage (a
			 * full disk): cut it off, best effort, so whole
			 * members stay. */
			if (start >= 0)
				(void)!ftruncate(gz->fd, start);
			return err;
		}
		p += w;
		n -= w;
	}
	return 0;
}

int dc_gz_flush(struct dc_gz *gz)
{
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
	if (dc_buf_reserve(&gz->out, compress_bound(gz->comp, gz->in.len))) {
		err = -ENOMEM;
		goto done;
	}
	gz->out.len = compress_member(gz->comp, gz->in.p, gz->in.len, gz->out.p,
				      gz->out.cap);
	if (!gz->out.len) {
		err = -EIO;
		goto done;
	}
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
	if (!gz->hold && gz->in.len >= gz->member_size)
		return dc_gz_flush(gz);
	return 0;
}

int dc_gz_release(struct dc_gz *gz, uint64_t now_ns)
{
	gz->hold = false;
	return dc_gz_line_done(gz, now_ns);
}

int dc_gz_tick(struct dc_gz *gz, uint64_t now_ns)
{
	if (gz->in.len && now_ns - gz->opened_ns >= gz->interval_ns)
		return dc_gz_flush(gz);
	return gz->error;
}

int dc_gz_close(struct dc_gz *gz)
{
	int err = dc_gz_flush(gz);

	if (gz->comp)
		compressor_free(gz->comp);
	dc_buf_free(&gz->in);
	dc_buf_free(&gz->out);
	return err;
}
