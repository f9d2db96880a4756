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

int dc_buf_add_u64(struct dc_buf *b, uint64_t v)
{
	char tmp[20];
	int i = sizeof(tmp);

	do {
		tmp[--i] = '0' + v % 10;
		v /= 10;
	} while (v);
	return dc_buf_add(b, tmp + i, sizeof(tmp) - i);
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
