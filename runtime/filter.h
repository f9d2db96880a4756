/* SPDX-License-Identifier: MIT */
#ifndef DC_FILTER_H
#define DC_FILTER_H

#include <stdbool.h>
#include <stdint.h>

#include "procs.h"

/* --paths and --exclude-paths: which files' calls reach the trace. */
struct dc_filter {
	const char **paths, **xpaths; /* prefixes */
	int npaths, nxpaths;
	uint64_t filtered; /* calls left out, for the end record */
};

/* Whether calls on @f are kept; with --paths, calls that concern no
 * file are left out too. */
bool dc_filter_keep(const struct dc_filter *flt, const struct dc_file *f);

#endif
