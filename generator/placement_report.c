// SPDX-License-Identifier: MIT
/*
 * What the runtime will do with each uprobe on this machine, said when
 * the object is made: which functions are traced at the syscall
 * tracepoint, which uprobes moved onto an instruction the kernel
 * emulates (past a frame's set-up when their return is seen at a site
 * of their own), and which stay on one it single-steps (ten times
 * dearer), as dc_spec_place() found it;
 * with --placement, each function's as JSON, for scripts/test.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fileio.h"
#include "json.h"
#include "log.h"
#include "placement_report.h"

/* Slow functions named without -v. */
#define SLOW_SHOWN 8

struct tally {
	size_t sys, moved, first, slow, split;
};

/* One function's placement, a JSON object of --placement's array. */
static void add_json(struct dc_buf *js, const struct dc_spec_group *grp,
		     const char *name, const char *how, const char *why)
{
	dc_buf_addf(js, "%s{\"layer\":", js->len > 1 ? ",\n" : "");
	dc_json_str(js, grp->layer, strlen(grp->layer));
	dc_buf_add(js, ",\"target\":", 10);
	dc_json_str(js, grp->target, strlen(grp->target));
	dc_buf_add(js, ",\"name\":", 8);
	dc_json_str(js, name, strlen(name));
	dc_buf_addf(js, ",\"placement\":\"%s\",\"why\":", how);
	dc_json_str(js, why ? why : "", why ? strlen(why) : 0);
	dc_buf_add(js, "}", 1);
}

static void place_group(const struct dc_spec *spec, size_t g, bool verbose,
			struct dc_buf *js)
{
	const struct dc_spec_group *grp = &spec->groups[g];
	struct tally t = { 0 };
	bool any = false;
	size_t shown = 0;

	for (size_t i = 0; i < spec->nprobes; i++) {
		const struct dc_spec_probe *p = &spec->probes[i];
		const struct dc_spec_place *pl = &p->place;

		if (p->group != g || !pl->known)
			continue;
		any = true;
		if (js)
			add_json(js, grp, p->name,
				 pl->via_sys	 ? "syscall"
				 : pl->pp.slow	 ? "single-stepped"
				 : pl->pp.ret_at ? "return-site"
				 : pl->pp.skip	 ? "moved"
						 : "first",
				 pl->via_sys   ? NULL
				 : pl->pp.slow ? pl->pp.why
					       : pl->not_sys);
		if (pl->via_sys) {
			t.sys++;
		} else if (!pl->pp.slow) {
			pl->pp.skip ? t.moved++ : t.first++;
			t.split += pl->pp.ret_at != 0;
		} else {
			if (verbose || shown < SLOW_SHOWN) {
				dc_info("  %s %s: single-stepped at %s",
					grp->layer, p->name, pl->pp.why);
				shown++;
			}
			t.slow++;
		}
	}
	if (!any)
		return; /* dc_spec_place() said why */
	if (t.slow > shown && !verbose)
		dc_info("  ... and %zu more (-v lists them)", t.slow - shown);
	dc_info("%s (%s): %zu at the syscall tracepoint, %zu uprobes on an "
		"emulated instruction (%zu moved past their first, %zu of "
		"them past a frame's set-up with a return site), %zu "
		"single-stepped",
		grp->layer, grp->target, t.sys, t.moved + t.first, t.moved,
		t.split, t.slow);
}

int dc_report_placement(const struct dc_spec *spec, bool verbose,
			const char *json)
{
	struct dc_buf js = {};
	int err = 0;

	if (json)
		dc_buf_add(&js, "[", 1);
	for (size_t g = 0; g < spec->ngroups; g++)
		if (spec->groups[g].mech == DC_MECH_UPROBE &&
		    !spec->groups[g].skipped)
			place_group(spec, g, verbose, json ? &js : NULL);
	if (json) {
		dc_buf_add(&js, "]\n", 2);
		err = js.p ? dc_write_atomic(json, js.p, js.len) : -ENOMEM;
		if (err)
			dc_err("cannot write %s: %s", json, strerror(-err));
	}
	dc_buf_free(&js);
	return err;
}
