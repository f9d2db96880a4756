// SPDX-License-Identifier: MIT
#include <string.h>

#include "twice.h"

bool dc_returns_twice(const char *name)
{
	static const char *const contexts[] = { "getcontext", "swapcontext" };

	/* setjmp, _setjmp, __sigsetjmp, sigsetjmp, __setjmp_chk, ... */
	if (strstr(name, "setjmp"))
		return true;
	name += strspn(name, "_");
	for (size_t i = 0; i < sizeof(contexts) / sizeof(*contexts); i++)
		if (!strcmp(name, contexts[i]))
			return true;
	return false;
}
