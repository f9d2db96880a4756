// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"

static const char *prog_name = "datacrumbs";

void dc_log_init(const char *prog)
{
	const char *slash = strrchr(prog, '/');

	prog_name = slash ? slash + 1 : prog;
}

const char *dc_prog(void)
{
	return prog_name;
}

void dc_version(void)
{
	printf("%s %s\n", prog_name, DC_VERSION);
}

static void (*sink)(void *ctx, const char *msg);
static void *sink_ctx;

void dc_log_sink(void (*fn)(void *ctx, const char *msg), void *ctx)
{
	sink = fn;
	sink_ctx = ctx;
}

static void vlog(const char *level, const char *fmt, va_list ap)
{
	char *msg;

	if (sink) {
		va_list aq;
		int n;

		va_copy(aq, ap);
		n = vasprintf(&msg, fmt, aq);
		va_end(aq);
		/* Out of memory: the message goes to stderr after all. */
		if (n >= 0) {
			sink(sink_ctx, msg);
			free(msg);
			return;
		}
	}
	fprintf(stderr, "%s: %s", prog_name, level);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void dc_err(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("error: ", fmt, ap);
	va_end(ap);
}

void dc_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void dc_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}
