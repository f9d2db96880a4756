// SPDX-License-Identifier: MIT
/* USDT probes against the notes of their target. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "spec_pass.h"
#include "usdt.h"

/* @sym ("provider:name") is a note of the target with at least the
 * arguments @pr names. */
static void check_usdt_note(struct dc_spec *spec, const struct dc_spec_group *g,
			    const struct dc_usdt_note *notes, size_t n,
			    const struct dc_spec_probe *pr, const char *sym,
			    const struct dc_loc *loc)
{
	const char *colon = strchr(sym, ':');
	int nargs = -1;

	for (size_t k = 0; colon && k < n && nargs < 0; k++)
		if (!strncmp(notes[k].provider, sym, colon - sym) &&
		    !notes[k].provider[colon - sym] &&
		    !strcmp(notes[k].name, colon + 1))
			nargs = dc_usdt_nargs(&notes[k]);
	if (nargs < 0)
		spec_error(spec, loc,
			   "no USDT probe '%s' in %s (name it "
			   "provider:name; %zu notes there)",
			   sym, g->path, n);
	else if (pr->nargs > nargs)
		spec_error(spec, &pr->loc,
			   "USDT probe '%s' has %d arguments, the "
			   "spec names %d",
			   sym, nargs, pr->nargs);
}

/* Whether @pr reads an argument through a pointer. */
static bool reads_through(const struct dc_spec_probe *pr)
{
	for (int a = 0; a < pr->nargs; a++)
		if (pr->arg_read[a].hops || pr->arg_read[a].field[0])
			return true;
	return pr->nmore > 0;
}

/* Each probe names "provider:name" of a note in the target, and captures
 * no more arguments than the note has; so does its end. */
void check_usdt_group(struct dc_spec *spec, size_t gi)
{
	const struct dc_spec_group *g = &spec->groups[gi];
	struct dc_usdt_note *notes;
	size_t n;
	int err = dc_usdt_notes(g->path, &notes, &n);

	if (err) {
		target_error(spec, g, err, "not a 64-bit ELF file");
		return;
	}
	for (size_t i = 0; i < spec->nprobes; i++) {
		const struct dc_spec_probe *pr = &spec->probes[i];

		if (pr->group != gi)
			continue;
		if (reads_through(pr))
			spec_error(spec, &pr->loc,
				   "'%s': a USDT probe's arguments are taken "
				   "as its note gives them, none read through "
				   "a pointer (ROLE@N)",
				   pr->name);
		check_usdt_note(spec, g, notes, n, pr, pr->symbol,
				&pr->symbol_loc);
		/* The end takes the same arguments, in the same roles. */
		if (pr->end)
			check_usdt_note(spec, g, notes, n, pr, pr->end,
					&pr->end_loc);
	}
	free(notes);
}
