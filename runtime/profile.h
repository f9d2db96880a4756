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
/* Whether the interval is over. */
bool dc_profile_due(const struct dc_profile *pf, uint64_t now);
/* End the interval: calls go to the other map from now on; returns once
 * no call is being folded into the old one. The caller then takes the
 * ring buffer's records up to now (dc_ringbuf_catch_up), among them the
 * opens that say what the old map's fds and handles meant. 0 or -errno. */
int dc_profile_flip(struct dc_profile *pf);
/* Write the ended interval's counters; @all: also the current one's (at
 * the end, once nothing is traced). 0 or -errno. */
int dc_profile_write(struct dc_profile *pf, uint64_t now, bool all);
void dc_profile_free(struct dc_profile *pf);

#endif
