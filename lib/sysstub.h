/* SPDX-License-Identifier: MIT */
#ifndef DC_SYSSTUB_H
#define DC_SYSSTUB_H

#include <stdint.h>

#include "disasm.h"

#define DC_STUB_SITES 4 /* syscall instructions a wrapper may hold */

/* A function that is a thin wrapper around one system call. */
struct dc_sysstub {
	int nr; /* the system call */
	unsigned nsites;
	uint64_t site[DC_STUB_SITES]; /* file offset just past each syscall
					 instruction: the user ip the
					 kernel sees at sys_enter */
	int8_t sysarg[6]; /* function argument i travels in system call
			     argument sysarg[i], or -1: not passed as is */
	uint8_t narrow;	  /* bit i: passed as 32 bits only (an int) */
};

/*
 * Whether the function at file offset @off, @size bytes long, is a thin
 * wrapper: every path from its entry to a return (or a jump out of it)
 * executes exactly one syscall instruction, always with the same number
 * in rax. Each call then makes exactly one system call from one of its
 * own instructions, so the call can be recognised at sys_enter from the
 * user instruction pointer. The arguments are followed through registers
 * and stack slots (a data-flow analysis of the function), so a wrapper
 * that passes them on reordered or saved across a call is understood.
 *
 * Returns 0 and fills @st, or -ENOENT with *@why saying what disqualifies
 * the function.
 */
int dc_sysstub(const struct dc_code *c, uint64_t off, uint64_t size,
	       struct dc_sysstub *st, const char **why);

#endif
