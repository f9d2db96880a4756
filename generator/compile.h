/* SPDX-License-Identifier: MIT */
#ifndef DC_COMPILE_H
#define DC_COMPILE_H

struct dc_clang {
	const char *path;
	int major;
};

/* The clang to build BPF with: $CLANG, else the newest clang >= 16 on PATH.
 * Returns 0, or -ENOENT (message printed) if there is none. */
int dc_find_clang(struct dc_clang *c);

/*
 * Compile the C file @src into the BPF object @obj with @clang, against
 * the templates in @tmpl_dir and the ABI headers in @inc_dir. clang's
 * diagnostics go to stderr. @obj appears only if compilation succeeded.
 * Returns 0 or -errno (-EINVAL when clang reported errors).
 */
int dc_compile(const struct dc_clang *clang, const char *src, const char *obj,
	       const char *tmpl_dir, const char *inc_dir);

#endif
