/* SPDX-License-Identifier: MIT */
#ifndef DC_LATELIB_H
#define DC_LATELIB_H

#include <stddef.h>

#include "session.h"

/* Watch traced processes for libraries they map from now on, those
 * checked already known: 0, or -errno (said). Nothing where the object
 * has no such program. @at_sys_exit: the sys_exit program is attached
 * and sees the mappings itself. */
int dc_latelib_attach(struct dc_session *sess, bool at_sys_exit);
/* A DC_EV_LIB record: check the file, attach the probes of each spec it
 * is a copy of, continue the process. 0, or -ENOMEM; a bad record is
 * -EBADMSG. */
int dc_latelib_mapped(struct dc_session *sess, const void *data, size_t size);
/* A process traced from now on (-p, --track) that already runs or maps
 * files it would have been stopped at: each checked as if mapped now
 * (USDT probes of a per-process file attached for it). 0, or -ENOMEM. */
int dc_latelib_running(struct dc_session *sess, __u32 pid);
/* The same for each process traced now. */
int dc_latelib_traced(struct dc_session *sess);

#endif
