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

/* Field @f of a slot ("TYPE.member...", and "@TYPE.member..." for each
 * pointer followed) in @dw: the offset of each hop, each structure
 * checked against what the one before points to, the first against
 * argument @arg of @func (the same function may take other arguments in
 * another version). -ENOENT or -EPROTO, saying why in @why. */
static int resolve_field(struct dc_dwarf *dw, const char *func, int arg,
			 const char *f, __u16 off[DC_HOPS], char *why,
			 size_t whysize)
{
	char seg[DC_FIELD_PATH_MAX], to[DC_FIELD_PATH_MAX];
	const char *s = f;

	for (int h = 0; h < DC_HOPS && *s; h++) {
		size_t len = strcspn(s, "@");
		const char *next = s[len] ? s + len + 1 : NULL;
		unsigned at;
		int err;

		snprintf(seg, sizeof(seg), "%.*s", (int)len, s);
		to[0] = '\0';
		if (next)
			snprintf(to, sizeof(to), "%.*s",
				 (int)strcspn(next, "."), next);
		if (!h) {
			char type[DC_FIELD_PATH_MAX];

			snprintf(type, sizeof(type), "%.*s",
				 (int)strcspn(s, "."), s);
			if (dc_dwarf_param_points_to(dw, func, arg, type))
				goto missing;
		}
		err = dc_dwarf_offset(dw, seg, next ? to : NULL, &at);
		if (err == -EPROTO) {
			snprintf(why, whysize,
				 "in its debug info %s, where a probe reads "
				 "it, is not a pointer to %s",
				 seg, to);
			return err;
		}
		if (err || at > UINT16_MAX)
			goto missing;
		off[h] = at;
		s = next ? next : s + len;
	}
	if (*s) {
		snprintf(why, whysize, "%s: more than %d pointers to follow", f,
			 DC_HOPS);
		return -ENOENT;
	}
	return 0;
missing:
	snprintf(why, whysize,
		 "its debug info has no %s where a probe reads it", seg);
	return -ENOENT;
}

/* Probe @d's fields in @dw, as a layout entry; -ENOENT or -EPROTO,
 * saying why the first is not there in @why. */
static int resolve(struct dc_dwarf *dw, const struct dc_probe_info *d,
		   __u16 off[DC_CAPTURE][DC_HOPS], char *why, size_t whysize)
{
	int err = 0;

	for (int i = 0; i < d->nslots && i < DC_CAPTURE && !err; i++)
		if (d->field[i][0])
			err = resolve_field(dw, d->symbol, d->slot_arg[i],
					    d->field[i], off[i], why, whysize);
	return err;
}

/* The entry of @lay holding @off, added if new; 0 when full. */
static size_t entry(struct dc_field_layouts *lay,
		    const __u16 off[DC_CAPTURE][DC_HOPS])
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
	char missing[2 * DC_FIELD_PATH_MAX + 64] = "";
	size_t kept = 0, dropped = 0;
	int open_err = 1;

	for (size_t j = 0; j < *n; j++) {
		const struct dc_probe_info *d = probes[j]->d;
		__u16 off[DC_CAPTURE][DC_HOPS] = { { 0 } };
		char now[sizeof(missing)];
		size_t k = 0;

		if (d->flags & DC_PROBE_FIELDS) {
			if (open_err > 0)
				open_err = dc_dwarf_open(path, &dw);
			if (!open_err && !resolve(dw, d, off, now, sizeof(now)))
				k = entry(lay, off);
			else if (!open_err && !missing[0])
				memcpy(missing, now, sizeof(missing));
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
	else if (dropped && missing[0])
		snprintf(why, whysize, "%s", missing);
	else if (dropped)
		snprintf(why, whysize, "more than %d layouts", DC_LAYOUTS - 1);
	return 0;
}
