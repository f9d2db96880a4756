/* SPDX-License-Identifier: MIT */
#ifndef DC_NESTING_H
#define DC_NESTING_H

#include "procs.h"
#include "trace.h"
#include "writer_pfw.h"

/*
 * Calls on a thread return innermost first, but a child's p_idx must name
 * its parent's id, and ids increase in write order. So calls nested in a
 * running call are held per thread until the outermost one returns; then
 * it is written first and its descendants after it in entry order, each
 * knowing its parent's id.
 */
int dc_nest_add(struct dc_pfw *w, struct dc_rthread *t,
		const struct dc_call *c);
/* Write what a thread still holds (it exited, or tracing ends); calls
 * whose parent never returned get p_idx -1. */
void dc_nest_flush(struct dc_pfw *w, struct dc_rthread *t);

#endif
