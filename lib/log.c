// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>
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

static void vlog(const char *level, const char *fmt, va_list ap)
{
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
