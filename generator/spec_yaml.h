/* SPDX-License-Identifier: MIT */
/*
 * What spec.c and spec_args.c share to read a spec's YAML: the parse in
 * hand, where a node is, what kind it is, its string and the checks of
 * names (spec_yaml.c); and what spec_args.c reads for spec.c's probes.
 */
#ifndef DC_SPEC_YAML_H
#define DC_SPEC_YAML_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <yaml.h>

#include "spec.h"

struct parse {
	struct dc_spec *spec;
	yaml_document_t *doc;
	const char *file;
};

static inline struct dc_loc loc_of(struct parse *p, yaml_node_t *n)
{
	return (struct dc_loc){ p->file, (int)n->start_mark.line + 1,
				(int)n->start_mark.column + 1 };
}

static inline const char *node_kind(yaml_node_t *n)
{
	switch (n->type) {
	case YAML_SCALAR_NODE: return "a scalar";
	case YAML_SEQUENCE_NODE: return "a list";
	case YAML_MAPPING_NODE: return "a mapping";
	default: return "nothing";
	}
}

/* A plain (unquoted) scalar like "~" or "null" is YAML's null. */
static inline bool is_null(yaml_node_t *n)
{
	const char *v = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*v || !strcmp(v, "~") || !strcmp(v, "null"));
}

/* @n's string, or NULL after saying @what must be one. */
const char *scalar(struct parse *p, yaml_node_t *n, const char *what);
/* Letters, digits, '_', '.', '@' and ':', 1 to @max - 1 of them. */
bool valid_ident(const char *s, size_t max);
/* "group/name" as tracefs has them. */
bool valid_event(const char *s);

/* A kind of list of names (spec_args.c): a tracepoint's fields, or the
 * events standing in for its 'event'. */
struct name_list;
extern const struct name_list FIELDS;
extern const struct name_list EVENTS;

int parse_names(struct parse *p, yaml_node_t *n, const char *what,
		const struct name_list *k, char **out, int max, int *count,
		struct dc_loc *loc);
/* A probe's 'args' into @pr; -EINVAL after an error. */
int parse_args(struct parse *p, yaml_node_t *n, struct dc_spec_probe *pr);

#endif
