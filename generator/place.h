/* SPDX-License-Identifier: MIT */
#ifndef DC_PLACE_H
#define DC_PLACE_H

#include "spec.h"

/*
 * Place each uprobe of a checked spec set in its target's file as the
 * runtime would on a copy of that build (dc_place(), with wrappers at
 * sys_enter and BPF cookies): its place, and its group's build, go into
 * the probe table so the runtime need not decode the function again.
 * A target whose code cannot be read leaves its probes unplaced, said
 * once. Returns 0 or -ENOMEM.
 */
int dc_spec_place(struct dc_spec *spec);

#endif
