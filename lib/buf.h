/* SPDX-License-Identifier: MIT */
#ifndef DC_BUF_H
#define DC_BUF_H

#include <stddef.h>
#include <stdint.h>

/* A growable byte buffer; append functions return 0 or -ENOMEM. */
struct dc_buf {
	char *p;
	size_t len;
	size_t cap;
};

int dc_buf_reserve(struct dc_buf *b, size_t extra);
int dc_buf_add(struct dc_buf *b, const void *p, size_t n);
int dc_buf_adds(struct dc_buf *b, const char *s);
int dc_buf_addf(struct dc_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
int dc_buf_add_u64(struct dc_buf *b, uint64_t v);
int dc_buf_add_i64(struct dc_buf *b, int64_t v);
void dc_buf_free(struct dc_buf *b);

#endif
