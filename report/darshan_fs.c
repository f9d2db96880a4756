// SPDX-License-Identifier: MIT
/* Darshan's mount table: which file system a record's file is on, as
 * darshan-parser prints it and as POSIX_FILE_ALIGNMENT needs it. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "darshan_rec.h"
#include "report.h"

/* The file systems Darshan leaves out of its mount table. */
static const char *const fs_excluded[] = {
	"tmpfs",      "proc",	   "sysfs",	 "devpts", "binfmt_misc",
	"fusectl",    "debugfs",   "securityfs", "nfsd",   "none",
	"rpc_pipefs", "hugetlbfs", "cgroup",
};

static bool fs_kept(const struct dc_mount *m)
{
	for (size_t j = 0; j < sizeof(fs_excluded) / sizeof(*fs_excluded); j++)
		if (!strcmp(m->type, fs_excluded[j]))
			return false;
	return true;
}

int dc_darshan_fs_table(struct dc_darshan *d)
{
	const struct dc_darshan_run *run = &d->run;
	size_t *v = calloc(run->nmounts + 1, sizeof(*v)), k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < run->nmounts; i++) {
		size_t len = strlen(run->mounts[i].dir), j = k;

		if (!fs_kept(&run->mounts[i]))
			continue;
		for (; j > 0 && strlen(run->mounts[v[j - 1]].dir) < len; j--)
			v[j] = v[j - 1];
		v[j] = i;
		k++;
	}
	free(d->fs);
	d->fs = v;
	d->nfs = k;
	return 0;
}

const struct dc_mount *dc_darshan_mount(const struct dc_darshan *d,
					const char *path)
{
	for (size_t i = 0; i < d->nfs; i++) {
		const struct dc_mount *m = &d->run.mounts[d->fs[i]];

		if (!strncmp(m->dir, path, strlen(m->dir)))
			return m;
	}
	return NULL;
}

const char *dc_darshan_path(const struct dc_darshan *d, uint64_t fhash,
			    char *buf, size_t n)
{
	return dc_fmt_fname(d->run.fnames, fhash, buf, n);
}
