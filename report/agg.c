// SPDX-License-Identifier: MIT
/* Every line of every trace goes through here once: metadata becomes
 * names, calls become the tables, the time series and the call paths. */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "log.h"
#include "nest.h"
#include "report.h"

#define MAX_LINE_ERRORS 10 /* per trace; the rest are only counted */

static uint64_t key_of(uint64_t h)
{
	return h ? h : 1;
}

/* Unescaped, which may make it longer (\uXXXX), and then cut to size:
 * names are kept for every file of the traces. */
static char *dup_str(const struct dc_str *s)
{
	char *p = malloc((size_t)s->n * 3 + 1), *q;
	size_t n;

	if (!p)
		return NULL;
	n = dc_str_copy(s, p, (size_t)s->n * 3 + 1);
	q = realloc(p, n + 1);
	return q ? q : p;
}

int dc_report_init(struct dc_report *r)
{
	memset(r, 0, sizeof(*r));
	for (int i = 0; i < DC_RECENT; i++)
		r->recent[i].func = -1;
	r->t_min = INT64_MAX;
	r->t_max = INT64_MIN;
	r->run_start = INT64_MAX;
	r->run_end = INT64_MIN;
	return 0;
}

static void free_stat(struct dc_stat *s)
{
	free(s->hist);
}

static void free_file(void *p)
{
	struct dcr_file *f = p;

	free_stat(&f->s);
	free(f->layers);
	free(f);
}

static void free_proc(void *p)
{
	struct dcr_proc *pr = p;

	free(pr->name);
	free(pr->rank);
	free(pr);
}

void dc_report_free(struct dc_report *r)
{
	dc_map_free(&r->fnames, free);
	dc_map_free(&r->hnames, free);
	dc_map_free(&r->func_ix, NULL);
	dc_map_free(&r->node_ix, NULL);
	dc_map_free(&r->file_ix, free_file);
	dc_map_free(&r->proc_ix, free_proc);
	dc_nest_free(r);
	for (int i = 0; i < r->nlayers; i++) {
		free(r->layers[i].name);
		free_stat(&r->layers[i].s);
		free_stat(&r->layers[i].scope);
	}
	for (int i = 0; i < r->nfuncs; i++) {
		free(r->funcs[i].name);
		free_stat(&r->funcs[i].s);
		free_stat(&r->funcs[i].scope);
	}
	for (int i = 0; i < r->nend; i++)
		free(r->end_keys[i]);
	free(r->end_keys);
	free(r->end_vals);
	free(r->hkeys);
	free(r->layers);
	free(r->funcs);
	free(r->files);
	free(r->procs);
	free(r->nodes);
	free(r->cmd);
	free(r->fallbacks);
	free(r->unsupported);
	for (size_t i = 0; i < r->nmounts; i++) {
		free(r->mounts[i].dir);
		free(r->mounts[i].type);
	}
	free(r->mounts);
}

/* One stack a line: a name may not end it. Apart from the recursion, so
 * that its buffer is not on every level's frame. */
static __attribute__((noinline)) int add_name(struct dc_buf *b,
					      const char *name)
{
	char esc[DC_ESC_NAME_MAX];

	return dc_buf_adds(b, dc_fmt_name(name, esc, sizeof(esc)));
}

int dc_node_path(const struct dc_report *r, int node, struct dc_buf *b)
{
	const struct dc_node *n = &r->nodes[node];
	const struct dc_func *f = &r->funcs[n->func];

	if (n->parent >= 0) {
		if (dc_node_path(r, n->parent, b))
			return -ENOMEM;
		dc_buf_adds(b, ";");
	}
	add_name(b, r->layers[f->layer].name);
	dc_buf_adds(b, ";");
	return add_name(b, f->name);
}

int dc_layer_get(struct dc_report *r, const struct dc_str *cat)
{
	char name[256];
	int i;

	dc_str_copy(cat, name, sizeof(name));
	for (i = 0; i < r->nlayers; i++)
		if (!strcmp(r->layers[i].name, name))
			return i;
	/* Past the limit, the rest share the last layer. */
	if (r->nlayers == DC_MAX_LAYERS)
		return DC_MAX_LAYERS - 1;
	if (dc_grow((void **)&r->layers, r->nlayers, sizeof(*r->layers), 8))
		return -ENOMEM;
	memset(&r->layers[i], 0, sizeof(r->layers[i]));
	r->layers[i].name = strdup(name);
	if (!r->layers[i].name)
		return -ENOMEM;
	return r->nlayers++;
}

/* Which way a call's bytes go, by its name: fread, pread64, fgets,
 * fscanf read; write, fputs, fprintf write. */
static char direction(const char *name)
{
	if (strstr(name, "read") || strstr(name, "get") ||
	    strstr(name, "scanf"))
		return 'r';
	if (strstr(name, "write") || strstr(name, "put") ||
	    strstr(name, "printf"))
		return 'w';
	return 0;
}

/* Short strings on the hot path: a loop beats a memcmp call. */
static bool same(const struct dc_str *s, const char *p, uint32_t n)
{
	if (s->n != n)
		return false;
	for (uint32_t i = 0; i < n; i++)
		if (s->p[i] != p[i])
			return false;
	return true;
}

static int func_get(struct dc_report *r, const struct dc_trace_event *ev)
{
	/* Most calls repeat one of a few functions: remember the last ones
	 * by their text before hashing it. */
	struct dc_recent *c = &r->recent[(ev->name.n + ev->cat.n) % DC_RECENT];
	uint64_t key;
	uintptr_t v;
	struct dc_func *f;
	int layer;

	if (c->func >= 0 && same(&ev->name, c->name, c->name_n) &&
	    same(&ev->cat, c->cat, c->cat_n))
		return c->func;
	key = key_of(dc_hash(ev->cat.p, ev->cat.n) * 31 ^
		     dc_hash(ev->name.p, ev->name.n));
	v = (uintptr_t)dc_map_get(&r->func_ix, key);
	if (v) {
		if (ev->name.n < sizeof(c->name) &&
		    ev->cat.n < sizeof(c->cat)) {
			memcpy(c->name, ev->name.p, ev->name.n);
			memcpy(c->cat, ev->cat.p, ev->cat.n);
			c->name_n = ev->name.n;
			c->cat_n = ev->cat.n;
			c->func = v - 1;
		}
		return v - 1;
	}
	layer = dc_layer_get(r, &ev->cat);
	if (layer < 0)
		return layer;
	if (dc_grow((void **)&r->funcs, r->nfuncs, sizeof(*r->funcs), 64))
		return -ENOMEM;
	f = &r->funcs[r->nfuncs];
	memset(f, 0, sizeof(*f));
	f->layer = layer;
	f->key = key;
	f->name = dup_str(&ev->name);
	f->dir = f->name ? direction(f->name) : 0;
	if (!f->name ||
	    dc_map_put(&r->func_ix, key, (void *)(uintptr_t)(r->nfuncs + 1)))
		return -ENOMEM;
	return r->nfuncs++;
}

static bool file_matches(const struct dc_report *r, const char *name)
{
	const char *pat = r->file_pattern;

	if (!pat || !name)
		return false;
	/* A plain word matches anywhere in the path; a glob the whole path. */
	if (!strpbrk(pat, "*?["))
		return strstr(name, pat);
	return !fnmatch(pat, name, 0);
}

/* @n calls of @dur in layer @layer on @f. */
static int file_layer_add(struct dcr_file *f, int layer, double dur, uint64_t n)
{
	struct dcr_file_layer *l;
	int i;

	for (i = 0; i < f->nlayers && f->layers[i].layer < layer; i++)
		;
	if (i == f->nlayers || f->layers[i].layer != layer) {
		l = realloc(f->layers, (f->nlayers + 1) * sizeof(*l));
		if (!l)
			return -ENOMEM;
		memmove(&l[i + 1], &l[i], (f->nlayers - i) * sizeof(*l));
		l[i] = (struct dcr_file_layer){ .layer = layer };
		f->layers = l;
		f->nlayers++;
	}
	f->layers[i].time += dur;
	f->layers[i].count += n;
	return 0;
}

struct dcr_file *dc_file_get(struct dc_report *r, uint64_t hash,
			     uint64_t lineno)
{
	struct dcr_file *f = dc_map_get(&r->file_ix, key_of(hash));

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f ||
	    dc_grow((void **)&r->files, r->nfiles, sizeof(*r->files), 64) ||
	    dc_map_put(&r->file_ix, key_of(hash), f)) {
		free(f);
		return NULL;
	}
	f->hash = hash;
	f->first_trace = r->trace;
	f->first_line = lineno;
	f->match = file_matches(r, dc_map_get(&r->fnames, key_of(hash)));
	r->files[r->nfiles++] = f;
	return f;
}

/* Records without a host hash (process_name) are on the trace's host. */
struct dcr_proc *dc_proc_get(struct dc_report *r, uint64_t hhash, uint32_t pid)
{
	uint64_t key;
	struct dcr_proc *p;

	if (!hhash) {
		r->unplaced += r->continued;
		hhash = r->trace_hh;
	}
	key = key_of(hhash * 1000003 ^ pid);
	p = dc_map_get(&r->proc_ix, key);

	if (p)
		return p;
	p = calloc(1, sizeof(*p));
	if (!p ||
	    dc_grow((void **)&r->procs, r->nprocs, sizeof(*r->procs), 64) ||
	    dc_map_put(&r->proc_ix, key, p)) {
		free(p);
		return NULL;
	}
	p->hhash = hhash;
	p->pid = pid;
	r->procs[r->nprocs++] = p;
	return p;
}

/* Double the bin width: downward, the range grows to the left. */
static void rebin(double *a, bool down)
{
	double old[DC_BINS];

	memcpy(old, a, sizeof(old));
	memset(a, 0, sizeof(old));
	for (int i = 0; i < DC_BINS; i++)
		a[down ? DC_BINS / 2 + i / 2 : i / 2] += old[i];
}

static void rebin_all(struct dc_report *r, bool down)
{
	for (int i = 0; i < r->nlayers; i++)
		rebin(r->layers[i].bw, down);
	for (size_t i = 0; i < r->nprocs; i++)
		rebin(r->procs[i]->bins, down);
	if (down)
		r->t0 -= DC_BINS * r->width;
	r->width *= 2;
}

/* Times are in 0..DC_TIME_MAX, but the bins' start can fall below 0 and
 * their end past INT64_MAX: 128-bit arithmetic where they meet. */
void dc_bins_fit(struct dc_report *r, int64_t from, int64_t to)
{
	if (!r->binned) {
		r->binned = true;
		r->t0 = from;
		r->width = 1;
	}
	while (from < r->t0)
		rebin_all(r, true);
	while (to >= (__int128)r->t0 + DC_BINS * (__int128)r->width)
		rebin_all(r, false);
}

static int bin_of(const struct dc_report *r, int64_t t)
{
	__int128 b = ((__int128)t - r->t0) / r->width;

	return b < 0 ? 0 : b >= DC_BINS ? DC_BINS - 1 : (int)b;
}

/* Spread @amount over the bins [ts, ts + dur) covers, in proportion to
 * the time in each: a call's time, or the bytes it moved, which a long
 * block request moves all along, not at its start. */
void dc_spread_amount(const struct dc_report *r, double *bins, int64_t ts,
		      int64_t dur, double amount)
{
	int64_t end = ts + dur;

	if (dur <= 0) {
		bins[bin_of(r, ts)] += amount;
		return;
	}
	for (int b = bin_of(r, ts); b < DC_BINS; b++) {
		__int128 lo = r->t0 + (__int128)b * r->width,
			 hi = lo + r->width;
		__int128 a = ts > lo ? ts : lo, z = end < hi ? end : hi;

		if (b == DC_BINS - 1)
			z = end; /* past the last bin: it takes the rest */
		if (z <= a)
			break;
		bins[b] += amount * (double)(z - a) / (double)dur;
	}
}

/* Spread an interval's length over the bins it covers. */
static void spread(const struct dc_report *r, double *bins, int64_t ts,
		   int64_t dur)
{
	dc_spread_amount(r, bins, ts, dur, (double)dur);
}

/* @n calls of @s, going @dir, moved bytes the trace could not tell. */
static void unsized_add(struct dc_stat *s, uint64_t n, char dir)
{
	s->unsized += n;
	s->unsized_read += dir == 'r' ? n : 0;
	s->unsized_written += dir == 'w' ? n : 0;
}

/* @bytes: -1 when it moved none (or a counter's calls of unknown
 * bytes, @unsized, moved the rest). */
static int stat_add(struct dc_stat *s, int64_t dur, uint64_t n, int64_t bytes,
		    uint64_t unsized, char dir, bool err, bool timed)
{
	uint64_t d = dur > 0 ? (uint64_t)dur : 0;

	if (timed) {
		if (!s->hist && !(s->hist = calloc(1, sizeof(*s->hist))))
			return -ENOMEM;
		dc_hist_add(s->hist, d, n);
		s->timed += n;
	}
	/* Of the calls: a counter record of none has no shortest. */
	if (n && (!s->count || d < s->min))
		s->min = d;
	if (d > s->max)
		s->max = d;
	s->count += n;
	s->time += (double)d;
	s->errors += err;
	unsized_add(s, unsized, dir);
	if (bytes >= 0) {
		s->bytes += bytes;
		s->io_time += (double)d;
		if (dir == 'r')
			s->bytes_read += bytes;
		else if (dir == 'w')
			s->bytes_written += bytes;
	}
	return 0;
}

static int64_t bytes_of(const struct dc_trace_event *ev, char dir)
{
	if (ev->ph == 'C')
		return ev->has & DC_EV_SIZE_SUM ? (int64_t)ev->size_sum : -1;
	if (ev->has & DC_EV_SIZE)
		return ev->size >= 0 ? ev->size : -1;
	/* DFTracer's own traces may carry the count only as ret. */
	if (dir && (ev->has & DC_EV_RET) && ev->ret > 0)
		return ev->ret;
	return -1;
}

static void slowest_add(struct dc_report *r, const struct dc_trace_event *ev,
			int func, int64_t bytes)
{
	int i = r->nslowest;

	if (i == DC_SLOWEST && ev->dur <= r->slowest[i - 1].dur)
		return;
	if (i == DC_SLOWEST)
		i--;
	else
		r->nslowest++;
	for (; i > 0 && r->slowest[i - 1].dur < ev->dur; i--)
		r->slowest[i] = r->slowest[i - 1];
	r->slowest[i] = (struct dcr_call){
		.dur = ev->dur,
		.ts = ev->ts,
		.pid = ev->pid,
		.tid = ev->tid,
		.func = func,
		.fhash = ev->has & DC_EV_FHASH ? ev->fhash : 0,
		.size = bytes,
	};
}

static int size_bin(int64_t bytes)
{
	int b = bytes > 0 ? 64 - __builtin_clzll((uint64_t)bytes) : 0;

	return b < DC_SIZE_BINS ? b : DC_SIZE_BINS - 1;
}

static int call(struct dc_report *r, const struct dc_trace_event *ev,
		uint64_t lineno)
{
	int fi = func_get(r, ev);
	struct dc_nest_info ni = { .root = true,
				   .file_outer = true,
				   .file_sized_outer = true };
	struct dcr_file *file = NULL;
	struct dc_func *f;
	struct dc_layer *l;
	struct dcr_proc *p;
	bool counter = ev->ph == 'C', err;
	int64_t bytes, dur = ev->dur > 0 ? ev->dur : 0;
	uint64_t n = 1;
	char dir;

	if (fi < 0)
		return fi;
	f = &r->funcs[fi];
	l = &r->layers[f->layer];
	dir = f->dir;
	bytes = bytes_of(ev, dir);
	err = (ev->has & DC_EV_RET) && ev->ret < 0;
	if (ev->has & DC_EV_FHASH) {
		file = dc_file_get(r, ev->fhash, lineno);
		if (!file)
			return -ENOMEM;
	}
	if (counter) {
		n = ev->count;
		dur = ev->dur_sum;
		r->counters++;
	} else {
		r->events++;
		if (ev->has & DC_EV_PIDX)
			r->has_pidx = true;
		if (dc_nest_event(r, ev, fi, file && file->match, bytes, &ni))
			return -ENOMEM;
		/* Its bytes are on the file as its request's (AIO layer). */
		if (ev->has & DC_EV_AIO_HELPER)
			ni.file_sized_outer = false;
		slowest_add(r, ev, fi, bytes);
	}
	if (ev->ts < r->t_min)
		r->t_min = ev->ts;
	if (ev->ts + ev->dur > r->t_max)
		r->t_max = ev->ts + ev->dur;
	dc_bins_fit(r, ev->ts, ev->ts + (counter ? 0 : dur));
	if (stat_add(&f->s, dur, n, bytes, ev->unsized, dir, err, !counter) ||
	    stat_add(&l->s, dur, n, bytes, ev->unsized, dir, err, !counter))
		return -ENOMEM;
	if (ni.scope && (stat_add(&f->scope, dur, n, bytes, ev->unsized, dir,
				  err, !counter) ||
			 stat_add(&l->scope, dur, n, bytes, ev->unsized, dir,
				  err, !counter)))
		return -ENOMEM;
	if (bytes >= 0) {
		l->sizes[size_bin(counter && n ? bytes / (int64_t)n : bytes)] +=
		    n;
		dc_spread_amount(r, l->bw, ev->ts, counter ? 0 : dur,
				 (double)bytes);
	}
	if (ni.root) {
		l->root_count += n;
		l->root_time += (double)dur;
		if (counter)
			l->by_layer[f->layer] += (double)dur;
	}
	if (file) {
		if (file_layer_add(file, f->layer, (double)dur, n))
			return -ENOMEM;
		/* Counted once per chain of calls on this file. */
		if (ni.file_outer &&
		    stat_add(&file->s, dur, n, ni.file_sized_outer ? bytes : -1,
			     0, dir, err, false))
			return -ENOMEM;
		if (!ni.file_outer && ni.file_sized_outer && bytes >= 0) {
			file->s.bytes += bytes;
			file->s.bytes_read += dir == 'r' ? bytes : 0;
			file->s.bytes_written += dir == 'w' ? bytes : 0;
		}
	}
	p = dc_proc_get(r, ev->has & DC_EV_HHASH ? ev->hhash : 0, ev->pid);
	if (!p)
		return -ENOMEM;
	p->count += n;
	if (ni.root) {
		p->busy += (double)dur;
		if (!counter)
			spread(r, p->bins, ev->ts, dur);
	}
	return 0;
}

static int end_add(struct dc_report *r, const struct dc_str *k, int64_t v)
{
	char key[128];

	dc_str_copy(k, key, sizeof(key));
	for (int i = 0; i < r->nend; i++) {
		if (!strcmp(r->end_keys[i], key)) {
			r->end_vals[i] += v;
			return 0;
		}
	}
	if (dc_grow((void **)&r->end_keys, r->nend, sizeof(char *), 16) ||
	    dc_grow((void **)&r->end_vals, r->nend, sizeof(uint64_t), 16))
		return -ENOMEM;
	r->end_keys[r->nend] = strdup(key);
	if (!r->end_keys[r->nend])
		return -ENOMEM;
	r->end_vals[r->nend++] = v;
	return 0;
}

/* A start record's "mounts": {"DIR":{"type":"ext4","bsize":4096},...},
 * each directory kept once. */
static int mounts(struct dc_report *r, const struct dc_str *v)
{
	struct dc_str dir, val, k, x;
	size_t pos = 0;

	/* A malformed one (not ours) keeps what came before the fault. */
	while (dc_json_member(v->p, v->n, &pos, &dir, &val) > 0) {
		struct dc_mount m = { dup_str(&dir), NULL, 0 };
		size_t at = 0;
		bool seen = false;

		while (dc_json_member(val.p, val.n, &at, &k, &x) > 0) {
			if (k.n == 4 && !memcmp(k.p, "type", 4) && !m.type)
				m.type = dup_str(&x);
			else if (k.n == 5 && !memcmp(k.p, "bsize", 5))
				m.bsize = strtoll(x.p, NULL, 10);
		}
		for (size_t i = 0; m.dir && i < r->nmounts && !seen; i++)
			seen = !strcmp(r->mounts[i].dir, m.dir);
		/* One without a type (not ours) is left out. */
		if (seen || !m.dir || !m.type) {
			free(m.dir);
			free(m.type);
			continue;
		}
		if (dc_grow((void **)&r->mounts, r->nmounts, sizeof(*r->mounts),
			    16)) {
			free(m.dir);
			free(m.type);
			return -ENOMEM;
		}
		r->mounts[r->nmounts++] = m;
	}
	return 0;
}

/* The start and end records: the run's span, its command, its losses. */
static int marker(struct dc_report *r, const struct dc_trace_event *ev)
{
	struct dc_str k, v;
	size_t pos = 0;
	int ret;

	if (!strncmp(ev->name.p, "start", ev->name.n) && ev->name.n == 5) {
		if (ev->ts < r->run_start)
			r->run_start = ev->ts;
		while (ev->args && dc_json_member(ev->args, ev->args_len, &pos,
						  &k, &v) > 0) {
			if (k.n == 3 && !memcmp(k.p, "cmd", 3) && !r->cmd)
				r->cmd = dup_str(&v);
			else if (k.n == 9 && !memcmp(k.p, "fallbacks", 9) &&
				 !r->fallbacks)
				r->fallbacks = dup_str(&v);
			else if (k.n == 11 && !memcmp(k.p, "unsupported", 11) &&
				 !r->unsupported)
				r->unsupported = dup_str(&v);
			else if (k.n == 6 && !memcmp(k.p, "mounts", 6) &&
				 mounts(r, &v))
				return -ENOMEM;
		}
		return 0;
	}
	if (strncmp(ev->name.p, "end", ev->name.n) || ev->name.n != 3)
		return 0;
	if (ev->ts > r->run_end)
		r->run_end = ev->ts;
	r->end_records++;
	while (ev->args && (ret = dc_json_member(ev->args, ev->args_len, &pos,
						 &k, &v)) > 0) {
		if (v.quoted || !v.n || v.p[0] < '0' || v.p[0] > '9')
			continue;
		if (end_add(r, &k, strtoll(v.p, NULL, 10)))
			return -ENOMEM;
	}
	return 0;
}

int dc_name_put(struct dc_report *r, struct dc_map *m, uint64_t key, char *name)
{
	if (m == &r->hnames &&
	    dc_grow((void **)&r->hkeys, r->nhkeys, sizeof(*r->hkeys), 16))
		return -ENOMEM;
	if (dc_map_put(m, key, name))
		return -ENOMEM;
	if (m == &r->hnames)
		r->hkeys[r->nhkeys++] = key;
	return 0;
}

static int meta(struct dc_report *r, const struct dc_trace_event *ev)
{
	struct dc_map *m = NULL;
	struct dcr_proc *p;
	char **slot = NULL;

	r->meta++;
	if (dc_str_is(&ev->name, "FH"))
		m = &r->fnames;
	else if (dc_str_is(&ev->name, "HH"))
		m = &r->hnames;
	if (m && (ev->has & DC_EV_ARG_NAME) && (ev->has & DC_EV_ARG_VALUE)) {
		uint64_t key = key_of(dc_hash_value(&ev->arg_value));
		char *name;
		struct dcr_file *f;

		if (m == &r->hnames && !r->trace_hh)
			r->trace_hh = key;
		if (dc_map_get(m, key))
			return 0;
		name = dup_str(&ev->arg_name);
		if (!name || dc_name_put(r, m, key, name)) {
			free(name);
			return -ENOMEM;
		}
		if (m == &r->fnames && (f = dc_map_get(&r->file_ix, key)))
			f->match = file_matches(r, name);
		return 0;
	}
	if (dc_str_is(&ev->name, "process_name") &&
	    (ev->has & DC_EV_ARG_NAME)) {
		p = dc_proc_get(r, ev->has & DC_EV_HHASH ? ev->hhash : 0,
				ev->pid);
		slot = p ? &p->name : NULL;
	} else if (dc_str_is(&ev->name, "PR") && (ev->has & DC_EV_ARG_NAME) &&
		   dc_str_is(&ev->arg_name, "rank")) {
		p = dc_proc_get(r, ev->has & DC_EV_HHASH ? ev->hhash : 0,
				ev->pid);
		slot = p ? &p->rank : NULL;
	} else {
		return 0;
	}
	if (!slot)
		return -ENOMEM;
	free(*slot);
	*slot = dup_str(slot == &p->rank ? &ev->arg_value : &ev->arg_name);
	return *slot ? 0 : -ENOMEM;
}

int dc_report_line(struct dc_report *r, uint64_t lineno, int status,
		   const struct dc_trace_event *ev)
{
	r->lines++;
	if (status == DC_EVENT_SKIP)
		return 0;
	if (status < 0) {
		if (r->bad_lines++ < MAX_LINE_ERRORS)
			dc_err("%s: line %llu: %s (column %zu); line skipped",
			       r->trace, (unsigned long long)lineno, ev->err,
			       ev->err_col + 1);
		return 0;
	}
	r->records++;
	switch (ev->ph) {
	case 'M': return meta(r, ev);
	case 'X':
		if (dc_str_is(&ev->cat, "dftracer"))
			return marker(r, ev);
		return call(r, ev, lineno);
	case 'C': return call(r, ev, lineno);
	default: return 0;
	}
}

void dc_report_trace_done(struct dc_report *r)
{
	/* Ids are per trace: close its calls, forget its threads. */
	dc_nest_flush(r);
	dc_nest_free(r);
	/* The range at its start counts the trace. */
	r->ntraces += !r->continued;
	r->continued = false;
	r->trace_hh = 0;
}

void dc_report_finish(struct dc_report *r)
{
	for (size_t i = 0; i < r->nfiles; i++) {
		struct dcr_file *f = r->files[i];

		if (dc_map_get(&r->fnames, key_of(f->hash)))
			continue;
		if (r->unknown_hashes++ < MAX_LINE_ERRORS)
			dc_warn(
			    "%s: line %llu: fhash %016llx has no FH record; "
			    "the file is shown by its hash",
			    f->first_trace, (unsigned long long)f->first_line,
			    (unsigned long long)f->hash);
	}
}
