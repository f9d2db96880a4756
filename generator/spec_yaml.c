// SPDX-License-Identifier: MIT
/* A scalar of a spec's YAML, and the checks of the names in them
 * (spec_yaml.h). */
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <yaml.h>

#include "spec.h"
#include "spec_pass.h"
#include "spec_yaml.h"

const char *scalar(struct parse *p, yaml_node_t *n, const char *what)
{
	struct dc_loc loc = loc_of(p, n);

	if (n->type != YAML_SCALAR_NODE || is_null(n)) {
		spec_error(p->spec, &loc, "%s must be a string, not %s", what,
			   is_null(n) ? "null" : node_kind(n));
		return NULL;
	}
	return (const char *)n->data.scalar.value;
}

bool valid_ident(const char *s, size_t max)
{
	size_t n = strlen(s);

	if (!n || n >= max)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '.' || s[i] == '@' ||
		      s[i] == ':' || (s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}

/* "group/name" as tracefs has them: letters, digits, '_' and '-'. */
bool valid_event(const char *s)
{
	const char *slash = strchr(s, '/');
	size_t n = strlen(s);

	if (!slash || slash == s || !slash[1] || n >= DC_NAME_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '-' || s + i == slash ||
		      (s[i] >= '0' && s[i] <= '9') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= 'A' && s[i] <= 'Z')))
			return false;
	return true;
}
