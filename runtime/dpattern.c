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
	/* MPI-IO reads and writes and H5Dread/H5Dwrite: a size bucket and
	 * a read/write switch per handle. */
	if (*dmod == DC_DMOD_MPIIO) {
		enum dc_mop m = dc_darshan_mpiio_op(name, strlen(name));

		if (dc_mop_is_io(m))
			*pat = dc_mop_is_write(m) ? DC_PAT_WRITE : DC_PAT_READ;
		return;
	}
	if (*dmod == DC_DMOD_HDF5) {
		enum dc_hop h = dc_darshan_hdf5_op(name, strlen(name));

		*pat = h == DC_HOP_DREAD    ? DC_PAT_READ
		       : h == DC_HOP_DWRITE ? DC_PAT_WRITE
					    : DC_PAT_NONE;
		return;
	}
	op = dc_darshan_op(name, strlen(name));
	if (*dmod != DC_DMOD_NONE && dc_darshan_op_module(op) == *dmod)
		*pat = dc_darshan_op_pattern(op);
}
