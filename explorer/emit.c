// SPDX-License-Identifier: MIT
/* The explorer's output: specs datacrumbs-gen accepts as they are, through
 * libyaml's emitter, with a header of comments saying where they came from. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <yaml.h>

#include "config.h"
#include "explore.h"
#include "libpath.h"
#include "roles.h"
#include "usdt.h"

static int scalar(yaml_emitter_t *e, const char *v)
{
	yaml_event_t ev;

	/* It refuses what is not UTF-8 (a damaged symbol name), and leaves
	 * the event unset then: emitting it would free stale pointers. */
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, -1,
					  1, 1, YAML_ANY_SCALAR_STYLE))
		return -EILSEQ;
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

static int seq(yaml_emitter_t *e, bool start, bool flow)
{
	yaml_event_t ev;

	if (start)
		yaml_sequence_start_event_initialize(
		    &ev, NULL, NULL, 1,
		    flow ? YAML_FLOW_SEQUENCE_STYLE
			 : YAML_BLOCK_SEQUENCE_STYLE);
	else
		yaml_sequence_end_event_initialize(&ev);
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

static int map(yaml_emitter_t *e, bool start, bool flow)
{
	yaml_event_t ev;

	if (start)
		yaml_mapping_start_event_initialize(
		    &ev, NULL, NULL, 1,
		    flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	else
		yaml_mapping_end_event_initialize(&ev);
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

/* "int fd", "const char *path" */
static const char *sep(const char *type)
{
	return type[strlen(type) - 1] == '*' ? "" : " ";
}

static void proto_str(const struct xp_proto *p, char *out, size_t size)
{
	size_t n = snprintf(out, size, "%s%s%s(", p->ret_type, sep(p->ret_type),
			    p->name);

	for (int i = 0; i < p->nparams && n < size; i++)
		n +=
		    snprintf(out + n, size - n, "%s%s%s%s", i ? ", " : "",
			     p->params[i].type,
			     p->params[i].name[0] ? sep(p->params[i].type) : "",
			     p->params[i].name);
	if (n < size)
		snprintf(out + n, size - n, "%s)",
			 p->variadic  ? (p->nparams ? ", ..." : "...")
			 : p->nparams ? ""
				      : "void");
}

static int emit_func(yaml_emitter_t *e, const struct xp_func *fn)
{
	char proto[1024];
	int err;

	err = map(e, true, true) ?: scalar(e, "name") ?:
	      scalar(e, fn->display ? fn->display : fn->name);
	if (!err && fn->display)
		err = scalar(e, "symbol") ?: scalar(e, fn->name);
	if (!err && fn->naliases) {
		err = scalar(e, "aliases") ?: seq(e, true, true);
		for (int i = 0; i < fn->naliases && !err; i++)
			err = scalar(e, fn->aliases[i]);
		err = err ?: seq(e, false, true);
	}
	if (!err && fn->nargs) {
		err = scalar(e, "args") ?: seq(e, true, true);
		for (int i = 0; i < fn->nargs && !err; i++)
			err = scalar(e, dc_role_name(fn->role[i]));
		err = err ?: seq(e, false, true);
	}
	if (!err && fn->ret != DC_RET_STATUS)
		err = scalar(e, "ret") ?: scalar(e, dc_ret_name(fn->ret));
	if (!err && fn->effect != DC_EFFECT_NONE)
		err = scalar(e, "effect")
			  ?: scalar(e, dc_effect_name(fn->effect));
	if (!err && fn->proto) {
		proto_str(fn->proto, proto, sizeof(proto));
		err = scalar(e, "proto") ?: scalar(e, proto);
	}
	return err ?: map(e, false, true);
}

/* The target as datacrumbs-gen will find it, portably: the soname when
 * the loader resolves it to this file, else the name given, else the path. */
static const char *spec_target(const struct xp_target *t)
{
	char p[4096];

	if (t->soname[0] && !dc_resolve_library(t->soname, p, sizeof(p)) &&
	    !strcmp(p, t->path))
		return t->soname;
	if (!dc_resolve_library(t->arg, p, sizeof(p)) && !strcmp(p, t->path))
		return t->arg;
	return t->path;
}

int xp_doc_begin(yaml_emitter_t *e, const char *layer, const char *mech,
		 const char *target)
{
	yaml_event_t ev;

	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	if (!yaml_emitter_emit(e, &ev))
		return -EIO;
	return map(e, true, false) ?: scalar(e, "layer") ?: scalar(e, layer) ?:
	       scalar(e, "mechanism") ?: scalar(e, mech) ?:
	       (target ? scalar(e, "target") ?: scalar(e, target) : 0) ?:
	       scalar(e, "probes") ?: seq(e, true, false);
}

int xp_doc_end(yaml_emitter_t *e)
{
	yaml_event_t ev;
	int err = seq(e, false, false) ?: map(e, false, false);

	if (err)
		return err;
	yaml_document_end_event_initialize(&ev, 1);
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

/* One probe as a flow mapping: @kv holds key, value pairs (a NULL value
 * is left out); @list_key, if set, takes the list @list. */
int xp_probe(yaml_emitter_t *e, const char *const *kv, const char *list_key,
	     char *const *list, int nlist)
{
	int err = map(e, true, true);

	for (int i = 0; kv[i] && !err; i += 2)
		if (kv[i + 1])
			err = scalar(e, kv[i]) ?: scalar(e, kv[i + 1]);
	if (!err && list_key && nlist) {
		err = scalar(e, list_key) ?: seq(e, true, true);
		for (int i = 0; i < nlist && !err; i++)
			err = scalar(e, list[i]);
		err = err ?: seq(e, false, true);
	}
	return err ?: map(e, false, true);
}

static int emit_group(yaml_emitter_t *e, const struct xp_target *t,
		      const char *layer)
{
	int err = xp_doc_begin(e, layer, "uprobe", spec_target(t));

	for (size_t i = 0; i < t->nfuncs && !err; i++)
		if (!t->funcs[i].refused && !strcmp(t->funcs[i].layer, layer))
			err = emit_func(e, &t->funcs[i]);
	return err ?: xp_doc_end(e);
}

/* Each provider:name once (libbpf attaches every site of it). */
static int emit_usdt(yaml_emitter_t *e, const struct xp_target *t)
{
	int err = xp_doc_begin(e, t->layer, "usdt", spec_target(t));

	for (size_t i = 0; i < t->nnotes && !err; i++) {
		char name[160], proto[320];
		bool seen = false;

		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(t->notes[k].provider,
				       t->notes[i].provider) &&
			       !strcmp(t->notes[k].name, t->notes[i].name);
		if (seen)
			continue;
		snprintf(name, sizeof(name), "%s:%s", t->notes[i].provider,
			 t->notes[i].name);
		snprintf(proto, sizeof(proto), "%d args: %s",
			 dc_usdt_nargs(&t->notes[i]), t->notes[i].args);
		const char *kv[] = { "name", name, "proto", proto, NULL };

		err = xp_probe(e, kv, NULL, NULL, 0);
	}
	return err ?: xp_doc_end(e);
}

static void header(FILE *out, const struct xp_target *t, bool checked)
{
	size_t kept = 0, refused = 0, protos = 0;

	for (size_t i = 0; i < t->nfuncs; i++) {
		refused += t->funcs[i].refused;
		protos += t->funcs[i].proto != NULL;
	}
	kept = t->nfuncs - refused;
	fprintf(out, "# %s\n", t->path);
	fprintf(out, "#   build-id %s\n",
		t->build_id[0] ? t->build_id : "none");
	fprintf(out, "#   %zu functions found, %zu kept, %zu with prototypes",
		t->found, kept, protos);
	if (checked)
		fprintf(out, ", %zu refused by the kernel", refused);
	fprintf(out, "\n");
	if (t->ifuncs)
		fprintf(out,
			"#   %zu IFUNC resolvers left out: probing one traces "
			"only its one call at load\n",
			t->ifuncs);
	if (t->twice)
		fprintf(
		    out,
		    "#   %zu setjmp-like functions left out: a return probe "
		    "breaks the jump back\n",
		    t->twice);
	if (t->noreturn)
		fprintf(out,
			"#   %zu functions that never return left out: every "
			"later call of the thread would wait on them\n",
			t->noreturn);
	for (size_t i = 0; i < t->nfuncs; i++)
		if (t->funcs[i].refused)
			fprintf(out, "#   refused: %s (%s)\n", t->funcs[i].name,
				strerror(t->funcs[i].refused_err));
}

int xp_out_begin(yaml_emitter_t *e, FILE *out)
{
	yaml_event_t ev;

	if (!yaml_emitter_initialize(e))
		return -ENOMEM;
	yaml_emitter_set_output_file(e, out);
	yaml_emitter_set_width(e, -1);
	yaml_emitter_set_unicode(e, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
}

int xp_out_end(yaml_emitter_t *e, int err)
{
	yaml_event_t ev;

	if (!err) {
		yaml_stream_end_event_initialize(&ev);
		if (!yaml_emitter_emit(e, &ev) || !yaml_emitter_flush(e))
			err = -EIO;
	}
	yaml_emitter_delete(e);
	return err;
}

int xp_emit(FILE *out, struct xp_target *targets, size_t n, bool checked)
{
	yaml_emitter_t e;
	int err;

	fprintf(
	    out,
	    "# Probe specs written by datacrumbs-explore %s; edit freely.\n",
	    DC_VERSION);
	for (size_t i = 0; i < n; i++)
		header(out, &targets[i], checked);
	err = xp_out_begin(&e, out);
	for (size_t i = 0; i < n && !err; i++) {
		const struct xp_target *t = &targets[i];

		/* One document per layer, in order of first appearance. */
		for (size_t f = 0; f < t->nfuncs && !err; f++) {
			bool seen = false;

			for (size_t g = 0; g < f && !seen; g++)
				seen = !strcmp(t->funcs[g].layer,
					       t->funcs[f].layer);
			if (!seen)
				err = emit_group(&e, t, t->funcs[f].layer);
		}
		if (!err && t->nnotes)
			err = emit_usdt(&e, t);
	}
	return xp_out_end(&e, err);
}
