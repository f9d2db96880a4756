/* SPDX-License-Identifier: MIT */
#ifndef DC_REPORT_PLOTS_H
#define DC_REPORT_PLOTS_H

#include "report.h"

/* Each appends one <svg> element to @b: 0 or -ENOMEM. */
int dc_plot_bandwidth(const struct dc_report *r, struct dc_buf *b);
int dc_plot_sizes(const struct dc_report *r, struct dc_buf *b);
/* One row per process in @order (indexes into r->procs). */
int dc_plot_timeline(const struct dc_report *r, const size_t *order,
		     size_t nproc, struct dc_buf *b);

#endif
