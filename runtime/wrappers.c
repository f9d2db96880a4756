// SPDX-License-Identifier: MIT
/*
 * Wrappers traced at sys_enter (templates/syswrap.bpf.h): the libraries
 * holding them, named by inode as the kernel sees a mapping of them, and
 * the map from each syscall site to its wrapper.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "buf.h"
#include "log.h"
#include "wrappers.h"

/*
 * The inode the kernel gives a mapping of @path. /proc/self/maps names
 * it as the BPF program will see it (on overlayfs that is the real file,
 * not what stat() says), when this process maps the library, as it does
 * the C library; stat() for others.
 */
static int lib_inode(const char *path, struct dc_file_id *out)
{
	char real[PATH_MAX], line[PATH_MAX + 128], file[PATH_MAX];
	unsigned major, minor;
	unsigned long long ino;
	struct stat st;
	FILE *f;

	if (!realpath(path, real))
		return -errno;
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu %4095s", &major,
			   &minor, &ino, file) == 4 &&
		    !strcmp(file, real)) {
			fclose(f);
			*out =
			    (struct dc_file_id){ .ino = ino,
						 .dev = dc_kdev(major, minor) };
			return 0;
		}
	}
	if (f)
		fclose(f);
	if (stat(real, &st))
		return -errno;
	*out = (struct dc_file_id){ .ino = st.st_ino,
				    .dev = dc_kdev(major(st.st_dev),
						   minor(st.st_dev)) };
	return 0;
}

int dc_wrappers_lib(struct dc_wrappers *w, const char *path)
{
	int err;

	for (size_t i = 0; i < w->nlibs; i++)
		if (!strcmp(w->lib_path[i], path))
			return i;
	if (w->nlibs == DC_WRAP_LIBS)
		return -ENOSPC;
	err = lib_inode(path, &w->lib[w->nlibs]);
	if (err)
		return err;
	w->lib_path[w->nlibs] = strdup(path);
	if (!w->lib_path[w->nlibs])
		return -ENOMEM;
	return w->nlibs++;
}

/* The index of the site ending at @off of @lib, or -1. */
static long site_index(const struct dc_wrappers *w, int lib, __u64 off)
{
	__u64 key = (__u64)lib << 32 | (__u32)off;

	for (size_t i = 0; i < w->nsites; i++)
		if (w->keys[i] == key)
			return i;
	return -1;
}

bool dc_wrappers_room(const struct dc_wrappers *w, int lib, __u64 off)
{
	long i = site_index(w, lib, off);

	return i < 0 ||
	       w->sites[i].cand[DC_WRAP_CANDS - 1].probe == DC_WRAP_NONE;
}

/* Candidates are tried in this order: a call already open first, then
 * the most specific function whose conditions hold. */
static int rank(const struct dc_wrap_cand *c)
{
	return c->inside ? DC_WRAP_CONDS + 1 : c->nconds;
}

static void add_cand(struct dc_wrap_site *site, const struct dc_wrap_cand *c)
{
	int k = 0;

	while (k < DC_WRAP_CANDS && site->cand[k].probe != DC_WRAP_NONE &&
	       rank(&site->cand[k]) >= rank(c))
		k++;
	if (k == DC_WRAP_CANDS)
		return;
	memmove(&site->cand[k + 1], &site->cand[k],
		(DC_WRAP_CANDS - 1 - k) * sizeof(*c));
	site->cand[k] = *c;
}

int dc_wrappers_add(struct dc_wrappers *w, int lib, __u64 off, int nr,
		    const struct dc_wrap_cand *cand, const __u8 *code)
{
	long i = site_index(w, lib, off);

	if (i >= 0) {
		add_cand(&w->sites[i], cand);
		return 0;
	}
	if (dc_grow((void **)&w->keys, w->nsites, sizeof(*w->keys), 64) ||
	    dc_grow((void **)&w->byoff, w->nsites, sizeof(*w->byoff), 64) ||
	    dc_grow((void **)&w->sites, w->nsites, sizeof(*w->sites), 64))
		return -ENOMEM;
	w->keys[w->nsites] = (__u64)lib << 32 | (__u32)off;
	w->byoff[w->nsites] = (__u32)nr << 12 | (off & 0xfff);
	memset(&w->sites[w->nsites], 0, sizeof(*w->sites));
	for (int k = 0; k < DC_WRAP_CANDS; k++)
		w->sites[w->nsites].cand[k].probe = DC_WRAP_NONE;
	w->sites[w->nsites].cand[0] = *cand;
	memcpy(w->sites[w->nsites].code, code, DC_WRAP_CODE);
	w->nsites++;
	return 0;
}

void dc_wrappers_prune(struct dc_wrappers *w)
{
	size_t n = 0;

	for (size_t i = 0; i < w->nsites; i++) {
		const struct dc_wrap_cand *c = w->sites[i].cand;
		bool wrapper = false;

		for (int k = 0; k < DC_WRAP_CANDS && c[k].probe != DC_WRAP_NONE;
		     k++)
			wrapper |= !c[k].inside;
		if (!wrapper)
			continue;
		w->keys[n] = w->keys[i];
		w->byoff[n] = w->byoff[i];
		w->sites[n++] = w->sites[i];
	}
	w->nsites = n;
}

/* Two sites with one dc_wrap_byoff key cannot be told apart there. */
static int add_byoff(int fd, __u32 key, const struct dc_wrap_site *site)
{
	struct dc_wrap_site old;

	if (!bpf_map_update_elem(fd, &key, site, BPF_NOEXIST))
		return 0;
	if (errno != EEXIST || bpf_map_lookup_elem(fd, &key, &old))
		return -errno;
	if (!memcmp(&old, site, sizeof(old)))
		return 0;
	old.cand[0].probe = DC_WRAP_AMBIGUOUS;
	return bpf_map_update_elem(fd, &key, &old, BPF_ANY) ? -errno : 0;
}

int dc_wrappers_install(const struct dc_wrappers *w, struct dc_obj *o,
			struct dc_wrap_libs *libs)
{
	struct bpf_map *sites = o->maps.wrap_sites, *byoff = o->maps.wrap_byoff;
	int err;

	memset(libs, 0, sizeof(*libs));
	if (!w->nsites)
		return 0;
	for (size_t i = 0; i < w->nsites; i++) {
		if (bpf_map_update_elem(bpf_map__fd(sites), &w->keys[i],
					&w->sites[i], BPF_ANY))
			return -errno;
		err = add_byoff(bpf_map__fd(byoff), w->byoff[i], &w->sites[i]);
		if (err)
			return err;
	}
	libs->n = w->nlibs;
	memcpy(libs->lib, w->lib, sizeof(libs->lib));
	return 0;
}

void dc_wrappers_sysnrs(const struct dc_wrappers *w, __u64 *bits)
{
	for (size_t i = 0; i < w->nsites; i++) {
		__u32 nr = w->byoff[i] >> 12;

		if (nr < DC_SYSNR_MAX)
			bits[nr / 64] |= 1ull << nr % 64;
	}
}

void dc_wrappers_free(struct dc_wrappers *w)
{
	for (size_t i = 0; i < w->nlibs; i++)
		free(w->lib_path[i]);
	free(w->keys);
	free(w->byoff);
	free(w->sites);
	memset(w, 0, sizeof(*w));
}
