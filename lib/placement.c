// SPDX-License-Identifier: MIT
#include <string.h>

#include "placement.h"
#include "roles.h"

/* Returns whose value is the system call's, -errno becoming -1 as the C
 * library does; others (a stream, items, a handle) are not. */
static bool ret_is_syscalls(int ret)
{
	switch (ret) {
	case DC_RET_STATUS:
	case DC_RET_FD:
	case DC_RET_SIZE:
	case DC_RET_OFFSET:
	case DC_RET_ADDR: return true;
	default: return false;
	}
}

static const char *try_sys(const struct dc_code *c, uint64_t off, uint64_t size,
			   const struct dc_place_probe *p,
			   struct dc_placement *pl)
{
	const char *why;

	if (!ret_is_syscalls(p->ret))
		return "its return is not the system call's";
	/* The syscall's programs read arguments, not through them. */
	if (p->reads)
		return "it reads a value through a pointer";
	if (dc_sysstub(c, off, size, &pl->stub, &why))
		return why;
	for (unsigned k = 0; pl->stub.tail && k < pl->stub.nsites; k++) {
		int n = __builtin_popcount(pl->stub.sysconst[k]);

		/* Its calls are told from the others' there by these. */
		if (!n)
			return "it jumps into another function passing no "
			       "constant argument";
		if (n > DC_WRAP_CONDS)
			return "it jumps into another function passing more "
			       "constant arguments than are compared";
	}
	for (unsigned k = 0; k < p->nslots && k < DC_CAPTURE; k++) {
		uint8_t a = p->slot_arg[k];

		if (a >= 6 || pl->stub.sysarg[a] < 0)
			return "an argument it captures does not reach the "
			       "system call as is";
		/* A mode is the caller's only with O_CREAT or O_TMPFILE; the
		 * system call gets 0 otherwise, and so does the trace. */
		if ((pl->stub.or0 & 1u << a) && p->slot_role[k] != DC_ROLE_MODE)
			return "an argument it captures reaches the system "
			       "call on some paths only";
		if ((pl->stub.narrow & 1u << a) &&
		    !dc_role_is_int(p->slot_role[k]))
			return "an argument it captures reaches the system "
			       "call cut to 32 bits";
		pl->slot_sysarg[k] = pl->stub.sysarg[a];
	}
	return NULL;
}

void dc_place(const struct dc_code *c, uint64_t off, uint64_t size,
	      const struct dc_place_probe *p, bool wrappers,
	      struct dc_placement *pl)
{
	unsigned args = 0;

	memset(pl, 0, sizeof(*pl));
	pl->not_sys = wrappers ? try_sys(c, off, size, p, pl)
			       : "wrappers are traced by uprobes (asked)";
	if (!pl->not_sys) {
		pl->via_sys = true;
		return;
	}
	for (unsigned k = 0; k < p->nslots && k < DC_CAPTURE; k++)
		if (p->slot_arg[k] < 6)
			args |= 1u << p->slot_arg[k];
	dc_probe_point(c, off, size, args, p->cookies, &pl->pp);
}

void dc_place_cand(const struct dc_placement *pl, unsigned k, uint32_t probe,
		   struct dc_wrap_cand *c)
{
	memset(c, 0, sizeof(*c));
	c->probe = probe;
	memcpy(c->slot_arg, pl->slot_sysarg, sizeof(c->slot_arg));
	if (!pl->stub.tail)
		return; /* its own sites: reached by its calls only */
	for (int j = 0; j < 6 && c->nconds < DC_WRAP_CONDS; j++) {
		uint64_t v = pl->stub.sysval[k][j];

		if (!(pl->stub.sysconst[k] & 1u << j))
			continue;
		/* An int argument's upper half is the caller's garbage. */
		c->cond[c->nconds++] = (struct dc_wrap_cond){
			.val = v, .arg = j, .narrow = v == (uint32_t)v
		};
	}
}
