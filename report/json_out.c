// SPDX-License-Identifier: MIT
/* The summary as JSON; the schema is in docs/report.md. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "darshan.h"
#include "json.h"
#include "report.h"
#include "sort.h"

static void jstr(struct dc_buf *b, const char *s)
{
	dc_json_str(b, s, strlen(s));
}

static void key(struct dc_buf *b, const char *k)
{
	if (b->len && b->p[b->len - 1] != '{' && b->p[b->len - 1] != '[')
		dc_buf_adds(b, ",");
	jstr(b, k);
	dc_buf_adds(b, ":");
}

static void knum(struct dc_buf *b, const char *k, double v)
{
	key(b, k);
	/* Whole numbers as integers, where an int64_t holds them (a sum of
	 * counts or times may not). */
	if (v >= -0x1p63 && v < 0x1p63 && v == (double)(int64_t)v)
		dc_buf_add_i64(b, (int64_t)v);
	else
		dc_buf_addf(b, "%.3f", v);
}

static void kstr(struct dc_buf *b, const char *k, const char *v)
{
	key(b, k);
	if (v)
		jstr(b, v);
	else
		dc_buf_adds(b, "null");
}

static void open_item(struct dc_buf *b, char c)
{
	if (b->len && b->p[b->len - 1] != '[' && b->p[b->len - 1] != '{' &&
	    b->p[b->len - 1] != ':')
		dc_buf_adds(b, ",");
	dc_buf_add(b, &c, 1);
}

static void bytes_field(struct dc_buf *b, const char *k, uint64_t bytes,
			uint64_t unsized)
{
	if (unsized) {
		key(b, k);
		dc_buf_adds(b, "null");
	} else {
		knum(b, k, (double)bytes);
	}
}

static void stat_fields(struct dc_buf *b, const struct dc_stat *s)
{
	knum(b, "calls", (double)s->count);
	knum(b, "time_us", s->time);
	knum(b, "mean_us", s->count ? s->time / s->count : 0);
	knum(b, "min_us", (double)s->min);
	knum(b, "max_us", (double)s->max);
	key(b, "p50_us");
	if (s->timed)
		dc_buf_add_u64(b, dc_hist_pct(s->hist, s->timed, 50));
	else
		dc_buf_adds(b, "null");
	key(b, "p99_us");
	if (s->timed)
		dc_buf_add_u64(b, dc_hist_pct(s->hist, s->timed, 99));
	else
		dc_buf_adds(b, "null");
	/* null: some calls' bytes could not be told (unsized_calls). */
	bytes_field(b, "bytes", s->bytes, s->unsized);
	bytes_field(b, "bytes_read", s->bytes_read, s->unsized_read);
	bytes_field(b, "bytes_written", s->bytes_written, s->unsized_written);
	if (s->unsized)
		knum(b, "unsized_calls", (double)s->unsized);
	knum(b, "io_time_us", s->io_time);
	key(b, "bandwidth_bps");
	if (s->bytes && s->io_time > 0 && !s->unsized)
		dc_buf_addf(b, "%.0f", s->bytes / (s->io_time / 1e6));
	else
		dc_buf_adds(b, "null");
	knum(b, "errors", (double)s->errors);
}

static void by_layer(struct dc_buf *b, const struct dc_report *r, const char *k,
		     const double *v)
{
	key(b, k);
	dc_buf_adds(b, "{");
	for (int i = 0; i < r->nlayers; i++)
		if (v[i] > 0)
			knum(b, r->layers[i].name, v[i]);
	dc_buf_adds(b, "}");
}

static void layers(struct dc_buf *b, const struct dc_report *r, bool scope)
{
	key(b, "layers");
	dc_buf_adds(b, "[");
	for (int i = 0; i < r->nlayers; i++) {
		const struct dc_layer *l = &r->layers[i];

		if (scope && !l->scope.count)
			continue;
		open_item(b, '{');
		kstr(b, "name", l->name);
		stat_fields(b, scope ? &l->scope : &l->s);
		if (!scope) {
			key(b, "outermost");
			dc_buf_adds(b, "{");
			knum(b, "calls", (double)l->root_count);
			knum(b, "time_us", l->root_time);
			by_layer(b, r, "by_layer_us", l->by_layer);
			dc_buf_adds(b, "}");
		}
		dc_buf_adds(b, "}");
	}
	dc_buf_adds(b, "]");
}

static void funcs(struct dc_buf *b, const struct dc_report *r, bool scope)
{
	int *ix = dc_sort_funcs(r, scope);

	key(b, "functions");
	dc_buf_adds(b, "[");
	for (int i = 0; ix && i < r->nfuncs; i++) {
		const struct dc_func *f = &r->funcs[ix[i]];
		const struct dc_stat *s = scope ? &f->scope : &f->s;

		if (!s->count)
			continue;
		open_item(b, '{');
		kstr(b, "layer", r->layers[f->layer].name);
		kstr(b, "name", f->name);
		stat_fields(b, s);
		dc_buf_adds(b, "}");
	}
	dc_buf_adds(b, "]");
	free(ix);
}

static void files(struct dc_buf *b, const struct dc_report *r,
		  const struct dc_darshan *darshan, bool scope)
{
	size_t *ix = dc_sort_files(r);
	char nb[64], h[32];

	key(b, "files");
	dc_buf_adds(b, "[");
	for (size_t i = 0; ix && i < r->nfiles; i++) {
		const struct dcr_file *f = r->files[ix[i]];

		if (scope && !f->match)
			continue;
		open_item(b, '{');
		kstr(b, "name", dc_file_name(r, f->hash, nb, sizeof(nb)));
		snprintf(h, sizeof(h), "%016llx", (unsigned long long)f->hash);
		kstr(b, "fhash", h);
		stat_fields(b, &f->s);
		key(b, "layers");
		dc_buf_adds(b, "{");
		for (int j = 0; j < f->nlayers; j++) {
			const struct dcr_file_layer *l = &f->layers[j];

			if (!l->count)
				continue;
			key(b, r->layers[l->layer].name);
			dc_buf_adds(b, "{");
			knum(b, "calls", (double)l->count);
			knum(b, "time_us", l->time);
			dc_buf_adds(b, "}");
		}
		dc_buf_adds(b, "}");
		if (darshan)
			dc_darshan_json(darshan, f->hash, b);
		dc_buf_adds(b, "}");
	}
	dc_buf_adds(b, "]");
	free(ix);
}

static void procs(struct dc_buf *b, const struct dc_report *r)
{
	key(b, "processes");
	dc_buf_adds(b, "[");
	for (size_t i = 0; i < r->nprocs; i++) {
		const struct dcr_proc *p = r->procs[i];

		open_item(b, '{');
		kstr(b, "host",
		     dc_map_get(&r->hnames, p->hhash ? p->hhash : 1));
		knum(b, "pid", p->pid);
		kstr(b, "name", p->name);
		kstr(b, "rank", p->rank);
		knum(b, "calls", (double)p->count);
		knum(b, "busy_us", p->busy);
		dc_buf_adds(b, "}");
	}
	dc_buf_adds(b, "]");
}

static void slowest(struct dc_buf *b, const struct dc_report *r)
{
	char nb[64];

	key(b, "slowest");
	dc_buf_adds(b, "[");
	for (int i = 0; i < r->nslowest; i++) {
		const struct dcr_call *c = &r->slowest[i];
		const struct dc_func *f = &r->funcs[c->func];

		open_item(b, '{');
		kstr(b, "layer", r->layers[f->layer].name);
		kstr(b, "name", f->name);
		knum(b, "dur_us", (double)c->dur);
		knum(b, "ts_us", (double)c->ts);
		knum(b, "pid", c->pid);
		knum(b, "tid", c->tid);
		key(b, "bytes");
		if (c->size >= 0)
			dc_buf_add_i64(b, c->size);
		else
			dc_buf_adds(b, "null");
		kstr(b, "file",
		     c->fhash ? dc_file_name(r, c->fhash, nb, sizeof(nb))
			      : NULL);
		dc_buf_adds(b, "}");
	}
	dc_buf_adds(b, "]");
}

int dc_json_report(const struct dc_report *r, const struct dc_darshan *darshan,
		   FILE *o)
{
	struct dc_buf b = {};
	int64_t start = dc_report_start(r);
	int64_t end = dc_report_end(r);
	int err = 0;

	if (end < start)
		start = end = 0;
	dc_buf_adds(&b, "{");
	knum(&b, "version", 1);
	knum(&b, "traces", (double)r->ntraces);
	knum(&b, "lines", (double)r->lines);
	knum(&b, "calls", (double)r->events);
	knum(&b, "counters", (double)r->counters);
	knum(&b, "bad_lines", (double)r->bad_lines);
	knum(&b, "unknown_hashes", (double)r->unknown_hashes);
	knum(&b, "orphans", (double)r->orphans);
	kstr(&b, "command", r->cmd);
	kstr(&b, "fallbacks", r->fallbacks);
	kstr(&b, "unsupported", r->unsupported);
	key(&b, "run");
	dc_buf_adds(&b, "{");
	knum(&b, "start_us", (double)start);
	knum(&b, "end_us", (double)end);
	knum(&b, "time_us", (double)(end - start));
	dc_buf_adds(&b, "}");
	key(&b, "hosts");
	dc_buf_adds(&b, "[");
	dc_map_foreach (&r->hnames, i) {
		if (b.p[b.len - 1] != '[')
			dc_buf_adds(&b, ",");
		jstr(&b, r->hnames.vals[i]);
	}
	dc_buf_adds(&b, "]");
	procs(&b, r);
	layers(&b, r, false);
	funcs(&b, r, false);
	files(&b, r, darshan, false);
	slowest(&b, r);
	key(&b, "lost");
	dc_buf_adds(&b, "{");
	knum(&b, "end_records", (double)r->end_records);
	for (int i = 0; i < r->nend; i++)
		knum(&b, r->end_keys[i], (double)r->end_vals[i]);
	dc_buf_adds(&b, "}");
	/* Only when there is damage: healthy traces' JSON is unchanged. */
	if (r->bad_members || r->bytes_skipped || r->empty_traces) {
		key(&b, "damaged");
		dc_buf_adds(&b, "{");
		knum(&b, "members", (double)r->bad_members);
		knum(&b, "bytes_skipped", (double)r->bytes_skipped);
		knum(&b, "empty_traces", (double)r->empty_traces);
		dc_buf_adds(&b, "}");
	}
	if (r->file_pattern) {
		double by[DC_MAX_LAYERS] = {};

		key(&b, "file_scope");
		dc_buf_adds(&b, "{");
		kstr(&b, "pattern", r->file_pattern);
		files(&b, r, darshan, true);
		layers(&b, r, true);
		for (int i = 0; i < r->nlayers; i++)
			by[i] = r->layers[i].scope_excl;
		by_layer(&b, r, "by_layer_us", by);
		funcs(&b, r, true);
		dc_buf_adds(&b, "}");
	}
	if (dc_buf_adds(&b, "}\n"))
		err = -ENOMEM;
	else if (fwrite(b.p, 1, b.len, o) != b.len)
		err = -EIO;
	dc_buf_free(&b);
	return err;
}
