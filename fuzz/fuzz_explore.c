// SPDX-License-Identifier: MIT
/* datacrumbs-explore's handling of a library (explorer/funcs.c: build id,
 * soname, symbols, aliases, curated filters) and the specs it emits, on
 * arbitrary bytes given as the library. */
#include <stdio.h>
#include <string.h>

#include "explore.h"
#include "file.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *null;
	struct xp_filter f = { .all = true };
	struct xp_target t = {};
	const char *path = fuzz_file(data, size);

	if (!path)
		return 0;
	if (!null && !(null = fopen("/dev/null", "w")))
		return 0;
	t.arg = path;
	if (!xp_load(&t, &f))
		xp_emit(null, &t, 1, false);
	xp_target_free(&t);
	return 0;
}
