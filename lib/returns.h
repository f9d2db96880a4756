/* SPDX-License-Identifier: MIT */
#ifndef DC_RETURNS_H
#define DC_RETURNS_H

#include <stdbool.h>

/*
 * C library functions whose return a return probe cannot follow.
 *
 * dc_returns_twice(): @name saves its own return address for a later
 * longjmp or setcontext to come back to (setjmp, getcontext and their
 * kin). A return probe puts the kernel's trampoline in place of that
 * address; the jump back then returns through a frame already gone,
 * which took down every bash on a machine whose libc was probed whole
 * (GP fault on the hlt after __libc_start_main). Such functions must not
 * be probed.
 *
 * dc_never_returns(): @name never returns to its caller (exit, abort,
 * longjmp, pthread_exit, __libc_start_main and their kin). Traced, its
 * return never comes: every later call of its thread nests in it, and
 * the runtime must hold them all until the thread ends to give them
 * their parent's id. The explorer and name patterns leave them out.
 */
bool dc_returns_twice(const char *name);
bool dc_never_returns(const char *name);

#endif
