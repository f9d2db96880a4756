/* SPDX-License-Identifier: MIT */
#ifndef DC_TEMPLATE_H
#define DC_TEMPLATE_H

#include <stddef.h>

#include "buf.h"

/*
 * The one template language of templates/: @NAME@, NAME being
 * [A-Z][A-Z0-9_]*, is replaced by its value; any other '@' is text (a CSS
 * @media, an address). Values are not scanned again.
 */
struct dc_tmpl {
	char *path; /* named in messages */
	char *text;
};

/* Read template @name from directory @dir: 0 or -errno, said on stderr. */
int dc_tmpl_read(struct dc_tmpl *t, const char *dir, const char *name);
void dc_tmpl_free(struct dc_tmpl *t);

/* Append the value of placeholder @name (@len bytes, not NUL-terminated)
 * to @out: 0, 1 if @name is not one the caller knows, or -errno. */
typedef int (*dc_tmpl_fill_fn)(void *ctx, const char *name, size_t len,
			       struct dc_buf *out);

/* Append @t to @out with each placeholder filled by @fill. An unknown
 * placeholder is an error (-EINVAL), naming it and @t's file on stderr. */
int dc_tmpl_fill(struct dc_buf *out, const struct dc_tmpl *t,
		 dc_tmpl_fill_fn fill, void *ctx);

/* The same with the values in @kv: NAME, value, ..., NULL. */
int dc_tmpl_expand(struct dc_buf *out, const struct dc_tmpl *t,
		   const char *const *kv);

#endif
