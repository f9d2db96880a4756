/* SPDX-License-Identifier: MIT */
#ifndef DC_PROBETAB_H
#define DC_PROBETAB_H

#include <stddef.h>

#include <datacrumbs/abi.h>

/*
 * Read the probe table from the DC_PROBE_SECTION of a generated object.
 * On success *@out is a malloc'd array of *@n entries with every string
 * NUL-terminated. Returns 0, -ENOEXEC if @path is not a DataCrumbs object,
 * -EPROTO for an ABI version mismatch, or another -errno.
 */
int dc_probe_table_read(const char *path, struct dc_probe_desc **out,
			size_t *n);

#endif
