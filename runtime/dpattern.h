/* SPDX-License-Identifier: MIT */
#ifndef DC_DPATTERN_H
#define DC_DPATTERN_H

#include <datacrumbs/abi.h>
#include <stdint.h>

/* Profile mode: the Darshan module (enum dc_dmod) of a probe of @layer
 * and what it does to its file's offset (enum dc_pat), for the pattern
 * counters the programs keep. */
void dc_dpattern(const char *layer, const char *name, uint8_t *dmod,
		 uint8_t *pat);

#endif
