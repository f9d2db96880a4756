// SPDX-License-Identifier: MIT
/* Built without elfutils' libdw: no library's fields can be found. */
#include <errno.h>
#include <stddef.h>

#include "dwfield.h"

int dc_dwarf_open(const char *path, struct dc_dwarf **out)
{
	(void)path;
	*out = NULL;
	return -ENOTSUP;
}

int dc_dwarf_offset(struct dc_dwarf *dw, const char *field, const char *to,
		    unsigned *off)
{
	(void)dw;
	(void)field;
	(void)to;
	(void)off;
	return -ENOENT;
}

int dc_dwarf_param_points_to(struct dc_dwarf *dw, const char *func, int arg,
			     const char *type)
{
	(void)dw;
	(void)func;
	(void)arg;
	(void)type;
	return -ENOENT;
}

void dc_dwarf_close(struct dc_dwarf *dw)
{
	(void)dw;
}
