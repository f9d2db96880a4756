// SPDX-License-Identifier: MIT
/*
 * Which files a uprobe target is probed at: every copy of its library
 * the traced programs may load (COMMAND's, an argument's, one in
 * LD_LIBRARY_PATH, the generator's), each inode once.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "copies.h"
#include "libpath.h"
#include "log.h"

/* COMMAND's arguments looked at for executables. */
#define DC_ARGS_SCANNED 64

int dc_probe_binary(const struct dc_probe_info *d, char *path, size_t size)
{
	if (d->path[0] && !faccessat(AT_FDCWD, d->path, R_OK, AT_EACCESS)) {
		snprintf(path, size, "%s", d->path);
		return 0;
	}
	return dc_resolve_library(d->target, path, size);
}

static void add_copy(struct dc_copies *c, const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return;
	for (size_t i = 0; i < c->n; i++)
		if (c->st[i].st_dev == st.st_dev &&
		    c->st[i].st_ino == st.st_ino)
			return;
	if (c->n == DC_COPIES_MAX) {
		dc_warn("%s: more than %d copies of one library; not traced",
			path, DC_COPIES_MAX);
		return;
	}
	snprintf(c->path[c->n], sizeof(c->path[0]), "%s", path);
	c->st[c->n++] = st;
}

static int add_copy_of(const char *path, void *c)
{
	add_copy(c, path);
	return 0;
}

/*
 * Where @d's library is: each copy the traced programs map at start
 * (COMMAND's libraries, and those of each executable among its
 * arguments, as for "mpirun ./app") whose soname matches the target's
 * file name or whose file is named as the generator's; each in a
 * directory of LD_LIBRARY_PATH; and the file the object was made for.
 * A module's or Spack's build is probed as Debian's is.
 */
void dc_find_copies(const struct dc_needed_set *needed,
		    const struct dc_probe_info *d, struct dc_copies *c)
{
	const char *t = strrchr(d->target, '/'), *f = strrchr(d->path, '/');
	char path[DC_TARGET_MAX];

	t = t ? t + 1 : d->target;
	c->n = 0;
	for (size_t i = 0; i < needed->n; i++) {
		const char *p = strrchr(needed->v[i].path, '/') + 1;

		if (dc_lib_matches(t, needed->v[i].name) ||
		    (f && !strcmp(f + 1, p)))
			add_copy(c, needed->v[i].path);
	}
	/* What a child of COMMAND or a dlopen() may find there. */
	dc_lib_glob(getenv("LD_LIBRARY_PATH"), t, add_copy_of, c);
	if (!dc_probe_binary(d, path, sizeof(path)))
		add_copy(c, path);
}

/* The libraries COMMAND maps at start, and those of each ELF executable
 * among its arguments (the program of "mpirun -n 4 ./app"). */
void dc_needed_by_command(const struct dc_session *sess,
			  struct dc_needed_set *s)
{
	char *const *argv = sess->opt.argv;
	int err;

	for (size_t i = 0; argv && argv[i] && i < DC_ARGS_SCANNED; i++) {
		const char *exe = i ? argv[i] : sess->opt.command;

		/* A script, an option, a data file: not ELF, nothing. */
		if (!exe || access(exe, X_OK))
			continue;
		err = dc_needed_add(exe, s);
		if (err && err != -ENOEXEC && err != -ENOENT && err != -EACCES)
			dc_warn("%s: cannot read the libraries it loads: %s",
				exe, strerror(-err));
	}
}
