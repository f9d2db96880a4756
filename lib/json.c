// SPDX-License-Identifier: MIT
#include <errno.h>

#include "json.h"
#include "utf8.h"

int dc_json_str(struct dc_buf *b, const char *str, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, run = 0, len;

	if (dc_buf_reserve(b, n + 2))
		return -ENOMEM;
	b->p[b->len++] = '"';
	while (i < n) {
		unsigned char c = s[i];

		if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
			i++;
			run++;
			continue;
		}
		if (run && dc_buf_add(b, s + i - run, run))
			return -ENOMEM;
		run = 0;
		if (c == '"' || c == '\\') {
			char esc[2] = { '\\', c };

			if (dc_buf_add(b, esc, 2))
				return -ENOMEM;
			i++;
		} else if (c < 0x20) {
			char esc[6] = { '\\', 'u',	   '0',
					'0',  hex[c >> 4], hex[c & 15] };

			if (dc_buf_add(b, esc, 6))
				return -ENOMEM;
			i++;
		} else if ((len = dc_utf8_len(s + i, n - i))) {
			if (dc_buf_add(b, s + i, len))
				return -ENOMEM;
			i += len;
		} else {
			if (dc_buf_add(b, "\xef\xbf\xbd", 3))
				return -ENOMEM;
			i++;
		}
	}
	if (run && dc_buf_add(b, s + n - run, run))
		return -ENOMEM;
	return dc_buf_add(b, "\"", 1);
}
