// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "sort.h"

/* qsort has no context argument: the arrays being ordered. */
static const struct dc_report *cur;
static bool cur_scope;

static int by_func_time(const void *a, const void *b)
{
	const struct dc_func *x = &cur->funcs[*(const int *)a];
	const struct dc_func *y = &cur->funcs[*(const int *)b];
	double tx = cur_scope ? x->scope.time : x->s.time;
	double ty = cur_scope ? y->scope.time : y->s.time;

	return tx < ty ? 1 : tx > ty ? -1 : *(const int *)a - *(const int *)b;
}

int *dc_sort_funcs(const struct dc_report *r, bool scope)
{
	int *ix = malloc((r->nfuncs + 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (int i = 0; i < r->nfuncs; i++)
		ix[i] = i;
	cur = r;
	cur_scope = scope;
	qsort(ix, r->nfuncs, sizeof(*ix), by_func_time);
	return ix;
}

static int by_file_time(const void *a, const void *b)
{
	const struct dc_file *x = cur->files[*(const size_t *)a];
	const struct dc_file *y = cur->files[*(const size_t *)b];

	if (x->s.time != y->s.time)
		return x->s.time < y->s.time ? 1 : -1;
	return x->hash < y->hash ? -1 : x->hash > y->hash;
}

size_t *dc_sort_files(const struct dc_report *r)
{
	size_t *ix = malloc((r->nfiles + 1) * sizeof(*ix));

	if (!ix)
		return NULL;
	for (size_t i = 0; i < r->nfiles; i++)
		ix[i] = i;
	cur = r;
	qsort(ix, r->nfiles, sizeof(*ix), by_file_time);
	return ix;
}
