// SPDX-License-Identifier: MIT
/* Paths made absolute and lexically clean, in one pass, into the
 * caller's buffer: no formatting and no heap for each call's path. */
#include <errno.h>
#include <string.h>

#include "paths.h"

/* Append the components of @s to the clean absolute path out[0..*len). */
static int append(char *out, size_t size, size_t *len, const char *s)
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
			if (*len + 1 + n >= size)
				return -ENAMETOOLONG;
			out[(*len)++] = '/';
			memcpy(out + *len, s, n);
			*len += n;
		}
		s = *c ? c + 1 : c;
	}
	return 0;
}

int dc_path_join(char *out, size_t size, const char *base, const char *path)
{
	size_t len = 0;
	int err;

	if (size < 2)
		return -ENAMETOOLONG;
	err = append(out, size, &len, base);
	if (!err)
		err = append(out, size, &len, path);
	if (err)
		return err;
	if (!len)
		out[len++] = '/';
	out[len] = '\0';
	return 0;
}
