/* SPDX-License-Identifier: MIT */
#ifndef DC_UTF8_H
#define DC_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at @s (at most @n bytes), or 0 if
 * it is not one: overlong forms, surrogates, code points past U+10FFFF
 * and cut sequences are not. */
size_t dc_utf8_len(const unsigned char *s, size_t n);

#endif
