// SPDX-License-Identifier: MIT
#include <stdio.h>

#include "report.h"

const char *dc_fmt_time(double us, char *b)
{
	if (us < 1000)
		snprintf(b, 16, "%.0f us", us);
	else if (us < 1e6)
		snprintf(b, 16, "%.2f ms", us / 1e3);
	else
		snprintf(b, 16, "%.3f s", us / 1e6);
	return b;
}

const char *dc_fmt_bytes(double v, char *b)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	snprintf(b, 16, i ? "%.1f %s" : "%.0f %s", v, u[i]);
	return b;
}

const char *dc_fmt_fname(const struct dc_map *fnames, uint64_t hash, char *buf,
			 size_t n)
{
	const char *name = dc_map_get(fnames, hash ? hash : 1);

	if (name)
		return name;
	snprintf(buf, n, "<fhash %016llx>", (unsigned long long)hash);
	return buf;
}
