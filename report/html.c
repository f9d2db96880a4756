// SPDX-License-Identifier: MIT
#include <errno.h>

#include "report.h"

int dc_html_report(const struct dc_report *r, const char *tmpl_dir,
		   const char *path)
{
	(void)r;
	(void)tmpl_dir;
	(void)path;
	return -ENOTSUP;
}
