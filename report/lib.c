// SPDX-License-Identifier: MIT
/* libdatacrumbs-report's API (include/datacrumbs/report.h) over the
 * report's reader, aggregation and outputs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "api.h"
#include "darshan.h"
#include "datacrumbs/report.h"
#include "log.h"
#include "report.h"
#include "tmpldir.h"
#include "traceread.h"

static const struct {
	const char *name;
	int64_t value;
} consts[] = {
	{ "HIST_N", DC_LAT_BINS },
	{ "BINS", DC_BINS },
	{ "SIZE_BINS", DC_SIZE_BINS },
	{ "MAX_LAYERS", DC_MAX_LAYERS },
	{ "SLOWEST", DC_SLOWEST },
	{ "LINE_MAX", DC_LINE_MAX },
	{ "MEMBER_CAP", DC_MEMBER_CAP },
	{ "TIME_MAX", DC_TIME_MAX },
	{ "NAME_MAX", DC_ESC_NAME_MAX },
	{ "LANE_BIT", DC_LANE_BIT },
	{ "TID_MASK", DC_TID_MASK },
	{ "FORMAT_JSON", DCR_JSON },
	{ "FORMAT_TEXT", DCR_TEXT },
	{ "FORMAT_FOLDED", DCR_FOLDED },
	{ "FORMAT_DARSHAN", DCR_DARSHAN },
	{ "FORMAT_SUMMARY", DCR_SUMMARY },
	{ "FORMAT_FLAME", DCR_FLAME },
	/* The bits of dcr_rows' "has" column. */
	{ "HAS_ID", DC_EV_ID },
	{ "HAS_P_IDX", DC_EV_PIDX },
	{ "HAS_LEVEL", DC_EV_LEVEL },
	{ "HAS_DUR", DC_EV_DUR },
	{ "HAS_FHASH", DC_EV_FHASH },
	{ "HAS_HHASH", DC_EV_HHASH },
	{ "HAS_SIZE", DC_EV_SIZE },
	{ "HAS_RET", DC_EV_RET },
	{ "HAS_COUNT", DC_EV_COUNT },
	{ "HAS_DUR_SUM", DC_EV_DUR_SUM },
	{ "HAS_SIZE_SUM", DC_EV_SIZE_SUM },
	{ "HAS_OFFSET", DC_EV_OFFSET },
	{ "ROWS_NAMES", DCR_ROWS_NAMES },
};

const char *dcr_version(void)
{
	return DC_VERSION;
}

void dcr_set_prog(const char *prog)
{
	dc_log_init(prog);
}

void dcr_set_log(void (*cb)(void *ctx, const char *msg), void *ctx)
{
	dc_log_sink(cb, ctx);
}

int dcr_const(const char *name, int64_t *value)
{
	for (size_t i = 0; i < sizeof(consts) / sizeof(consts[0]); i++) {
		if (!strcmp(consts[i].name, name)) {
			*value = consts[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

static int line_cb(void *ctx, const struct dc_line *l)
{
	struct dcr_report *d = ctx;
	/* The parser's line, which the check only marks damaged. */
	struct dc_trace_event *ev = (struct dc_trace_event *)&l->ev;
	int status = dc_event_check(l->status, ev);
	int err = dc_report_line(&d->r, l->lineno, status, ev);

	/* Each record to the summary and to Darshan's counters alike. */
	if (!err && !status && d->darshan)
		err = dc_darshan_line(&d->dsh, ev);
	return err;
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct dcr_report *d = ctx;

	d->progress(d->progress_ctx, done, total);
}

int dcr_report_new(struct dcr_report **out)
{
	struct dcr_report *d = calloc(1, sizeof(*d));
	int err;

	if (!d)
		return -ENOMEM;
	err = dc_report_init(&d->r);
	if (err) {
		free(d);
		return err;
	}
	dc_darshan_init(&d->dsh);
	d->ro.line = line_cb;
	d->ro.ctx = d;
	*out = d;
	return 0;
}

void dcr_report_free(struct dcr_report *d)
{
	if (!d)
		return;
	dc_report_free(&d->r);
	dc_darshan_free(&d->dsh);
	free(d->pattern);
	for (size_t i = 0; i < d->npaths; i++)
		free(d->paths[i]);
	free(d->paths);
	free(d);
}

int dcr_report_set_file(struct dcr_report *d, const char *pattern)
{
	char *p = NULL;

	if (d->added)
		return -EBUSY;
	if (pattern && !(p = strdup(pattern)))
		return -ENOMEM;
	free(d->pattern);
	d->pattern = p;
	d->r.file_pattern = p;
	return 0;
}

int dcr_report_set_darshan(struct dcr_report *d, int on)
{
	if (d->added)
		return -EBUSY;
	d->darshan = on;
	return 0;
}

int dcr_report_set_threads(struct dcr_report *d, int threads)
{
	if (threads < 0)
		return -EINVAL;
	d->ro.threads = threads;
	return 0;
}

int dcr_report_set_progress(struct dcr_report *d,
			    void (*cb)(void *ctx, uint64_t done,
				       uint64_t total),
			    void *ctx)
{
	d->progress = cb;
	d->progress_ctx = ctx;
	d->ro.progress = cb ? progress_cb : NULL;
	return 0;
}

const char *dcr_keep_path(struct dcr_report *d, const char *path)
{
	char **paths = realloc(d->paths, (d->npaths + 1) * sizeof(*paths));

	if (!paths)
		return NULL;
	d->paths = paths;
	paths[d->npaths] = strdup(path);
	return paths[d->npaths] ? paths[d->npaths++] : NULL;
}

/* Read the members of @path starting in [begin, end); end 0: all. */
static int add(struct dcr_report *d, const char *path, uint64_t begin,
	       uint64_t end)
{
	bool whole = !begin && !end;
	uint64_t records = d->r.records;
	struct dc_read_stats st;
	struct stat sb;
	int err;

	if (d->finished)
		return -EBUSY;
	if (!stat(path, &sb) && S_ISDIR(sb.st_mode))
		return -EISDIR;
	path = dcr_keep_path(d, path);
	if (!path)
		return -ENOMEM;
	d->added = 1;
	d->r.trace = path;
	d->r.continued = begin > 0;
	d->ro.begin = begin;
	d->ro.end = end;
	err = dc_trace_read(path, &d->ro, &st);
	if (err)
		return err;
	dc_report_trace_done(&d->r);
	dc_darshan_trace_done(&d->dsh);
	/* A range may hold no member, or only names: that is the whole
	 * trace's to judge. */
	if (whole && !st.lines) {
		dc_err("%s: empty: not a trace", path);
		d->r.empty_traces++;
		d->problems++;
	} else if (whole && d->r.records == records) {
		/* Damaged lines are counted already: this only says why. */
		dc_err("%s: not a trace: none of its %llu lines is a trace "
		       "record",
		       path, (unsigned long long)st.lines);
	}
	d->r.bad_members += st.bad_members;
	d->r.bytes_skipped += st.bytes_skipped;
	d->problems += st.problems;
	return 0;
}

int dcr_report_add(struct dcr_report *d, const char *path)
{
	return add(d, path, 0, 0);
}

int dcr_report_add_range(struct dcr_report *d, const char *path, uint64_t begin,
			 uint64_t end)
{
	if (begin > end)
		return -EINVAL;
	/* [0, 0) is empty, not the whole trace. */
	return end ? add(d, path, begin, end) : 0;
}

int dcr_trace_split(const char *path, int n, uint64_t *offs)
{
	return dc_trace_split(path, n, offs);
}

int dcr_report_finish(struct dcr_report *d)
{
	const struct dc_report *r = &d->r;
	/* Darshan's times are seconds from the job's start. */
	struct dc_darshan_run run = {
		.fnames = &r->fnames,
		.mounts = r->mounts,
		.nmounts = r->nmounts,
		.procs = r->procs,
		.nprocs = r->nprocs,
		.t0 = dc_report_start(r),
	};

	if (d->finished)
		return -EBUSY;
	d->finished = 1;
	dc_report_finish(&d->r);
	d->problems += d->r.bad_lines + d->r.unknown_hashes;
	return d->darshan ? dc_darshan_finish(&d->dsh, &run) : 0;
}

uint64_t dcr_report_events(const struct dcr_report *d)
{
	return d->r.events + d->r.counters;
}

uint64_t dcr_report_problems(const struct dcr_report *d)
{
	return d->problems;
}

/* Darshan's counters, if they are kept. */
static const struct dc_darshan *darshan_of(const struct dcr_report *d)
{
	return d->darshan ? &d->dsh : NULL;
}

static int render(const struct dcr_report *d, enum dcr_format fmt, int top,
		  FILE *f)
{
	switch (fmt) {
	case DCR_JSON: return dc_json_report(&d->r, darshan_of(d), f);
	case DCR_TEXT: return dc_text_report(&d->r, f, top);
	case DCR_FOLDED: return dc_folded_report(&d->r, f);
	case DCR_DARSHAN: return dc_darshan_text(&d->dsh, f);
	case DCR_SUMMARY: return dc_darshan_summary_text(&d->dsh, f);
	default: return -EINVAL;
	}
}

int dcr_report_render(const struct dcr_report *d, enum dcr_format fmt, int top,
		      char **out, size_t *len)
{
	char *p = NULL;
	size_t n = 0;
	FILE *f;
	int err;

	if (!d->finished || top < 0 ||
	    ((fmt == DCR_DARSHAN || fmt == DCR_SUMMARY) && !d->darshan) ||
	    (fmt == DCR_TEXT && top < 1))
		return -EINVAL;
	if (fmt == DCR_FLAME) {
		struct dc_buf b = {};

		err = dc_flame_svg(&d->r, &b, top ? top : 1200);
		if (!err && dc_buf_add(&b, "", 1))
			err = -ENOMEM;
		if (err) {
			dc_buf_free(&b);
			return err;
		}
		*out = b.p;
		*len = b.len - 1;
		return 0;
	}
	f = open_memstream(&p, &n);
	if (!f)
		return -errno;
	err = render(d, fmt, top, f);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(p);
		return err;
	}
	*out = p;
	*len = n;
	return 0;
}

int dcr_report_html(const struct dcr_report *d, const char *tmpl_dir,
		    const char *path)
{
	if (!d->finished)
		return -EINVAL;
	return dc_html_report(&d->r, darshan_of(d),
			      dc_template_dir(tmpl_dir, "report.html"), path);
}

void dcr_free(void *p)
{
	free(p);
}
