/* SPDX-License-Identifier: MIT */
#ifndef DC_PROBEPOINT_H
#define DC_PROBEPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "disasm.h"

/* Where a function's uprobe sits. */
struct dc_probe_point {
	uint32_t skip;	 /* bytes from the function's start */
	uint32_t ret_at; /* nonzero: its return is seen by a plain uprobe
			    this many bytes in, not by a uretprobe */
	uint32_t moved;	 /* an argument moved by an instruction skipped:
			    a + 1 in bits 0-2 (0: none), and in bits 3-5
			    the argument register it is in there */
	bool slow;	 /* the kernel single-steps the instruction there */
	char why[64];	 /* when slow: that instruction, or what kept the
			    probe from moving past it */
};

/*
 * Choose the probe point of the function at file offset @off, @size
 * bytes long (its symbol's size). A uprobe costs a trap; on an
 * instruction the kernel cannot emulate it costs a single-step out of
 * line as well, ten times more on these machines. The probe moves past
 * leading instructions that change neither the stack pointer, nor an
 * argument register in @args (bit i: argument i is captured), nor
 * memory, nor the control flow, onto the first the kernel emulates, if
 * no jump in the function lands in between: the program there sees the
 * arguments it captures and the return address as it would at the
 * first instruction. With @cookies (what the uprobe's cookie says
 * reaches its program), a captured argument may be read from the
 * register an instruction skipped copied it to; and where the probe
 * cannot move so, it may move past a frame's set-up (the stack pointer
 * changes, so no uretprobe can be set there) if a return site is found
 * for it (dc_ret_site()).
 */
void dc_probe_point(const struct dc_code *c, uint64_t off, uint64_t size,
		    unsigned args, bool cookies, struct dc_probe_point *pp);

#endif
