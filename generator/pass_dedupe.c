// SPDX-License-Identifier: MIT
/* Duplicate probes, and names of one function probed once (aliases). */
#include <stdint.h>
#include <string.h>

#include "hash.h"
#include "map.h"
#include "spec_pass.h"

/* Whether @a and @b attach to the same place: a duplicate. */
static bool same_place(const struct dc_spec *spec,
		       const struct dc_spec_probe *a,
		       const struct dc_spec_probe *b)
{
	const struct dc_spec_group *ga = &spec->groups[a->group];
	const struct dc_spec_group *gb = &spec->groups[b->group];

	if (ga->mech != gb->mech)
		return false;
	if (dc_mech_numbered(ga->mech))
		return a->nr >= 0 && a->nr == b->nr;
	if (ga->mech == DC_MECH_KFUNC)
		return !strcmp(a->symbol, b->symbol);
	if (ga->mech == DC_MECH_UPROBE)
		return !strcmp(a->symbol, b->symbol) &&
		       !strcmp(ga->path, gb->path);
	return false;
}

/* A hash of what same_place() compares; 0 for probes never duplicates. */
static uint64_t place_key(const struct dc_spec *spec,
			  const struct dc_spec_probe *a)
{
	const struct dc_spec_group *g = &spec->groups[a->group];
	uint64_t h;

	if (g->mech == DC_MECH_SYSCALL)
		return a->nr >= 0 ? 1 + (uint64_t)a->nr : 0;
	if (g->mech == DC_MECH_IO_URING || g->mech == DC_MECH_LIBAIO ||
	    g->mech == DC_MECH_POSIXAIO)
		return a->nr >= 0 ? (1 + (uint64_t)a->nr) | 1ull << 62 |
					(uint64_t)g->mech << 48
				  : 0;
	if (g->mech != DC_MECH_KFUNC && g->mech != DC_MECH_UPROBE)
		return 0;
	h = dc_hash(a->symbol, strlen(a->symbol)) * 31 + g->mech;
	if (g->mech == DC_MECH_UPROBE)
		h ^= dc_hash(g->path, strlen(g->path)) * 0x9e3779b97f4a7c15ull;
	return h | 1ull << 63;
}

/* The first probe before @i at @i's place, through @seen (key -> index
 * + 1 of the first probe with that key); a collision of keys falls back
 * to comparing every earlier probe. */
static const struct dc_spec_probe *find_dup(const struct dc_spec *spec,
					    size_t i, struct dc_map *seen)
{
	const struct dc_spec_probe *a = &spec->probes[i];
	uint64_t key = place_key(spec, a);
	uintptr_t j;

	if (!key)
		return NULL;
	j = (uintptr_t)dc_map_get(seen, key);
	if (!j) {
		dc_map_put(seen, key, (void *)(uintptr_t)(i + 1));
		return NULL;
	}
	if (same_place(spec, a, &spec->probes[j - 1]))
		return &spec->probes[j - 1];
	for (size_t k = 0; k < i; k++)
		if (same_place(spec, a, &spec->probes[k]))
			return &spec->probes[k];
	return NULL;
}

static bool same_shape(const struct dc_spec_probe *a,
		       const struct dc_spec_probe *b)
{
	return a->nargs == b->nargs && a->ret == b->ret &&
	       a->effect == b->effect &&
	       !memcmp(a->arg_role, b->arg_role, sizeof(int) * a->nargs) &&
	       !memcmp(a->arg_read, b->arg_read,
		       sizeof(a->arg_read[0]) * a->nargs) &&
	       a->nmore == b->nmore &&
	       !memcmp(a->more, b->more, sizeof(a->more[0]) * a->nmore) &&
	       !strcmp(a->feeds ? a->feeds : "", b->feeds ? b->feeds : "");
}

/* Runs after check_numbers: syscalls and requests compare by number. */
int check_dups(struct dc_spec *spec)
{
	struct dc_map seen = {}, at = {};

	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];
		const struct dc_spec_group *g = &spec->groups[pr->group];
		const struct dc_spec_probe *dup, *o;
		uint64_t key;
		uintptr_t j;

		if (g->skipped)
			continue;
		dup = find_dup(spec, i, &seen);
		if (dup) {
			spec_error(spec, &pr->loc,
				   "duplicate probe '%s': already at %s:%d:%d",
				   pr->symbol, dup->loc.file, dup->loc.line,
				   dup->loc.col);
			continue;
		}
		if (g->mech != DC_MECH_UPROBE || !pr->offset)
			continue;
		/* Several names of one function are probed once: the first
		 * at an offset of a binary takes the others as aliases. */
		key = (dc_hash(g->path, strlen(g->path)) ^
		       pr->offset * 0x9e3779b97f4a7c15ull) |
		      1;
		j = (uintptr_t)dc_map_get(&at, key);
		if (!j) {
			dc_map_put(&at, key, (void *)(uintptr_t)(i + 1));
			continue;
		}
		o = &spec->probes[j - 1];
		if (o->offset != pr->offset ||
		    strcmp(spec->groups[o->group].path, g->path))
			continue; /* a collision: probed on its own */
		if (!same_shape(o, pr))
			spec_error(spec, &pr->loc,
				   "'%s' is the same function as '%s' "
				   "(%s:%d:%d) but has other args or ret",
				   pr->symbol, o->symbol, o->loc.file,
				   o->loc.line, o->loc.col);
		pr->alias_of = j - 1;
	}
	dc_map_free(&seen, NULL);
	dc_map_free(&at, NULL);
	return 0;
}
