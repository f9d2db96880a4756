// SPDX-License-Identifier: MIT
/* The feeds pass: an inner function feeding the call that encloses it. */
#include <string.h>

#include "roles.h"
#include "spec_pass.h"

/* Whether @pr has a role only a feeder passes on. */
static bool has_passed(const struct dc_spec_probe *pr)
{
	for (int a = 0; a < pr->nargs; a++)
		if (passed(pr->arg_role[a]))
			return true;
	for (int m = 0; m < pr->nmore; m++)
		if (passed(pr->more[m].role))
			return true;
	return false;
}

/* Give target @t the value @v a feeder passes it: one slot a role, read
 * the same way by every feeder at byte offsets; one reading fields by
 * name is for other builds of the library (runtime/fields.c). */
static void add_pass(struct dc_spec *spec, struct dc_spec_probe *pr,
		     struct dc_spec_probe *t, const struct dc_spec_slot *v)
{
	for (int k = 0; k < t->npass; k++) {
		if (t->pass[k].role != v->role)
			continue;
		if (!t->pass[k].read.field[0] && !v->read.field[0] &&
		    memcmp(&t->pass[k].read, &v->read, sizeof(v->read)))
			spec_error(spec, &pr->loc,
				   "'%s' gives '%s' %s read otherwise than "
				   "another function feeding it",
				   pr->name, t->name, dc_role_name(v->role));
		return;
	}
	if (t->npass < DC_CAPTURE)
		t->pass[t->npass++] = *v;
}

/*
 * A probe that feeds another is an inner function whose bytes (the
 * product of its quantities) belong to the enclosing call, and which may
 * hand it values (read now) or pointers (read when it returns): its
 * target is a function of the same spec that returns a status and has
 * slots free for them.
 */
int check_feeds(struct dc_spec *spec)
{
	for (size_t i = 0; i < spec->nprobes; i++) {
		struct dc_spec_probe *pr = &spec->probes[i];
		struct dc_spec_probe *t = NULL;
		int captured = 0, slots = 0, handed = 0;
		char known[64];

		if (spec->groups[pr->group].skipped)
			continue;
		if (!pr->feeds) {
			if (has_passed(pr))
				spec_error(spec, &pr->loc,
					   "'%s': " PASSED_ROLES " are given "
					   "by a function that feeds a call "
					   "('feeds')",
					   pr->name);
			continue;
		}
		if (spec->groups[pr->group].mech != DC_MECH_UPROBE) {
			spec_error(spec, &pr->feeds_loc,
				   "'feeds' is for functions of a library "
				   "(mechanism uprobe)");
			continue;
		}
		if (pr->pattern) {
			spec_error(spec, &pr->feeds_loc,
				   "a pattern cannot feed a call: name each "
				   "function");
			continue;
		}
		for (size_t j = 0; j < spec->nprobes && !t; j++)
			if (spec->probes[j].group == pr->group && j != i &&
			    !spec->probes[j].pattern &&
			    !strcmp(spec->probes[j].name, pr->feeds))
				t = &spec->probes[j];
		if (!t) {
			spec_error(spec, &pr->feeds_loc,
				   "'%s' feeds '%s', which is not a probe "
				   "of this spec",
				   pr->name, pr->feeds);
			continue;
		}
		while (t->alias_of >= 0)
			t = &spec->probes[t->alias_of];
		for (int a = 0; a < pr->nargs; a++) {
			int role = pr->arg_role[a];

			if (role != DC_ROLE_NONE &&
			    !dc_role_is_quantity(role) && !passed(role)) {
				dc_quantity_list(", ", known, sizeof(known));
				spec_error(spec, &pr->loc,
					   "'%s' feeds '%s': its arguments "
					   "must be factors of the bytes (%s) "
					   "or " PASSED_ROLES ", not '%s'",
					   pr->name, pr->feeds, known,
					   dc_role_name(role));
			} else if (passed(role)) {
				struct dc_spec_slot v = { role, a,
							  pr->arg_read[a] };

				add_pass(spec, pr, t, &v);
				handed++;
			} else if (role != DC_ROLE_NONE)
				slots++;
		}
		for (int m = 0; m < pr->nmore; m++) {
			if (passed(pr->more[m].role)) {
				add_pass(spec, pr, t, &pr->more[m]);
				handed++;
			} else
				slots++;
		}
		for (int a = 0; a < t->nargs; a++)
			captured += t->arg_role[a] != DC_ROLE_NONE;
		captured += t->nmore;
		if (!slots && !handed)
			spec_error(spec, &pr->loc,
				   "'%s' feeds '%s' but captures nothing to "
				   "count its bytes by",
				   pr->name, pr->feeds);
		if (t->feeds)
			spec_error(spec, &pr->feeds_loc,
				   "'%s' feeds '%s', which feeds another: "
				   "only a call with an event can be fed",
				   pr->name, pr->feeds);
		if (t->ret != DC_RET_STATUS)
			spec_error(spec, &pr->feeds_loc,
				   "'%s' feeds '%s', whose bytes come from "
				   "its return ('%s'); only a call that "
				   "returns a status can be fed",
				   pr->name, pr->feeds, dc_ret_name(t->ret));
		t->fed |= slots > 0;
		if (captured + t->fed + t->npass > DC_CAPTURE)
			spec_error(spec, &pr->feeds_loc,
				   "'%s' feeds '%s', which captures %d "
				   "arguments already: at most %d with what "
				   "its feeders give it",
				   pr->name, pr->feeds, captured,
				   DC_CAPTURE - t->fed - t->npass);
		pr->feeds_idx = (int)(t - spec->probes);
	}
	return 0;
}
