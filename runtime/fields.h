/* SPDX-License-Identifier: MIT */
#ifndef DC_FIELDS_H
#define DC_FIELDS_H

#include <stddef.h>

#include <datacrumbs/abi.h>

#include "trace.h"

/* The layouts of every copy probed, filled by dc_fields_place(). */
struct dc_field_layouts {
	struct dc_layouts t;
	size_t n; /* entries used, entry 0 never */
};

/*
 * The probes of one copy of a library, @path (@n of them, with their
 * offsets and cookies), that read quantities at fields named by
 * TYPE.member (DC_PROBE_FIELDS): each finds its fields' offsets in that
 * copy's DWARF, as an entry of @lay its cookie names, or leaves the
 * batch; why any left, in @why (else untouched). -ENOMEM or 0.
 */
int dc_fields_place(const char *path, struct dc_probe **probes,
		    unsigned long *offsets, __u64 *cookies, size_t *n,
		    struct dc_field_layouts *lay, char *why, size_t whysize);

#endif
