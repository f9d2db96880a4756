// SPDX-License-Identifier: MIT
/* Darshan's modules, in the order darshan-parser lists them. */
#include "darshan_rec.h"

const struct dc_dmodule *const dc_dmodules[DC_DM_N] = {
	[DC_DM_POSIX] = &dc_dposix, [DC_DM_STDIO] = &dc_dstdio,
	[DC_DM_MPIIO] = &dc_dmpiio, [DC_DM_H5F] = &dc_dh5f,
	[DC_DM_H5D] = &dc_dh5d,
};
