/* SPDX-License-Identifier: MIT */
#ifndef DC_REPORT_SORT_H
#define DC_REPORT_SORT_H

#include "report.h"

/* Indexes into r->funcs (by total time, or time on the --file scope) and
 * r->files (by I/O time), largest first; NULL if out of memory. */
int *dc_sort_funcs(const struct dc_report *r, bool scope);
size_t *dc_sort_files(const struct dc_report *r);

#endif
