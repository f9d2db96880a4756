// SPDX-License-Identifier: MIT
/* Inflating one gzip member of a trace into a task's buffer: zlib, or ISA-L. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef DC_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

#include "tracereader.h"

static int reserve(struct task *t, size_t n)
{
	/* Members differ by a few bytes: a slot that grew for each would
	 * copy the text it held every time. Not past what dc_inflate_fast()
	 * may ask for. */
	size_t more = t->cap + t->cap / 8;
	char *p;

	if (n <= t->cap)
		return 0;
	if (more > DC_MEMBER_CAP + 1)
		more = DC_MEMBER_CAP + 1;
	if (n < more)
		n = more;
	p = realloc(t->buf, n);
	if (!p)
		return -ENOMEM;
	t->buf = p;
	t->cap = n;
	return 0;
}

/* Inflate one member with zlib into a buffer of at most DC_MEMBER_CAP. */
enum result dc_inflate_zlib(const unsigned char *in, size_t avail,
			    struct task *t)
{
	z_stream zs = {};
	enum result res = RES_BAD;
	int ret;

	if (inflateInit2(&zs, 15 + 16) != Z_OK)
		return RES_BAD;
	if (reserve(t, 1u << 20))
		goto out;
	zs.next_in = (Bytef *)in;
	zs.avail_in = avail > UINT32_MAX ? UINT32_MAX : avail;
	for (;;) {
		if (zs.total_out == t->cap) {
			if (t->cap >= DC_MEMBER_CAP) {
				res = RES_BIG;
				goto out;
			}
			if (reserve(t, t->cap * 2))
				goto out;
		}
		zs.next_out = (Bytef *)t->buf + zs.total_out;
		zs.avail_out = t->cap - zs.total_out;
		ret = inflate(&zs, Z_NO_FLUSH);
		if (ret == Z_STREAM_END) {
			res = RES_OK;
			break;
		}
		if (ret == Z_BUF_ERROR && !zs.avail_in) {
			res = RES_TRUNC;
			break;
		}
		if (ret != Z_OK && ret != Z_BUF_ERROR)
			break;
	}
	t->text = t->buf;
	t->len = zs.total_out;
	t->end = t->off + zs.total_in;
out:
	if (res == RES_BAD || res == RES_BIG) {
		t->text = NULL;
		t->len = 0;
	}
	inflateEnd(&zs);
	return res;
}

#ifdef DC_HAVE_ISAL
/* igzip inflates several times faster than zlib; the output size is the
 * ISIZE trailer before the next member's header (or the end). */
bool dc_inflate_fast(struct reader *r, struct task *t)
{
	struct inflate_state *st = pthread_getspecific(r->dkey);
	const unsigned char *in = r->map + t->off, *next;
	size_t avail = r->size - t->off;
	uint32_t isize;

	if (!st) {
		st = malloc(sizeof(*st));
		if (!st)
			return false;
		pthread_setspecific(r->dkey, st);
	}
	next = avail > 18 ? memmem(in + 18, avail - 18, DC_GZ_MAGIC, 3) : NULL;
	if (!next)
		next = r->map + r->size;
	if (next - in < 18 || avail > UINT32_MAX)
		return false;
	memcpy(&isize, next - 4, 4);
	if (isize > DC_MEMBER_CAP || reserve(t, (size_t)isize + 1))
		return false;
	isal_inflate_init(st);
	st->crc_flag = ISAL_GZIP;
	st->next_in = (uint8_t *)in;
	st->avail_in = avail;
	st->next_out = (uint8_t *)t->buf;
	st->avail_out = isize + 1;
	/* One member: igzip stops at its trailer, the rest stays as input. */
	if (isal_inflate(st) != ISAL_DECOMP_OK ||
	    st->block_state != ISAL_BLOCK_FINISH || st->total_out != isize)
		return false;
	t->text = t->buf;
	t->len = st->total_out;
	t->end = t->off + (avail - st->avail_in);
	return true;
}
#endif

#ifdef DC_HAVE_ISAL
void dc_free_decompressor(void *d)
{
	free(d);
}
#endif
