// SPDX-License-Identifier: MIT
/* Syscalls and asynchronous requests by number, from the tables of the
 * machine the generator runs on. */
#include "aioops.h"
#include "kuring.h"
#include "paio.h"
#include "spec_pass.h"
#include "syscalls.h"

/* What an io_uring probe's argument positions hold. */
static const int uring_roles[3] = { DC_ROLE_FD, DC_ROLE_OFFSET, DC_ROLE_COUNT };

int check_numbers(struct dc_spec *spec)
{
	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];
		const struct dc_spec_group *g = &spec->groups[pr->group];

		if (g->skipped)
			continue;
		if (g->mech == DC_MECH_IO_URING || g->mech == DC_MECH_LIBAIO ||
		    g->mech == DC_MECH_POSIXAIO) {
			bool uring = g->mech == DC_MECH_IO_URING;
			bool paio = g->mech == DC_MECH_POSIXAIO;

			pr->nr = uring	? dc_uring_op(pr->symbol)
				 : paio ? dc_paio_op(pr->symbol)
					: dc_libaio_op(pr->symbol);
			if (pr->nr < 0)
				spec_error(spec, &pr->symbol_loc,
					   "unknown %s request '%s' "
					   "(known: %s)",
					   dc_mech_name(g->mech), pr->symbol,
					   uring  ? dc_uring_names()
					   : paio ? dc_paio_names()
						  : dc_libaio_names());
			/* A request's fd, offset and length, by position. */
			for (int a = 0; a < pr->nargs; a++)
				if ((pr->arg_role[a] != DC_ROLE_NONE ||
				     pr->nmore) &&
				    (a > 2 || pr->arg_read[a].hops ||
				     pr->arg_role[a] != uring_roles[a]))
					spec_error(
					    spec, &pr->loc,
					    "'%s': an asynchronous request "
					    "gives its fd, offset and length, "
					    "as args [fd, offset, count]",
					    pr->name);
		}
		if (g->mech == DC_MECH_SYSCALL) {
			pr->nr = dc_syscall_nr(pr->symbol);
			if (pr->nr < 0)
				spec_error(spec, &pr->symbol_loc,
					   "unknown syscall '%s'", pr->symbol);
			else if (pr->nr >= DC_SYSNR_MAX)
				spec_error(
				    spec, &pr->symbol_loc,
				    "syscall '%s' has number %d; only numbers "
				    "below %d can be traced",
				    pr->symbol, pr->nr, DC_SYSNR_MAX);
		}
	}
	return 0;
}
