// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compile.h"
#include "config.h"
#include "log.h"
#include "subproc.h"

static int clang_major(const char *clang)
{
	char line[256];
	char *const argv[] = { (char *)clang, "--version", NULL };
	const char *v;

	if (dc_spawn(argv, line, sizeof(line)))
		return -1;
	v = strstr(line, "version ");
	return v ? atoi(v + 8) : -1;
}

int dc_find_clang(struct dc_clang *c)
{
	static const char *const names[] = { "clang-19", "clang-18", "clang-17",
					     "clang-16", "clang" };
	const char *env = getenv("CLANG");

	if (env && *env) {
		c->major = clang_major(env);
		if (c->major < 16) {
			dc_err("CLANG=%s is not clang 16 or newer", env);
			return -ENOENT;
		}
		c->path = env;
		return 0;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		/* clang-N is LLVM's own name for version N: asking it costs
		 * a tenth of a second of loading clang. */
		char path[PATH_MAX];

		if (strncmp(names[i], "clang-", 6))
			c->major = clang_major(names[i]);
		else
			c->major = dc_which(names[i], path, sizeof(path))
				       ? -1
				       : atoi(names[i] + 6);
		if (c->major >= 16) {
			c->path = names[i];
			return 0;
		}
	}
	dc_err("no clang 16 or newer found (install clang-19, or set CLANG)");
	return -ENOENT;
}

int dc_compile(const struct dc_clang *clang, const char *src, const char *obj,
	       const char *tmpl_dir, const char *inc_dir)
{
	char dir[PATH_MAX], tmp[PATH_MAX], itmpl[PATH_MAX + 2];
	char iinc[PATH_MAX + 2];
	char *argv[24] = { (char *)clang->path,
			   "-target",
			   "bpf",
			   "-O2",
			   "-g",
			   "-D__TARGET_ARCH_" DC_BPF_ARCH,
			   "-Wall",
			   "-Werror",
			   "-Wno-unused-function",
			   itmpl,
			   iinc,
			   "-c",
			   (char *)src,
			   "-o",
			   tmp };
	size_t n = 15;
	int err;

	/* BTF needs the types of -g, not where each variable lives: clang 17
	 * and later track that by default, a third of the compile. */
	if (clang->major >= 17) {
		argv[n++] = "-Xclang";
		argv[n++] = "-fexperimental-assignment-tracking=disabled";
	}
	/* Debian keeps asm/ per architecture. */
	if (DC_MULTIARCH[0])
		argv[n++] = "-I/usr/include/" DC_MULTIARCH;
	/* clang follows links where it writes: it writes into a directory
	 * of our own, made beside @obj so the rename() is atomic. */
	if (strlen(obj) + sizeof(".XXXXXX/obj.o") > sizeof(tmp))
		return -ENAMETOOLONG;
	snprintf(dir, sizeof(dir), "%s.XXXXXX", obj);
	if (!mkdtemp(dir)) {
		err = -errno;
		dc_err("cannot create %s: %s", obj, strerror(errno));
		return err;
	}
	if (snprintf(tmp, sizeof(tmp), "%s/obj.o", dir) >= (int)sizeof(tmp))
		abort(); /* measured above */
	snprintf(itmpl, sizeof(itmpl), "-I%s", tmpl_dir);
	snprintf(iinc, sizeof(iinc), "-I%s", inc_dir);
	err = dc_spawn(argv, NULL, 0);
	if (err) {
		if (err == -EINVAL)
			dc_err("%s failed to compile %s (diagnostics above)",
			       clang->path, src);
		else
			dc_err("cannot run %s: %s", clang->path,
			       strerror(-err));
		goto cleanup;
	}
	if (rename(tmp, obj)) {
		err = -errno;
		dc_err("cannot create %s: %s", obj, strerror(errno));
	}
cleanup:
	unlink(tmp);
	rmdir(dir);
	return err;
}
