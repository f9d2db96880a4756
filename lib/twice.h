/* SPDX-License-Identifier: MIT */
#ifndef DC_TWICE_H
#define DC_TWICE_H

#include <stdbool.h>

/*
 * Whether @name saves its own return address for a later longjmp or
 * setcontext to come back to (setjmp, getcontext and their kin). A return
 * probe puts the kernel's trampoline in place of that address; the jump
 * back then returns through a frame already gone, which took down every
 * bash on a machine whose libc was probed whole (GP fault on the hlt
 * after __libc_start_main). Such functions must not be probed.
 */
bool dc_returns_twice(const char *name);

#endif
