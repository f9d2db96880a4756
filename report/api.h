/* SPDX-License-Identifier: MIT */
#ifndef DC_REPORT_API_H
#define DC_REPORT_API_H

/* What a struct dcr_report of include/datacrumbs/report.h holds: lib.c
 * reads into it, save.c serialises it, merge.c merges two. */
#include "darshan.h"
#include "datacrumbs/report.h"
#include "report.h"
#include "traceread.h"

struct dcr_report {
	struct dc_report r;
	struct dc_darshan dsh;
	bool darshan; /* dsh is kept */
	struct dc_read_opts ro;
	char *pattern;
	/* The paths added: files and messages name them to the end. */
	char **paths;
	size_t npaths;
	uint64_t problems;
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	int added, finished;
};

/* Keep @path (a copy) among the report's paths: the copy, or NULL. */
const char *dcr_keep_path(struct dcr_report *d, const char *path);

#endif
