// SPDX-License-Identifier: MIT
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "libpath.h"
#include "subproc.h"

/* DC_MULTIARCH: Debian's per-architecture directories (just /lib and
 * /usr/lib again where there are none). */
static const char *const default_dirs[] = {
	"/lib/" DC_MULTIARCH,
	"/usr/lib/" DC_MULTIARCH,
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
};

/* Only ELF files count: Debian's libc.so, for one, is a linker script. */
static bool is_elf(const char *path)
{
	char magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = read(fd, magic, 4) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

static int try_file(const char *path, char *out, size_t size, bool elf_only)
{
	char real[PATH_MAX];
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !realpath(path, real) ||
	    (elf_only && !is_elf(real)))
		return -ENOENT;
	if (strlen(real) >= size)
		return -ENAMETOOLONG;
	strcpy(out, real);
	return 0;
}

/* A searched name must be ELF; a path the user gave is checked later,
 * with a message saying what is wrong with it. */
static int try_path(const char *path, char *out, size_t size)
{
	return try_file(path, out, size, true);
}

static int try_dir(const char *dir, size_t dlen, const char *name, char *out,
		   size_t size)
{
	char path[PATH_MAX];

	if (snprintf(path, sizeof(path), "%.*s/%s", (int)dlen, dir, name) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return try_path(path, out, size);
}

/* The glibc >= 2.32 cache format ("glibc-ld.so.cache1.1"). */
struct cache_hdr {
	char magic[17];
	char version[3];
	uint32_t nlibs;
	uint32_t len_strings;
	uint8_t flags;
	uint8_t pad[3];
	uint32_t ext_offset;
	uint32_t unused[3];
};

struct cache_entry {
	int32_t flags;
	uint32_t key;
	uint32_t value;
	uint32_t osversion;
	uint64_t hwcap;
};

static int cache_foreach(const char *name, size_t prefix, char *out,
			 size_t size, int (*fn)(const char *, void *),
			 void *arg);

static int search_cache(const char *name, char *out, size_t size)
{
	return cache_foreach(name, 0, out, size, NULL, NULL);
}

/*
 * Walk the loader cache: without @fn, resolve the entry named @name into
 * @out; with @fn, call it on every entry whose key starts with the first
 * @prefix bytes of @name (stopping at its first non-zero return).
 */
static int cache_foreach(const char *name, size_t prefix, char *out,
			 size_t size, int (*fn)(const char *, void *),
			 void *arg)
{
	const struct cache_hdr *h;
	const struct cache_entry *e;
	struct stat st;
	int fd, err = -ENOENT;
	char *map;

	fd = open("/etc/ld.so.cache", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -ENOENT;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(*h)) {
		close(fd);
		return -ENOENT;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -ENOENT;
	h = (const void *)map;
	if (memcmp(h->magic, "glibc-ld.so.cache", 17) ||
	    memcmp(h->version, "1.1", 3) ||
	    sizeof(*h) + (uint64_t)h->nlibs * sizeof(*e) > (uint64_t)st.st_size)
		goto cleanup;
	e = (const void *)(h + 1);
	for (uint32_t i = 0; i < h->nlibs; i++) {
		const char *key = map + e[i].key, *val = map + e[i].value;

		if (e[i].key >= st.st_size || e[i].value >= st.st_size ||
		    !memchr(key, 0, st.st_size - e[i].key) ||
		    !memchr(val, 0, st.st_size - e[i].value))
			continue;
		/* Flag 0x0300 is x86-64 ELF (the only architecture
		 * meson.build accepts); skip 32-bit entries. */
		if ((e[i].flags & 0xff00) != 0x0300)
			continue;
		if (fn && !strncmp(key, name, prefix)) {
			err = fn(val, arg);
			if (err)
				break;
		} else if (!fn && !strcmp(key, name)) {
			err = try_path(val, out, size);
			if (!err)
				break;
		}
	}
cleanup:
	munmap(map, st.st_size);
	return err;
}

/* "libhdf5.so.103" -> "hdf5" */
static int stem_of(const char *name, char *stem, size_t size)
{
	const char *base = strrchr(name, '/'), *so;

	base = base ? base + 1 : name;
	if (!strncmp(base, "lib", 3))
		base += 3;
	so = strstr(base, ".so");
	if (!so)
		so = base + strlen(base);
	if (so == base || (size_t)(so - base) >= size)
		return -EINVAL;
	memcpy(stem, base, so - base);
	stem[so - base] = '\0';
	return 0;
}

/* The -L directories pkg-config gives for the stem's package. */
static int search_pkgconfig(const char *name, char *out, size_t size)
{
	char stem[128], dirs[4096];
	char *const argv[] = { "pkg-config", "--silence-errors",
			       "--libs-only-L", stem, NULL };
	char *tok, *save;

	if (stem_of(name, stem, sizeof(stem)) ||
	    dc_spawn(argv, dirs, sizeof(dirs)))
		return -ENOENT;
	for (tok = strtok_r(dirs, " \t\n", &save); tok;
	     tok = strtok_r(NULL, " \t\n", &save))
		if (!strncmp(tok, "-L", 2) &&
		    !try_dir(tok + 2, strlen(tok + 2), name, out, size))
			return 0;
	return -ENOENT;
}

/* The first directory of the colon-separated @dirs holding @name. */
static int search_dirs(const char *dirs, const char *name, char *out,
		       size_t size)
{
	while (dirs && *dirs) {
		size_t n = strcspn(dirs, ":;");

		if (n && !try_dir(dirs, n, name, out, size))
			return 0;
		dirs += n + (dirs[n] != '\0');
	}
	return -ENOENT;
}

int dc_resolve_needed(const char *name, const char *rpath, const char *runpath,
		      char *out, size_t size)
{
	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return try_file(name, out, size, false);
	if (!search_dirs(rpath, name, out, size) ||
	    !search_dirs(getenv("LD_LIBRARY_PATH"), name, out, size) ||
	    !search_dirs(runpath, name, out, size) ||
	    !search_cache(name, out, size))
		return 0;
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]);
	     i++)
		if (!try_dir(default_dirs[i], strlen(default_dirs[i]), name,
			     out, size))
			return 0;
	return -ENOENT;
}

bool dc_lib_is_glob(const char *name)
{
	return strpbrk(name, "*?[(") != NULL;
}

bool dc_lib_matches(const char *pattern, const char *file)
{
	return !fnmatch(pattern, file, FNM_EXTMATCH);
}

struct glob_first {
	const char *pattern;
	char *out;
	size_t size;
};

static int first_match(const char *path, void *arg)
{
	struct glob_first *g = arg;
	const char *base = strrchr(path, '/');

	/* Stop (1) at the first file that is there and ELF. */
	return dc_lib_matches(g->pattern, base ? base + 1 : path) &&
	       !try_path(path, g->out, g->size);
}

int dc_lib_glob(const char *dirs, const char *pattern,
		int (*fn)(const char *path, void *arg), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	int ret = 0;
	DIR *dh;

	while (!ret && dirs && *dirs) {
		size_t n = strcspn(dirs, ":;");

		snprintf(dir, sizeof(dir), "%.*s", (int)n, dirs);
		dirs += n + (dirs[n] != '\0');
		if (!n || !(dh = opendir(dir)))
			continue;
		while (!ret && (e = readdir(dh)))
			if (dc_lib_matches(pattern, e->d_name) &&
			    snprintf(path, sizeof(path), "%s/%s", dir,
				     e->d_name) < (int)sizeof(path))
				ret = fn(path, arg);
		closedir(dh);
	}
	return ret;
}

/* A glob's first match where the loader would look for a name: the
 * directories of LD_LIBRARY_PATH, the cache, the default directories. */
static int resolve_glob(const char *pattern, char *out, size_t size)
{
	struct glob_first g = { pattern, out, size };

	if (dc_lib_glob(getenv("LD_LIBRARY_PATH"), pattern, first_match, &g) ||
	    cache_foreach("", 0, NULL, 0, first_match, &g) == 1)
		return 0;
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]);
	     i++)
		if (dc_lib_glob(default_dirs[i], pattern, first_match, &g))
			return 0;
	return -ENOENT;
}

int dc_resolve_library(const char *name, char *out, size_t size)
{
	if (!strchr(name, '/') && dc_lib_is_glob(name))
		return resolve_glob(name, out, size);
	if (!dc_resolve_needed(name, NULL, NULL, out, size))
		return 0;
	if (strchr(name, '/'))
		return -ENOENT;
	return search_pkgconfig(name, out, size);
}

struct candidates {
	char paths[16][PATH_MAX];
	int n;
};

static int add_candidate(const char *path, void *arg)
{
	struct candidates *c = arg;
	char real[PATH_MAX];

	if (try_path(path, real, sizeof(real)))
		return 0;
	for (int i = 0; i < c->n; i++)
		if (!strcmp(c->paths[i], real))
			return 0;
	if (c->n < 16)
		strcpy(c->paths[c->n++], real);
	return 0;
}

int dc_resolve_target(const char *name, char *out, size_t size)
{
	char lib[256], real[PATH_MAX];
	struct candidates *c;
	int err = -ENOENT;

	if (strchr(name, '/') || strstr(name, ".so"))
		return dc_resolve_library(name, out, size);
	/* A bare stem: lib<stem>.so and the versioned sonames. */
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	snprintf(lib, sizeof(lib), "lib%s.so", name);
	if (!dc_resolve_library(lib, real, sizeof(real)))
		add_candidate(real, c);
	snprintf(lib, sizeof(lib), "lib%s.so.", name);
	cache_foreach(lib, strlen(lib), NULL, 0, add_candidate, c);
	if (c->n == 0 && !dc_resolve_library(name, real, sizeof(real)))
		add_candidate(real, c);
	for (const char *p = getenv("PATH"); c->n == 0 && p && *p;) {
		size_t n = strcspn(p, ":");

		if (n && !try_dir(p, n, name, real, sizeof(real)))
			add_candidate(real, c); /* an executable */
		p += n + (p[n] != '\0');
	}
	if (c->n == 1 && strlen(c->paths[0]) < size) {
		strcpy(out, c->paths[0]);
		err = 0;
	} else if (c->n > 1) {
		fprintf(stderr,
			"'%s' matches %d different libraries; name one:\n",
			name, c->n);
		for (int i = 0; i < c->n; i++)
			fprintf(stderr, "  %s\n", c->paths[i]);
		err = -ENOTUNIQ;
	}
	free(c);
	return err;
}
