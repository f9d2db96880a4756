// SPDX-License-Identifier: MIT
/*
 * Fields of a library's private structures named in a spec (HDF5's
 * element counts and type sizes, TYPE.member): their offsets differ
 * from one version and build of the library to another, so each copy's
 * are taken from its own DWARF. A copy without debug info, or one that
 * has no such field, gets no probe that would read it: its calls then
 * carry "unknown" bytes, never wrong ones.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dwfield.h"
#include "fields.h"

/* Probe @d's fields in @dw, as a layout entry: each in the structure
 * its argument points to in this copy (the same function may take
 * other arguments in another version); -ENOENT naming the first that is
 * not in @missing. */
static int resolve(struct dc_dwarf *dw, const struct dc_probe_info *d,
		   __u16 off[DC_CAPTURE], const char **missing)
{
	for (int i = 0; i < d->nslots && i < DC_CAPTURE; i++) {
		const char *f = d->field[i];
		char type[DC_FIELD_PATH_MAX];
		unsigned at;

		off[i] = 0;
		if (!f[0])
			continue;
		snprintf(type, sizeof(type), "%.*s", (int)strcspn(f, "."), f);
		if (dc_dwarf_param_points_to(dw, d->symbol, d->slot_arg[i],
					     type) ||
		    dc_dwarf_offset(dw, f, &at) || at > UINT16_MAX) {
			*missing = f;
			return -ENOENT;
		}
		off[i] = at;
	}
	return 0;
}

/* The entry of @lay holding @off, added if new; 0 when full. */
static size_t entry(struct dc_field_layouts *lay, const __u16 off[DC_CAPTURE])
{
	size_t k;

	for (k = 1; k < lay->n; k++)
		if (!memcmp(lay->t.off[k], off, sizeof(lay->t.off[k])))
			return k;
	if (lay->n == DC_LAYOUTS)
		return 0;
	if (!lay->n)
		k = lay->n = 1;
	memcpy(lay->t.off[k], off, sizeof(lay->t.off[k]));
	lay->n = k + 1;
	return k;
}

int dc_fields_place(const char *path, struct dc_probe **probes,
		    unsigned long *offsets, __u64 *cookies, size_t *n,
		    struct dc_field_layouts *lay, char *why, size_t whysize)
{
	struct dc_dwarf *dw = NULL;
	const char *missing = NULL;
	size_t kept = 0, dropped = 0;
	int open_err = 1;

	for (size_t j = 0; j < *n; j++) {
		const struct dc_probe_info *d = probes[j]->d;
		__u16 off[DC_CAPTURE] = { 0 };
		size_t k = 0;

		if (d->flags & DC_PROBE_FIELDS) {
			if (open_err > 0)
				open_err = dc_dwarf_open(path, &dw);
			if (!open_err && !resolve(dw, d, off, &missing))
				k = entry(lay, off);
			if (!k) {
				dropped++;
				continue;
			}
		}
		probes[kept] = probes[j];
		offsets[kept] = offsets[j];
		cookies[kept++] = cookies[j] | (__u64)k
						   << DC_COOKIE_LAYOUT_SHIFT;
	}
	*n = kept;
	dc_dwarf_close(dw);
	if (open_err == -ENOMEM)
		return -ENOMEM;
	if (dropped && open_err == -ENOTSUP)
		snprintf(why, whysize, "built without libdw");
	else if (dropped && open_err)
		snprintf(why, whysize, "no debug info: %s",
			 strerror(-open_err));
	else if (dropped && missing)
		snprintf(why, whysize,
			 "its debug info has no %s where a probe reads it",
			 missing);
	else if (dropped)
		snprintf(why, whysize, "more than %d layouts", DC_LAYOUTS - 1);
	return 0;
}
