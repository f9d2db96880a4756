// SPDX-License-Identifier: MIT
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "darshan.h"
#include "fileio.h"
#include "log.h"
#include "tmpldir.h"
#include "report.h"
#include "traceread.h"

static const char usage[] =
    "Usage: datacrumbs-report [OPTIONS] TRACE...\n"
    "Summarize DFTracer traces (.pfw, .pfw.gz; ours or DFTracer's own).\n"
    "\n"
    "  -j, --json              the summary as JSON (docs/report.md)\n"
    "  -F, --folded            folded call stacks weighted by time (us)\n"
    "  -d, --darshan           Darshan's POSIX and STDIO counters per file "
    "and\n"
    "                          process, as darshan-parser prints them\n"
    "  -S, --summary           Darshan's job summary per module after the "
    "text\n"
    "                          report (and in the HTML page)\n"
    "  -g, --flamegraph FILE   draw the I/O flame graph as SVG\n"
    "  -H, --html FILE         one self-contained page with the plots\n"
    "  -f, --file PATTERN      everything about the files matching PATTERN\n"
    "                          (a glob on the whole path, or a substring)\n"
    "  -n, --top N             rows per table (default 10)\n"
    "  -t, --threads N         inflating and parsing threads (default: CPUs)\n"
    "  -q, --quiet             no progress bar\n"
    "  -T, --templates DIR     where report.html is (default: built in)\n"
    "  -h, --help              show this help; --version\n"
    "\n"
    "Exit status: 0, 1 if a trace was damaged (bad lines, truncated gzip,\n"
    "undefined hashes: each is named with its file and line, the rest is\n"
    "still reported), 2 on usage or I/O errors.\n";

struct progress {
	bool on;
	uint64_t base, total, events;
	struct timespec start, last;
	const struct dc_report *r;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_show(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	struct timespec now;
	double frac, el;
	int fill;

	if (!p->on)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&p->last, &now) < 0.1 && done < total)
		return;
	p->last = now;
	el = since(&p->start, &now);
	frac = p->total ? (double)(p->base + done) / (double)p->total : 1;
	if (frac > 1)
		frac = 1;
	fill = (int)(frac * 30);
	fprintf(stderr, "\r[%.*s%*s] %3.0f%% %.1fM events, %.2fM/s ", fill,
		"##############################", 30 - fill, "", frac * 100,
		(p->r->events + p->r->counters) / 1e6,
		el > 0 ? (p->r->events + p->r->counters) / el / 1e6 : 0.0);
}

struct prog_ctx {
	struct dc_report *r;
	struct progress *p;
};

static int line_cb(void *ctx, const struct dc_line *l)
{
	return dc_report_line(((struct prog_ctx *)ctx)->r, l->lineno, l->status,
			      &l->ev);
}

static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	progress_show(((struct prog_ctx *)ctx)->p, done, total);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "folded", no_argument, NULL, 'F' },
		{ "darshan", no_argument, NULL, 'd' },
		{ "summary", no_argument, NULL, 'S' },
		{ "flamegraph", required_argument, NULL, 'g' },
		{ "html", required_argument, NULL, 'H' },
		{ "file", required_argument, NULL, 'f' },
		{ "top", required_argument, NULL, 'n' },
		{ "threads", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "templates", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	const char *flame = NULL, *html = NULL, *tmpl = NULL;
	bool json = false, folded = false, quiet = false, darshan = false,
	     summary = false;
	struct dc_darshan dsh;
	struct dc_read_opts ro = {};
	struct progress prog = {};
	struct prog_ctx pc;
	struct dc_report r;
	unsigned problems = 0;
	int top = 10, c, ret = 2, err;

	dc_log_init(argv[0]);
	dc_report_init(&r);
	dc_darshan_init(&dsh);
	while ((c = getopt_long(argc, argv, "jFdSg:H:f:n:t:qT:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'F': folded = true; break;
		case 'd': darshan = true; break;
		case 'S': summary = true; break;
		case 'g': flame = optarg; break;
		case 'H': html = optarg; break;
		case 'f': r.file_pattern = optarg; break;
		case 'n': top = atoi(optarg); break;
		case 't': ro.threads = atoi(optarg); break;
		case 'q': quiet = true; break;
		case 'T': tmpl = optarg; break;
		case 'V':
			dc_version();
			ret = 0;
			goto cleanup;
		case 'h':
			fputs(usage, stdout);
			ret = 0;
			goto cleanup;
		default: fputs(usage, stderr); goto cleanup;
		}
	}
	if (optind >= argc || (json && folded) ||
	    ((darshan || summary) && folded) || (summary && json) || top < 1) {
		fputs(usage, stderr);
		goto cleanup;
	}
	prog.on = !quiet && isatty(STDERR_FILENO);
	for (int i = optind; i < argc; i++) {
		struct stat sb;

		if (!stat(argv[i], &sb))
			prog.total += sb.st_size;
	}
	/* Small inputs finish before a bar would be read. */
	prog.on = prog.on && prog.total >= (16u << 20);
	prog.r = &r;
	r.darshan = darshan || summary ? &dsh : NULL;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	pc = (struct prog_ctx){ &r, &prog };
	ro.line = line_cb;
	ro.progress = progress_cb;
	ro.ctx = &pc;
	for (int i = optind; i < argc; i++) {
		struct dc_read_stats st;
		struct stat sb;

		r.trace = argv[i];
		if (!stat(argv[i], &sb) && S_ISDIR(sb.st_mode)) {
			dc_err("%s: a directory, not a trace (give its files: "
			       "%s/*.pfw.gz)",
			       argv[i], argv[i]);
			goto cleanup;
		}
		err = dc_trace_read(argv[i], &ro, &st);
		if (err) {
			dc_err("%s: %s", argv[i], strerror(-err));
			goto cleanup;
		}
		dc_report_trace_done(&r);
		if (!st.lines) {
			dc_err("%s: empty: not a trace", argv[i]);
			r.empty_traces++;
			problems++;
		}
		r.bad_members += st.bad_members;
		r.bytes_skipped += st.bytes_skipped;
		problems += st.problems;
		prog.base += st.bytes_in;
	}
	if (prog.on)
		fputs("\r\033[K", stderr);
	dc_report_finish(&r);
	problems += r.bad_lines + r.unknown_hashes;
	err = r.darshan ? dc_darshan_finish(&dsh, &r) : 0;
	if (err)
		dc_err("computing Darshan's counters: %s", strerror(-err));
	else if (darshan && !json)
		err = dc_darshan_text(&dsh, &r, stdout);
	else if (json)
		err = dc_json_report(&r, stdout);
	else if (folded)
		err = dc_folded_report(&r, stdout);
	else
		err = dc_text_report(&r, stdout, top);
	if (!err && summary)
		err = dc_darshan_summary_text(&dsh, stdout);
	if (err) {
		dc_err("writing the report failed: %s", strerror(-err));
		goto cleanup;
	}
	if (flame) {
		struct dc_buf b = {};

		err = dc_flame_svg(&r, &b, 1200);
		if (!err)
			err = dc_write_atomic(flame, b.p, b.len);
		dc_buf_free(&b);
		if (err) {
			dc_err("%s: %s", flame, strerror(-err));
			goto cleanup;
		}
	}
	if (html && (err = dc_html_report(
			 &r, dc_template_dir(tmpl, "report.html"), html))) {
		dc_err("%s: %s", html, strerror(-err));
		goto cleanup;
	}
	ret = problems ? 1 : 0;
cleanup:
	if (fflush(stdout) && !ret)
		ret = 2;
	dc_report_free(&r);
	dc_darshan_free(&dsh);
	return ret;
}
