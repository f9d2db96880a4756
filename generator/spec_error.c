// SPDX-License-Identifier: MIT
/* The spec reader's error printer (spec_pass.h), which every file of it
 * calls. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "spec.h"
#include "spec_pass.h"

void spec_error(struct dc_spec *spec, const struct dc_loc *loc, const char *fmt,
		...)
{
	va_list ap;

	/* The first ones tell what is wrong; the count says the rest. */
	if (spec->nerrors++ >= DC_SPEC_MAX_ERRORS)
		return;
	fprintf(stderr, "%s:%d:%d: error: ", loc->file, loc->line, loc->col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void target_error(struct dc_spec *spec, const struct dc_spec_group *g, int err,
		  const char *noexec)
{
	spec_error(spec, &g->target_loc, "target '%s' (%s): %s", g->target,
		   g->path, err == -ENOEXEC ? noexec : strerror(-err));
}
