/* SPDX-License-Identifier: MIT */
#ifndef DC_PROFILE_H
#define DC_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "filter.h"
#include "procs.h"
#include "session.h"
#include "sinks.h"
#include "trace.h"

struct dc_profile;

/*
 * Profile mode. The BPF side folds calls into per-CPU aggregates, in one
 * of two maps chosen by dc_epoch; calls that change what an fd or handle
 * means still arrive as events (dc_profile_call). Every interval the
 * runtime flips the epoch, drains the map no longer written, resolves each
 * aggregate's file and writes one counter record per process, thread,
 * probe and file.
 */
/* *@pfp is set once allocated, for dc_profile_free() even on an error.
 * Counters go to @out's traces, kept or not by @filter (which counts what
 * it keeps out), their files named through @ps. 0 or -errno. */
int dc_profile_init(struct dc_profile **pfp, struct dc_session *sess,
		    struct dc_procs *ps, struct dc_filter *filter,
		    struct dc_sinks *out, uint64_t interval_ns, uint64_t now);
/* A tracked call (an open, a close, a path): resolved like in trace mode
 * and counted into the current interval. */
void dc_profile_call(struct dc_profile *pf, const struct dc_call *c);
/* Whether the interval is over: the caller first consumes the ring
 * buffer, whose tracked calls say what fds and handles now mean. */
bool dc_profile_due(const struct dc_profile *pf, uint64_t now);
/* End the interval if it is over (or @force): write its counters. */
int dc_profile_tick(struct dc_profile *pf, uint64_t now, bool force);
void dc_profile_free(struct dc_profile *pf);

#endif
