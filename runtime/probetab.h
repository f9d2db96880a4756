/* SPDX-License-Identifier: MIT */
#ifndef DC_PROBETAB_H
#define DC_PROBETAB_H

#include <stddef.h>

#include <datacrumbs/abi.h>

/* A probe table entry as user space reads it: struct dc_probe_desc with
 * its string offsets turned into pointers. Every string is non-NULL. */
struct dc_probe_info {
	__u32 id;
	__u8 mech;
	__u8 ret;
	__u8 nslots;
	__s8 size_slot;
	__s32 nr;
	__u8 effect; /* enum dc_effect */
	__u8 flags;  /* DC_PROBE_* */
	__u8 slot_role[DC_CAPTURE];
	__u8 slot_arg[DC_CAPTURE];
	/* Uprobes: the generator's placement on path, of build build
	 * (struct dc_probe_desc's). */
	__u8 place; /* DC_PLACE_* */
	__u8 moved;
	__u32 skip;
	__u32 ret_at;
	const char *build;
	const char *name;
	const char *symbol;
	const char *layer;
	const char *target;
	const char *path;
	const char *builds; /* struct dc_probe_desc's */
	const char *end;
	const char *alt; /* tracepoints: comma-separated stand-ins */
	const char *field[DC_CAPTURE];
	const char *key[DC_TP_KEYS];
};

/*
 * Read the probe table from the DC_PROBE_SECTION of a generated object.
 * On success *@out is one malloc'd block holding *@n entries and the
 * strings they point to. Returns 0, -ENOEXEC if @path is not a DataCrumbs
 * object, -EPROTO for an ABI version mismatch, -EBADMSG for a damaged
 * table, or another -errno.
 */
int dc_probe_table_read(const char *path, struct dc_probe_info **out,
			size_t *n);

#endif
