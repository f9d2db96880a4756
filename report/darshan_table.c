// SPDX-License-Identifier: MIT
/* Darshan's modules, in the order darshan-parser lists them. */
#include "darshan_rec.h"

const struct dc_dmodule *const dc_dmodules[MOD_N] = {
	[MOD_POSIX] = &dc_dposix, [MOD_STDIO] = &dc_dstdio,
	[MOD_MPIIO] = &dc_dmpiio, [MOD_H5F] = &dc_dh5f,
	[MOD_H5D] = &dc_dh5d,
};
