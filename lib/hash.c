// SPDX-License-Identifier: MIT
#include "hash.h"

uint64_t dc_hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

void dc_hash_hex(uint64_t h, char out[DC_HASH_HEX])
{
	static const char hex[] = "0123456789abcdef";

	for (int i = 15; i >= 0; i--) {
		out[i] = hex[h & 15];
		h >>= 4;
	}
	out[16] = '\0';
}
