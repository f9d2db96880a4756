/* SPDX-License-Identifier: MIT */
#ifndef DC_TPFORMAT_H
#define DC_TPFORMAT_H

#include <stdbool.h>

#include <datacrumbs/abi.h>

/* The fields of one tracepoint's record, from tracefs's "format" file. */
struct dc_tp_fmt_field {
	char name[DC_FIELD_MAX];
	int offset;
	int size;
	int sign;
	bool text; /* char NAME[N]: a short string such as rwbs */
};

struct dc_tp_format {
	int n;
	struct dc_tp_fmt_field f[64];
};

/*
 * Read the format of @event ("group/name"). Returns 0, -ENODEV when no
 * tracefs is mounted (or readable), -ENOENT when the kernel has no such
 * tracepoint, or another -errno.
 */
int dc_tp_format_read(const char *event, struct dc_tp_format *out);
const struct dc_tp_fmt_field *dc_tp_format_field(const struct dc_tp_format *fmt,
						 const char *name);

#endif
