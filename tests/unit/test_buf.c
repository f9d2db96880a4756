// SPDX-License-Identifier: MIT
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "buf.h"
#include "check.h"

/* The hand-written number formatting against printf's. */
static void expect_u64(uint64_t v)
{
	struct dc_buf b = {};
	char want[32];

	snprintf(want, sizeof(want), "x%" PRIu64, v);
	CHECK(!dc_buf_add(&b, "x", 1));
	CHECK(!dc_buf_add_u64(&b, v));
	CHECK(!dc_buf_add(&b, "", 1));
	CHECK_STR(b.p, want);
	dc_buf_free(&b);
}

static void expect_i64(int64_t v)
{
	struct dc_buf b = {};
	char want[32];

	snprintf(want, sizeof(want), "%" PRId64, v);
	CHECK(!dc_buf_add_i64(&b, v));
	CHECK(!dc_buf_add(&b, "", 1));
	CHECK_STR(b.p, want);
	dc_buf_free(&b);
}

/* Appending one element at a time: capacity doubles from the first
 * size, what was stored stays, and an impossible size is refused. */
static void grow_cap(void)
{
	size_t cap = 0, caps = 0, *v = NULL;

	for (size_t n = 0; n < 1000; n++) {
		size_t before = cap;

		CHECK(!dc_grow_cap((void **)&v, &cap, n, sizeof(*v), 8));
		CHECK(n < cap);
		caps += cap != before;
		v[n] = n;
	}
	CHECK(cap == 1024 && caps == 8); /* 8, 16, ..., 1024 */
	for (size_t n = 0; n < 1000; n++)
		CHECK(v[n] == n);
	CHECK(dc_grow_cap((void **)&v, &cap, cap, SIZE_MAX / 1024, 8) ==
	      -ENOMEM);
	CHECK(cap == 1024 && v[999] == 999);
	free(v);
}

int main(void)
{
	grow_cap();
	uint64_t x = 88172645463325252ull;

	/* Every digit count, either side of each power of ten. */
	expect_u64(0);
	for (uint64_t p = 1; p <= 10000000000000000000ull / 10; p *= 10) {
		expect_u64(p - 1);
		expect_u64(p);
		expect_u64(p + 1);
		expect_u64(p * 10 - 1);
	}
	expect_u64(10000000000000000000ull);
	expect_u64(UINT64_MAX);
	expect_i64(INT64_MIN);
	expect_i64(INT64_MAX);
	expect_i64(-1);
	expect_i64(-100);
	for (int i = 0; i < 100000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		expect_u64(x >> (x % 64));
		expect_i64((int64_t)x);
	}
	return CHECK_DONE();
}
