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

const char *dc_fmt_name(const char *s, char *b, size_t n)
{
	size_t len = 0;
	const char *p;

	for (p = s; *p && (unsigned char)*p >= 0x20 && *p != 0x7f; p++)
		;
	if (!*p)
		return s;
	for (p = s; *p && len + 5 < n; p++) {
		unsigned char ch = *p;

		if (ch < 0x20 || ch == 0x7f)
			len += snprintf(b + len, n - len, "\\x%02x", ch);
		else
			b[len++] = ch;
	}
	b[len] = '\0';
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
