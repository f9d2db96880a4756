// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

int dc_buf_grow(struct dc_buf *b, size_t extra)
{
	size_t cap = b->cap ? b->cap : 256;
	char *p;

	while (cap < b->len + extra)
		cap *= 2;
	p = realloc(b->p, cap);
	if (!p)
		return -ENOMEM;
	b->p = p;
	b->cap = cap;
	return 0;
}

int dc_grow(void **v, size_t n, size_t size, size_t step)
{
	void *p;

	if (n % step)
		return 0;
	p = realloc(*v, (n + step) * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	return 0;
}

int dc_grow_cap(void **v, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return 0;
	if (c > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}

int dc_buf_addf(struct dc_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || dc_buf_reserve(b, n + 1))
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
	return 0;
}

static int digits(uint64_t v)
{
	int n = 1;

	for (; v >= 10000; v /= 10000)
		n += 4;
	return n + (v >= 10) + (v >= 100) + (v >= 1000);
}

/* Two digits per division, written in place: timestamps and ids are
 * most of a trace line's digits (perf: a sixth of the runtime's time
 * was the one-digit-at-a-time loop). */
int dc_buf_add_u64(struct dc_buf *b, uint64_t v)
{
	static const char pairs[201] = "00010203040506070809"
				       "10111213141516171819"
				       "20212223242526272829"
				       "30313233343536373839"
				       "40414243444546474849"
				       "50515253545556575859"
				       "60616263646566676869"
				       "70717273747576777879"
				       "80818283848586878889"
				       "90919293949596979899";
	int n = digits(v);
	char *p;

	if (dc_buf_reserve(b, 20))
		return -ENOMEM;
	p = b->p + b->len + n;
	b->len += n;
	while (v >= 100) {
		p -= 2;
		memcpy(p, pairs + v % 100 * 2, 2);
		v /= 100;
	}
	if (v >= 10)
		memcpy(p - 2, pairs + v * 2, 2);
	else
		p[-1] = '0' + v;
	return 0;
}

int dc_buf_add_i64(struct dc_buf *b, int64_t v)
{
	if (v < 0) {
		if (dc_buf_add(b, "-", 1))
			return -ENOMEM;
		return dc_buf_add_u64(b, -(uint64_t)v);
	}
	return dc_buf_add_u64(b, v);
}

void dc_buf_free(struct dc_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
