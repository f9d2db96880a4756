/* SPDX-License-Identifier: MIT */
/* A minimal assertion harness: each failed CHECK prints where and why;
 * the test exits 1 if any failed. */
#ifndef DC_CHECK_H
#define DC_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_failures;

#define CHECK(cond)                                                            \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_STR(got, want)                                                   \
	do {                                                                   \
		const char *g_ = (got), *w_ = (want);                          \
		if (strcmp(g_, w_)) {                                          \
			fprintf(stderr, "%s:%d: got '%s', want '%s'\n",        \
				__FILE__, __LINE__, g_, w_);                   \
			check_failures++;                                      \
		}                                                              \
	} while (0)

#define CHECK_DONE() (check_failures ? 1 : 0)

#endif
