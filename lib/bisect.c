// SPDX-License-Identifier: MIT
#include <errno.h>

#include "bisect.h"

int dc_attach_bisect(const struct dc_bisect_ops *ops, void *ctx, size_t from,
		     size_t n)
{
	int err;

	if (!n)
		return 0;
	err = ops->attach(ctx, from, n);
	if (!err || err == -ENOMEM)
		return err;
	if (n == 1) {
		ops->refused(ctx, from, err);
		return 0;
	}
	err = dc_attach_bisect(ops, ctx, from, n / 2);
	if (err)
		return err;
	return dc_attach_bisect(ops, ctx, from + n / 2, n - n / 2);
}
