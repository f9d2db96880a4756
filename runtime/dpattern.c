// SPDX-License-Identifier: MIT
#include <string.h>

#include "darshan_ops.h"
#include "dpattern.h"

static const struct {
	const char *layer;
	uint8_t dmod;
} mods[] = {
	{ "POSIX", DC_DMOD_POSIX },
	{ "STDIO", DC_DMOD_STDIO },
	{ "MPIIO", DC_DMOD_MPIIO },
	{ "HDF5", DC_DMOD_HDF5 },
};

void dc_dpattern(const char *layer, const char *name, uint8_t *dmod,
		 uint8_t *pat)
{
	enum dc_dop op;

	*dmod = DC_DMOD_NONE;
	*pat = DC_PAT_NONE;
	for (size_t i = 0; i < sizeof(mods) / sizeof(*mods); i++)
		if (!strcmp(layer, mods[i].layer))
			*dmod = mods[i].dmod;
	op = dc_darshan_op(name, strlen(name));
	if (*dmod != DC_DMOD_NONE && dc_darshan_op_module(op) == *dmod)
		*pat = dc_darshan_op_pattern(op);
}
