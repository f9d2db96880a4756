/* SPDX-License-Identifier: MIT */
#ifndef DC_CHECK_H
#define DC_CHECK_H

#include "session.h"

/* --check: load @obj into @sess (its options set) as a run would, say on
 * standard output what this kernel gives it, unload. 0 when it loads,
 * 1 after the error that stopped it. */
int dc_check(struct dc_session *sess, const char *obj);

#endif
