/* SPDX-License-Identifier: MIT */
/*
 * What the spec reader's files share: the error printer, the probe array's
 * growth, and the checks dc_spec_check() runs over the parsed spec, one
 * file each. A check prints each problem with spec_error() (which counts
 * it) and returns 0, or a negative errno when it cannot go on (-ENOMEM).
 */
#ifndef DC_SPEC_PASS_H
#define DC_SPEC_PASS_H

#include <stdbool.h>
#include <stddef.h>

#include "roles.h"
#include "spec.h"

/* Print "FILE:LINE:COL: error: ..." and count it. */
__attribute__((format(printf, 3, 4))) void spec_error(struct dc_spec *spec,
						      const struct dc_loc *loc,
						      const char *fmt, ...);
/* "target 'T' (PATH): why" for a target that could not be read; @noexec
 * says why for -ENOEXEC. */
void target_error(struct dc_spec *spec, const struct dc_spec_group *g, int err,
		  const char *noexec);
int grow_probes(struct dc_spec *spec);

/* Roles a feeder hands to the call it feeds, and their names. */
#define PASSED_ROLES "selection, regular, ndims, npoints and typesize"

static inline bool passed(int role)
{
	return dc_role_is_late(role) || dc_role_is_given(role);
}

int check_uprobes(struct dc_spec *spec);
void check_usdt_group(struct dc_spec *spec, size_t gi);
int check_kernel(struct dc_spec *spec);
int check_numbers(struct dc_spec *spec);
int check_dups(struct dc_spec *spec);
int check_feeds(struct dc_spec *spec);

#endif
