// SPDX-License-Identifier: MIT
/* The target pass: each library target resolved as the loader would, its
 * functions found in its ELF symbols (patterns expanded, aliases checked),
 * its USDT notes or POSIX AIO functions checked. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "libpath.h"
#include "paio.h"
#include "returns.h"
#include "spec_pass.h"

static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static bool listed(const struct dc_spec *spec, size_t group, const char *name)
{
	for (size_t i = 0; i < spec->nprobes; i++)
		if (spec->probes[i].group == group &&
		    !spec->probes[i].pattern &&
		    !strcmp(spec->probes[i].symbol, name))
			return true;
	return false;
}

/*
 * A probe named by a glob pattern ("app_step_*") stands for every function
 * of its target that matches, each traced with the pattern's roles. The
 * matches are added as probes of their own; a pattern matching nothing is
 * an error, since it is most likely a typo.
 */
static int expand_patterns(struct dc_spec *spec, size_t gi,
			   const struct dc_elf_syms *syms)
{
	size_t n = spec->nprobes;

	for (size_t i = 0; i < n; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];
		int matched = 0;

		if (pr->group != gi || !is_pattern(pr->symbol))
			continue;
		pr->pattern = true;
		for (size_t k = 0; k < syms->n; k++) {
			const struct dc_elf_sym *s = &syms->v[k];
			struct dc_spec_probe cp;

			if (fnmatch(spec->probes[i].symbol, s->name, 0) ||
			    s->ifunc || strlen(s->name) >= DC_SYMBOL_MAX ||
			    dc_returns_twice(s->name) ||
			    dc_never_returns(s->name) ||
			    listed(spec, gi, s->name))
				continue;
			cp = spec->probes[i];
			cp.pattern = false;
			cp.name = strdup(s->name);
			cp.symbol = strdup(s->name);
			cp.aliases = NULL;
			cp.naliases = 0;
			cp.proto = NULL;
			cp.feeds = NULL;
			if (!cp.name || !cp.symbol || grow_probes(spec)) {
				free(cp.name);
				free(cp.symbol);
				return -ENOMEM;
			}
			spec->probes[spec->nprobes++] = cp;
			matched++;
		}
		if (!matched)
			spec_error(spec, &spec->probes[i].symbol_loc,
				   "pattern '%s' matches no function of %s",
				   spec->probes[i].symbol,
				   spec->groups[gi].path);
	}
	return 0;
}

/* A path that is not absolute: taken from the current directory. */
static bool relative(const char *target)
{
	return target[0] != '/' && strchr(target, '/');
}

/* POSIX AIO requests are followed in the C library's functions that
 * submit them and hand back their results: the target has them all. */
static void check_paio_target(struct dc_spec *spec,
			      const struct dc_spec_group *g,
			      const struct dc_elf_syms *syms)
{
	for (int at = 0; at < DC_PAIO_AT_NR; at++) {
		if (dc_elf_syms_find(syms, dc_paio_function(at)))
			continue;
		spec_error(spec, &g->target_loc,
			   "target '%s' has no %s (%s): POSIX AIO requests "
			   "are followed in the C library that defines "
			   "aio_read, aio_write, aio_fsync, lio_listio and "
			   "aio_return",
			   g->target, dc_paio_function(at), g->path);
		return;
	}
}

int check_uprobes(struct dc_spec *spec)
{
	for (size_t gi = 0; gi < spec->ngroups; gi++) {
		struct dc_spec_group *g = &spec->groups[gi];
		struct dc_elf_syms syms;
		int err;

		if ((g->mech != DC_MECH_UPROBE && g->mech != DC_MECH_USDT &&
		     g->mech != DC_MECH_POSIXAIO) ||
		    !g->target)
			continue;
		err = dc_resolve_library(g->target, g->path, sizeof(g->path));
		if (err && spec->skip_missing) {
			fprintf(stderr,
				"%s:%d:%d: warning: target '%s' not installed; "
				"its probes are left out\n",
				g->target_loc.file, g->target_loc.line,
				g->target_loc.col, g->target);
			g->skipped = true;
			continue;
		}
		if (err && relative(g->target)) {
			spec_error(spec, &g->target_loc,
				   "target '%s' not found: a relative path is "
				   "taken from where datacrumbs-gen runs; "
				   "write the absolute path, or a soname",
				   g->target);
			continue;
		}
		if (err) {
			spec_error(spec, &g->target_loc,
				   "target '%s' not found (searched as the "
				   "dynamic loader does: LD_LIBRARY_PATH, "
				   "/etc/ld.so.cache, /lib, /usr/lib)",
				   g->target);
			continue;
		}
		if (relative(g->target))
			fprintf(stderr,
				"%s:%d:%d: note: target '%s' is %s from here; "
				"an absolute path keeps the spec the same "
				"wherever datacrumbs-gen runs\n",
				g->target_loc.file, g->target_loc.line,
				g->target_loc.col, g->target, g->path);
		if (g->mech == DC_MECH_USDT) {
			check_usdt_group(spec, gi);
			continue;
		}
		err = dc_elf_syms_load(g->path, &syms);
		if (err) {
			target_error(spec, g, err, "not an ELF file");
			continue;
		}
		if (g->mech == DC_MECH_POSIXAIO) {
			check_paio_target(spec, g, &syms);
			dc_elf_syms_free(&syms);
			continue;
		}
		if (expand_patterns(spec, gi, &syms)) {
			dc_elf_syms_free(&syms);
			return -ENOMEM;
		}
		for (size_t i = 0; i < spec->nprobes; i++) {
			struct dc_spec_probe *pr = &spec->probes[i];
			const struct dc_elf_sym *s;

			if (pr->group != gi || pr->pattern)
				continue;
			s = dc_elf_syms_find(&syms, pr->symbol);
			/* Defined in some builds only (HDF5's parallel
			 * I/O): the runtime probes it where a copy has it. */
			if (!s && pr->optional)
				continue;
			if (!s) {
				spec_error(
				    spec, &pr->symbol_loc,
				    "'%s' is not a function defined in %s (%s)",
				    pr->symbol, g->target, g->path);
				continue;
			}
			if (s->ifunc) {
				spec_error(
				    spec, &pr->symbol_loc,
				    "'%s' in %s is an IFUNC: its address is a "
				    "resolver run once at load time; probe the "
				    "implementation it selects instead",
				    pr->symbol, g->path);
				continue;
			}
			if (dc_returns_twice(pr->symbol)) {
				spec_error(
				    spec, &pr->symbol_loc,
				    "'%s' returns twice, like setjmp: a return "
				    "probe would send the later jump back to "
				    "the wrong frame and crash the program",
				    pr->symbol);
				continue;
			}
			pr->offset = s->offset;
			for (int a = 0; a < pr->naliases; a++) {
				const struct dc_elf_sym *as =
				    dc_elf_syms_find(&syms, pr->aliases[a]);

				if (!as || as->offset != s->offset)
					spec_error(
					    spec, &pr->aliases_loc,
					    "alias '%s' is %s '%s' in %s",
					    pr->aliases[a],
					    as ? "at another address than"
					       : "not a function alongside",
					    pr->symbol, g->path);
			}
		}
		dc_elf_syms_free(&syms);
	}
	return 0;
}
