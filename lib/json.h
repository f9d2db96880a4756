/* SPDX-License-Identifier: MIT */
#ifndef DC_JSON_H
#define DC_JSON_H

#include <stddef.h>

#include "buf.h"

/*
 * Append @s (@n bytes) as a JSON string literal, quotes included: escapes
 * per RFC 8259, and every byte that is not part of valid UTF-8 becomes
 * U+FFFD, so any file name gives valid JSON.
 */
int dc_json_str(struct dc_buf *b, const char *s, size_t n);

#endif
