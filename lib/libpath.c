// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libpath.h"

static const char *const default_dirs[] = {
	"/lib/x86_64-linux-gnu",
	"/usr/lib/x86_64-linux-gnu",
	"/lib64",
	"/usr/lib64",
	"/lib",
	"/usr/lib",
	"/usr/local/lib",
};

static int try_path(const char *path, char *out, size_t size)
{
	char real[PATH_MAX];
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode) || !realpath(path, real))
		return -ENOENT;
	if (strlen(real) >= size)
		return -ENAMETOOLONG;
	strcpy(out, real);
	return 0;
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

static int search_cache(const char *name, char *out, size_t size)
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
		/* Flag 0x0300 is x86-64 ELF; skip 32-bit entries. */
		if (!strcmp(key, name) && (e[i].flags & 0xff00) == 0x0300) {
			err = try_path(val, out, size);
			if (!err)
				break;
		}
	}
cleanup:
	munmap(map, st.st_size);
	return err;
}

int dc_resolve_library(const char *name, char *out, size_t size)
{
	const char *llp = getenv("LD_LIBRARY_PATH");

	if (!*name)
		return -ENOENT;
	if (strchr(name, '/'))
		return try_path(name, out, size);
	while (llp && *llp) {
		size_t n = strcspn(llp, ":;");

		if (n && !try_dir(llp, n, name, out, size))
			return 0;
		llp += n + (llp[n] != '\0');
	}
	if (!search_cache(name, out, size))
		return 0;
	for (size_t i = 0; i < sizeof(default_dirs) / sizeof(default_dirs[0]);
	     i++)
		if (!try_dir(default_dirs[i], strlen(default_dirs[i]), name,
			     out, size))
			return 0;
	return -ENOENT;
}
