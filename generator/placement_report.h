/* SPDX-License-Identifier: MIT */
#ifndef DC_PLACEMENT_REPORT_H
#define DC_PLACEMENT_REPORT_H

#include <stdbool.h>

#include "spec.h"

/* Say, per uprobe spec, how its functions will be traced on this
 * machine; with @verbose, name every one left single-stepped. With
 * @json, also write each function's placement there (a JSON array of
 * {layer, target, name, placement, why}); 0 or -errno. */
int dc_report_placement(const struct dc_spec *spec, bool verbose,
			const char *json);

#endif
