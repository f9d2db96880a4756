// SPDX-License-Identifier: MIT
/* A saved partial report (dcr_report_load()) from arbitrary bytes: refused,
 * or a report that merges into another, finishes and renders every
 * output. */
#include <stdlib.h>

#include "datacrumbs/report.h"
#include "file.h"

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dcr_report *r, *into;
	char *out;
	size_t len;

	dcr_set_log(quiet, NULL);
	if (dcr_report_load(data, size, &r))
		return 0;
	/* Into a copy of itself: the same options, every table met twice. */
	if (!dcr_report_load(data, size, &into)) {
		dcr_report_merge(into, r);
		dcr_report_free(into);
	}
	if (!dcr_report_finish(r)) {
		for (int f = DCR_JSON; f <= DCR_FLAME; f++)
			if (!dcr_report_render(r, f, 10, &out, &len))
				dcr_free(out);
	}
	dcr_report_free(r);
	return 0;
}
