// SPDX-License-Identifier: MIT
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "config.h"
#include "tmpldir.h"

const char *dc_template_dir(const char *opt, const char *marker)
{
	static const char *const dirs[] = { DC_SOURCE_TEMPLATE_DIR,
					    DC_INSTALL_TEMPLATE_DIR };
	char p[PATH_MAX];

	if (opt)
		return opt;
	if (getenv("DATACRUMBS_TEMPLATES"))
		return getenv("DATACRUMBS_TEMPLATES");
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dirs[i], marker);
		if (!access(p, R_OK))
			return dirs[i];
	}
	return DC_INSTALL_TEMPLATE_DIR;
}
