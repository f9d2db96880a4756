// SPDX-License-Identifier: MIT
/*
 * An application with functions of its own and USDT probes inside them,
 * for custom-function and USDT tracing, and a function that leaves
 * another by longjmp (a return never seen). Reports its calls as JSON.
 */
#include <setjmp.h>
#include <stdio.h>
#include <sys/sdt.h>

#define STEPS 12
#define JUMPS 5

static jmp_buf jump_back;

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

/* Never returns: jumps back into app_jump_outer(). */
__attribute__((noinline, noclone)) long app_jump_inner(int i)
{
	__asm__ volatile("" ::: "memory");
	longjmp(jump_back, i + 1);
}

/* Returns with its inner call's frame still above its own. */
__attribute__((noinline, noclone)) long app_jump_outer(int i)
{
	volatile long r = setjmp(jump_back);

	if (!r)
		app_jump_inner(i);
	return r;
}

__attribute__((noinline, noclone)) void app_other(void)
{
	__asm__ volatile("" ::: "memory");
}

/* With an argument, also JUMPS calls left by longjmp. */
int main(int argc, char **argv)
{
	int jumps = argc > 1 ? JUMPS : 0;
	long total = 0;

	(void)argv;

	for (int i = 0; i < STEPS; i++)
		total = app_step_sum(total, app_step_compute(i));
	for (int i = 0; i < jumps; i++)
		app_jump_outer(i);
	app_other();
	DTRACE_PROBE1(dcapp, done, total);
	printf("{\"app_step_compute\":%d,\"app_step_sum\":%d,\"app_other\":1,"
	       "\"iteration\":%d,\"done\":1,\"total\":%ld,\"jumps\":%d}\n",
	       STEPS, STEPS, STEPS, total, jumps);
	return 0;
}
