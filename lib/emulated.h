/* SPDX-License-Identifier: MIT */
#ifndef DC_EMULATED_H
#define DC_EMULATED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Whether the kernel emulates the instruction @b, @n bytes long, rather
 * than single-stepping it: what a uprobe there costs. */
bool dc_insn_emulated(const uint8_t *b, size_t n);

#endif
