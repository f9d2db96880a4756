// SPDX-License-Identifier: MIT
/* The spec parser and validator (generator/spec.c) on arbitrary bytes, as
 * datacrumbs-gen runs them: load, then check what loaded cleanly. */
#include "file.h"
#include "spec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dc_spec spec = {};
	const char *path = fuzz_file(data, size);

	if (!path)
		return 0;
	if (!dc_spec_load(&spec, path))
		dc_spec_check(&spec);
	dc_spec_free(&spec);
	return 0;
}
