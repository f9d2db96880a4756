/* SPDX-License-Identifier: MIT */
#ifndef DC_NORETURN_H
#define DC_NORETURN_H

#include <stdbool.h>

/*
 * Whether @name, a C library function, never returns to its caller
 * (exit, abort, longjmp, pthread_exit, __libc_start_main and their kin).
 * Traced, its return never comes: every later call of its thread nests
 * in it, and the runtime must hold them all until the thread ends to
 * give them their parent's id. The explorer leaves such functions out.
 */
bool dc_never_returns(const char *name);

#endif
