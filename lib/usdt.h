/* SPDX-License-Identifier: MIT */
#ifndef DC_USDT_H
#define DC_USDT_H

#include <stddef.h>
#include <stdint.h>

/* One USDT probe site from a binary's .note.stapsdt section. */
struct dc_usdt_note {
	char provider[64];
	char name[64];
	char args[256]; /* argument specs: "-4@%edi 8@-16(%rbp)" */
	uint64_t pc;
	uint64_t semaphore;
};

/*
 * Read every USDT note of @path (any provider). Returns 0 with *@out a
 * malloc'd array (NULL and 0 when there is none), or -errno: -ENOEXEC
 * for a file that is not a 64-bit ELF.
 */
int dc_usdt_notes(const char *path, struct dc_usdt_note **out, size_t *n);
/* The number of arguments in an argument spec string. */
int dc_usdt_nargs(const struct dc_usdt_note *note);

#endif
