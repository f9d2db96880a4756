// SPDX-License-Identifier: MIT
/* Paths made absolute and lexically clean in one pass, into a buffer the
 * caller keeps: no formatting and, once it has grown, no heap for each
 * call's path. */
#include <errno.h>
#include <string.h>

#include "paths.h"

/* Append the components of @s to the clean absolute path out[0..*len);
 * the room for them is reserved. */
static void append(char *out, size_t *len, const char *s)
{
	while (*s) {
		const char *c = s;
		size_t n;

		while (*c && *c != '/')
			c++;
		n = c - s;
		if (n == 2 && s[0] == '.' && s[1] == '.') {
			while (*len && out[--*len] != '/')
				;
		} else if (n && !(n == 1 && s[0] == '.')) {
			out[(*len)++] = '/';
			memcpy(out + *len, s, n);
			*len += n;
		}
		s = *c ? c + 1 : c;
	}
}

int dc_path_join(struct dc_buf *out, const char *base, const char *path)
{
	size_t len = 0;

	/* Each kept component costs its bytes and one '/': no more than
	 * the two strings, a '/' before each and the NUL. */
	out->len = 0;
	if (dc_buf_reserve(out, strlen(base) + strlen(path) + 3))
		return -ENOMEM;
	append(out->p, &len, base);
	append(out->p, &len, path);
	if (!len)
		out->p[len++] = '/';
	out->p[len] = '\0';
	out->len = len;
	return 0;
}
