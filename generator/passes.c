// SPDX-License-Identifier: MIT
/* The checks of a parsed spec, run in order over the whole set. */
#include <errno.h>
#include <string.h>

#include "log.h"
#include "spec_pass.h"

/* In this order: targets give uprobes their offsets, which aliases
 * compare; numbers are what duplicates compare; feeds follow aliases to
 * the function they feed. */
static int (*const passes[])(struct dc_spec *spec) = {
	check_uprobes, check_kernel, check_numbers, check_dups, check_feeds,
};

int dc_spec_check(struct dc_spec *spec)
{
	int errs = spec->nerrors;

	for (size_t i = 0; i < sizeof(passes) / sizeof(passes[0]); i++) {
		int err = passes[i](spec);

		if (err) {
			dc_err("checking the specs: %s", strerror(-err));
			return err;
		}
	}
	return spec->nerrors == errs ? 0 : -EINVAL;
}
