/* SPDX-License-Identifier: MIT */
#ifndef DC_PLACEMENT_H
#define DC_PLACEMENT_H

#include <stdbool.h>
#include <stdint.h>

#include <datacrumbs/abi.h>

#include "probepoint.h"
#include "sysstub.h"

/* How one function of a library is traced on this machine. */
struct dc_placement {
	bool via_sys; /* recognised at sys_enter by its syscall sites */
	uint8_t slot_sysarg[DC_CAPTURE]; /* via_sys: system call argument
					    each captured slot is read from */
	struct dc_sysstub stub;	  /* via_sys: the system call and sites */
	const char *not_sys;	  /* why it is not via_sys, or NULL */
	struct dc_probe_point pp; /* otherwise: where its uprobe sits */
};

/* What placing a function needs to know of its probe. */
struct dc_place_probe {
	unsigned nslots;
	const uint8_t *slot_arg;  /* argument position of each slot */
	const uint8_t *slot_role; /* enum dc_role of each slot */
	int ret;		  /* enum dc_ret */
	bool cookies; /* its uprobe's cookie may say more than its probe:
			 a return site, a moved argument */
	bool reads;   /* it reads a value through a pointer (ROLE@N) */
};

/*
 * Place the function at file offset @off, @size bytes long. With
 * @wrappers, a thin system call wrapper whose captured arguments all
 * reach the system call, and whose return is the system call's (-1 for
 * -errno), is traced at sys_enter; anything else gets a uprobe at
 * dc_probe_point().
 */
void dc_place(const struct dc_code *c, uint64_t off, uint64_t size,
	      const struct dc_place_probe *p, bool wrappers,
	      struct dc_placement *pl);

/*
 * What the BPF program at sys_enter needs to recognise a call of probe
 * @probe, placed at the syscall (@pl->via_sys), at its site @k. A site
 * in a function it jumps to is shared with that function and its other
 * callers: the constant syscall arguments it passes tell its calls
 * apart there.
 */
void dc_place_cand(const struct dc_placement *pl, unsigned k, uint32_t probe,
		   struct dc_wrap_cand *c);

#endif
