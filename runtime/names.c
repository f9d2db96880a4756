// SPDX-License-Identifier: MIT
/* Names kept once for the whole run: files, objects in them, devices. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procs.h"

struct dc_file *dc_file_intern(struct dc_procs *ps, const char *name)
{
	uint64_t h = dc_hash(name, strlen(name));
	struct dc_file *f = dc_map_get(&ps->files, h ? h : 1);

	if (f)
		return f;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->name = strdup(name);
	dc_hash_hex(h, f->hash);
	if (!f->name || dc_map_put(&ps->files, h ? h : 1, f)) {
		free(f->name);
		free(f);
		return NULL;
	}
	return f;
}

/* One copy of each object name, whoever opens it. */
const char *dc_name_intern(struct dc_procs *ps, const char *name)
{
	uint64_t h = dc_hash(name, strlen(name)) | 1;
	char *n = dc_map_get(&ps->names, h);

	if (n)
		return strcmp(n, name) ? NULL : n; /* a collision: unnamed */
	n = strdup(name);
	if (!n || dc_map_put(&ps->names, h, n)) {
		free(n);
		return NULL;
	}
	return n;
}

const char *dc_dev_name(struct dc_procs *ps, uint32_t dev)
{
	unsigned int maj = dev >> 20, min = dev & 0xfffff;
	char path[64], line[256], name[64];
	char *copy;
	FILE *f;

	if ((copy = dc_map_get(&ps->devs, (uint64_t)dev + 1)))
		return copy;
	snprintf(name, sizeof(name), "%u:%u", maj, min);
	snprintf(path, sizeof(path), "/sys/dev/block/%u:%u/uevent", maj, min);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "DEVNAME=", 8)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(name, sizeof(name), "%.63s", line + 8);
				break;
			}
		fclose(f);
	}
	copy = strdup(name);
	if (!copy || dc_map_put(&ps->devs, (uint64_t)dev + 1, copy)) {
		free(copy);
		return "?";
	}
	return copy;
}

static void free_file(void *v)
{
	struct dc_file *f = v;

	free(f->name);
	free(f);
}

void dc_names_free(struct dc_procs *ps)
{
	dc_map_free(&ps->files, free_file);
	dc_map_free(&ps->names, free);
	dc_map_free(&ps->devs, free);
}
