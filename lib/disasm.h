/* SPDX-License-Identifier: MIT */
#ifndef DC_DISASM_H
#define DC_DISASM_H

#include <capstone/capstone.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * A binary's machine code, mapped read-only and decoded with Capstone.
 * Instructions are addressed by file offset, the unit uprobes use, so a
 * decoded branch target is a file offset too.
 */
struct dc_code {
	const uint8_t *map;
	size_t len;
	csh cs;
	uint64_t *usdt; /* file offsets of its USDT sites, sorted */
	size_t nusdt;
};

/* 0, -ENOTSUP for a binary that is not x86-64 (the only machine whose
 * probe points are chosen; others keep offset 0), or another -errno. */
int dc_code_open(const char *path, struct dc_code *c);
/* Whether a USDT probe of the binary sits at file offset @off. */
bool dc_code_usdt_at(const struct dc_code *c, uint64_t off);
void dc_code_close(struct dc_code *c);

/*
 * Decode at most @max instructions (0: no limit) of the @size bytes at
 * file offset @off. Returns how many, with *@insn to cs_free(), or
 * -EFAULT when the range is not in the file.
 */
long dc_code_decode(const struct dc_code *c, uint64_t off, uint64_t size,
		    size_t max, cs_insn **insn);

/* The 64-bit register an x86 register is part of (edi, di, dil: rdi),
 * or X86_REG_INVALID for one that is not a general-purpose register. */
x86_reg dc_x86_gpr(x86_reg r);

/* The six integer argument registers of the SysV x86-64 calling
 * convention, and the syscall ABI's (r10 for the fourth). */
extern const x86_reg dc_x86_call_args[6];
extern const x86_reg dc_x86_sys_args[6];

/* "mnemonic operands" of @i, into @buf. */
void dc_insn_text(const cs_insn *i, char *buf, size_t size);

#endif
