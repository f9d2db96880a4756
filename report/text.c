// SPDX-License-Identifier: MIT
/* The terminal summary: a dozen short tables, widest first cut. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "sort.h"

static void stat_row(FILE *o, const char *a, const char *name,
		     const struct dc_stat *s)
{
	/* bw: dc_fmt_bytes()'s 16 bytes, and "/s". */
	char t[16], m[16], p50[16], p99[16], by[16], bw[16 + 2];

	if (s->timed) {
		dc_fmt_time((double)dc_hist_pct(s->hist, s->timed, 50), p50);
		dc_fmt_time((double)dc_hist_pct(s->hist, s->timed, 99), p99);
	} else {
		strcpy(p50, "-");
		strcpy(p99, "-");
	}
	if (s->bytes && s->io_time > 0 && !s->unsized) {
		dc_fmt_bytes(s->bytes / (s->io_time / 1e6), bw);
		strcat(bw, "/s");
	} else {
		strcpy(bw, "-");
	}
	/* Some calls' bytes could not be told: no total is right. */
	if (s->unsized)
		strcpy(by, "unknown");
	else if (s->bytes)
		dc_fmt_bytes((double)s->bytes, by);
	else
		strcpy(by, "-");
	char nb[DC_ESC_NAME_MAX], lb[DC_LAYER_ESC];
	const char *fn = dc_fmt_name(name, nb, sizeof(nb));

	a = dc_fmt_name(a, lb, sizeof(lb));

	/* A name longer than its column (a C++ method with its parameters)
	 * is written whole on a line of its own, above its numbers: cut,
	 * overloads would look alike. */
	if (strlen(fn) > 16) {
		fprintf(o, "  %-6.6s %s\n", a, fn);
		fn = a = "";
	}
	fprintf(o, "  %-6.6s %-16.16s %8llu %9s %8s %8s %8s %9s %11s\n", a, fn,
		(unsigned long long)s->count, dc_fmt_time(s->time, t),
		dc_fmt_time(s->count ? s->time / s->count : 0, m), p50, p99, by,
		bw);
}

static void stat_head(FILE *o, const char *title)
{
	fprintf(o, "\n%s\n  %-6s %-16s %8s %9s %8s %8s %8s %9s %11s\n", title,
		"layer", "function", "calls", "time", "mean", "p50", "p99",
		"bytes", "bandwidth");
}

static void layers_table(const struct dc_report *r, FILE *o, bool scope)
{
	stat_head(o, scope ? "Per layer, on the matching files"
			   : "Per layer (inclusive: nested calls count in "
			     "each layer)");
	for (int i = 0; i < r->nlayers; i++) {
		const struct dc_stat *s =
		    scope ? &r->layers[i].scope : &r->layers[i].s;

		if (s->count)
			stat_row(o, r->layers[i].name, "", s);
	}
}

static void funcs_table(const struct dc_report *r, FILE *o, int top, bool scope)
{
	int *ix = dc_sort_funcs(r, scope);
	int n = 0;

	if (!ix)
		return;
	stat_head(o, scope ? "Functions on the matching files, by time"
			   : "Top functions by time");
	for (int i = 0; i < r->nfuncs && n < top; i++) {
		const struct dc_func *f = &r->funcs[ix[i]];
		const struct dc_stat *s = scope ? &f->scope : &f->s;

		if (!s->count)
			continue;
		stat_row(o, r->layers[f->layer].name, f->name, s);
		n++;
	}
	free(ix);
}

static void split_row(const struct dc_report *r, FILE *o, const char *name,
		      uint64_t count, double total, const double *by)
{
	char t[16], lb[DC_LAYER_ESC];

	fprintf(o, "  %-6.6s", dc_fmt_name(name, lb, sizeof(lb)));
	if (count)
		fprintf(o, " %8llu calls", (unsigned long long)count);
	fprintf(o, " %9s:", dc_fmt_time(total, t));
	for (int j = 0; j < r->nlayers; j++)
		if (by[j] > 0 && total > 0)
			fprintf(o, "  %s %.1f%%",
				dc_fmt_name(r->layers[j].name, lb, sizeof(lb)),
				100 * by[j] / total);
	fputc('\n', o);
}

static void nesting_table(const struct dc_report *r, FILE *o)
{
	fprintf(o, "\nTime per layer, nesting taken into account (outermost "
		   "calls, split by the layer\nthat spent the time)\n");
	for (int i = 0; i < r->nlayers; i++) {
		const struct dc_layer *l = &r->layers[i];

		if (l->root_count)
			split_row(r, o, l->name, l->root_count, l->root_time,
				  l->by_layer);
	}
}

static void files_table(const struct dc_report *r, FILE *o, int top, bool scope)
{
	size_t *ix = dc_sort_files(r);
	char t[16], rd[16], wr[16], nb[64], esc[DC_ESC_NAME_MAX],
	    lb[DC_LAYER_ESC];
	int n = 0;

	if (!ix)
		return;
	fprintf(o, "\n%s\n  %10s %9s %10s %10s  %s\n",
		scope ? "Matching files" : "Top files by I/O time", "time",
		"calls", "read", "written", "file (time per layer)");
	for (size_t i = 0; i < r->nfiles && n < top; i++) {
		const struct dcr_file *f = r->files[ix[i]];

		if (scope && !f->match)
			continue;
		fprintf(o, "  %10s %9llu %10s %10s  %s (",
			dc_fmt_time(f->s.time, t),
			(unsigned long long)f->s.count,
			dc_fmt_bytes((double)f->s.bytes_read, rd),
			dc_fmt_bytes((double)f->s.bytes_written, wr),
			dc_fmt_name(dc_file_name(r, f->hash, nb, sizeof(nb)),
				    esc, sizeof(esc)));
		for (int j = 0, k = 0; j < f->nlayers; j++)
			if (f->layers[j].count)
				fprintf(o, "%s%s %s", k++ ? ", " : "",
					dc_fmt_name(
					    r->layers[f->layers[j].layer].name,
					    lb, sizeof(lb)),
					dc_fmt_time(f->layers[j].time, t));
		fputs(")\n", o);
		n++;
	}
	free(ix);
}

static void slowest_table(const struct dc_report *r, FILE *o, int top)
{
	char t[16], nb[64], by[16], esc[DC_ESC_NAME_MAX], lb[DC_LAYER_ESC];

	if (!r->nslowest)
		return;
	fprintf(o, "\nSlowest calls\n  %10s  %-26s %15s %10s  %s\n", "time",
		"call", "pid/tid", "bytes", "file");
	for (int i = 0; i < r->nslowest && i < top; i++) {
		const struct dcr_call *c = &r->slowest[i];
		const struct dc_func *f = &r->funcs[c->func];
		char call[64], pt[32];

		snprintf(call, sizeof(call), "%s:%s",
			 dc_fmt_name(r->layers[f->layer].name, lb, sizeof(lb)),
			 dc_fmt_name(f->name, esc, sizeof(esc)));
		snprintf(pt, sizeof(pt), "%u/%u", c->pid, c->tid);
		fprintf(o, "  %10s  %-26.26s %15s %10s  %s\n",
			dc_fmt_time((double)c->dur, t), call, pt,
			c->size >= 0 ? dc_fmt_bytes((double)c->size, by) : "-",
			c->fhash ? dc_fmt_name(dc_file_name(r, c->fhash, nb,
							    sizeof(nb)),
					       esc, sizeof(esc))
				 : "");
	}
}

static void losses(const struct dc_report *r, FILE *o)
{
	uint64_t dropped = 0;
	char kb[DC_LAYER_ESC];

	if (r->bad_members || r->bytes_skipped || r->empty_traces)
		fprintf(o,
			"\nDamaged: %llu gzip members corrupt or truncated, "
			"%llu compressed bytes unreadable, %llu empty traces; "
			"every figure above is a lower bound\n",
			(unsigned long long)r->bad_members,
			(unsigned long long)r->bytes_skipped,
			(unsigned long long)r->empty_traces);
	if (!r->end_records) {
		fprintf(o, "\nEvents lost: unknown, no trace has an end record "
			   "(cut short?)\n");
		return;
	}
	for (int i = 0; i < r->nend; i++)
		if (!strcmp(r->end_keys[i], "dropped"))
			dropped = r->end_vals[i];
	fprintf(o, "\nEvents lost: %llu%s (end records: %llu of %llu traces)",
		(unsigned long long)dropped,
		r->bad_members || r->bytes_skipped ? " in the kernel, and the "
						     "damaged parts above"
						   : "",
		(unsigned long long)r->end_records,
		(unsigned long long)r->ntraces);
	for (int i = 0; i < r->nend; i++)
		if (r->end_vals[i] && strcmp(r->end_keys[i], "dropped") &&
		    strcmp(r->end_keys[i], "num_events"))
			fprintf(o, "%s %s %llu", i ? "," : ":",
				dc_fmt_name(r->end_keys[i], kb, sizeof(kb)),
				(unsigned long long)r->end_vals[i]);
	fputc('\n', o);
}

int dc_text_report(const struct dc_report *r, FILE *o, int top)
{
	char t[16], esc[DC_ESC_NAME_MAX];
	uint64_t ranks = 0;
	int64_t start = dc_report_start(r);
	int64_t end = dc_report_end(r);

	for (size_t i = 0; i < r->nprocs; i++)
		ranks += r->procs[i]->rank != NULL;
	fprintf(o, "%llu traces, %llu calls", (unsigned long long)r->ntraces,
		(unsigned long long)r->events);
	if (r->counters)
		fprintf(o, " and %llu counters",
			(unsigned long long)r->counters);
	fprintf(o, ", %zu processes", r->nprocs);
	if (ranks)
		fprintf(o, " (%llu ranks)", (unsigned long long)ranks);
	fprintf(o, ", %zu files, %d hosts, run time %s\n", r->nfiles,
		(int)r->hnames.len,
		end > start ? dc_fmt_time(end - start, t) : "0");
	if (r->cmd)
		fprintf(o, "command: %s\n",
			dc_fmt_name(r->cmd, esc, sizeof(esc)));
	/* What the kernel lacked: slower ways taken, mechanisms left out. */
	if (r->fallbacks && *r->fallbacks)
		fprintf(o, "kernel fallbacks: %s\n",
			dc_fmt_name(r->fallbacks, esc, sizeof(esc)));
	if (r->unsupported && *r->unsupported)
		fprintf(o, "not traced on that kernel: %s\n",
			dc_fmt_name(r->unsupported, esc, sizeof(esc)));
	if (r->bad_lines || r->unknown_hashes)
		fprintf(o,
			"damaged input: %llu bad lines, %llu undefined file "
			"hashes (see the messages above)\n",
			(unsigned long long)r->bad_lines,
			(unsigned long long)r->unknown_hashes);
	layers_table(r, o, false);
	if (r->has_pidx)
		nesting_table(r, o);
	funcs_table(r, o, top, false);
	files_table(r, o, top, false);
	slowest_table(r, o, top < 5 ? top : 5);
	if (r->file_pattern) {
		double total = 0;
		double by[DC_MAX_LAYERS] = {};

		fprintf(o, "\n== Files matching '%s'\n", r->file_pattern);
		files_table(r, o, top, true);
		layers_table(r, o, true);
		for (int i = 0; i < r->nlayers; i++) {
			by[i] = r->layers[i].scope_excl;
			total += by[i];
		}
		fprintf(o, "\nTime on them, nesting taken into account "
			   "(calls on them and all they caused)\n");
		split_row(r, o, "all", 0, total, by);
		funcs_table(r, o, 4 * top, true);
	}
	losses(r, o);
	return ferror(o) ? -EIO : 0;
}
