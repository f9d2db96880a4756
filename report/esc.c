// SPDX-License-Identifier: MIT
/* Strings from a trace, made safe for where they are written: a line of
 * a terminal's text, or HTML and SVG (the flame graph is an XML file).
 * A trace is input like any other: its names may hold markup, escape
 * sequences or bytes that are not UTF-8. */
#include <stdio.h>
#include <string.h>

#include "report.h"
#include "utf8.h"

/* Whether the byte at @s, a sequence of @len (0: not UTF-8), would
 * drive a terminal: C0 controls, DEL, C1 controls (U+0080-U+009F, such
 * as U+009B, CSI) and lone bytes, which a terminal in an 8-bit mode
 * reads as C1. */
static bool term_ctl(const unsigned char *s, size_t len)
{
	if (!len)
		return true;
	if (len == 1)
		return s[0] < 0x20 || s[0] == 0x7f;
	return len == 2 && s[0] == 0xc2 && s[1] < 0xa0;
}

const char *dc_fmt_name(const char *s, char *b, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t left = strlen(s), len = 0, k;

	for (k = 0; k < left;) {
		size_t l = dc_utf8_len(p + k, left - k);

		if (term_ctl(p + k, l))
			break;
		k += l;
	}
	if (k == left)
		return s;
	while (left) {
		size_t l = dc_utf8_len(p, left);

		if (term_ctl(p, l)) {
			/* Each byte of it as \xNN. */
			l = l ? l : 1;
			if (len + 4 * l >= n)
				break;
			for (size_t i = 0; i < l; i++)
				len +=
				    snprintf(b + len, n - len, "\\x%02x", p[i]);
		} else {
			if (len + l >= n)
				break;
			memcpy(b + len, p, l);
			len += l;
		}
		p += l;
		left -= l;
	}
	b[len] = '\0';
	return b;
}

void dc_html_escn(struct dc_buf *b, const char *s, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	if (n > max)
		n = max;
	while (i < n) {
		size_t l = dc_utf8_len(p + i, n - i);

		/* A sequence cut by @max is left out whole. */
		if (!l && dc_utf8_len(p + i, strlen(s + i)))
			break;
		switch (l ? p[i] : 0) {
		case '<': dc_buf_adds(b, "&lt;"); break;
		case '>': dc_buf_adds(b, "&gt;"); break;
		case '&': dc_buf_adds(b, "&amp;"); break;
		case '"': dc_buf_adds(b, "&quot;"); break;
		case '\'': dc_buf_adds(b, "&#39;"); break;
		case '\t':
		case '\n':
		case '\r': dc_buf_add(b, p + i, 1); break;
		default:
			/* Not UTF-8, or a control XML forbids even as a
			 * reference: U+FFFD, so the SVG stays well formed. */
			if (!l || p[i] < 0x20)
				dc_buf_adds(b, "\xef\xbf\xbd");
			else
				dc_buf_add(b, p + i, l);
		}
		i += l ? l : 1;
	}
}

void dc_html_esc(struct dc_buf *b, const char *s)
{
	dc_html_escn(b, s, SIZE_MAX);
}
