// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "elfsym.h"
#include "ldneeded.h"
#include "libpath.h"

/* A program maps a few hundred libraries at most; this bounds a
 * damaged or hostile dependency graph. */
#define NEEDED_MAX 4096

/* An object's dynamic section, as far as loading its needs goes. */
struct dyn {
	char **needed;
	size_t nneeded;
	char *rpath, *runpath; /* "$ORIGIN" expanded, or NULL */
};

static void dyn_free(struct dyn *d)
{
	for (size_t i = 0; i < d->nneeded; i++)
		free(d->needed[i]);
	free(d->needed);
	free(d->rpath);
	free(d->runpath);
}

/* @s with each "$ORIGIN" or "${ORIGIN}" replaced by @origin. */
static char *expand_origin(const char *s, const char *origin)
{
	size_t olen = strlen(origin), n = 0, cap = strlen(s) + 1;
	char *out = malloc(cap);

	while (out && *s) {
		size_t skip = !strncmp(s, "$ORIGIN", 7)	    ? 7
			      : !strncmp(s, "${ORIGIN}", 9) ? 9
							    : 0;
		const char *add = skip ? origin : s;
		size_t len = skip ? olen : 1;
		char *grown;

		if (n + len + 1 > cap) {
			cap = (n + len + 1) * 2;
			grown = realloc(out, cap);
			if (!grown) {
				free(out);
				return NULL;
			}
			out = grown;
		}
		memcpy(out + n, add, len);
		n += len;
		s += skip ? skip : 1;
	}
	if (out)
		out[n] = '\0';
	return out;
}

static int read_dyn(const char *path, struct dyn *d)
{
	char origin[PATH_MAX], *slash;
	Elf_Scn *scn = NULL;
	int fd, err = 0;
	Elf *elf;

	memset(d, 0, sizeof(*d));
	snprintf(origin, sizeof(origin), "%s", path);
	slash = strrchr(origin, '/');
	if (slash)
		*(slash == origin ? slash + 1 : slash) = '\0';
	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	while ((scn = elf_nextscn(elf, scn)) && !err) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Dyn dy;

		/* The type first: elf_getdata() reads the whole section. */
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (int i = 0; gelf_getdyn(data, i, &dy) && !err; i++) {
			const char *str;
			char **grown;

			if (dy.d_tag != DT_NEEDED && dy.d_tag != DT_RPATH &&
			    dy.d_tag != DT_RUNPATH)
				continue;
			str = elf_strptr(elf, sh.sh_link, dy.d_un.d_val);
			if (!str)
				continue;
			if (dy.d_tag == DT_RPATH && !d->rpath)
				err = (d->rpath = expand_origin(str, origin))
					  ? 0
					  : -ENOMEM;
			else if (dy.d_tag == DT_RUNPATH && !d->runpath)
				err = (d->runpath = expand_origin(str, origin))
					  ? 0
					  : -ENOMEM;
			else if (dy.d_tag == DT_NEEDED) {
				grown = realloc(d->needed, (d->nneeded + 1) *
							       sizeof(*grown));
				if (!grown ||
				    !(grown[d->nneeded] = strdup(str)))
					err = -ENOMEM;
				if (grown) {
					d->needed = grown;
					d->nneeded += !err;
				}
			}
		}
	}
	elf_end(elf);
	close(fd);
	if (err)
		dyn_free(d);
	return err;
}

/* Asked for already by this program (from @base on): a soname is mapped
 * once a process. */
static bool known(const struct dc_needed_set *s, size_t base, const char *name)
{
	for (size_t i = base; i < s->n; i++)
		if (!strcmp(s->v[i].name, name))
			return true;
	return false;
}

/* @obj's needs, then theirs; @chain is the DT_RPATH of the objects that
 * led here, the closest first. (The loader goes breadth first: the two
 * differ only where two objects would find one name in two places.) */
static int add_needs(const char *obj, const char *chain, size_t base,
		     struct dc_needed_set *s)
{
	char found[PATH_MAX], *rpath = NULL;
	size_t first = s->n;
	struct dyn d;
	int err;

	if ((err = read_dyn(obj, &d)))
		return err;
	/* An object with DT_RUNPATH ignores every DT_RPATH. */
	if (!d.runpath && (d.rpath || chain) &&
	    asprintf(&rpath, "%s%s%s", d.rpath ? d.rpath : "",
		     d.rpath && chain ? ":" : "", chain ? chain : "") < 0) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < d.nneeded && s->n < NEEDED_MAX; i++) {
		struct dc_needed *grown;

		if (known(s, base, d.needed[i]) ||
		    dc_resolve_needed(d.needed[i], rpath, d.runpath, found,
				      sizeof(found)))
			continue;
		grown = realloc(s->v, (s->n + 1) * sizeof(*grown));
		if (!grown) {
			err = -ENOMEM;
			goto cleanup;
		}
		s->v = grown;
		s->v[s->n].name = strdup(d.needed[i]);
		s->v[s->n].path = strdup(found);
		if (!s->v[s->n].name || !s->v[s->n].path) {
			free(s->v[s->n].name);
			free(s->v[s->n].path);
			err = -ENOMEM;
			goto cleanup;
		}
		s->n++;
	}
	/* Then what those need; one that is not ELF needs nothing. */
	for (size_t i = first; i < s->n && !err; i++) {
		err =
		    add_needs(s->v[i].path, d.runpath ? NULL : rpath, base, s);
		if (err == -ENOEXEC || err == -ENOENT || err == -EACCES)
			err = 0;
	}
cleanup:
	free(rpath);
	dyn_free(&d);
	return err;
}

int dc_needed_add(const char *exe, struct dc_needed_set *s)
{
	char real[PATH_MAX];
	struct stat st;

	/* Never open a FIFO or a device: it could block. */
	if (!realpath(exe, real) || stat(real, &st))
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENOEXEC;
	return add_needs(real, NULL, s->n, s);
}

void dc_needed_free(struct dc_needed_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].path);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}
