// SPDX-License-Identifier: MIT
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "datacrumbs/report.h"
#include "fileio.h"
#include "log.h"

static const char usage[] =
    "Usage: datacrumbs-report [OPTIONS] TRACE...\n"
    "Summarize DFTracer traces (.pfw, .pfw.gz; ours or DFTracer's own).\n"
    "\n"
    "  -j, --json              the summary as JSON (docs/report.md)\n"
    "  -F, --folded            folded call stacks weighted by time (us)\n"
    "  -d, --darshan           Darshan's counters (POSIX, STDIO, MPI-IO, H5F,\n"
    "                          H5D) per file and process, as darshan-parser\n"
    "                          prints them\n"
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
	uint64_t base, total;
	struct timespec start, last;
	const struct dcr_report *r;
};

static double since(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) + (b->tv_nsec - a->tv_nsec) / 1e9;
}

static void progress_show(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	struct timespec now;
	double frac, el, events;
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
	events = (double)dcr_report_events(p->r);
	fprintf(stderr, "\r[%.*s%*s] %3.0f%% %.1fM events, %.2fM/s ", fill,
		"##############################", 30 - fill, "", frac * 100,
		events / 1e6, el > 0 ? events / el / 1e6 : 0.0);
}

/* Write @fmt of @r to stdout. */
static int print(const struct dcr_report *r, enum dcr_format fmt, int top)
{
	char *text;
	size_t len;
	int err;

	err = dcr_report_render(r, fmt, top, &text, &len);
	if (err)
		return err;
	if (fwrite(text, 1, len, stdout) != len)
		err = -EIO;
	dcr_free(text);
	return err;
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
	const char *flame = NULL, *html = NULL, *tmpl = NULL, *pattern = NULL;
	bool json = false, folded = false, quiet = false, darshan = false,
	     summary = false;
	struct progress prog = {};
	struct dcr_report *r = NULL;
	int top = 10, threads = 0, c, ret = 2, err;
	enum dcr_format fmt;

	dc_log_init(argv[0]);
	dcr_set_prog(argv[0]);
	while ((c = getopt_long(argc, argv, "jFdSg:H:f:n:t:qT:h", longopts,
				NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'F': folded = true; break;
		case 'd': darshan = true; break;
		case 'S': summary = true; break;
		case 'g': flame = optarg; break;
		case 'H': html = optarg; break;
		case 'f': pattern = optarg; break;
		case 'n': top = atoi(optarg); break;
		case 't': threads = atoi(optarg); break;
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
	err = dcr_report_new(&r);
	if (!err)
		err = dcr_report_set_file(r, pattern);
	if (!err)
		err = dcr_report_set_darshan(r, darshan || summary);
	if (!err)
		err = dcr_report_set_threads(r, threads > 0 ? threads : 0);
	if (!err)
		err = dcr_report_set_progress(r, progress_show, &prog);
	if (err) {
		dc_err("%s", strerror(-err));
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
	prog.r = r;
	clock_gettime(CLOCK_MONOTONIC, &prog.start);
	for (int i = optind; i < argc; i++) {
		struct stat sb;

		err = dcr_report_add(r, argv[i]);
		if (err == -EISDIR) {
			dc_err("%s: a directory, not a trace (give its files: "
			       "%s/*.pfw.gz)",
			       argv[i], argv[i]);
			goto cleanup;
		}
		if (err) {
			dc_err("%s: %s", argv[i], strerror(-err));
			goto cleanup;
		}
		if (!stat(argv[i], &sb))
			prog.base += sb.st_size;
	}
	if (prog.on)
		fputs("\r\033[K", stderr);
	err = dcr_report_finish(r);
	if (err) {
		dc_err("computing Darshan's counters: %s", strerror(-err));
		goto cleanup;
	}
	fmt = darshan && !json ? DCR_DARSHAN
	      : json	       ? DCR_JSON
	      : folded	       ? DCR_FOLDED
			       : DCR_TEXT;
	err = print(r, fmt, top);
	if (!err && summary)
		err = print(r, DCR_SUMMARY, 0);
	if (err) {
		dc_err("writing the report failed: %s", strerror(-err));
		goto cleanup;
	}
	if (flame) {
		char *svg;
		size_t len;

		err = dcr_report_render(r, DCR_FLAME, 1200, &svg, &len);
		if (!err) {
			err = dc_write_atomic(flame, svg, len);
			dcr_free(svg);
		}
		if (err) {
			dc_err("%s: %s", flame, strerror(-err));
			goto cleanup;
		}
	}
	if (html && (err = dcr_report_html(r, tmpl, html))) {
		dc_err("%s: %s", html, strerror(-err));
		goto cleanup;
	}
	ret = dcr_report_problems(r) ? 1 : 0;
cleanup:
	if (fflush(stdout) && !ret)
		ret = 2;
	dcr_report_free(r);
	return ret;
}
