/* SPDX-License-Identifier: MIT */
#ifndef DC_BUILDID_H
#define DC_BUILDID_H

#include <stddef.h>

/* Longest GNU build-id kept (SHA-1's 20 bytes; some linkers use 16). */
#define DC_BUILD_ID_MAX 32

/*
 * The GNU build-id note of the ELF file at @path, into @id: its length,
 * 0 when the file has none, or -errno (-ENOEXEC: not 64-bit ELF).
 */
int dc_build_id(const char *path, unsigned char id[DC_BUILD_ID_MAX]);

#endif
