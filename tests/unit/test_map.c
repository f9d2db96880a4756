// SPDX-License-Identifier: MIT
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "map.h"

/* Against a plain array as the reference, through growth and deletions
 * that must re-seat colliding keys. */
int main(void)
{
	enum { N = 20000 };
	static uintptr_t ref[N];
	struct dc_map m = {};
	uint64_t x = 88172645463325252ull;

	for (int round = 0; round < 200000; round++) {
		uint64_t key;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		key = x % N + 1;
		if (x & 0x100) {
			ref[key - 1] = round + 1;
			CHECK(!dc_map_put(&m, key,
					  (void *)(uintptr_t)(round + 1)));
		} else {
			void *v = dc_map_del(&m, key);

			CHECK((uintptr_t)v == ref[key - 1]);
			ref[key - 1] = 0;
		}
	}
	size_t live = 0;

	for (int k = 1; k <= N; k++) {
		CHECK((uintptr_t)dc_map_get(&m, k) == ref[k - 1]);
		live += ref[k - 1] != 0;
	}
	CHECK(m.len == live);
	dc_map_free(&m, NULL);
	return CHECK_DONE();
}
