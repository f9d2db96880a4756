/* SPDX-License-Identifier: MIT */
#ifndef DC_STRPOOL_H
#define DC_STRPOOL_H

#include <stdint.h>

#include "buf.h"
#include "map.h"

/* The probe table's strings, each stored once: thousands of probes share
 * a handful of layers and libraries. Offset 0 is the empty string. */
struct dc_strpool {
	struct dc_buf s;     /* the strings, each with its NUL */
	struct dc_map index; /* string hash -> offset + 1 */
};

/* Store @str (if not there yet) and set *@off to its offset: 0 or
 * -ENOMEM, or -E2BIG past 4 GiB. */
int dc_strpool_add(struct dc_strpool *p, const char *str, uint32_t *off);
void dc_strpool_free(struct dc_strpool *p);

#endif
