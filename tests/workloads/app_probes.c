// SPDX-License-Identifier: MIT
/*
 * An application with functions of its own and USDT probes inside them,
 * for custom-function and USDT tracing. Reports its calls as JSON.
 */
#include <stdio.h>
#include <sys/sdt.h>

#define STEPS 12

__attribute__((noinline, noclone)) long app_step_compute(int i)
{
	long n = (long)i * 1000;

	DTRACE_PROBE2(dcapp, iteration, i, n);
	return n;
}

__attribute__((noinline, noclone)) long app_step_sum(long a, long b)
{
	return a + b;
}

__attribute__((noinline, noclone)) void app_other(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	long total = 0;

	for (int i = 0; i < STEPS; i++)
		total = app_step_sum(total, app_step_compute(i));
	app_other();
	DTRACE_PROBE1(dcapp, done, total);
	printf("{\"app_step_compute\":%d,\"app_step_sum\":%d,\"app_other\":1,"
	       "\"iteration\":%d,\"done\":1,\"total\":%ld}\n",
	       STEPS, STEPS, STEPS, total);
	return 0;
}
