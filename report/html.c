// SPDX-License-Identifier: MIT
/* The HTML page: templates/report.html with its @NAME@ placeholders
 * filled with tables and inline SVG plots. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "darshan.h"
#include "fileio.h"
#include "plots.h"
#include "report.h"
#include "sort.h"
#include "template.h"

#define TOP_FILES 50
#define TOP_FUNCS 30
#define TOP_PROCS 48

static void stat_cells(struct dc_buf *b, const struct dc_stat *s)
{
	char t[16], m[16], p50[16] = "-", p99[16] = "-", by[16] = "-",
			   bw[24] = "-";

	if (s->timed) {
		dc_fmt_time((double)dc_hist_pct(s->hist, s->timed, 50), p50);
		dc_fmt_time((double)dc_hist_pct(s->hist, s->timed, 99), p99);
	}
	if (s->unsized)
		strcpy(by, "unknown");
	else if (s->bytes)
		dc_fmt_bytes((double)s->bytes, by);
	if (s->bytes && s->io_time > 0 && !s->unsized) {
		dc_fmt_bytes(s->bytes / (s->io_time / 1e6), bw);
		strcat(bw, "/s");
	}
	dc_buf_addf(b,
		    "<td>%llu</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>"
		    "<td>%s</td><td>%s</td></tr>\n",
		    (unsigned long long)s->count, dc_fmt_time(s->time, t),
		    dc_fmt_time(s->count ? s->time / s->count : 0, m), p50, p99,
		    by, bw);
}

static const char stat_head[] =
    "<th>calls</th><th>time</th><th>mean</th><th>p50</th><th>p99</th>"
    "<th>bytes</th><th>bandwidth</th></tr>\n";

static void layers(const struct dc_report *r, struct dc_buf *b)
{
	dc_buf_addf(b, "<table><tr><th class=\"l\">layer</th>%s", stat_head);
	for (int i = 0; i < r->nlayers; i++) {
		dc_buf_addf(b,
			    "<tr><td class=\"l\"><span class=\"bar\" "
			    "style=\"width:10px;background:%s\"></span> ",
			    dc_layer_color(i));
		dc_html_esc(b, r->layers[i].name);
		dc_buf_adds(b, "</td>");
		stat_cells(b, &r->layers[i].s);
	}
	dc_buf_adds(b, "</table>\n");
}

static void split(const struct dc_report *r, struct dc_buf *b)
{
	char t[16];

	dc_buf_adds(b, "<table><tr><th class=\"l\">outermost layer</th>"
		       "<th>calls</th><th>time</th><th class=\"l\">split "
		       "(bar: 400 px = 100%)</th></tr>\n");
	for (int i = 0; i < r->nlayers; i++) {
		const struct dc_layer *l = &r->layers[i];

		if (!l->root_count)
			continue;
		dc_buf_adds(b, "<tr><td class=\"l\">");
		dc_html_esc(b, l->name);
		dc_buf_addf(b, "</td><td>%llu</td><td>%s</td><td class=\"l\">",
			    (unsigned long long)l->root_count,
			    dc_fmt_time(l->root_time, t));
		for (int j = 0; j < r->nlayers && l->root_time > 0; j++) {
			double f = l->by_layer[j] / l->root_time;

			if (f <= 0)
				continue;
			dc_buf_adds(b, "<span class=\"bar\" title=\"");
			dc_html_esc(b, r->layers[j].name);
			dc_buf_addf(b,
				    " %.1f%%\" style=\"width:%.0fpx;"
				    "background:%s\"></span>",
				    100 * f, 400 * f, dc_layer_color(j));
		}
		for (int j = 0; j < r->nlayers && l->root_time > 0; j++) {
			if (l->by_layer[j] <= 0)
				continue;
			dc_buf_adds(b, " ");
			dc_html_esc(b, r->layers[j].name);
			dc_buf_addf(b, " %.1f%%",
				    100 * l->by_layer[j] / l->root_time);
		}
		dc_buf_adds(b, "</td></tr>\n");
	}
	dc_buf_adds(b, "</table>\n");
}

static void files(const struct dc_report *r, struct dc_buf *b)
{
	size_t *ix = dc_sort_files(r);
	char t[16], rd[16], wr[16], nb[64];

	dc_buf_adds(b, "<table><tr><th class=\"l\">file</th><th>calls</th>"
		       "<th>I/O time</th><th>read</th><th>written</th>"
		       "<th class=\"l\">time per layer</th></tr>\n");
	for (size_t i = 0; ix && i < r->nfiles && i < TOP_FILES; i++) {
		const struct dcr_file *f = r->files[ix[i]];

		dc_buf_adds(b, "<tr><td class=\"l\">");
		dc_html_esc(b, dc_file_name(r, f->hash, nb, sizeof(nb)));
		dc_buf_addf(b,
			    "</td><td>%llu</td><td>%s</td><td>%s</td><td>%s"
			    "</td><td class=\"l\">",
			    (unsigned long long)f->s.count,
			    dc_fmt_time(f->s.time, t),
			    dc_fmt_bytes((double)f->s.bytes_read, rd),
			    dc_fmt_bytes((double)f->s.bytes_written, wr));
		for (int j = 0; j < f->nlayers; j++) {
			const struct dcr_file_layer *l = &f->layers[j];

			if (!l->count)
				continue;
			dc_html_esc(b, r->layers[l->layer].name);
			dc_buf_addf(b, " %s ", dc_fmt_time(l->time, t));
		}
		dc_buf_adds(b, "</td></tr>\n");
	}
	if (r->nfiles > TOP_FILES)
		dc_buf_addf(b, "<tr><td class=\"l\">... %zu more</td></tr>\n",
			    r->nfiles - TOP_FILES);
	dc_buf_adds(b, "</table>\n");
	free(ix);
}

static void funcs(const struct dc_report *r, struct dc_buf *b)
{
	int *ix = dc_sort_funcs(r, false);

	dc_buf_addf(b,
		    "<table><tr><th class=\"l\">layer</th><th "
		    "class=\"l\">function</th>%s",
		    stat_head);
	for (int i = 0; ix && i < r->nfuncs && i < TOP_FUNCS; i++) {
		const struct dc_func *f = &r->funcs[ix[i]];

		dc_buf_adds(b, "<tr><td class=\"l\">");
		dc_html_esc(b, r->layers[f->layer].name);
		dc_buf_adds(b, "</td><td class=\"l\">");
		dc_html_esc(b, f->name);
		dc_buf_adds(b, "</td>");
		stat_cells(b, &f->s);
	}
	dc_buf_adds(b, "</table>\n");
	free(ix);
}

static int by_busy(const void *a, const void *b, void *ctx)
{
	const struct dc_report *r = ctx;
	double x = r->procs[*(const size_t *)a]->busy;
	double y = r->procs[*(const size_t *)b]->busy;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int timeline(const struct dc_report *r, struct dc_buf *b)
{
	size_t *ix = malloc((r->nprocs + 1) * sizeof(*ix));
	int err;

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < r->nprocs; i++)
		ix[i] = i;
	qsort_r(ix, r->nprocs, sizeof(*ix), by_busy, (void *)r);
	err = dc_plot_timeline(
	    r, ix, r->nprocs < TOP_PROCS ? r->nprocs : TOP_PROCS, b);
	free(ix);
	return err;
}

static void summary(const struct dc_report *r, struct dc_buf *b)
{
	int64_t start = dc_report_start(r);
	int64_t end = dc_report_end(r);
	char t[16];

	dc_buf_addf(
	    b,
	    "%llu traces, %llu calls, %llu counters, %zu processes, "
	    "%zu files, %zu hosts, run time %s",
	    (unsigned long long)r->ntraces, (unsigned long long)r->events,
	    (unsigned long long)r->counters, r->nprocs, r->nfiles,
	    r->hnames.len, end > start ? dc_fmt_time(end - start, t) : "0");
	if (r->bad_lines || r->unknown_hashes)
		dc_buf_addf(b,
			    "; damaged input: %llu bad lines, %llu undefined "
			    "file hashes",
			    (unsigned long long)r->bad_lines,
			    (unsigned long long)r->unknown_hashes);
}

static void lost(const struct dc_report *r, struct dc_buf *b)
{
	if (!r->end_records) {
		dc_buf_adds(b, "unknown: no trace has an end record");
		return;
	}
	dc_buf_addf(b, "end records: %llu of %llu traces",
		    (unsigned long long)r->end_records,
		    (unsigned long long)r->ntraces);
	for (int i = 0; i < r->nend; i++) {
		dc_buf_adds(b, "; ");
		dc_html_esc(b, r->end_keys[i]);
		dc_buf_addf(b, " %llu", (unsigned long long)r->end_vals[i]);
	}
}

/* What the page shows. */
struct page {
	const struct dc_report *r;
	const struct dc_darshan *darshan; /* or NULL */
};

/* One placeholder's contents. */
static int fill(void *ctx, const char *name, size_t n, struct dc_buf *b)
{
	const struct page *pg = ctx;
	const struct dc_report *r = pg->r;

#define IS(s) (n == sizeof(s) - 1 && !memcmp(name, s, n))
	if (IS("TITLE"))
		dc_html_esc(b, r->cmd ? r->cmd : r->trace ? r->trace : "");
	else if (IS("SUMMARY"))
		summary(r, b);
	else if (IS("LAYERS"))
		layers(r, b);
	else if (IS("SPLIT"))
		split(r, b);
	else if (IS("BANDWIDTH"))
		return dc_plot_bandwidth(r, b);
	else if (IS("SIZES"))
		return dc_plot_sizes(r, b);
	else if (IS("TIMELINE"))
		return timeline(r, b);
	else if (IS("FILES"))
		files(r, b);
	else if (IS("FUNCTIONS"))
		funcs(r, b);
	else if (IS("FLAME"))
		return dc_flame_svg(r, b, 1200);
	else if (IS("LOST"))
		lost(r, b);
	else if (IS("DARSHAN_SUMMARY"))
		return pg->darshan ? dc_darshan_summary_html(pg->darshan, b)
				   : 0;
	else
		return 1;
	return 0;
#undef IS
}

int dc_html_report(const struct dc_report *r, const struct dc_darshan *darshan,
		   const char *tmpl_dir, const char *path)
{
	struct page pg = { r, darshan };
	struct dc_tmpl t = {};
	struct dc_buf out = {};
	int err;

	err = dc_tmpl_read(&t, tmpl_dir, "report.html") ?:
	      dc_tmpl_fill(&out, &t, fill, &pg) ?:
	      dc_write_atomic(path, out.p, out.len);
	dc_tmpl_free(&t);
	dc_buf_free(&out);
	return err;
}
