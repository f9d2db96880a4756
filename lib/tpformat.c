// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "syscalls.h"
#include "tpformat.h"

/* "\tfield:unsigned int nr_sector;\toffset:24;\tsize:4;\tsigned:0;" */
static int parse_field(const char *line, struct dc_tp_fmt_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *name;
	size_t n;

	if (!decl)
		return -EINVAL;
	semi = strchr(decl, ';');
	if (!semi)
		return -EINVAL;
	/* The name is the last word of the declaration, before any [N]. */
	name = semi;
	while (name > decl && name[-1] != ' ')
		name--;
	n = strcspn(name, "[;");
	if (!n || n >= sizeof(f->name))
		return -EINVAL;
	memcpy(f->name, name, n);
	f->name[n] = '\0';
	f->text = name[n] == '[' && !strncmp(decl, "field:char ", 11);
	if (sscanf(semi, ";\toffset:%d;\tsize:%d;\tsigned:%d;", &f->offset,
		   &f->size, &f->sign) != 3)
		return -EINVAL;
	return 0;
}

int dc_tp_format_read(const char *event, struct dc_tp_format *out)
{
	const char *events = dc_tracefs_events();
	char path[512], line[1024];
	FILE *f;

	out->n = 0;
	if (!events)
		return -ENODEV;
	if (!strchr(event, '/') || strstr(event, ".."))
		return -ENOENT;
	snprintf(path, sizeof(path), "%s/%s/format", events, event);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ENOENT : -errno;
	while (fgets(line, sizeof(line), f) && out->n < 64)
		if (!parse_field(line, &out->f[out->n]))
			out->n++;
	fclose(f);
	return 0;
}

const struct dc_tp_fmt_field *dc_tp_format_field(const struct dc_tp_format *fmt,
						 const char *name)
{
	for (int i = 0; i < fmt->n; i++)
		if (!strcmp(fmt->f[i].name, name))
			return &fmt->f[i];
	return NULL;
}
