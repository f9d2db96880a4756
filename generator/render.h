/* SPDX-License-Identifier: MIT */
#ifndef DC_RENDER_H
#define DC_RENDER_H

#include "buf.h"
#include "spec.h"

/*
 * Render the BPF C of one object for a checked spec set from the
 * templates in @tmpl_dir: the capture table, the syscall table and the
 * probe table. Output depends only on the specs (in order) and the
 * templates. Returns 0 or -errno.
 */
int dc_render(const struct dc_spec *spec, const char *tmpl_dir,
	      const char *sources, struct dc_buf *out);

/* What a probe captures: its arguments with a role, in order, then the
 * slot its feeders add bytes to, if it has feeders. */
struct dc_slots {
	int n;
	uint8_t role[DC_CAPTURE];
	uint8_t arg[DC_CAPTURE];
	struct dc_spec_read read[DC_CAPTURE]; /* ROLE@N...: its hops */
	int fed;			      /* the fed slot, or -1 */
	unsigned pass; /* slots a feeder fills: read at return */
};

void dc_slots_of(const struct dc_spec_probe *p, struct dc_slots *s);
/* Whether a slot of @s is read through a pointer (ROLE@N, ROLE@TYPE.m). */
bool dc_slots_read(const struct dc_slots *s);

#endif
