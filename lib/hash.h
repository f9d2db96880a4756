/* SPDX-License-Identifier: MIT */
#ifndef DC_HASH_H
#define DC_HASH_H

#include <stddef.h>
#include <stdint.h>

#define DC_HASH_HEX 17 /* 16 hex digits and a NUL */

/* A stable 64-bit hash of a string (FNV-1a): the same name gives the same
 * hash on every node and every run, so traces can be joined. */
uint64_t dc_hash(const char *s, size_t n);
void dc_hash_hex(uint64_t h, char out[DC_HASH_HEX]);

#endif
