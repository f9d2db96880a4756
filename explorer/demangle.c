// SPDX-License-Identifier: MIT
/*
 * C++ names as users read them. The C++ runtime's __cxa_demangle is the
 * demangler: libstdc++ builds it from the same source as binutils' c++filt
 * (libiberty's cp-demangle.c), so a name reads as `c++filt -i` prints it;
 * and it comes with the C++ runtime every C++ library needs, where
 * libiberty is a development package, not installed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <datacrumbs/abi.h>

#include "explore.h"

char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

static char *cxa(const char *sym)
{
	int status;
	char *d = __cxa_demangle(sym, NULL, NULL, &status);

	if (d && status) {
		free(d);
		return NULL;
	}
	return d;
}

/*
 * The ABI emits a constructor or destructor as several functions that
 * c++filt spells alike: complete (C1, D1), base-object (C2, D2),
 * allocating (C3) and deleting (D0). Where they are not one function
 * under several names, they are distinct probes, and distinct names.
 * The variant is the one "C<digit>"/"D<digit>" that, changed to the
 * complete one, leaves the demangled name as it was: anywhere else the
 * change would alter an identifier or the parse.
 */
static const char *variant(const char *sym, const char *d)
{
	size_t n = strlen(sym);
	char *alt;
	const char *what = NULL;

	alt = strdup(sym);
	if (!alt)
		return NULL;
	for (size_t p = n >= 3 ? n - 3 : 0; p > 2 && !what; p--) {
		char *ad;

		if ((sym[p] != 'C' && sym[p] != 'D') || sym[p + 1] < '0' ||
		    sym[p + 1] > '3' || sym[p + 1] == '1' ||
		    !strchr("EIB", sym[p + 2]))
			continue;
		alt[p + 1] = '1';
		ad = cxa(alt);
		if (ad && !strcmp(ad, d))
			what = sym[p + 1] == '0'   ? " [deleting]"
			       : sym[p + 1] == '2' ? " [base]"
						   : " [allocating]";
		free(ad);
		alt[p + 1] = sym[p + 1];
	}
	free(alt);
	return what;
}

char *xp_demangle(const char *sym)
{
	const char *v;
	char *d, *out;

	if (strncmp(sym, "_Z", 2))
		return NULL;
	d = cxa(sym);
	if (!d)
		return NULL;
	v = variant(sym, d);
	if (!v) {
		out = d;
	} else {
		out = malloc(strlen(d) + strlen(v) + 1);
		if (out)
			sprintf(out, "%s%s", d, v);
		free(d);
	}
	/* A spec's name has the symbol's limit: past it, the symbol is
	 * the name. */
	if (out && strlen(out) >= DC_SYMBOL_MAX) {
		free(out);
		return NULL;
	}
	return out;
}
