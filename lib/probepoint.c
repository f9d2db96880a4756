// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <string.h>

#include "emulated.h"
#include "probepoint.h"
#include "retsite.h"

/* How far the probe may move: a prologue's first few instructions. */
#define MAX_SKIP_INSNS 8
#define MAX_SKIP_BYTES 32
/* ... and past a frame's set-up, when its return is seen at a site. */
#define MAX_FRAME_INSNS 16
#define MAX_FRAME_BYTES 96
/* Functions larger than this are not decoded whole to look for jumps
 * into their first bytes; their probe stays on the first instruction. */
#define MAX_SCAN_BYTES (256 << 10)

static bool in_group(const cs_insn *i, uint8_t g)
{
	for (int k = 0; k < i->detail->groups_count; k++)
		if (i->detail->groups[k] == g)
			return true;
	return false;
}

/* Where the captured arguments are as the probe moves past instructions:
 * bit r of hold[a], argument a's value is in argument register r. */
struct args_at {
	unsigned args; /* bit a: argument a is captured */
	bool moves;    /* it may be read from another register than its own */
	uint8_t hold[6];
};

static int arg_reg(x86_reg r)
{
	for (int a = 0; a < 6; a++)
		if (r == dc_x86_call_args[a])
			return a;
	return -1;
}

/* Follow @i's writes to argument registers (@wr, @nwr): a 64-bit copy
 * of one into another (getline's mov %rdx,%rcx) keeps its value there.
 * Whether each captured argument is still held somewhere it may be read. */
static bool track_args(const cs_insn *i, const uint16_t *wr, uint8_t nwr,
		       struct args_at *st)
{
	const cs_x86 *x = &i->detail->x86;
	int from = -1;

	if (st->moves && i->id == X86_INS_MOV && x->op_count == 2 &&
	    x->operands[0].type == X86_OP_REG &&
	    x->operands[1].type == X86_OP_REG && x->operands[0].size == 8)
		for (int k = 0; k < 2; k++)
			if (!(x->operands[k].access & CS_AC_WRITE))
				from = arg_reg(x->operands[k].reg);
	for (int k = 0; k < nwr; k++) {
		int d = arg_reg(dc_x86_gpr(wr[k]));

		for (int a = 0; a < 6 && d >= 0; a++) {
			bool copy = from >= 0 && (st->hold[a] & 1u << from);

			st->hold[a] &= ~(1u << d);
			if (copy)
				st->hold[a] |= 1u << d;
		}
	}
	for (int a = 0; a < 6; a++)
		if ((st->args & 1u << a) &&
		    !(st->hold[a] & (st->moves ? 0x3f : 1u << a)))
			return false;
	return true;
}

/* Whether the probe may move past @i: it leaves the stack pointer, the
 * captured arguments (@st), memory and the control flow as they were.
 * With @frame, it may change the stack pointer and write below it (a
 * frame's set-up): the caller's memory is still as it was. */
static bool skippable(csh cs, const cs_insn *i, struct args_at *st, bool frame)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;
	const cs_x86 *x = &i->detail->x86;

	if (in_group(i, CS_GRP_JUMP) || in_group(i, CS_GRP_CALL) ||
	    in_group(i, CS_GRP_RET) || in_group(i, CS_GRP_INT) ||
	    in_group(i, CS_GRP_IRET) || in_group(i, CS_GRP_BRANCH_RELATIVE))
		return false;
	switch (i->id) {
	case X86_INS_SYSCALL:
	case X86_INS_SYSENTER:
	case X86_INS_UD2:
	case X86_INS_HLT:
	case X86_INS_INVALID: return false;
	default: break;
	}
	/* Capstone 4 marks test's memory operand written; these only
	 * compare. */
	for (int k = 0; k < x->op_count && i->id != X86_INS_TEST &&
			i->id != X86_INS_CMP && i->id != X86_INS_BT;
	     k++)
		if (x->operands[k].type == X86_OP_MEM &&
		    (x->operands[k].access & CS_AC_WRITE) &&
		    !(frame && x->operands[k].mem.base == X86_REG_RSP &&
		      x->operands[k].mem.index == X86_REG_INVALID))
			return false;
	if (cs_regs_access(cs, i, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return false;
	for (int k = 0; k < nwr; k++) {
		x86_reg r = dc_x86_gpr(wr[k]);

		if ((r == X86_REG_RSP && !frame) || wr[k] == X86_REG_RIP)
			return false;
	}
	return track_args(i, wr, nwr, st);
}

/* Whether a jump or call in the function lands in (off, off + skip]:
 * code reaching the probe that way would be counted as a call. Also
 * true when the function cannot be decoded whole. */
static bool lands_inside(const struct dc_code *c, uint64_t off, uint64_t size,
			 uint32_t skip)
{
	cs_insn *insn;
	uint64_t end = off;
	bool hit = false;
	long n;

	if (size > MAX_SCAN_BYTES)
		return true;
	n = dc_code_decode(c, off, size, 0, &insn);
	if (n <= 0)
		return true;
	for (long k = 0; k < n && !hit; k++) {
		const cs_x86 *x = &insn[k].detail->x86;

		end = insn[k].address + insn[k].size;
		if (!in_group(&insn[k], CS_GRP_BRANCH_RELATIVE) ||
		    !x->op_count || x->operands[0].type != X86_OP_IMM)
			continue;
		hit = (uint64_t)x->operands[0].imm > off &&
		      (uint64_t)x->operands[0].imm <= off + skip;
	}
	cs_free(insn, n);
	/* Decoding stops at bytes it cannot decode: the rest is unknown. */
	return hit || end < off + size;
}

/* Where the one captured argument no longer in its own register is
 * (struct dc_probe_point's moved); false for more than one. */
static bool moved_arg(const struct args_at *st, uint32_t *moved)
{
	for (int a = 0; a < 6; a++) {
		if (!(st->args & 1u << a) || st->hold[a] & 1u << a)
			continue;
		if (*moved)
			return false;
		*moved = (a + 1u) | (unsigned)__builtin_ctz(st->hold[a]) << 3;
	}
	return true;
}

/* The first of @insn the kernel emulates, past ones the probe may skip
 * (with @frame, a frame's set-up too): its offset from @off into *@skip,
 * and where each argument @args captures is then into *@moved (as
 * struct dc_probe_point's). False when there is none. */
static bool first_emulated(const struct dc_code *c, const cs_insn *insn, long n,
			   uint64_t off, unsigned args, bool moves, bool frame,
			   uint32_t *skip, uint32_t *moved)
{
	uint64_t max = frame ? MAX_FRAME_BYTES : MAX_SKIP_BYTES;
	struct args_at st = { args, moves, { 1, 2, 4, 8, 16, 32 } };

	*moved = 0;

	for (long k = 0; k < n; k++) {
		if (k && dc_code_usdt_at(c, insn[k].address))
			return false;
		if (dc_insn_emulated(insn[k].bytes, insn[k].size)) {
			*skip = insn[k].address - off;
			return moved_arg(&st, moved);
		}
		if (insn[k].address + insn[k].size - off > max ||
		    !skippable(c->cs, &insn[k], &st, frame))
			return false;
	}
	return false;
}

/* Past a frame's set-up, with the return seen at a site of its own. */
static bool split_point(const struct dc_code *c, const cs_insn *insn, long n,
			uint64_t off, uint64_t size, unsigned args,
			struct dc_probe_point *pp)
{
	uint32_t skip, at, moved;
	const char *why;

	if (!first_emulated(c, insn, n, off, args, true, true, &skip, &moved) ||
	    lands_inside(c, off, size, skip) ||
	    dc_ret_site(c, off, size, skip, &at, &why))
		return false;
	pp->skip = skip;
	pp->ret_at = at;
	pp->moved = moved;
	return true;
}

void dc_probe_point(const struct dc_code *c, uint64_t off, uint64_t size,
		    unsigned args, bool cookies, struct dc_probe_point *pp)
{
	uint64_t bytes = (cookies ? MAX_FRAME_BYTES : MAX_SKIP_BYTES) + 16;
	uint64_t window = size < bytes ? size : bytes;
	cs_insn *insn;
	uint32_t skip = 0, moved = 0;
	long n;

	memset(pp, 0, sizeof(*pp));
	n = dc_code_decode(c, off, window,
			   (cookies ? MAX_FRAME_INSNS : MAX_SKIP_INSNS) + 1,
			   &insn);
	if (n <= 0) {
		pp->slow = true;
		snprintf(pp->why, sizeof(pp->why), "cannot be decoded");
		return;
	}
	if (!first_emulated(c, insn,
			    n < MAX_SKIP_INSNS + 1 ? n : MAX_SKIP_INSNS + 1,
			    off, args, cookies, false, &skip, &moved)) {
		/* The first instruction is the one single-stepped. */
		pp->slow = true;
		dc_insn_text(&insn[0], pp->why, sizeof(pp->why));
		skip = 0;
	} else if (skip && lands_inside(c, off, size, skip)) {
		pp->slow = true;
		snprintf(pp->why, sizeof(pp->why),
			 "a jump lands in its first %u bytes", skip);
		skip = 0;
	}
	pp->skip = skip;
	pp->moved = skip ? moved : 0;
	if (pp->slow && cookies && split_point(c, insn, n, off, size, args, pp))
		pp->slow = false;
	cs_free(insn, n);
}
