/* SPDX-License-Identifier: MIT */
#ifndef DC_ARGREGS_H
#define DC_ARGREGS_H

#include <clang-c/Index.h>

/* The integer argument register (0-based) of each of the @n parameters of
 * the function or method @fn, into @reg: -1 for a parameter that takes
 * none, or whose place the ABI leaves to what libclang does not say. */
void xp_arg_regs(CXCursor fn, int *reg, int n);

#endif
