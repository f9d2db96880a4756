/* SPDX-License-Identifier: MIT */
#ifndef DC_SYSSTUB_H
#define DC_SYSSTUB_H

#include <stdbool.h>
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
	/* Bit j of sysconst[k]: at site k, system call argument j holds
	 * sysval[k][j] on every path from the function's entry. Where
	 * several functions reach one site, these tell their calls apart. */
	uint8_t sysconst[DC_STUB_SITES];
	uint64_t sysval[DC_STUB_SITES][6];
	bool tail; /* a site lies in a function it jumps to: that function's
		      callers, and others jumping there, reach it too */
	int8_t sysarg[6]; /* function argument i travels in system call
			     argument sysarg[i], or -1: not passed as is */
	uint8_t narrow;	  /* bit i: passed as 32 bits only (an int) */
	uint8_t or0; /* bit i: passed on some paths, 0 on the others (open's
			mode, read only with O_CREAT or O_TMPFILE) */
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
 * A function that ends in a jump to another (glibc's stat jumps into
 * fstatat with AT_FDCWD) is followed there when it is not a wrapper
 * alone; its sites are then the other function's, told apart by the
 * constant arguments it passes (sysconst).
 *
 * Returns 0 and fills @st, or -ENOENT with *@why saying what disqualifies
 * the function. Then @st->nsites is 0, or, for a function some of whose
 * paths make no syscall (glibc's fstat returns EBADF for a negative fd)
 * while others jump into a function that makes it, those sites, with
 * @st->tail set.
 */
int dc_sysstub(const struct dc_code *c, uint64_t off, uint64_t size,
	       struct dc_sysstub *st, const char **why);

#endif
