// SPDX-License-Identifier: MIT
/* The kernel pass: tracepoints, io_uring and kernel functions against this
 * kernel's BTF and tracefs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kbtf.h"
#include "kuring.h"
#include "roles.h"
#include "spec_pass.h"
#include "tpformat.h"

/* The running kernel's BTF, opened once for the generator's life; NULL
 * when it has none. */
static const struct dc_kbtf *vmlinux_btf(void)
{
	static struct dc_kbtf vmlinux;
	static bool tried, ok;

	if (!tried) {
		tried = true;
		ok = !dc_kbtf_open(&vmlinux, DC_KBTF_PATH);
	}
	return ok ? &vmlinux : NULL;
}

static bool btf_has_tracepoint(const char *event)
{
	const struct dc_kbtf *vmlinux = vmlinux_btf();
	const char *name = strchr(event, '/');
	char t[128];

	if (!vmlinux || !name)
		return true; /* cannot tell: the runtime will */
	snprintf(t, sizeof(t), "btf_trace_%s", name + 1);
	return dc_kbtf_find(vmlinux, t, BTF_KIND_TYPEDEF) > 0;
}

/* io_uring requests are read at two tracepoints through BTF (tp_btf)
 * that pass the request: Linux 6.0 or newer. Without them, asking for
 * the group is an error; with --skip-missing it stays in the object, as
 * a tracepoint this kernel lacks does: the object may run on another
 * kernel, and one without them names io_uring in "unsupported". */
static bool has_uring_tracepoints(void)
{
	const struct dc_kbtf *vmlinux = vmlinux_btf();
	const char *submit;

	if (!vmlinux)
		return true; /* cannot tell: the runtime will */
	return dc_uring_shape(vmlinux, &submit) != DC_URING_NONE;
}

static void check_uring(struct dc_spec *spec)
{
	for (size_t gi = 0; gi < spec->ngroups; gi++) {
		struct dc_spec_group *g = &spec->groups[gi];

		if (g->mech != DC_MECH_IO_URING || has_uring_tracepoints())
			continue;
		if (spec->skip_missing) {
			fprintf(stderr,
				"%s:%d:%d: warning: this kernel has no "
				"io_uring tracepoints with BTF; the group is "
				"kept for kernels that have them\n",
				g->loc.file, g->loc.line, g->loc.col);
			continue;
		}
		spec_error(spec, &g->loc,
			   "this kernel has no io_uring tracepoints with "
			   "BTF (Linux 6.0 or newer); --skip-missing keeps "
			   "the group for kernels that have them");
	}
}

/* What this kernel says of @event: 0 with its format, -ENODEV when it has
 * it but tracefs cannot be read (fields unknown), -ENOENT when it lacks it. */
static int tp_format(const char *event, struct dc_tp_format *fmt)
{
	int err = dc_tp_format_read(event, fmt);

	if (err == -ENODEV && !btf_has_tracepoint(event))
		return -ENOENT;
	return err && err != -ENODEV ? -ENOENT : err;
}

/* A tracepoint this kernel lacks: an error, as a misspelt name would be;
 * with --skip-missing it stays in the object, for the kernels that have
 * it (the runtime reads its fields there and names it where it is not). */
static void tp_missing(struct dc_spec *spec, const struct dc_loc *loc,
		       const char *event, const struct dc_spec_probe *alts)
{
	char also[DC_TARGET_MAX] = "";

	for (int i = 0; alts && i < alts->nalts; i++)
		snprintf(also + strlen(also), sizeof(also) - strlen(also),
			 "%s'%s'", i ? ", " : " nor ", alts->alts[i]);
	if (spec->skip_missing)
		fprintf(stderr,
			"%s:%d:%d: warning: no tracepoint '%s'%s in this "
			"kernel; kept for the kernels that have it\n",
			loc->file, loc->line, loc->col, event, also);
	else
		spec_error(spec, loc,
			   "no tracepoint '%s'%s in this kernel "
			   "(--skip-missing keeps it for kernels that have it)",
			   event, also);
}

static void tp_check_fields(struct dc_spec *spec,
			    const struct dc_spec_probe *pr, const char *event,
			    const struct dc_tp_format *fmt, bool keys_only)
{
	for (int f = 0; !keys_only && f < pr->nfields; f++)
		if (!dc_tp_format_field(fmt, pr->fields[f]))
			spec_error(spec, &pr->fields_loc,
				   "'%s' has no field '%s'", event,
				   pr->fields[f]);
	for (int k = 0; k < pr->nkeys; k++)
		if (!dc_tp_format_field(fmt, pr->keys[k]))
			spec_error(spec, &pr->keys_loc,
				   "'%s' has no key field '%s'", event,
				   pr->keys[k]);
}

/*
 * The events exist and have the fields named; through tracefs when it is
 * readable, else (not root) the events through BTF and fields later. Of
 * an event and its stand-ins ('alt'), one must be here: the others are
 * for other kernels, and those here must have the fields too.
 */
static void check_tracepoints(struct dc_spec *spec)
{
	struct dc_tp_format *fmt = malloc(sizeof(*fmt));
	bool warned = false;

	if (!fmt) {
		spec->nerrors++;
		return;
	}
	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];
		bool found = false;
		int err;

		if (spec->groups[pr->group].mech != DC_MECH_TRACEPOINT ||
		    !pr->event)
			continue;
		for (int a = -1; a < pr->nalts; a++) {
			const char *ev = a < 0 ? pr->event : pr->alts[a];

			err = tp_format(ev, fmt);
			found |= err != -ENOENT;
			if (!err)
				tp_check_fields(spec, pr, ev, fmt, false);
			if (err == -ENODEV && !warned) {
				fprintf(stderr,
					"%s:%d:%d: warning: tracefs not "
					"readable: tracepoint fields are "
					"checked when the runtime loads\n",
					pr->event_loc.file, pr->event_loc.line,
					pr->event_loc.col);
				warned = true;
			}
		}
		if (!found)
			tp_missing(spec, &pr->event_loc, pr->event, pr);
		if (!pr->end)
			continue;
		err = tp_format(pr->end, fmt);
		if (err == -ENOENT)
			tp_missing(spec, &pr->end_loc, pr->end, NULL);
		else if (!err)
			tp_check_fields(spec, pr, pr->end, fmt, true);
	}
	free(fmt);
}

/* Kernel functions: named in the kernel's BTF; arguments are kernel
 * values, so roles that read user memory do not apply. */
static void check_kfuncs(struct dc_spec *spec)
{
	const struct dc_kbtf *vmlinux = vmlinux_btf();

	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];

		if (spec->groups[pr->group].mech != DC_MECH_KFUNC)
			continue;
		if (vmlinux &&
		    dc_kbtf_find(vmlinux, pr->symbol, BTF_KIND_FUNC) < 0)
			spec_error(
			    spec, &pr->symbol_loc,
			    "no kernel function '%s' in this kernel's BTF",
			    pr->symbol);
		for (int a = 0; a < pr->nargs; a++)
			if (dc_role_reads_user(pr->arg_role[a]) ||
			    pr->arg_read[a].hops)
				spec_error(spec, &pr->loc,
					   "role '%s%s' reads user memory: "
					   "not for kernel function '%s'",
					   dc_role_name(pr->arg_role[a]),
					   pr->arg_read[a].hops ? "@N" : "",
					   pr->symbol);
		if (pr->nmore)
			spec_error(spec, &pr->loc,
				   "role '%s@N' reads user memory: not for "
				   "kernel function '%s'",
				   dc_role_name(pr->more[0].role), pr->symbol);
	}
}

/* The order the checks had in dc_spec_check(), so errors print in it. */
int check_kernel(struct dc_spec *spec)
{
	check_uring(spec);
	check_tracepoints(spec);
	check_kfuncs(spec);
	return 0;
}
