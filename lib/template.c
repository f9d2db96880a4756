// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileio.h"
#include "log.h"
#include "template.h"

int dc_tmpl_read(struct dc_tmpl *t, const char *dir, const char *name)
{
	int err;

	*t = (struct dc_tmpl){};
	if (asprintf(&t->path, "%s/%s", dir, name) < 0) {
		t->path = NULL;
		return -ENOMEM;
	}
	err = dc_read_file(t->path, &t->text, NULL);
	if (err) {
		dc_err("cannot read template %s: %s", t->path, strerror(-err));
		dc_tmpl_free(t);
	}
	return err;
}

void dc_tmpl_free(struct dc_tmpl *t)
{
	free(t->path);
	free(t->text);
	*t = (struct dc_tmpl){};
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

/* The length of the NAME of a placeholder "@NAME@" at @at, or 0. */
static size_t name_len(const char *at)
{
	size_t n = 1;

	if (!is_upper(at[1]))
		return 0;
	while (is_upper(at[n]) || (at[n] >= '0' && at[n] <= '9') ||
	       at[n] == '_')
		n++;
	return at[n] == '@' ? n - 1 : 0;
}

static int line_of(const char *text, const char *at)
{
	int line = 1;

	for (; text < at; text++)
		line += *text == '\n';
	return line;
}

int dc_tmpl_fill(struct dc_buf *out, const struct dc_tmpl *t,
		 dc_tmpl_fill_fn fill, void *ctx)
{
	const char *p = t->text, *at;

	for (at = strchr(p, '@'); at; at = strchr(at + 1, '@')) {
		size_t n = name_len(at);
		int err;

		if (!n)
			continue;
		if (dc_buf_add(out, p, at - p))
			return -ENOMEM;
		err = fill(ctx, at + 1, n, out);
		if (err > 0) {
			dc_err("%s:%d: unknown placeholder @%.*s@", t->path,
			       line_of(t->text, at), (int)n, at + 1);
			return -EINVAL;
		}
		if (err)
			return err;
		at += n + 1;
		p = at + 1;
	}
	return dc_buf_adds(out, p);
}

static int fill_kv(void *ctx, const char *name, size_t len, struct dc_buf *out)
{
	for (const char *const *k = ctx; *k; k += 2)
		if (strlen(k[0]) == len && !memcmp(k[0], name, len))
			return dc_buf_adds(out, k[1]) ? -ENOMEM : 0;
	return 1;
}

int dc_tmpl_expand(struct dc_buf *out, const struct dc_tmpl *t,
		   const char *const *kv)
{
	return dc_tmpl_fill(out, t, fill_kv, (void *)kv);
}
