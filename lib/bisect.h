/* SPDX-License-Identifier: MIT */
#ifndef DC_BISECT_H
#define DC_BISECT_H

#include <stddef.h>

/*
 * Attach items [from, from + n) as one batch with @attach; when the kernel
 * refuses the batch, split it in halves until the refused items are found,
 * reporting each through @refused. A batch of thousands costs one attach
 * when all is well and O(k log n) attaches for k refused items.
 * Returns 0, or the first error that is not a refusal (-ENOMEM).
 */
struct dc_bisect_ops {
	int (*attach)(void *ctx, size_t from, size_t n); /* 0 or -errno */
	void (*refused)(void *ctx, size_t i, int err);
};

int dc_attach_bisect(const struct dc_bisect_ops *ops, void *ctx, size_t from,
		     size_t n);

#endif
