// SPDX-License-Identifier: MIT
#include <errno.h>
#include <mntent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "buf.h"
#include "json.h"
#include "mounts.h"

struct mount {
	char *dir, *type;
	long bsize; /* 0: statfs failed (the report takes Darshan's default) */
};

static void free_mounts(struct mount *m, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(m[i].dir);
		free(m[i].type);
	}
	free(m);
}

/* The mount table, in its order: 0 or -errno. */
static int read_mounts(struct mount **out, size_t *nout)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mount *m = NULL;
	struct mntent *e;
	size_t n = 0;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && (e = getmntent(f))) {
		/* A FUSE file system answers statfs from a user's daemon,
		 * which may never answer a root runtime: not asked. */
		bool ask = strncmp(e->mnt_type, "fuse", 4) != 0;
		struct statfs st;

		if (dc_grow((void **)&m, n, sizeof(*m), 32)) {
			err = -ENOMEM;
			break;
		}
		m[n].dir = strdup(e->mnt_dir);
		m[n].type = strdup(e->mnt_type);
		m[n].bsize = ask && !statfs(e->mnt_dir, &st) ? st.f_bsize : 0;
		if (!m[n].dir || !m[n].type)
			err = -ENOMEM;
		n++;
	}
	endmntent(f);
	if (err) {
		free_mounts(m, n);
		return err;
	}
	*out = m;
	*nout = n;
	return 0;
}

char *dc_mounts_json(void)
{
	struct dc_buf b = {};
	struct mount *m = NULL;
	bool first = true;
	size_t n = 0;
	int err;

	err = read_mounts(&m, &n) ?: dc_buf_adds(&b, "\"mounts\":{");
	for (size_t i = 0; !err && i < n; i++) {
		bool hidden = false;

		/* A mount over another on the same directory hides it. */
		for (size_t j = i + 1; j < n && !hidden; j++)
			hidden = !strcmp(m[i].dir, m[j].dir);
		if (hidden)
			continue;
		err = dc_buf_adds(&b, first ? "" : ",") ?:
		      dc_json_str(&b, m[i].dir, strlen(m[i].dir)) ?:
		      dc_buf_adds(&b, ":{\"type\":") ?:
		      dc_json_str(&b, m[i].type, strlen(m[i].type)) ?:
		      dc_buf_addf(&b, ",\"bsize\":%ld}", m[i].bsize);
		first = false;
	}
	err = err ?: dc_buf_add(&b, "}", 2);
	free_mounts(m, n);
	if (err) {
		dc_buf_free(&b);
		errno = -err;
		return NULL;
	}
	return b.p;
}
