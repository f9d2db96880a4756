// SPDX-License-Identifier: MIT
#include <string.h>

#include "noreturn.h"

bool dc_never_returns(const char *name)
{
	/* Compared with their leading underscores taken off: _exit, _Exit,
	 * _longjmp, __longjmp_chk, __assert_fail, __stack_chk_fail... */
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

	name += strspn(name, "_");
	for (size_t i = 0; i < sizeof(never) / sizeof(*never); i++)
		if (!strcmp(name, never[i]))
			return true;
	return false;
}
