// SPDX-License-Identifier: MIT
#include "check.h"
#include "hash.h"

int main(void)
{
	char hex[DC_HASH_HEX];

	/* Published FNV-1a 64-bit test vectors. */
	CHECK(dc_hash("", 0) == 0xcbf29ce484222325ull);
	CHECK(dc_hash("a", 1) == 0xaf63dc4c8601ec8cull);
	CHECK(dc_hash("foobar", 6) == 0x85944171f73967e8ull);
	dc_hash_hex(0x0123456789abcdefull, hex);
	CHECK_STR(hex, "0123456789abcdef");
	dc_hash_hex(0xaull, hex);
	CHECK_STR(hex, "000000000000000a");
	/* Stable: the same path, the same hash, independent of the call. */
	dc_hash_hex(dc_hash("/p/gpfs/run/out.h5", 18), hex);
	CHECK(strlen(hex) == 16);
	CHECK(dc_hash("/p/gpfs/run/out.h5", 18) ==
	      dc_hash("/p/gpfs/run/out.h5", 18));
	CHECK(dc_hash("/a", 2) != dc_hash("/b", 2));
	return CHECK_DONE();
}
