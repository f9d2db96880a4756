// SPDX-License-Identifier: MIT
#include <errno.h>

#include "json.h"

/* Length of the valid UTF-8 sequence at @s, or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len, i;
	unsigned int cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

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
		} else if ((len = utf8_len(s + i, n - i))) {
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
