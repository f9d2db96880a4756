// SPDX-License-Identifier: MIT
/*
 * Two partial reports into one: the report of the traces of @dst, then
 * those of @src, as if one report had read them all in that order. What
 * was first seen (functions, layers, files, processes, call paths, host
 * names, mounts) keeps the order of reading, so the tables and their
 * ties come out the same; sums, minima and maxima merge exactly (call
 * path shares are whole 1/1024 us, nest.c). Darshan's calls are kept
 * until dcr_report_finish(), which reduces them once, after the merge.
 * Only the time bins of the HTML page's plots are re-spread, not exact.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "nest.h"

static int stat_merge(struct dc_stat *d, const struct dc_stat *s)
{
	if (s->hist) {
		if (!d->hist && !(d->hist = calloc(1, sizeof(*d->hist))))
			return -ENOMEM;
		for (int i = 0; i < DC_LAT_BINS; i++)
			d->hist->b[i] += s->hist->b[i];
	}
	if (s->count && (!d->count || s->min < d->min))
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->count += s->count;
	d->time += s->time;
	d->bytes += s->bytes;
	d->bytes_read += s->bytes_read;
	d->bytes_written += s->bytes_written;
	d->unsized += s->unsized;
	d->unsized_read += s->unsized_read;
	d->unsized_written += s->unsized_written;
	d->io_time += s->io_time;
	d->errors += s->errors;
	d->timed += s->timed;
	return 0;
}

/* @s's bins (of its grid) onto @d's, widened to hold them. */
static void bins_merge(struct dc_report *d, const struct dc_report *s,
		       double *dst, const double *src)
{
	/* Without calls there are no bins (whatever a damaged save says). */
	if (!s->binned || !d->binned)
		return;
	for (int b = 0; b < DC_BINS; b++) {
		/* Times are below 2^62 (event.h); the bins' ends may be past
		 * them, and are kept within int64_t. */
		__int128 lo = (__int128)s->t0 + (__int128)b * s->width;

		lo = lo < 0 ? 0 : lo > DC_TIME_MAX ? DC_TIME_MAX : lo;
		if (src[b])
			dc_spread_amount(d, dst, (int64_t)lo,
					 s->width < DC_TIME_MAX ? s->width
								: DC_TIME_MAX,
					 src[b]);
	}
}

static int layers_merge(struct dc_report *d, const struct dc_report *s,
			int *lmap)
{
	for (int i = 0; i < s->nlayers; i++) {
		const struct dc_layer *sl = &s->layers[i];
		struct dc_str name = { sl->name, strlen(sl->name), 0, 1 };
		struct dc_layer *dl;
		int l = dc_layer_get(d, &name);

		if (l < 0)
			return l;
		lmap[i] = l;
		dl = &d->layers[l];
		if (stat_merge(&dl->s, &sl->s) ||
		    stat_merge(&dl->scope, &sl->scope))
			return -ENOMEM;
		dl->root_count += sl->root_count;
		dl->root_time += sl->root_time;
		dl->scope_excl += sl->scope_excl;
		for (int k = 0; k < DC_SIZE_BINS; k++)
			dl->sizes[k] += sl->sizes[k];
	}
	/* by_layer is indexed by layer: after every layer has its index. */
	for (int i = 0; i < s->nlayers; i++)
		for (int k = 0; k < s->nlayers; k++)
			d->layers[lmap[i]].by_layer[lmap[k]] +=
			    s->layers[i].by_layer[k];
	return 0;
}

static int funcs_merge(struct dc_report *d, const struct dc_report *s,
		       const int *lmap, int *fmap)
{
	for (int i = 0; i < s->nfuncs; i++) {
		const struct dc_func *sf = &s->funcs[i];
		uintptr_t v = (uintptr_t)dc_map_get(&d->func_ix, sf->key);
		struct dc_func *f;

		if (!v) {
			if (dc_grow((void **)&d->funcs, d->nfuncs,
				    sizeof(*d->funcs), 64))
				return -ENOMEM;
			f = &d->funcs[d->nfuncs];
			*f = (struct dc_func){ .name = strdup(sf->name),
					       .key = sf->key,
					       .layer = lmap[sf->layer],
					       .dir = sf->dir };
			if (!f->name ||
			    dc_map_put(&d->func_ix, sf->key,
				       (void *)(uintptr_t)(d->nfuncs + 1))) {
				free(f->name);
				return -ENOMEM;
			}
			v = ++d->nfuncs;
		}
		fmap[i] = v - 1;
		f = &d->funcs[v - 1];
		if (stat_merge(&f->s, &sf->s) ||
		    stat_merge(&f->scope, &sf->scope))
			return -ENOMEM;
	}
	return 0;
}

static int nodes_merge(struct dc_report *d, const struct dc_report *s,
		       const int *fmap)
{
	int *nmap = malloc((s->nnodes + 1) * sizeof(*nmap));
	int err = 0;

	if (!nmap)
		return -ENOMEM;
	/* A node's parent was made before it. */
	for (int i = 0; i < s->nnodes && !err; i++) {
		const struct dc_node *n = &s->nodes[i];
		int k = dc_node_get(d, n->parent < 0 ? -1 : nmap[n->parent],
				    fmap[n->func], n->scope);

		if (k < 0) {
			err = k;
			break;
		}
		nmap[i] = k;
		d->nodes[k].self += n->self;
	}
	free(nmap);
	return err;
}

static int files_merge(struct dcr_report *dd, const struct dcr_report *sd,
		       const int *lmap)
{
	struct dc_report *d = &dd->r;
	const struct dc_report *s = &sd->r;

	for (size_t i = 0; i < s->nfiles; i++) {
		const struct dcr_file *sf = s->files[i];
		bool made = !dc_map_get(&d->file_ix, sf->hash ? sf->hash : 1);
		struct dcr_file *f = dc_file_get(d, sf->hash, sf->first_line);

		if (!f)
			return -ENOMEM;
		if (made) {
			/* The path, kept by the merge of the paths. */
			for (size_t k = 0; k < sd->npaths; k++)
				if (sd->paths[k] == sf->first_trace)
					f->first_trace =
					    dd->paths[dd->npaths - sd->npaths +
						      k];
		}
		if (stat_merge(&f->s, &sf->s))
			return -ENOMEM;
		for (int k = 0; k < sf->nlayers; k++) {
			const struct dcr_file_layer *l = &sf->layers[k];
			int at = lmap[l->layer], j;

			for (j = 0; j < f->nlayers && f->layers[j].layer < at;
			     j++)
				;
			if (j == f->nlayers || f->layers[j].layer != at) {
				struct dcr_file_layer *n = realloc(
				    f->layers, (f->nlayers + 1) * sizeof(*n));

				if (!n)
					return -ENOMEM;
				memmove(&n[j + 1], &n[j],
					(f->nlayers - j) * sizeof(*n));
				n[j] = (struct dcr_file_layer){ .layer = at };
				f->layers = n;
				f->nlayers++;
			}
			f->layers[j].count += l->count;
			f->layers[j].time += l->time;
		}
	}
	return 0;
}

static int procs_merge(struct dc_report *d, const struct dc_report *s)
{
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct dcr_proc *sp = s->procs[i];
		/* Its host is known: the trace's, when it was read. */
		struct dcr_proc *p =
		    dc_proc_get(d, sp->hhash ? sp->hhash : 0, sp->pid);

		if (!p)
			return -ENOMEM;
		p->count += sp->count;
		p->busy += sp->busy;
		bins_merge(d, s, p->bins, sp->bins);
		/* A later process_name or rank record replaces the earlier. */
		if (sp->name) {
			free(p->name);
			if (!(p->name = strdup(sp->name)))
				return -ENOMEM;
		}
		if (sp->rank) {
			free(p->rank);
			if (!(p->rank = strdup(sp->rank)))
				return -ENOMEM;
		}
	}
	return 0;
}

static int names_merge(struct dc_report *d, const struct dc_report *s)
{
	/* Host names in the order they came: the JSON lists the map's. */
	for (size_t i = 0; i < s->nhkeys; i++) {
		char *n;

		if (dc_map_get(&d->hnames, s->hkeys[i]))
			continue;
		n = strdup(dc_map_get(&s->hnames, s->hkeys[i]));
		if (!n || dc_name_put(d, &d->hnames, s->hkeys[i], n)) {
			free(n);
			return -ENOMEM;
		}
	}
	dc_map_foreach (&s->fnames, i) {
		char *n;

		if (dc_map_get(&d->fnames, s->fnames.keys[i]))
			continue;
		n = strdup(s->fnames.vals[i]);
		if (!n || dc_name_put(d, &d->fnames, s->fnames.keys[i], n)) {
			free(n);
			return -ENOMEM;
		}
	}
	return 0;
}

static int run_merge(struct dc_report *d, const struct dc_report *s)
{
	for (size_t i = 0; i < s->nmounts; i++) {
		const struct dc_mount *m = &s->mounts[i];
		bool seen = false;

		for (size_t k = 0; k < d->nmounts && !seen; k++)
			seen = !strcmp(d->mounts[k].dir, m->dir);
		if (seen)
			continue;
		if (dc_grow((void **)&d->mounts, d->nmounts, sizeof(*d->mounts),
			    16))
			return -ENOMEM;
		d->mounts[d->nmounts] =
		    (struct dc_mount){ strdup(m->dir), strdup(m->type),
				       m->bsize };
		if (!d->mounts[d->nmounts].dir || !d->mounts[d->nmounts].type) {
			free(d->mounts[d->nmounts].dir);
			free(d->mounts[d->nmounts].type);
			return -ENOMEM;
		}
		d->nmounts++;
	}
	for (int i = 0; i < s->nend; i++) {
		int k;

		for (k = 0;
		     k < d->nend && strcmp(d->end_keys[k], s->end_keys[i]); k++)
			;
		if (k == d->nend) {
			if (dc_grow((void **)&d->end_keys, d->nend,
				    sizeof(char *), 16) ||
			    dc_grow((void **)&d->end_vals, d->nend,
				    sizeof(uint64_t), 16) ||
			    !(d->end_keys[k] = strdup(s->end_keys[i])))
				return -ENOMEM;
			d->end_vals[d->nend++] = 0;
		}
		d->end_vals[k] += s->end_vals[i];
	}
	if (!d->cmd && s->cmd && !(d->cmd = strdup(s->cmd)))
		return -ENOMEM;
	if (!d->fallbacks && s->fallbacks &&
	    !(d->fallbacks = strdup(s->fallbacks)))
		return -ENOMEM;
	if (!d->unsupported && s->unsupported &&
	    !(d->unsupported = strdup(s->unsupported)))
		return -ENOMEM;
	if (s->t_min < d->t_min)
		d->t_min = s->t_min;
	if (s->t_max > d->t_max)
		d->t_max = s->t_max;
	if (s->run_start < d->run_start)
		d->run_start = s->run_start;
	if (s->run_end > d->run_end)
		d->run_end = s->run_end;
	return 0;
}

static void slowest_merge(struct dc_report *d, const struct dc_report *s,
			  const int *fmap)
{
	struct dcr_call out[DC_SLOWEST];
	int n = 0, i = 0, k = 0;

	/* Longest first; of equal ones, the earlier read (@d's). */
	while (n < DC_SLOWEST && (i < d->nslowest || k < s->nslowest)) {
		if (k == s->nslowest ||
		    (i < d->nslowest &&
		     d->slowest[i].dur >= s->slowest[k].dur)) {
			out[n++] = d->slowest[i++];
		} else {
			out[n] = s->slowest[k++];
			out[n].func = fmap[out[n].func];
			n++;
		}
	}
	memcpy(d->slowest, out, n * sizeof(*out));
	d->nslowest = n;
}

/* Room for @n more elements of @size in *@v, of *@cap. */
static int reserve(void **v, size_t *cap, size_t len, size_t n, size_t size)
{
	void *p;

	if (len + n <= *cap)
		return 0;
	p = realloc(*v, (len + n) * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = len + n;
	return 0;
}

static int darshan_merge(struct dc_darshan *d, const struct dc_darshan *s)
{
	uint64_t shift = d->trace_no << 40;

	if (reserve((void **)&d->calls, &d->cap, d->ncalls, s->ncalls,
		    sizeof(*d->calls)) ||
	    reserve((void **)&d->counters, &d->ccap, d->ncounters, s->ncounters,
		    sizeof(*d->counters)))
		return -ENOMEM;
	/* Calls are keyed by trace number and id: @s's traces follow. */
	for (size_t i = 0; i < s->ncalls; i++) {
		struct dc_dcall c = s->calls[i];

		c.key += shift;
		if (c.parent)
			c.parent += shift;
		d->calls[d->ncalls++] = c;
	}
	if (s->ncounters)
		memcpy(d->counters + d->ncounters, s->counters,
		       s->ncounters * sizeof(*s->counters));
	d->ncounters += s->ncounters;
	d->trace_no += s->trace_no;
	dc_map_foreach (&s->objects, i) {
		char *n;

		if (dc_map_get(&d->objects, s->objects.keys[i]))
			continue;
		n = strdup(s->objects.vals[i]);
		if (!n || dc_map_put(&d->objects, s->objects.keys[i], n)) {
			free(n);
			return -ENOMEM;
		}
	}
	return 0;
}

int dcr_report_merge(struct dcr_report *dd, const struct dcr_report *sd)
{
	struct dc_report *d = &dd->r;
	const struct dc_report *s = &sd->r;
	int lmap[DC_MAX_LAYERS], *fmap, err;

	if (dd == sd || dd->finished || sd->finished ||
	    dd->darshan != sd->darshan || dd->pattern || sd->pattern)
		return -EINVAL;
	/* Ranges of a trace merge only if each stands on its own. */
	if (d->unplaced || s->unplaced)
		return -EOPNOTSUPP;
	fmap = malloc((s->nfuncs + 1) * sizeof(*fmap));
	if (!fmap)
		return -ENOMEM;
	for (size_t i = 0; i < sd->npaths; i++) {
		if (!dcr_keep_path(dd, sd->paths[i])) {
			err = -ENOMEM;
			goto cleanup;
		}
	}
	err = names_merge(d, s);
	if (!err)
		err = layers_merge(d, s, lmap);
	if (!err)
		err = funcs_merge(d, s, lmap, fmap);
	if (!err)
		err = nodes_merge(d, s, fmap);
	if (!err)
		err = files_merge(dd, sd, lmap);
	if (err)
		goto cleanup;
	if (s->binned) {
		dc_bins_fit(d, s->t_min, s->t_max);
		for (int i = 0; i < s->nlayers; i++)
			bins_merge(d, s, d->layers[lmap[i]].bw,
				   s->layers[i].bw);
	}
	err = procs_merge(d, s);
	if (!err)
		err = run_merge(d, s);
	if (!err && dd->darshan)
		err = darshan_merge(&dd->dsh, &sd->dsh);
	if (err)
		goto cleanup;
	slowest_merge(d, s, fmap);
	d->events += s->events;
	d->counters += s->counters;
	d->meta += s->meta;
	d->lines += s->lines;
	d->bad_lines += s->bad_lines;
	d->orphans += s->orphans;
	d->records += s->records;
	d->ntraces += s->ntraces;
	d->end_records += s->end_records;
	d->bad_members += s->bad_members;
	d->bytes_skipped += s->bytes_skipped;
	d->empty_traces += s->empty_traces;
	d->has_pidx |= s->has_pidx;
	dd->problems += sd->problems;
	dd->added |= sd->added;
cleanup:
	free(fmap);
	return err;
}
