// SPDX-License-Identifier: MIT
#include <string.h>

#include "emulated.h"

static bool legacy_prefix(uint8_t b)
{
	switch (b) {
	case 0xf0:
	case 0xf2:
	case 0xf3:
	case 0x2e:
	case 0x36:
	case 0x3e:
	case 0x26:
	case 0x64:
	case 0x65:
	case 0x66:
	case 0x67: return true;
	default: return false;
	}
}

/*
 * The instructions arch/x86/kernel/uprobes.c emulates: the canonical
 * nops and 0x90 with prefixes, relative jmp, call and jcc (refused with
 * an operand-size prefix), and push of a register (push_setup_xol_ops:
 * one byte, or two with REX.B 0x41). Anything else is single-stepped.
 */
bool dc_insn_emulated(const uint8_t *b, size_t n)
{
	static const uint8_t nops[9][8] = {
		{ 0 },
		{ 0x90 },
		{ 0x66, 0x90 },
		{ 0x0f, 0x1f, 0x00 },
		{ 0x0f, 0x1f, 0x40, 0x00 },
		{ 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 },
		{ 0x0f, 0x1f, 0x84, 0x00, 0x00, 0x00, 0x00, 0x00 },
	};
	bool p66 = false;
	size_t p = 0;
	uint8_t op;

	if (!n)
		return false;
	if (n < 9 && !memcmp(b, nops[n], n))
		return true;
	if (n == 1 && b[0] >= 0x50 && b[0] <= 0x57)
		return true;
	if (n == 2 && b[0] == 0x41 && b[1] >= 0x50 && b[1] <= 0x57)
		return true;
	while (p < n && legacy_prefix(b[p]))
		p66 |= b[p++] == 0x66;
	if (p >= n)
		return false;
	op = b[p];
	if (op == 0x90)
		return true;
	if (p66)
		return false;
	if (op == 0xeb || op == 0xe9 || op == 0xe8 ||
	    (op >= 0x70 && op <= 0x7f))
		return true;
	return op == 0x0f && p + 1 < n && b[p + 1] >= 0x80 && b[p + 1] <= 0x8f;
}
