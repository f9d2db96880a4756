// SPDX-License-Identifier: MIT
/* A probe's 'args' (the role of each argument and how it is read) and the
 * lists of names of a tracepoint probe. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "roles.h"
#include "spec.h"
#include "spec_pass.h"
#include "spec_yaml.h"

/* What a list of names in a spec holds: a tracepoint's fields, or the
 * events standing in for its 'event'. */
struct name_list {
	const char *item;  /* what one is, "field name" */
	const char *items; /* and many, "fields" */
	bool (*valid)(const char *s);
	const char *how; /* what a valid one looks like, or "" */
};

static bool valid_field(const char *s)
{
	return valid_ident(s, DC_FIELD_MAX);
}

const struct name_list FIELDS = { "field name", "fields", valid_field, "" };
const struct name_list EVENTS = {
	"tracepoint", "tracepoints", valid_event,
	": give it as group/name, e.g. writeback/writeback_dirty_page"
};

/* A list 'what' of at most @max names of kind @k. */
int parse_names(struct parse *p, yaml_node_t *n, const char *what,
		const struct name_list *k, char **out, int max, int *count,
		struct dc_loc *loc)
{
	char an[32];

	*loc = loc_of(p, n);
	if (n->type != YAML_SEQUENCE_NODE) {
		spec_error(p->spec, loc, "'%s' must be a list of %ss, not %s",
			   what, k->item, node_kind(n));
		return -EINVAL;
	}
	snprintf(an, sizeof(an), "a %s", k->item);
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(p->doc, *it);
		struct dc_loc aloc = loc_of(p, a);
		const char *v = scalar(p, a, an);

		if (!v)
			return -EINVAL;
		if (*count == max) {
			spec_error(p->spec, &aloc, "'%s' takes at most %d %s",
				   what, max, k->items);
			return -EINVAL;
		}
		if (!k->valid(v)) {
			spec_error(p->spec, &aloc, "'%s' is not a %s%s", v,
				   k->item, k->how);
			return -EINVAL;
		}
		out[*count] = strdup(v);
		if (!out[(*count)++])
			return -ENOMEM;
	}
	return 0;
}
/* A value at field @f, "TYPE.member[.member...]" of what the argument
 * points to, or through pointers, "...@TYPE.member...": each further
 * field in the structure the one before points to. Their offsets are
 * found in each copy's DWARF. */
static int parse_field(struct parse *p, const struct dc_loc *loc, const char *v,
		       const char *f, struct dc_spec_read *rd)
{
	size_t n = strlen(f);
	int hops = 0;

	for (const char *s = f;; s++) {
		size_t len = strcspn(s, "@");
		const char *dot = memchr(s, '.', len);

		if (!dot || dot == s || s[len - 1] == '.' ||
		    memmem(s, len, "..", 2) ||
		    strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTU"
			      "VWXYZ0123456789_.") != len) {
			spec_error(p->spec, loc,
				   "'%s': a field is TYPE.member[.member...], "
				   "and each pointer it is read through "
				   "adds @TYPE.member...",
				   v);
			return -EINVAL;
		}
		if (++hops > DC_HOPS) {
			spec_error(p->spec, loc,
				   "'%s': too many '@': a field is read "
				   "through up to %d pointers",
				   v, DC_HOPS);
			return -EINVAL;
		}
		s += len;
		if (!*s)
			break;
	}
	if (n >= sizeof(rd->field)) {
		spec_error(p->spec, loc,
			   "'%s': a field path must be shorter than %d "
			   "characters",
			   v, DC_FIELD_PATH_MAX);
		return -EINVAL;
	}
	memcpy(rd->field, f, n + 1);
	rd->hops = hops;
	return 0;
}

/* The byte offsets "@A@B..." from @at (NULL: none) into @off, *@n of
 * them: 0, -ERANGE for one not a count from 0 to 4088, -E2BIG past
 * DC_HOPS. */
static int parse_offsets(const char *at, int *off, int *n)
{
	while (at) {
		char *end;
		long o;

		errno = 0;
		o = strtol(at + 1, &end, 10);
		if (end == at + 1 || (*end && *end != '@') || errno || o < 0 ||
		    o > 4088)
			return -ERANGE;
		if (*n == DC_HOPS)
			return -E2BIG;
		off[(*n)++] = (int)o;
		at = *end ? end : NULL;
	}
	return 0;
}

/* "ROLE", "ROLE@N" (the word at byte N of what the argument points to),
 * "ROLE@N@M..." (through a pointer at each byte) or "ROLE@TYPE.member"
 * and "ROLE@TYPE.member@TYPE.member..." (at those fields, wherever a
 * copy's DWARF puts them);
 * returns the role, or -EINVAL after saying what is wrong. */
static int parse_role(struct parse *p, const struct dc_loc *loc, const char *v,
		      struct dc_spec_read *rd)
{
	char name[32], known[256];
	const char *at = strchr(v, '@');
	size_t n = at ? (size_t)(at - v) : strlen(v);
	int role = -1, err;

	if (n < sizeof(name)) {
		memcpy(name, v, n);
		name[n] = '\0';
		role = dc_role_parse(name);
	}
	if (role < 0 || role == DC_ROLE_FED) {
		dc_role_list(known, sizeof(known));
		spec_error(p->spec, loc,
			   "unknown argument role '%s' (known: %s)", v, known);
		return -EINVAL;
	}
	memset(rd, 0, sizeof(*rd));
	if (!at && passed(role)) {
		spec_error(p->spec, loc,
			   "'%s' is read through a pointer: give the byte "
			   "offset of each hop (%s@OFFSET@OFFSET)",
			   v, name);
		return -EINVAL;
	}
	if (!at)
		return role;
	if (!dc_role_is_quantity(role) && !passed(role)) {
		dc_quantity_list(", ", known, sizeof(known));
		spec_error(p->spec, loc,
			   "'%s': only %s, " PASSED_ROLES " can be read "
			   "through a pointer (ROLE@OFFSET)",
			   v, known);
		return -EINVAL;
	}
	if (at[1] < '0' || at[1] > '9')
		return parse_field(p, loc, v, at + 1, rd) ?: role;
	err = parse_offsets(at, rd->off, &rd->hops);
	if (err == -ERANGE)
		spec_error(p->spec, loc,
			   "'%s': the offset after '@' must be a byte count "
			   "from 0 to 4088",
			   v);
	else if (err)
		spec_error(p->spec, loc,
			   "'%s': too many '@': a value is read through up "
			   "to %d pointers",
			   v, DC_HOPS);
	return err ? -EINVAL : role;
}

/* "READ|N@A@B...": READ as parse_role() takes it, and where the argument
 * is NULL, argument N read through the pointers at A, B... in its
 * place (HDF5 passes NULL for H5S_ALL: the dataset's own dataspace). */
static int parse_read(struct parse *p, const struct dc_loc *loc, const char *v,
		      struct dc_spec_read *rd)
{
	const char *bar = strchr(v, '|');
	char left[128];
	int role;
	long n;
	char *end;

	if (!bar)
		return parse_role(p, loc, v, rd);
	if ((size_t)(bar - v) >= sizeof(left)) {
		spec_error(p->spec, loc, "'%s': too long", v);
		return -EINVAL;
	}
	memcpy(left, v, (size_t)(bar - v));
	left[bar - v] = '\0';
	role = parse_role(p, loc, left, rd);
	if (role < 0)
		return role;
	errno = 0;
	n = strtol(bar + 1, &end, 10);
	if (end == bar + 1 || (*end && *end != '@') || errno || n < 0 ||
	    n >= DC_MAX_ARGS || rd->field[0] || !rd->hops) {
		spec_error(p->spec, loc,
			   "'%s': after '|' comes the argument (0 to %d) "
			   "read in place of a NULL one, then its '@' "
			   "offsets; the value before it is read through a "
			   "pointer at byte offsets (ROLE@OFFSET|N@OFFSET)",
			   v, DC_MAX_ARGS - 1);
		return -EINVAL;
	}
	rd->if_null = true;
	rd->null_arg = (int)n;
	if (parse_offsets(*end ? end : NULL, rd->null_off, &rd->null_hops)) {
		spec_error(p->spec, loc,
			   "'%s': after '|', up to %d offsets of 0 to 4088 "
			   "bytes",
			   v, DC_HOPS);
		return -EINVAL;
	}
	return role;
}

/* More roles of argument @arg, given as a list: values read through it
 * each its own way. */
static int parse_more(struct parse *p, yaml_node_t *n, struct dc_spec_probe *pr,
		      int arg, int *captured)
{
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(p->doc, *it);
		struct dc_loc aloc = loc_of(p, a);
		struct dc_spec_slot *m = &pr->more[pr->nmore];
		const char *v = scalar(p, a, "an argument role");
		int role;

		if (!v)
			return -EINVAL;
		if (++*captured > DC_CAPTURE) {
			spec_error(p->spec, &aloc,
				   "at most %d arguments can be captured",
				   DC_CAPTURE);
			return -EINVAL;
		}
		role = parse_read(p, &aloc, v, &m->read);
		if (role < 0)
			return -EINVAL;
		if (!m->read.hops) {
			spec_error(p->spec, &aloc,
				   "'%s': an argument given several roles "
				   "is read through a pointer by each "
				   "(ROLE@OFFSET)",
				   v);
			return -EINVAL;
		}
		m->role = role;
		m->arg = arg;
		pr->nmore++;
	}
	return 0;
}

/* A probe reading fields by name reads nothing at byte offsets: a copy
 * of the library gives the one or the other (runtime/fields.c). */
static int fields_alone(struct parse *p, const struct dc_loc *loc,
			const struct dc_spec_probe *pr)
{
	int named = 0, numbered = 0;

	for (int i = 0; i < pr->nargs; i++) {
		named += pr->arg_read[i].field[0] != '\0';
		numbered += pr->arg_read[i].hops && !pr->arg_read[i].field[0];
	}
	for (int i = 0; i < pr->nmore; i++) {
		named += pr->more[i].read.field[0] != '\0';
		numbered += pr->more[i].read.hops && !pr->more[i].read.field[0];
	}
	if (named && numbered) {
		spec_error(p->spec, loc,
			   "a probe reads fields by name (ROLE@TYPE.member) "
			   "or at byte offsets (ROLE@N), not both");
		return -EINVAL;
	}
	return 0;
}

/* The capture table has room for one read in place of a NULL argument
 * a probe. */
static int one_if_null(struct parse *p, const struct dc_loc *loc,
		       const struct dc_spec_probe *pr)
{
	int n = 0;

	for (int i = 0; i < pr->nargs; i++)
		n += pr->arg_read[i].if_null;
	for (int i = 0; i < pr->nmore; i++)
		n += pr->more[i].read.if_null;
	if (n > 1) {
		spec_error(p->spec, loc,
			   "only one value of a probe may be read in place "
			   "of a NULL argument ('|')");
		return -EINVAL;
	}
	return 0;
}

int parse_args(struct parse *p, yaml_node_t *n, struct dc_spec_probe *pr)
{
	struct dc_loc loc = loc_of(p, n);
	int captured = 0, paths = 0, texts = 0;

	if (n->type != YAML_SEQUENCE_NODE) {
		spec_error(p->spec, &loc,
			   "'args' must be a list of roles, not %s",
			   node_kind(n));
		return -EINVAL;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(p->doc, *it);
		struct dc_loc aloc = loc_of(p, a);
		const char *v;
		int role;

		if (pr->nargs == DC_MAX_ARGS) {
			spec_error(p->spec, &aloc,
				   "too many arguments: at most %d",
				   DC_MAX_ARGS);
			return -EINVAL;
		}
		role = DC_ROLE_NONE;
		memset(&pr->arg_read[pr->nargs], 0, sizeof(pr->arg_read[0]));
		if (a->type == YAML_SEQUENCE_NODE) {
			if (parse_more(p, a, pr, pr->nargs, &captured))
				return -EINVAL;
			pr->arg_role[pr->nargs++] = DC_ROLE_NONE;
			continue;
		}
		if (!is_null(a)) {
			v = scalar(p, a, "an argument role");
			if (!v)
				return -EINVAL;
			role =
			    parse_read(p, &aloc, v, &pr->arg_read[pr->nargs]);
			if (role < 0)
				return -EINVAL;
		}
		if (role != DC_ROLE_NONE && ++captured > DC_CAPTURE) {
			spec_error(p->spec, &aloc,
				   "at most %d arguments can be captured",
				   DC_CAPTURE);
			return -EINVAL;
		}
		if (dc_role_is_path(role) && ++paths > 1) {
			spec_error(p->spec, &aloc,
				   "only one argument can have the role "
				   "'path' or 'name'");
			return -EINVAL;
		}
		/* The strings an event carries: one path or name, or a
		 * function's name and its source file. */
		if ((role == DC_ROLE_FUNC && (texts & 1)) ||
		    (role == DC_ROLE_SRCFILE && (texts & 2)) ||
		    ((role == DC_ROLE_FUNC || role == DC_ROLE_SRCFILE) &&
		     paths) ||
		    ((role == DC_ROLE_PATH || role == DC_ROLE_NAME) && texts)) {
			spec_error(p->spec, &aloc,
				   "a probe's strings are one 'path' or "
				   "'name', or one 'func' and one "
				   "'srcfile'");
			return -EINVAL;
		}
		texts |= role == DC_ROLE_FUNC	   ? 1
			 : role == DC_ROLE_SRCFILE ? 2
						   : 0;
		pr->arg_role[pr->nargs++] = role;
	}
	return fields_alone(p, &loc, pr) ?: one_if_null(p, &loc, pr);
}
