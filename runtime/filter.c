// SPDX-License-Identifier: MIT
#include <string.h>

#include "filter.h"

/* @name is @prefix or inside it: /data keeps /data/x, not /database. */
static bool under(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return !strncmp(name, prefix, n) &&
	       (!name[n] || name[n] == '/' || (n && prefix[n - 1] == '/'));
}

bool dc_filter_keep(const struct dc_filter *flt, const struct dc_file *f)
{
	bool in = !flt->npaths;

	for (int i = 0; i < flt->npaths && !in && f; i++)
		in = under(f->name, flt->paths[i]);
	for (int i = 0; i < flt->nxpaths && in && f; i++)
		in = !under(f->name, flt->xpaths[i]);
	return in;
}
