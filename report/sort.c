// SPDX-License-Identifier: MIT
#include <stdlib.h>

#include "sort.h"

struct ctx {
	const struct dc_report *r;
	bool scope;
};

static int by_func_time(const void *a, const void *b, void *arg)
{
	const struct ctx *c = arg;
	const struct dc_func *x = &c->r->funcs[*(const int *)a];
	const struct dc_func *y = &c->r->funcs[*(const int *)b];
	double tx = c->scope ? x->scope.time : x->s.time;
	double ty = c->scope ? y->scope.time : y->s.time;

	return tx < ty ? 1 : tx > ty ? -1 : *(const int *)a - *(const int *)b;
}

int *dc_sort_funcs(const struct dc_report *r, bool scope)
{
	int *ix = malloc((r->nfuncs + 1) * sizeof(*ix));
	struct ctx c = { r, scope };

	if (!ix)
		return NULL;
	for (int i = 0; i < r->nfuncs; i++)
		ix[i] = i;
	qsort_r(ix, r->nfuncs, sizeof(*ix), by_func_time, &c);
	return ix;
}

static int by_file_time(const void *a, const void *b, void *arg)
{
	const struct dc_report *r = arg;
	const struct dcr_file *x = r->files[*(const size_t *)a];
	const struct dcr_file *y = r->files[*(const size_t *)b];

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
	qsort_r(ix, r->nfiles, sizeof(*ix), by_file_time, (void *)r);
	return ix;
}
