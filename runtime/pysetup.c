// SPDX-License-Identifier: MIT
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "pysetup.h"

/* CPython fires function__entry only while a profile function is set
 * (CPython issue 98894); the sitecustomize sets one. */
static bool wants_python(const struct dc_session *sess)
{
	for (size_t i = 0; i < sess->nprobes; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		if (d->mech == DC_MECH_USDT && !sess->probes[i].disabled &&
		    !strcmp(d->symbol, "python:function__entry"))
			return true;
	}
	return false;
}

/* The checkout's directory when run from the build, else the installed
 * one: as the templates are found (lib/tmpldir.c). */
static const char *site_dir(void)
{
	static const char *const dirs[] = { DC_SOURCE_PROBES_DIR "/python",
					    DC_INSTALL_PROBES_DIR "/python" };
	char p[PATH_MAX];

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(p, sizeof(p), "%s/sitecustomize.py", dirs[i]);
		if (!access(p, R_OK))
			return dirs[i];
	}
	return NULL;
}

static bool trusted(const struct stat *st, uid_t runs_as)
{
	return (st->st_uid == 0 || st->st_uid == runs_as) &&
	       !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* @dir (a real path) and its sitecustomize.py, and each directory above,
 * are trusted. 0, or -EPERM naming the first that is not. */
static int check_owners(const char *dir, uid_t runs_as, char *bad, size_t size)
{
	char p[PATH_MAX];
	struct stat st;
	char *slash;

	if (snprintf(p, sizeof(p), "%s/sitecustomize.py", dir) >=
	    (int)sizeof(p))
		return -ENAMETOOLONG;
	if (lstat(p, &st) || !S_ISREG(st.st_mode) || !trusted(&st, runs_as))
		goto untrusted;
	snprintf(p, sizeof(p), "%s", dir);
	for (;;) {
		if (lstat(p, &st) || !trusted(&st, runs_as))
			goto untrusted;
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	return 0;
untrusted:
	snprintf(bad, size, "%s", p);
	return -EPERM;
}

int dc_python_env(const struct dc_session *sess, uid_t runs_as, char **env)
{
	const char *old = getenv("PYTHONPATH"), *dir;
	char real[PATH_MAX], bad[PATH_MAX];
	size_t n;
	int err;

	*env = NULL;
	if (!wants_python(sess))
		return 0;
	dir = site_dir();
	if (!dir || !realpath(dir, real)) {
		dc_warn(
		    "Python functions: no probes.d/python/sitecustomize.py "
		    "(looked in %s and %s); CPython 3.11 calls will be seen "
		    "as returns only",
		    DC_SOURCE_PROBES_DIR, DC_INSTALL_PROBES_DIR);
		return -ENOENT;
	}
	if ((err = check_owners(real, runs_as, bad, sizeof(bad))) == -EPERM) {
		dc_warn(
		    "Python functions: not putting %s on PYTHONPATH: %s is "
		    "owned by someone other than root or uid %u, or others "
		    "may write it; CPython 3.11 calls will be seen as returns "
		    "only",
		    real, bad, (unsigned)runs_as);
		return err;
	}
	if (err) {
		dc_warn("Python functions: %s: %s", real, strerror(-err));
		return err;
	}
	n = strlen(real);
	if (old && !strncmp(old, real, n) && (!old[n] || old[n] == ':'))
		return 0;
	if (asprintf(env, "PYTHONPATH=%s%s%s", real, old && *old ? ":" : "",
		     old ? old : "") < 0) {
		*env = NULL;
		return -ENOMEM;
	}
	return 0;
}
