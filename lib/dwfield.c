// SPDX-License-Identifier: MIT
/*
 * Field offsets from a library's DWARF, through elfutils' libdwfl, which
 * finds a separate debug file by build-id or .gnu_debuglink as gdb does.
 */
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dwfield.h"

#define DC_FIELD_DEPTH 8 /* members a path may name after its type */

struct dc_dwarf {
	Dwfl *dwfl;
	Dwarf *dw;
};

/* Whether only root can change what is in the directory of @path. A
 * file opened through /proc (a library a process mapped, at
 * /proc/self/fd/N) has no directory of its own there: a debuglink
 * "../../../tmp/fifo" would walk out of it. */
static bool root_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash || (size_t)(slash - path) >= sizeof(dir) ||
	    !strncmp(path, "/proc/", 6))
		return false;
	memcpy(dir, path, slash - path);
	dir[slash - path] = '\0';
	return !stat(dir[0] ? dir : "/", &st) && st.st_uid == 0 &&
	       !(st.st_mode & (S_IWGRP | S_IWOTH));
}

/* A .gnu_debuglink is looked up next to the library, and names what
 * its author likes (a FIFO would hang the runtime, running as root):
 * beside a library in a directory another user can write, only the
 * system's build-id tree (/usr/lib/debug/.build-id) is searched. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, Dwarf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	if (file_name && root_dir(file_name))
		return dwfl_standard_find_debuginfo(
		    mod, userdata, modname, base, file_name, debuglink_file,
		    debuglink_crc, debuginfo_file_name);
	return dwfl_build_id_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

int dc_dwarf_open(const char *path, struct dc_dwarf **out)
{
	struct dc_dwarf *d = calloc(1, sizeof(*d));
	Dwfl_Module *m;
	Dwarf_Addr bias;
	int err = 0;

	*out = NULL;
	if (!d)
		return -ENOMEM;
	d->dwfl = dwfl_begin(&callbacks);
	if (!d->dwfl) {
		err = -ENOMEM;
		goto cleanup;
	}
	m = dwfl_report_offline(d->dwfl, "", path, -1);
	if (!m || dwfl_report_end(d->dwfl, NULL, NULL)) {
		err = -ENOENT;
		goto cleanup;
	}
	d->dw = dwfl_module_getdwarf(m, &bias);
	if (!d->dw) {
		err = -ENODATA;
		goto cleanup;
	}
	*out = d;
	return 0;
cleanup:
	dc_dwarf_close(d);
	return err;
}

void dc_dwarf_close(struct dc_dwarf *d)
{
	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d);
}

/* @die's type with typedefs, const and volatile taken off. */
static bool bare_type(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die t = *die;

	for (int i = 0; i < 16; i++) {
		if (!dwarf_attr_integrate(&t, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &t))
			return false;
		int tag = dwarf_tag(&t);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type) {
			*out = t;
			return true;
		}
	}
	return false;
}

static bool is_record(int tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_union_type;
}

/* A complete structure named @name: as a struct tag, or through a
 * typedef of one; the first complete one of any compilation unit. */
static bool find_struct(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die, t;

		if (!dwarf_offdie(dw, off + hsize, &cu) ||
		    dwarf_child(&cu, &die)) {
			off = next;
			continue;
		}
		do {
			const char *n = dwarf_diename(&die);
			int tag = dwarf_tag(&die);

			if (!n || strcmp(n, name))
				continue;
			if (tag == DW_TAG_typedef && bare_type(&die, &t) &&
			    is_record(dwarf_tag(&t)) &&
			    !dwarf_hasattr(&t, DW_AT_declaration)) {
				*out = t;
				return true;
			}
			if (is_record(tag) &&
			    !dwarf_hasattr(&die, DW_AT_declaration)) {
				*out = die;
				return true;
			}
		} while (!dwarf_siblingof(&die, &die));
		off = next;
	}
	return false;
}

/* Member @name of record @rec: its offset, and its type bare in @type. */
static bool member(Dwarf_Die *rec, const char *name, unsigned *off,
		   Dwarf_Die *type)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;
	Dwarf_Die m;

	if (dwarf_child(rec, &m))
		return false;
	do {
		const char *n = dwarf_diename(&m);

		if (dwarf_tag(&m) != DW_TAG_member || !n || strcmp(n, name))
			continue;
		/* A union's members have no location: they are at 0. */
		if (dwarf_attr(&m, DW_AT_data_member_location, &a) &&
		    dwarf_formudata(&a, &w))
			return false;
		*off = (unsigned)w;
		return bare_type(&m, type);
	} while (!dwarf_siblingof(&m, &m));
	return false;
}

/* @t, a type, is named @type through its typedefs and qualifiers. */
static bool named(Dwarf_Die *t, const char *type)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *t;

	for (int i = 0; i < 16; i++) {
		const char *n = dwarf_diename(&cur);
		int tag = dwarf_tag(&cur);

		if (n && !strcmp(n, type))
			return true;
		if ((tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		     tag != DW_TAG_volatile_type) ||
		    !dwarf_attr_integrate(&cur, DW_AT_type, &a) ||
		    !dwarf_formref_die(&a, &cur))
			return false;
	}
	return false;
}

/* @t, a bare type, is a pointer to @type. */
static bool points_to(Dwarf_Die *t, const char *type)
{
	Dwarf_Attribute a;
	Dwarf_Die to;

	return dwarf_tag(t) == DW_TAG_pointer_type &&
	       dwarf_attr_integrate(t, DW_AT_type, &a) &&
	       dwarf_formref_die(&a, &to) && named(&to, type);
}

int dc_dwarf_offset(struct dc_dwarf *d, const char *field, const char *to,
		    unsigned *off)
{
	char buf[256], *name, *save = NULL;
	Dwarf_Die rec, type;
	unsigned total = 0, at;
	int depth = 0;

	if (strlen(field) >= sizeof(buf) || !strchr(field, '.'))
		return -ENOENT;
	strcpy(buf, field);
	name = strtok_r(buf, ".", &save);
	if (!find_struct(d->dw, name, &rec))
		return -ENOENT;
	while ((name = strtok_r(NULL, ".", &save))) {
		if (++depth > DC_FIELD_DEPTH || !is_record(dwarf_tag(&rec)) ||
		    !member(&rec, name, &at, &type))
			return -ENOENT;
		total += at;
		rec = type;
	}
	if (to && !points_to(&rec, to))
		return -EPROTO;
	*off = total;
	return 0;
}

/* A definition of function @name (with code, not a declaration). */
static bool find_func(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu, die;

		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    !dwarf_child(&cu, &die)) {
			do {
				const char *n = dwarf_diename(&die);

				if (dwarf_tag(&die) == DW_TAG_subprogram && n &&
				    !strcmp(n, name) &&
				    (dwarf_hasattr(&die, DW_AT_low_pc) ||
				     dwarf_hasattr(&die, DW_AT_ranges))) {
					*out = die;
					return true;
				}
			} while (!dwarf_siblingof(&die, &die));
		}
		off = next;
	}
	return false;
}

int dc_dwarf_param_points_to(struct dc_dwarf *d, const char *func, int arg,
			     const char *type)
{
	Dwarf_Die f, p, t;
	Dwarf_Attribute a;
	int k = 0;

	if (!find_func(d->dw, func, &f))
		return -ENOENT;
	/* An out-of-line copy of an inlined function: the parameters are
	 * its abstract origin's. */
	if (dwarf_attr(&f, DW_AT_abstract_origin, &a) &&
	    !dwarf_formref_die(&a, &f))
		return -ENOENT;
	if (dwarf_child(&f, &p))
		return -ENOENT;
	do {
		if (dwarf_tag(&p) != DW_TAG_formal_parameter || k++ != arg)
			continue;
		return bare_type(&p, &t) && points_to(&t, type) ? 0 : -EPROTO;
	} while (!dwarf_siblingof(&p, &p));
	return -ENOENT;
}
