/* SPDX-License-Identifier: MIT */
#ifndef DC_DWFIELD_H
#define DC_DWFIELD_H

/*
 * Where a library keeps a field of one of its private structures, from
 * its debug info: its own, or the separate file its GNU build-id or
 * .gnu_debuglink names (/usr/lib/debug/.build-id/xx/yyyy.debug).
 */
struct dc_dwarf;

/* 0, -ENODATA when @path has no debug info anywhere, -ENOTSUP when
 * built without libdw, or -errno. */
int dc_dwarf_open(const char *path, struct dc_dwarf **out);

/* The byte offset in its structure of @field, "TYPE.member[.member...]":
 * TYPE a struct or a typedef of one, each further member inside the
 * structure or union the previous one is; with @to, the last member is
 * a pointer to structure @to (a hop). 0, -ENOENT, or -EPROTO when the
 * field is there but not such a pointer. */
int dc_dwarf_offset(struct dc_dwarf *dw, const char *field, const char *to,
		    unsigned *off);

/* Parameter @arg (from 0) of function @func is a pointer to structure
 * @type (its tag or a typedef's name): 0, -ENOENT without such a
 * function or parameter, -EPROTO when it points to something else. */
int dc_dwarf_param_points_to(struct dc_dwarf *dw, const char *func, int arg,
			     const char *type);

void dc_dwarf_close(struct dc_dwarf *dw);

#endif
