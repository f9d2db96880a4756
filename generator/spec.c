// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "buf.h"
#include "elfsym.h"
#include "fileio.h"
#include "log.h"
#include "roles.h"
#include "spec.h"
#include "spec_pass.h"
#include "spec_yaml.h"

/* The key of mapping @m's pair @kv, or NULL after an error: not a string,
 * or a key given twice (YAML forbids it, and the second would silently
 * replace the first). */
static const char *key_of(struct parse *p, yaml_node_t *m, yaml_node_pair_t *kv)
{
	yaml_node_t *k = yaml_document_get_node(p->doc, kv->key);
	const char *key = scalar(p, k, "a key");

	for (yaml_node_pair_t *o = m->data.mapping.pairs.start; key && o < kv;
	     o++) {
		yaml_node_t *ok = yaml_document_get_node(p->doc, o->key);
		struct dc_loc loc = loc_of(p, k);

		if (ok->type == YAML_SCALAR_NODE &&
		    !strcmp((const char *)ok->data.scalar.value, key)) {
			spec_error(p->spec, &loc,
				   "duplicate key '%s' (first at line %d)", key,
				   (int)ok->start_mark.line + 1);
			return NULL;
		}
	}
	return key;
}

/* Any name a user would recognise; it is escaped wherever it is written. */
static bool valid_name(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			return false;
	return true;
}

static int parse_aliases(struct parse *p, yaml_node_t *n,
			 struct dc_spec_probe *pr)
{
	struct dc_loc loc = loc_of(p, n);
	size_t count;

	if (n->type != YAML_SEQUENCE_NODE) {
		spec_error(p->spec, &loc,
			   "'aliases' must be a list of names, not %s",
			   node_kind(n));
		return -EINVAL;
	}
	pr->aliases_loc = loc;
	count = n->data.sequence.items.top - n->data.sequence.items.start;
	pr->aliases = calloc(count ? count : 1, sizeof(*pr->aliases));
	if (!pr->aliases)
		return -ENOMEM;
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *a = yaml_document_get_node(p->doc, *it);
		struct dc_loc aloc = loc_of(p, a);
		const char *v = scalar(p, a, "an alias");

		if (!v)
			return -EINVAL;
		if (!valid_ident(v, DC_SYMBOL_MAX)) {
			spec_error(p->spec, &aloc,
				   "alias '%s' is not a symbol name", v);
			return -EINVAL;
		}
		pr->aliases[pr->naliases] = strdup(v);
		if (!pr->aliases[pr->naliases++])
			return -ENOMEM;
	}
	return 0;
}

/* What a tracepoint probe needs, as far as the file alone can tell. */
static void check_tracepoint_probe(struct dc_spec *spec,
				   const struct dc_spec_probe *pr)
{
	bool found = !pr->size_field;

	if (!pr->event)
		spec_error(spec, &pr->loc,
			   "tracepoint probe has no 'event' (group/name)");
	if (pr->nargs || pr->ret != DC_RET_STATUS)
		spec_error(
		    spec, &pr->loc,
		    "a tracepoint probe takes 'fields', not 'args' or 'ret'");
	for (int s = 0; s < 2; s++) {
		const char *ev = s ? pr->end : pr->event;

		if (ev && !valid_event(ev))
			spec_error(spec, s ? &pr->end_loc : &pr->event_loc,
				   "'%s' is not a tracepoint: give it as "
				   "group/name, e.g. block/block_rq_issue",
				   ev);
	}
	if (pr->end && !pr->nkeys)
		spec_error(spec, &pr->end_loc,
			   "'end' needs a 'key': the fields that match an "
			   "event to its end");
	if (!pr->end && pr->nkeys)
		spec_error(spec, &pr->keys_loc, "'key' is only for 'end'");
	for (int i = 0; i < pr->nfields && !found; i++)
		found = !strcmp(pr->fields[i], pr->size_field);
	if (!found)
		spec_error(spec, &pr->size_loc,
			   "'size' must name one of the 'fields'");
}

/* Doubling: specs of 100,000 probes (a C++ library) grow in a few steps. */
int grow_probes(struct dc_spec *spec)
{
	return dc_grow_cap((void **)&spec->probes, &spec->cap, spec->nprobes,
			   sizeof(*spec->probes), 64);
}

static void free_probe(struct dc_spec_probe *pr)
{
	free(pr->name);
	free(pr->symbol);
	free(pr->proto);
	free(pr->event);
	free(pr->end);
	free(pr->size_field);
	free(pr->feeds);
	for (int i = 0; i < pr->nalts; i++)
		free(pr->alts[i]);
	for (int i = 0; i < pr->nfields; i++)
		free(pr->fields[i]);
	for (int i = 0; i < pr->nkeys; i++)
		free(pr->keys[i]);
	for (int i = 0; i < pr->naliases; i++)
		free(pr->aliases[i]);
	free(pr->aliases);
}

static char *dup_or_fail(struct parse *p, const char *s)
{
	char *d = strdup(s);

	if (!d)
		p->spec->nerrors++;
	return d;
}

/*
 * "builds": GNU build-ids (hex) of other builds of the target whose
 * private structures are laid out as the generator's file's, so the
 * runtime may read them there too. Joined with commas, or NULL after an
 * error.
 */
static char *build_ids(struct parse *p, yaml_node_t *n)
{
	struct dc_loc loc = loc_of(p, n);
	struct dc_buf ids = {};

	if (n->type != YAML_SEQUENCE_NODE) {
		spec_error(p->spec, &loc,
			   "'builds' must be a list of GNU build-ids, not %s",
			   node_kind(n));
		return NULL;
	}
	for (yaml_node_item_t *it = n->data.sequence.items.start;
	     it < n->data.sequence.items.top; it++) {
		yaml_node_t *e = yaml_document_get_node(p->doc, *it);
		struct dc_loc eloc = loc_of(p, e);
		const char *v = scalar(p, e, "a build-id");
		size_t len = v ? strlen(v) : 0;

		if (!v)
			continue;
		if (len < 2 || len % 2 || len > 2 * DC_BUILD_ID_SIZE ||
		    strspn(v, "0123456789abcdef") != len) {
			spec_error(
			    p->spec, &eloc,
			    "build-id '%s' must be an even number (2-%d) "
			    "of lowercase hex digits, as readelf -n "
			    "prints it",
			    v, 2 * DC_BUILD_ID_SIZE);
			continue;
		}
		if (dc_buf_addf(&ids, "%s%s", ids.len ? "," : "", v))
			p->spec->nerrors++;
	}
	if (ids.len >= DC_BUILDS_MAX) {
		spec_error(p->spec, &loc, "'builds' is longer than %d bytes",
			   DC_BUILDS_MAX - 1);
		dc_buf_free(&ids);
	}
	return ids.p;
}

static bool has_role(const struct dc_spec_probe *pr, int role)
{
	for (int i = 0; i < pr->nargs; i++)
		if (pr->arg_role[i] == role)
			return true;
	return false;
}

/* An effect names what it acts on by the probe's roles. */
static void check_effect(struct dc_spec *spec, const struct dc_spec_probe *pr)
{
	if (pr->effect == DC_EFFECT_CLOSE && !has_role(pr, DC_ROLE_FD) &&
	    !has_role(pr, DC_ROLE_STREAM) && !has_role(pr, DC_ROLE_HANDLE) &&
	    !has_role(pr, DC_ROLE_HANDLE_REF))
		spec_error(spec, &pr->effect_loc,
			   "'effect: close' needs an argument with the role "
			   "'fd', 'stream', 'handle' or 'handle_ref': what it "
			   "closes");
	if (pr->effect == DC_EFFECT_DUP &&
	    (!has_role(pr, DC_ROLE_FD) || !has_role(pr, DC_ROLE_FLAGS)))
		spec_error(spec, &pr->effect_loc,
			   "'effect: dup' needs arguments with the roles 'fd' "
			   "and 'flags' (fcntl's descriptor and command)");
}

static int add_probe(struct parse *p, yaml_node_t *n, size_t group)
{
	struct dc_spec *spec = p->spec;
	struct dc_spec_probe pr = { .ret = DC_RET_STATUS,
				    .group = group,
				    .alias_of = -1,
				    .feeds_idx = -1 };
	bool tp = spec->groups[group].mech == DC_MECH_TRACEPOINT;
	bool usdt = spec->groups[group].mech == DC_MECH_USDT;
	yaml_node_t *name_node = NULL;
	const char *v;
	int errs = spec->nerrors;

	pr.loc = loc_of(p, n);
	if (n->type != YAML_MAPPING_NODE) {
		spec_error(
		    spec, &pr.loc,
		    "a probe must be a mapping with at least 'name', not %s",
		    node_kind(n));
		return -EINVAL;
	}
	for (yaml_node_pair_t *kv = n->data.mapping.pairs.start;
	     kv < n->data.mapping.pairs.top; kv++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, kv->key);
		yaml_node_t *val = yaml_document_get_node(p->doc, kv->value);
		struct dc_loc kloc = loc_of(p, k);
		const char *key = key_of(p, n, kv);

		if (!key)
			continue;
		if (!strcmp(key, "name")) {
			name_node = val;
			if ((v = scalar(p, val, "'name'")))
				pr.name = dup_or_fail(p, v);
		} else if (!strcmp(key, "symbol")) {
			pr.symbol_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'symbol'")))
				pr.symbol = dup_or_fail(p, v);
		} else if (!strcmp(key, "args")) {
			parse_args(p, val, &pr);
		} else if (!strcmp(key, "aliases")) {
			if (parse_aliases(p, val, &pr) == -ENOMEM)
				spec->nerrors++;
		} else if (!tp && !usdt && !strcmp(key, "optional")) {
			struct dc_loc vloc = loc_of(p, val);

			if (!(v = scalar(p, val, "'optional'")))
				continue;
			if (strcmp(v, "true") && strcmp(v, "false"))
				spec_error(spec, &vloc,
					   "'optional' must be true or false, "
					   "not '%s'",
					   v);
			pr.optional = !strcmp(v, "true");
		} else if (!tp && !strcmp(key, "feeds")) {
			pr.feeds_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'feeds'")))
				pr.feeds = dup_or_fail(p, v);
		} else if (tp && !strcmp(key, "event")) {
			pr.event_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'event'")))
				pr.event = dup_or_fail(p, v);
		} else if ((tp || usdt) && !strcmp(key, "end")) {
			pr.end_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'end'")))
				pr.end = dup_or_fail(p, v);
		} else if (tp && !strcmp(key, "size")) {
			pr.size_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'size'")))
				pr.size_field = dup_or_fail(p, v);
		} else if (tp && !strcmp(key, "fields")) {
			if (parse_names(p, val, "fields", &FIELDS, pr.fields,
					DC_CAPTURE, &pr.nfields,
					&pr.fields_loc) == -ENOMEM)
				spec->nerrors++;
		} else if (tp && !strcmp(key, "alt")) {
			if (parse_names(p, val, "alt", &EVENTS, pr.alts,
					DC_TP_ALTS, &pr.nalts,
					&pr.alt_loc) == -ENOMEM)
				spec->nerrors++;
		} else if (tp && !strcmp(key, "key")) {
			if (parse_names(p, val, "key", &FIELDS, pr.keys,
					DC_TP_KEYS, &pr.nkeys,
					&pr.keys_loc) == -ENOMEM)
				spec->nerrors++;
		} else if (!strcmp(key, "proto")) {
			if ((v = scalar(p, val, "'proto'")))
				pr.proto = dup_or_fail(p, v);
		} else if (!tp && !strcmp(key, "effect")) {
			pr.effect_loc = loc_of(p, val);
			if ((v = scalar(p, val, "'effect'"))) {
				char known[64];

				pr.effect = dc_effect_parse(v);
				dc_effect_list(known, sizeof(known));
				if (pr.effect < 0)
					spec_error(spec, &pr.effect_loc,
						   "unknown effect '%s' "
						   "(known: %s)",
						   v, known);
			}
		} else if (!strcmp(key, "ret")) {
			struct dc_loc vloc = loc_of(p, val);

			if ((v = scalar(p, val, "'ret'"))) {
				char known[256];

				pr.ret = dc_ret_parse(v);
				dc_ret_list(known, sizeof(known));
				if (pr.ret < 0)
					spec_error(spec, &vloc,
						   "unknown return role '%s' "
						   "(known: %s)",
						   v, known);
			}
		} else {
			spec_error(
			    spec, &kloc,
			    "unknown key '%s' in a probe (known: %s)", key,
			    tp	   ? "name, event, alt, end, key, fields, size"
			    : usdt ? "name, symbol, end, aliases, args, "
				     "ret, effect, feeds, proto"
				   : "name, symbol, aliases, args, ret, "
				     "effect, feeds, optional, proto");
		}
	}
	if (!name_node)
		spec_error(spec, &pr.loc, "probe has no 'name'");
	if (tp)
		check_tracepoint_probe(spec, &pr);
	else if (pr.name && !valid_name(pr.name, DC_SYMBOL_MAX)) {
		struct dc_loc nloc = loc_of(p, name_node);

		spec_error(spec, &nloc,
			   "probe name must be 1-%d characters without "
			   "control characters",
			   DC_SYMBOL_MAX - 1);
	}
	if (!pr.symbol && pr.name) {
		pr.symbol = dup_or_fail(p, pr.name);
		pr.symbol_loc = name_node ? loc_of(p, name_node) : pr.loc;
	} else if (pr.symbol && !valid_ident(pr.symbol, DC_SYMBOL_MAX)) {
		spec_error(spec, &pr.symbol_loc,
			   "symbol '%.80s' must be 1-%d characters of letters, "
			   "digits, '_', '.' or '@'",
			   pr.symbol, DC_SYMBOL_MAX - 1);
	}
	if (pr.effect > 0)
		check_effect(spec, &pr);
	if (pr.end && usdt && !valid_ident(pr.end, DC_SYMBOL_MAX))
		spec_error(spec, &pr.end_loc,
			   "'end' must name a USDT probe as provider:name");
	if (spec->nerrors != errs) {
		free_probe(&pr);
		return -EINVAL;
	}
	if (grow_probes(spec)) {
		free_probe(&pr);
		return -ENOMEM;
	}
	spec->probes[spec->nprobes++] = pr;
	return 0;
}

static int add_group(struct parse *p, yaml_node_t *root)
{
	struct dc_spec *spec = p->spec;
	struct dc_spec_group g = { .mech = -1 };
	yaml_node_t *probes = NULL, *mech_node = NULL;
	size_t gi = spec->ngroups;
	int errs = spec->nerrors;
	const char *v;

	g.loc = loc_of(p, root);
	if (root->type != YAML_MAPPING_NODE) {
		spec_error(spec, &g.loc,
			   "a spec must be a mapping with 'layer', "
			   "'mechanism' and 'probes', not %s",
			   node_kind(root));
		return -EINVAL;
	}
	for (yaml_node_pair_t *kv = root->data.mapping.pairs.start;
	     kv < root->data.mapping.pairs.top; kv++) {
		yaml_node_t *k = yaml_document_get_node(p->doc, kv->key);
		yaml_node_t *val = yaml_document_get_node(p->doc, kv->value);
		struct dc_loc kloc = loc_of(p, k), vloc = loc_of(p, val);
		const char *key = key_of(p, root, kv);

		if (!key)
			continue;
		if (!strcmp(key, "layer")) {
			if (!(v = scalar(p, val, "'layer'")))
				continue;
			if (!valid_ident(v, DC_LAYER_MAX))
				spec_error(
				    spec, &vloc,
				    "layer '%s' must be 1-%d characters of "
				    "letters, digits, '_' or '.'",
				    v, DC_LAYER_MAX - 1);
			else
				g.layer = dup_or_fail(p, v);
		} else if (!strcmp(key, "mechanism")) {
			mech_node = val;
			if (!(v = scalar(p, val, "'mechanism'")))
				continue;
			g.mech = dc_mech_parse(v);
			if (g.mech <= 0) {
				char known[128];

				dc_mech_list(known, sizeof(known));
				spec_error(spec, &vloc,
					   "unknown mechanism '%s' (known: "
					   "%s)",
					   v, known);
			}
		} else if (!strcmp(key, "target")) {
			g.target_loc = vloc;
			if ((v = scalar(p, val, "'target'")))
				g.target = dup_or_fail(p, v);
		} else if (!strcmp(key, "builds")) {
			g.builds_loc = vloc;
			g.builds = build_ids(p, val);
		} else if (!strcmp(key, "probes")) {
			probes = val;
		} else {
			spec_error(spec, &kloc,
				   "unknown key '%s' (known: layer, "
				   "mechanism, target, builds, probes)",
				   key);
		}
	}
	if (!g.layer && spec->nerrors == errs)
		spec_error(spec, &g.loc, "spec has no 'layer'");
	if (!mech_node)
		spec_error(spec, &g.loc, "spec has no 'mechanism'");
	if ((g.mech == DC_MECH_UPROBE || g.mech == DC_MECH_USDT ||
	     g.mech == DC_MECH_POSIXAIO) &&
	    !g.target)
		spec_error(spec, &g.loc,
			   "mechanism '%s' needs a 'target' library or binary",
			   dc_mech_name(g.mech));
	if ((g.mech == DC_MECH_SYSCALL || g.mech == DC_MECH_KFUNC ||
	     g.mech == DC_MECH_TRACEPOINT || g.mech == DC_MECH_IO_URING ||
	     g.mech == DC_MECH_LIBAIO) &&
	    g.target)
		spec_error(spec, &g.target_loc,
			   "mechanism '%s' takes no 'target'",
			   dc_mech_name(g.mech));
	if (g.builds && g.mech != DC_MECH_UPROBE)
		spec_error(spec, &g.builds_loc,
			   "'builds' is for mechanism 'uprobe' only");
	if (g.target && strlen(g.target) >= DC_TARGET_MAX)
		spec_error(spec, &g.target_loc,
			   "target is longer than %d bytes", DC_TARGET_MAX - 1);
	if (!probes) {
		spec_error(spec, &g.loc, "spec has no 'probes'");
	} else if (probes->type != YAML_SEQUENCE_NODE ||
		   probes->data.sequence.items.start ==
		       probes->data.sequence.items.top) {
		struct dc_loc ploc = loc_of(p, probes);

		spec_error(spec, &ploc, "'probes' must be a non-empty list");
		probes = NULL;
	}
	if (dc_grow((void **)&spec->groups, spec->ngroups,
		    sizeof(*spec->groups), 16)) {
		free(g.layer);
		free(g.target);
		free(g.builds);
		return -ENOMEM;
	}
	spec->groups[spec->ngroups++] = g;
	if (probes)
		for (yaml_node_item_t *it = probes->data.sequence.items.start;
		     it < probes->data.sequence.items.top; it++)
			add_probe(p, yaml_document_get_node(p->doc, *it), gi);
	return spec->nerrors == errs ? 0 : -EINVAL;
}

/* libyaml's scanner takes time quadratic in the nesting of flow
 * collections ('[' and '{': 200000 of them take minutes). No spec nests
 * them deeply, so refuse before parsing; brackets inside strings count
 * too, which can only overcount. */
#define DC_SPEC_MAX_FLOW 1000

static int check_flow_depth(struct parse *p, const struct dc_buf *b)
{
	struct dc_loc loc = { p->file, 1, 1 };
	int depth = 0;

	for (size_t i = 0; i < b->len; i++, loc.col++) {
		char c = b->p[i];

		if (c == '\n') {
			loc.line++;
			loc.col = 0;
		} else if (c == '[' || c == '{') {
			if (++depth > DC_SPEC_MAX_FLOW) {
				spec_error(p->spec, &loc,
					   "lists and mappings nested deeper "
					   "than %d",
					   DC_SPEC_MAX_FLOW);
				return -EINVAL;
			}
		} else if ((c == ']' || c == '}') && depth) {
			depth--;
		}
	}
	return 0;
}

int dc_spec_load(struct dc_spec *spec, const char *file)
{
	int errs = spec->nerrors, err = 0, docs = 0;
	yaml_parser_t parser;
	bool parser_ok = false;
	struct dc_buf text = {};
	struct parse p;
	char **files;

	files = realloc(spec->files, (spec->nfiles + 1) * sizeof(*files));
	if (!files)
		return -ENOMEM;
	spec->files = files;
	files[spec->nfiles] = strdup(file);
	if (!files[spec->nfiles])
		return -ENOMEM;
	p = (struct parse){ .spec = spec, .file = files[spec->nfiles++] };

	err = dc_read_file(file, &text.p, &text.len);
	if (err == -EISDIR) {
		fprintf(stderr,
			"%s: error: a directory, not a spec file (give its "
			"files: %s/*.yaml)\n",
			file, file);
		spec->nerrors++;
		return err;
	}
	if (err) {
		fprintf(stderr, "%s: error: cannot open: %s\n", file,
			strerror(-err));
		spec->nerrors++;
		return err;
	}
	if (check_flow_depth(&p, &text))
		goto cleanup;
	if (!yaml_parser_initialize(&parser)) {
		err = -ENOMEM;
		goto cleanup;
	}
	parser_ok = true;
	yaml_parser_set_input_string(&parser, (const unsigned char *)text.p,
				     text.len);
	for (;;) {
		yaml_document_t doc;
		yaml_node_t *root;

		if (!yaml_parser_load(&parser, &doc)) {
			yaml_mark_t m = parser.problem_mark;
			struct dc_loc loc = { p.file, (int)m.line + 1,
					      (int)m.column + 1 };

			spec_error(spec, &loc, "invalid YAML: %s%s%s",
				   parser.problem ? parser.problem
						  : "parse error",
				   parser.context ? " " : "",
				   parser.context ? parser.context : "");
			break;
		}
		root = yaml_document_get_root_node(&doc);
		if (!root) {
			yaml_document_delete(&doc);
			break;
		}
		docs++;
		p.doc = &doc;
		if (add_group(&p, root) == -ENOMEM)
			err = -ENOMEM;
		yaml_document_delete(&doc);
		if (err)
			break;
	}
	if (!docs && spec->nerrors == errs) {
		struct dc_loc loc = { p.file, 1, 1 };

		spec_error(spec, &loc, "empty spec file");
	}
cleanup:
	if (parser_ok)
		yaml_parser_delete(&parser);
	dc_buf_free(&text);
	if (err)
		return err;
	return spec->nerrors == errs ? 0 : -EINVAL;
}

void dc_spec_free(struct dc_spec *spec)
{
	for (size_t i = 0; i < spec->nprobes; i++)
		free_probe(&spec->probes[i]);
	for (size_t i = 0; i < spec->ngroups; i++) {
		free(spec->groups[i].layer);
		free(spec->groups[i].target);
		free(spec->groups[i].builds);
	}
	for (size_t i = 0; i < spec->nfiles; i++)
		free(spec->files[i]);
	free(spec->probes);
	free(spec->groups);
	free(spec->files);
	memset(spec, 0, sizeof(*spec));
}
