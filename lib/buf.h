/* SPDX-License-Identifier: MIT */
#ifndef DC_BUF_H
#define DC_BUF_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A growable byte buffer; append functions return 0 or -ENOMEM. */
struct dc_buf {
	char *p;
	size_t len;
	size_t cap;
};

int dc_buf_grow(struct dc_buf *b, size_t extra);

/* Inline: the trace writer appends a dozen pieces per event, mostly
 * literals whose length the compiler then knows. */
static inline int dc_buf_reserve(struct dc_buf *b, size_t extra)
{
	return b->len + extra <= b->cap ? 0 : dc_buf_grow(b, extra);
}

static inline int dc_buf_add(struct dc_buf *b, const void *p, size_t n)
{
	/* Nothing to add to a buffer never grown: b->p is NULL (UB to
	 * offset, found by fuzz_trace). */
	if (!n)
		return 0;
	if (dc_buf_reserve(b, n))
		return -ENOMEM;
	memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static inline int dc_buf_adds(struct dc_buf *b, const char *s)
{
	return dc_buf_add(b, s, strlen(s));
}

/* Room for element @n of the array at *@v, grown @step elements at a
 * time as the count passes each multiple of @step: 0 or -ENOMEM. */
int dc_grow(void **v, size_t n, size_t size, size_t step);

/* Room for element @n of the array at *@v of *@cap elements, doubling
 * *@cap (from @first) when full, for arrays that may reach millions:
 * 0 or -ENOMEM, with *@v and *@cap kept on failure. */
int dc_grow_cap(void **v, size_t *cap, size_t n, size_t size, size_t first);

int dc_buf_addf(struct dc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int dc_buf_add_u64(struct dc_buf *b, uint64_t v);
int dc_buf_add_i64(struct dc_buf *b, int64_t v);
void dc_buf_free(struct dc_buf *b);

#endif
