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

static int scalar(yaml_emitter_t *e, const char *v)
{
	yaml_event_t ev;

	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)v, -1, 1,
				     1, YAML_ANY_SCALAR_STYLE);
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

static int emit_group(yaml_emitter_t *e, const struct xp_target *t,
		      const char *layer)
{
	yaml_event_t ev;
	int err;

	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 0);
	if (!yaml_emitter_emit(e, &ev))
		return -EIO;
	err = map(e, true, false) ?: scalar(e, "layer") ?: scalar(e, layer) ?:
	      scalar(e, "mechanism") ?: scalar(e, "uprobe") ?:
	      scalar(e, "target") ?: scalar(e, spec_target(t)) ?:
	      scalar(e, "probes") ?: seq(e, true, false);
	for (size_t i = 0; i < t->nfuncs && !err; i++)
		if (!t->funcs[i].refused && !strcmp(t->funcs[i].layer, layer))
			err = emit_func(e, &t->funcs[i]);
	err = err ?: seq(e, false, false) ?: map(e, false, false);
	if (err)
		return err;
	yaml_document_end_event_initialize(&ev, 1);
	return yaml_emitter_emit(e, &ev) ? 0 : -EIO;
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
	for (size_t i = 0; i < t->nfuncs; i++)
		if (t->funcs[i].refused)
			fprintf(out, "#   refused: %s (%s)\n", t->funcs[i].name,
				strerror(t->funcs[i].refused_err));
}

int xp_emit(FILE *out, struct xp_target *targets, size_t n, bool checked)
{
	yaml_emitter_t e;
	yaml_event_t ev;
	int err = 0;

	fprintf(
	    out,
	    "# Probe specs written by datacrumbs-explore %s; edit freely.\n",
	    DC_VERSION);
	for (size_t i = 0; i < n; i++)
		header(out, &targets[i], checked);
	if (!yaml_emitter_initialize(&e))
		return -ENOMEM;
	yaml_emitter_set_output_file(&e, out);
	yaml_emitter_set_width(&e, -1);
	yaml_emitter_set_unicode(&e, 1);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	if (!yaml_emitter_emit(&e, &ev))
		err = -EIO;
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
	}
	if (!err) {
		yaml_stream_end_event_initialize(&ev);
		if (!yaml_emitter_emit(&e, &ev) || !yaml_emitter_flush(&e))
			err = -EIO;
	}
	yaml_emitter_delete(&e);
	return err;
}
