// SPDX-License-Identifier: MIT
#include <string.h>

#include "returns.h"

#define N(a) (sizeof(a) / sizeof(*(a)))

/* Whether @name, its leading underscores taken off, is one of @names. */
static bool bare_name_in(const char *name, const char *const *names, size_t n)
{
	name += strspn(name, "_");
	for (size_t i = 0; i < n; i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

bool dc_returns_twice(const char *name)
{
	static const char *const contexts[] = { "getcontext", "swapcontext" };

	/* setjmp, _setjmp, __sigsetjmp, sigsetjmp, __setjmp_chk, ... */
	return strstr(name, "setjmp") ||
	       bare_name_in(name, contexts, N(contexts));
}

bool dc_never_returns(const char *name)
{
	/* _exit, _Exit, _longjmp, __longjmp_chk, __assert_fail,
	 * __stack_chk_fail... are found by their bare names. */
	static const char *const never[] = {
		"exit",
		"Exit",
		"quick_exit",
		"abort",
		"libc_start_main",
		"pthread_exit",
		"thrd_exit",
		"longjmp",
		"siglongjmp",
		"longjmp_chk",
		"libc_longjmp",
		"libc_siglongjmp",
		"assert",
		"assert_fail",
		"assert_perror_fail",
		"stack_chk_fail",
		"fortify_fail",
		"chk_fail",
		"libc_fatal",
		"err",
		"errx",
		"verr",
		"verrx",
		"setcontext",
	};

	return bare_name_in(name, never, N(never));
}
