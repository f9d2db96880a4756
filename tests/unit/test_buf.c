// SPDX-License-Identifier: MIT
#include <inttypes.h>
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

int main(void)
{
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
