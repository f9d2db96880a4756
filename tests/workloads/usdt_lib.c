// SPDX-License-Identifier: MIT
/*
 * A library with a USDT probe in it, for tests of USDT in a library a
 * program maps once running (tests/test_e2e_latelib_usdt.py).
 */
#include <sys/sdt.h>

__attribute__((visibility("default"))) long dc_usdt_step(int i)
{
	long n = (long)i * 3;

	DTRACE_PROBE2(dclate, step, i, n);
	return n;
}
