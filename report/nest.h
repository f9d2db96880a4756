/* SPDX-License-Identifier: MIT */
#ifndef DC_REPORT_NEST_H
#define DC_REPORT_NEST_H

#include "report.h"

/* Where a call sits among the calls open on its thread. */
struct dc_nest_info {
	bool root;	 /* no traced call encloses it */
	bool scope;	 /* it or an enclosing call is on a --file match */
	bool file_outer; /* no enclosing call is on the same file */
	bool file_sized_outer; /* no enclosing call moved bytes on that file */
	int parent_layer;
};

/* Open @ev (of function @func; @bytes < 0 if it moved none) on its
 * thread, closing the calls that returned before it. */
int dc_nest_event(struct dc_report *r, const struct dc_trace_event *ev,
		  int func, bool match, int64_t bytes,
		  struct dc_nest_info *out);
/* The call path of @func under node @parent (-1: none), made if new:
 * its index or -ENOMEM. */
int dc_node_get(struct dc_report *r, int parent, int func, bool scope);
/* Close every open call (the end of a trace). */
void dc_nest_flush(struct dc_report *r);
void dc_nest_free(struct dc_report *r);

#endif
