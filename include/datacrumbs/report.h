/* SPDX-License-Identifier: MIT */
#ifndef DATACRUMBS_REPORT_H
#define DATACRUMBS_REPORT_H

/*
 * libdatacrumbs-report: the summary of DFTracer traces (.pfw, .pfw.gz;
 * DataCrumbs' or DFTracer's own) that datacrumbs-report prints, as a
 * library. One report reads any number of traces, then renders its
 * summary as JSON (docs/report.md's schema), text, folded stacks,
 * Darshan's counters and job summary, a flame graph or an HTML page.
 *
 *	struct dcr_report *r;
 *	char *json;
 *	size_t len;
 *
 *	if (!dcr_report_new(&r)) {
 *		dcr_report_add(r, "run/app.pfw.gz");
 *		dcr_report_finish(r);
 *		if (!dcr_report_render(r, DCR_JSON, 0, &json, &len))
 *			... json[0..len) ...
 *		dcr_free(json);
 *		dcr_report_free(r);
 *	}
 *
 * Every function returning int returns 0 or a negative errno. Damage in a
 * trace (bad lines, truncated gzip, undefined hashes) is not an error: it
 * is named on stderr, with the file and line, and counted by
 * dcr_report_problems(); the rest of the trace is still summarized.
 * A report is used by one thread at a time; reading uses threads of its
 * own (dcr_report_set_threads()).
 */

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DCR_API __attribute__((visibility("default")))

struct dcr_report;

/* What dcr_report_render() produces. */
enum dcr_format {
	DCR_JSON,    /* datacrumbs-report --json */
	DCR_TEXT,    /* the text summary, @top rows per table */
	DCR_FOLDED,  /* --folded: call stacks weighted by time (us) */
	DCR_DARSHAN, /* --darshan: darshan-parser's rows */
	DCR_SUMMARY, /* -S: Darshan's job summary per module */
	DCR_FLAME,   /* --flamegraph: SVG, @top pixels wide */
};

/* The library's version, "0.1.0", as datacrumbs-report --version's. */
DCR_API const char *dcr_version(void);

/* The name messages on stderr start with ("datacrumbs-report: ...");
 * @prog's last path component is kept, not the string. */
DCR_API void dcr_set_prog(const char *prog);

/* Messages (the damage in traces) to @cb, without the program's name,
 * instead of stderr; NULL: stderr again. For the whole process. */
DCR_API void dcr_set_log(void (*cb)(void *ctx, const char *msg), void *ctx);

/* The value of a constant of the summary ("HIST_N", "MAX_LAYERS",
 * "BINS", "SLOWEST", "LINE_MAX", ...), so that bindings hold no copy:
 * 0 or -ENOENT. */
DCR_API int dcr_const(const char *name, int64_t *value);

DCR_API int dcr_report_new(struct dcr_report **out);
DCR_API void dcr_report_free(struct dcr_report *r);

/* Options, before the first dcr_report_add(). */
/* --file: everything about the files matching @pattern (a glob on the
 * whole path, or a substring); NULL for none. */
DCR_API int dcr_report_set_file(struct dcr_report *r, const char *pattern);
/* Compute Darshan's counters (DCR_DARSHAN, DCR_SUMMARY, the JSON's
 * "darshan" members): @on 1, or 0. */
DCR_API int dcr_report_set_darshan(struct dcr_report *r, int on);
/* Inflating and parsing threads; 0: one per CPU. */
DCR_API int dcr_report_set_threads(struct dcr_report *r, int threads);
/* Called as a trace is read: @done of its @total bytes. */
DCR_API int dcr_report_set_progress(struct dcr_report *r,
				    void (*cb)(void *ctx, uint64_t done,
					       uint64_t total),
				    void *ctx);

/* Read the trace at @path into the report. -EISDIR for a directory;
 * other errors are the file's (-ENOENT, -EACCES) or -ENOMEM. */
DCR_API int dcr_report_add(struct dcr_report *r, const char *path);
/*
 * A trace is a sequence of independent gzip members (docs/trace-format.md):
 * read only those starting in [@begin, @end) of @path (lines, in a plain
 * trace), so that ranges cut by dcr_trace_split() read every member once.
 * A range may begin inside a member: it starts at the next one that
 * inflates, and damage after its last member, up to the next range's
 * first, is its own. Within a range, line numbers in messages count
 * from its start. The checks of a whole trace (empty, not a trace) are
 * not made. -EINVAL if @begin > @end; otherwise as dcr_report_add().
 */
DCR_API int dcr_report_add_range(struct dcr_report *r, const char *path,
				 uint64_t begin, uint64_t end);
/* Cut the trace at @path into @n ranges of about equal size at member
 * starts (line starts, in a plain trace): @offs[0..n] (n + 1 of them) get
 * 0, the n - 1 cuts, ascending, and the file's size; equal neighbours
 * are an empty range. Each cut is checked by inflating the member there.
 * 0, -EINVAL for @n < 1, or the file's error. */
DCR_API int dcr_trace_split(const char *path, int n, uint64_t *offs);
/*
 * Partial reports: each reads some of the traces (on a Dask worker, say),
 * is saved to bytes, loaded where they meet and merged there, in the
 * order of the traces, and the result is finished once. The merge of
 * reports of traces A, then B equals one report that read A, then B: in
 * every output but the HTML page's time plots (re-binned).
 *
 * dcr_report_save(): the unfinished report @r as *@len bytes at *@buf
 * (release with dcr_free()); -EINVAL if @r is finished.
 * dcr_report_load(): a report from such bytes, of the same build of the
 * library: -EINVAL for bytes that are not a saved report (or another
 * version's), -EBADMSG for a truncated or damaged one.
 * dcr_report_merge(): @src's traces into @dst, after @dst's; neither
 * finished, both with the same dcr_report_set_darshan() and no
 * dcr_report_set_file() (-EINVAL otherwise). The ranges of one trace
 * (dcr_report_add_range()) merge exactly when merged in file order, each
 * right after the one before it. -EOPNOTSUPP if either report read a
 * range, after a trace's first member, that needs an earlier range: a
 * call under one open at that range's start (our runtime never cuts a
 * member inside a tree of nested calls; other writers may), or a record
 * without a host hash (process_name), whose host the trace's first HH
 * names. Such a trace is merged whole. @src is unchanged.
 */
DCR_API int dcr_report_save(const struct dcr_report *r, void **buf,
			    size_t *len);
DCR_API int dcr_report_load(const void *buf, size_t len,
			    struct dcr_report **out);
DCR_API int dcr_report_merge(struct dcr_report *dst,
			     const struct dcr_report *src);
/* After the last dcr_report_add(): names hashes never defined and
 * computes what needs every trace. */
DCR_API int dcr_report_finish(struct dcr_report *r);

/* Events read so far (calls and counter records). */
DCR_API uint64_t dcr_report_events(const struct dcr_report *r);
/* Places where the traces were damaged, as reported on stderr: nonzero
 * makes datacrumbs-report exit 1. */
DCR_API uint64_t dcr_report_problems(const struct dcr_report *r);

/* The finished report as @fmt into a new buffer (*@out, *@len bytes and
 * a '\0'; release it with dcr_free()). @top: rows per table (DCR_TEXT)
 * or width in pixels (DCR_FLAME); ignored otherwise. -EINVAL for
 * DCR_DARSHAN or DCR_SUMMARY without dcr_report_set_darshan(). */
DCR_API int dcr_report_render(const struct dcr_report *r, enum dcr_format fmt,
			      int top, char **out, size_t *len);
/* The self-contained HTML page to @path, from @tmpl_dir's report.html;
 * NULL: the installed templates (or the checkout's, for a build). */
DCR_API int dcr_report_html(const struct dcr_report *r, const char *tmpl_dir,
			    const char *path);

/*
 * The calls of a trace as rows (the Python package's DataFrame): the
 * lines of the members starting in [@begin, @end) of @path (as
 * dcr_report_add_range(); 0, 0 is empty), parsed as the report parses
 * them. A call (ph X or C, not a start or end record) is a row; a
 * damaged line is none, and is not named on stderr (the summary names
 * it). With DCR_ROWS_NAMES, only the FH and HH records are kept, and
 * there are no rows. -EINVAL for @begin > @end or unknown @flags;
 * otherwise the file's error or -ENOMEM.
 */
struct dcr_rows;
#define DCR_ROWS_NAMES 1
DCR_API int dcr_rows_read(const char *path, uint64_t begin, uint64_t end,
			  unsigned flags, struct dcr_rows **out);
/* Rows read, and lines (1-based line numbers in the range). */
DCR_API uint64_t dcr_rows_count(const struct dcr_rows *rows);
DCR_API uint64_t dcr_rows_lines(const struct dcr_rows *rows);
/* Column @name: dcr_rows_count() values, valid until dcr_rows_free();
 * NULL for an unknown name. int64_t: "line" (in the range), "id", "ts",
 * "dur", "p_idx", "level", "size", "ret", "offset"; uint64_t: "fhash",
 * "hhash", "count", "dur_sum", "size_sum"; uint32_t: "pid", "tid" (a
 * kernel request's lane as its thread), "name" and "cat" (string ids,
 * dcr_rows_string()), "has" (which optional fields the line had: the
 * bits dcr_const() names "HAS_P_IDX", "HAS_SIZE", ...; a field it did
 * not have is 0); uint8_t: "ph" ('X' or 'C'). */
DCR_API const void *dcr_rows_column(const struct dcr_rows *rows,
				    const char *name);
/* The text of string id @id (unescaped), or NULL past the last of
 * dcr_rows_strings(). */
DCR_API uint32_t dcr_rows_strings(const struct dcr_rows *rows);
DCR_API const char *dcr_rows_string(const struct dcr_rows *rows, uint32_t id);
/* The range's @i-th FH or HH record, in file order: @kind 'F' or 'H',
 * the hash it names as the report keys it (0 as 1), its name. -ENOENT
 * past the last. */
DCR_API int dcr_rows_name(const struct dcr_rows *rows, uint64_t i, char *kind,
			  uint64_t *key, const char **name);
DCR_API void dcr_rows_free(struct dcr_rows *rows);

DCR_API void dcr_free(void *p);

#ifdef __cplusplus
}
#endif

#endif
