// SPDX-License-Identifier: MIT
/*
 * Recognising thin system call wrappers (read, pwrite64, fsync, ...) by
 * abstract interpretation of their machine code: a forward data-flow
 * analysis over (instruction, syscall-seen) nodes whose state says, for
 * each register and stack slot, whether it holds an argument the
 * function was called with, a constant, or something unknown. A jump to
 * another function on a path without a system call yet is followed
 * there (at most MAX_REGIONS - 1 of them), so a function that sets some
 * arguments and jumps into a wrapper is understood.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sysstub.h"

/* Wrappers are a few dozen instructions; anything larger is not one. */
#define MAX_STUB_BYTES 1024
#define MAX_REGIONS    3 /* the function and the functions it jumps to */
#define NGPR	       16
#define NSLOT	       16

/* Compared by address: the one failure whose sites are still wanted. */
static const char no_syscall[] = "a path returns without a system call";

/* V_ARG0: an argument on some paths, 0 on the others (open's mode,
 * read with va_arg only for O_CREAT). */
enum { V_UNK = 0, V_ARG, V_CONST, V_ARG0 };

struct aval {
	uint8_t kind;
	uint8_t arg;	/* V_ARG, V_ARG0: which argument */
	uint8_t narrow; /* V_ARG, V_ARG0: only its low 32 bits */
	int64_t c;	/* V_CONST */
};

static const struct aval UNK = { .kind = V_UNK };

struct slot {
	int32_t off; /* from the stack pointer at entry */
	uint8_t size;
	struct aval v;
};

struct astate {
	bool live;
	bool sp_known;
	int32_t sp; /* stack pointer minus its value at entry */
	struct aval reg[NGPR];
	uint8_t nslots;
	struct slot slot[NSLOT];
};

static const x86_reg gprs[NGPR] = {
	X86_REG_RAX, X86_REG_RBX, X86_REG_RCX, X86_REG_RDX,
	X86_REG_RSI, X86_REG_RDI, X86_REG_RBP, X86_REG_RSP,
	X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
	X86_REG_R12, X86_REG_R13, X86_REG_R14, X86_REG_R15,
};

static int gpr_index(x86_reg r)
{
	r = dc_x86_gpr(r);
	for (int i = 0; i < NGPR; i++)
		if (gprs[i] == r)
			return i;
	return -1;
}

static bool aval_eq(const struct aval *a, const struct aval *b)
{
	if (a->kind != b->kind)
		return false;
	if (a->kind == V_ARG || a->kind == V_ARG0)
		return a->arg == b->arg && a->narrow == b->narrow;
	return a->kind != V_CONST || a->c == b->c;
}

static bool state_eq(const struct astate *a, const struct astate *b)
{
	if (a->live != b->live || a->sp_known != b->sp_known ||
	    a->sp != b->sp || a->nslots != b->nslots)
		return false;
	for (int i = 0; i < NGPR; i++)
		if (!aval_eq(&a->reg[i], &b->reg[i]))
			return false;
	for (int i = 0; i < a->nslots; i++)
		if (a->slot[i].off != b->slot[i].off ||
		    a->slot[i].size != b->slot[i].size ||
		    !aval_eq(&a->slot[i].v, &b->slot[i].v))
			return false;
	return true;
}

static bool is_arg(const struct aval *v)
{
	return v->kind == V_ARG || v->kind == V_ARG0;
}

/* A register's or stack slot's value where two paths meet: an argument
 * one way and 0 the other is V_ARG0; anything else that differs is
 * unknown. */
static struct aval join_reg(const struct aval *a, const struct aval *b)
{
	const struct aval *arg = is_arg(a) ? a : b, *other = arg == a ? b : a;

	if (aval_eq(a, b))
		return *a;
	if (!is_arg(arg))
		return UNK;
	if ((other->kind == V_CONST && other->c == 0) ||
	    (is_arg(other) && other->arg == arg->arg &&
	     other->narrow == arg->narrow))
		return (struct aval){ .kind = V_ARG0,
				      .arg = arg->arg,
				      .narrow = arg->narrow };
	return UNK;
}

/* Join @in into @into; true if @into changed. */
static bool join(struct astate *into, const struct astate *in)
{
	struct astate old = *into;
	uint8_t n = 0;

	if (!into->live) {
		*into = *in;
		return true;
	}
	for (int i = 0; i < NGPR; i++)
		into->reg[i] = join_reg(&into->reg[i], &in->reg[i]);
	if (!into->sp_known || !in->sp_known || into->sp != in->sp) {
		into->sp_known = false;
		into->nslots = 0;
	}
	for (int i = 0; i < into->nslots; i++) {
		struct slot s = into->slot[i];

		for (int k = 0; k < in->nslots; k++) {
			if (in->slot[k].off != s.off ||
			    in->slot[k].size != s.size)
				continue;
			s.v = join_reg(&s.v, &in->slot[k].v);
			if (s.v.kind != V_UNK)
				into->slot[n++] = s;
			break;
		}
	}
	into->nslots = n;
	return !state_eq(&old, into);
}

static void set_reg(struct astate *s, x86_reg r, struct aval v)
{
	int i = gpr_index(r);

	if (i < 0)
		return;
	if (i == 7) { /* rsp: frame unknown from here on */
		s->sp_known = false;
		s->nslots = 0;
	}
	s->reg[i] = v;
}

static struct aval get_reg(const struct astate *s, x86_reg r, uint8_t size)
{
	int i = gpr_index(r);
	struct aval v = UNK;

	if (i < 0 || size < 4)
		return v;
	v = s->reg[i];
	if (is_arg(&v) && size == 4)
		v.narrow = 1;
	if (v.kind == V_CONST && size == 4)
		v.c = (uint32_t)v.c;
	return v;
}

/* The stack slot a memory operand names, relative to the entry stack
 * pointer, or false when it is not a known slot. */
static bool stack_slot(const struct astate *s, const x86_op_mem *m,
		       int32_t *off)
{
	if (!s->sp_known || m->base != X86_REG_RSP ||
	    m->index != X86_REG_INVALID || m->segment != X86_REG_INVALID)
		return false;
	*off = s->sp + (int32_t)m->disp;
	return true;
}

static void slot_store(struct astate *s, int32_t off, uint8_t size,
		       struct aval v)
{
	uint8_t n = 0;

	/* Drop slots the store overlaps. */
	for (int i = 0; i < s->nslots; i++)
		if (s->slot[i].off + s->slot[i].size <= off ||
		    off + size <= s->slot[i].off)
			s->slot[n++] = s->slot[i];
	s->nslots = n;
	if ((size == 4 || size == 8) && v.kind != V_UNK && n < NSLOT) {
		if (is_arg(&v) && size == 4)
			v.narrow = 1;
		s->slot[s->nslots++] = (struct slot){ off, size, v };
	}
}

static struct aval slot_load(const struct astate *s, int32_t off, uint8_t size)
{
	struct aval v = UNK;

	for (int i = 0; i < s->nslots; i++) {
		if (s->slot[i].off != off || s->slot[i].size < size)
			continue;
		v = s->slot[i].v;
		if (is_arg(&v) && size == 4)
			v.narrow = 1;
		if (v.kind == V_CONST && size == 4)
			v.c = (uint32_t)v.c;
	}
	return v;
}

static void clobber_call(struct astate *s)
{
	static const x86_reg volatile_regs[] = {
		X86_REG_RAX, X86_REG_RCX, X86_REG_RDX, X86_REG_RSI, X86_REG_RDI,
		X86_REG_R8,  X86_REG_R9,  X86_REG_R10, X86_REG_R11,
	};

	for (size_t i = 0; i < sizeof(volatile_regs) / sizeof(*volatile_regs);
	     i++)
		set_reg(s, volatile_regs[i], UNK);
}

/* mov, movslq: a copy of a register, an immediate or a stack slot. */
static bool transfer_mov(struct astate *s, const cs_insn *i)
{
	const cs_x86 *x = &i->detail->x86;
	const cs_x86_op *dst = NULL, *src = NULL;
	struct aval v = UNK;
	int32_t off;

	if (x->op_count != 2)
		return false;
	for (int k = 0; k < 2; k++) {
		if (x->operands[k].access & CS_AC_WRITE)
			dst = &x->operands[k];
		else
			src = &x->operands[k];
	}
	if (!dst || !src)
		return false;
	if (src->type == X86_OP_REG)
		v = get_reg(s, src->reg, src->size);
	else if (src->type == X86_OP_IMM)
		v = (struct aval){ .kind = V_CONST, .c = src->imm };
	else if (src->type == X86_OP_MEM && stack_slot(s, &src->mem, &off))
		v = slot_load(s, off, src->size);
	if (i->id == X86_INS_MOVSXD && v.kind == V_ARG)
		v.narrow = 1;
	else if (i->id == X86_INS_MOVSXD)
		v = UNK;
	if (dst->type == X86_OP_REG) {
		if (dst->size < 4)
			v = UNK;
		if (v.kind == V_CONST && dst->size == 4)
			v.c = (uint32_t)v.c;
		set_reg(s, dst->reg, v);
	} else if (dst->type == X86_OP_MEM && stack_slot(s, &dst->mem, &off)) {
		slot_store(s, off, dst->size, v);
	}
	return true;
}

/* add/sub of a constant to the stack pointer. */
static bool transfer_sp(struct astate *s, const cs_insn *i)
{
	const cs_x86 *x = &i->detail->x86;
	const cs_x86_op *imm = NULL;
	bool sp = false;

	if (x->op_count != 2)
		return false;
	for (int k = 0; k < 2; k++) {
		if (x->operands[k].type == X86_OP_IMM)
			imm = &x->operands[k];
		else if (x->operands[k].type == X86_OP_REG &&
			 x->operands[k].reg == X86_REG_RSP)
			sp = true;
	}
	if (!imm || !sp || !s->sp_known)
		return false;
	s->sp += i->id == X86_INS_SUB ? -(int32_t)imm->imm : (int32_t)imm->imm;
	return true;
}

static void transfer_other(struct astate *s, csh cs, const cs_insn *i)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (cs_regs_access(cs, i, rd, &nrd, wr, &nwr) != CS_ERR_OK) {
		for (int k = 0; k < NGPR; k++)
			set_reg(s, gprs[k], UNK);
		return;
	}
	for (int k = 0; k < nwr; k++)
		set_reg(s, wr[k], UNK);
}

/* The effect of one non-branching instruction on the state. */
static void transfer(struct astate *s, csh cs, const cs_insn *i)
{
	const cs_x86 *x = &i->detail->x86;
	int32_t off;

	switch (i->id) {
	case X86_INS_MOV:
	case X86_INS_MOVABS:
	case X86_INS_MOVSXD:
		if (transfer_mov(s, i))
			return;
		break;
	case X86_INS_XOR:
		if (x->op_count == 2 && x->operands[0].type == X86_OP_REG &&
		    x->operands[1].type == X86_OP_REG &&
		    dc_x86_gpr(x->operands[0].reg) ==
			dc_x86_gpr(x->operands[1].reg)) {
			set_reg(s, x->operands[0].reg,
				(struct aval){ .kind = V_CONST, .c = 0 });
			return;
		}
		break;
	case X86_INS_ADD:
	case X86_INS_SUB:
		if (transfer_sp(s, i))
			return;
		break;
	case X86_INS_PUSH:
		if (s->sp_known && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_REG) {
			s->sp -= 8;
			slot_store(s, s->sp, 8,
				   get_reg(s, x->operands[0].reg, 8));
			return;
		}
		break;
	case X86_INS_POP:
		if (s->sp_known && x->op_count == 1 &&
		    x->operands[0].type == X86_OP_REG &&
		    gpr_index(x->operands[0].reg) != 7) {
			off = s->sp;
			set_reg(s, x->operands[0].reg, slot_load(s, off, 8));
			s->sp += 8;
			return;
		}
		break;
	case X86_INS_CALL: clobber_call(s); return;
	default: break;
	}
	transfer_other(s, cs, i);
}

static bool in_group(const cs_insn *i, uint8_t g)
{
	for (int k = 0; k < i->detail->groups_count; k++)
		if (i->detail->groups[k] == g)
			return true;
	return false;
}

/* The index of the instruction at @addr, or -1. */
static long index_of(const cs_insn *insn, long n, uint64_t addr)
{
	long lo = 0, hi = n - 1;

	while (lo <= hi) {
		long mid = (lo + hi) / 2;

		if (insn[mid].address == addr)
			return mid;
		if (insn[mid].address < addr)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Code analysed: the function, then each function it jumps into. */
struct region {
	uint64_t start, end;
	cs_insn *insn;
	long n;
};

struct flow {
	const cs_insn *insn; /* every region's, by address */
	long n;
	const struct region *reg;
	int nreg;
	uint64_t start, end; /* the function's own code */
	bool follow;	     /* jumps out may be followed */
	uint64_t follow_to;  /* a jump out to follow, 0: none */
	bool tail_exit;	     /* a path without a system call jumped out */
	bool unseen_exit;    /* a path returns without a system call */
	struct astate *st;   /* [index * 2 + seen] */
	long *work;
	long nwork;
	bool *queued;
	const char *why;
};

static bool in_regions(const struct flow *f, uint64_t addr)
{
	for (int r = 0; r < f->nreg; r++)
		if (addr >= f->reg[r].start && addr < f->reg[r].end)
			return true;
	return false;
}

static void flow_to(struct flow *f, long idx, int seen, const struct astate *s)
{
	long node = idx * 2 + seen;

	if (join(&f->st[node], s) && !f->queued[node]) {
		f->queued[node] = true;
		f->work[f->nwork++] = node;
	}
}

/* A path leaves the function: by ret, a jump out, or falling off. */
/* The flow goes on: the sites the other paths reach are wanted still. */
static void flow_exit(struct flow *f, int seen)
{
	if (!seen)
		f->unseen_exit = true;
}

/* Whether a branch of the code lands at @addr. */
static bool branched_to(const struct flow *f, uint64_t addr)
{
	for (long k = 0; k < f->n; k++) {
		const cs_x86 *x = &f->insn[k].detail->x86;

		if (in_group(&f->insn[k], CS_GRP_BRANCH_RELATIVE) &&
		    x->op_count && x->operands[0].type == X86_OP_IMM &&
		    (uint64_t)x->operands[0].imm == addr)
			return true;
	}
	return false;
}

/*
 * The register that is 0 where je at @k jumps, or jne at @k falls
 * through: "and $imm, reg" just before it, which every path to the jump
 * passes (open's "and $O_CREAT, %r10d; jne": r10 is the mode, 0 without
 * O_CREAT). X86_REG_INVALID for none.
 */
static x86_reg zeroed(const struct flow *f, long k)
{
	const cs_insn *i = &f->insn[k], *p = k ? &f->insn[k - 1] : NULL;
	const cs_x86 *x;
	x86_reg r = X86_REG_INVALID;
	bool imm = false;

	if ((i->id != X86_INS_JE && i->id != X86_INS_JNE) || !p ||
	    p->id != X86_INS_AND || p->address + p->size != i->address)
		return X86_REG_INVALID;
	x = &p->detail->x86;
	for (int o = 0; o < x->op_count; o++) {
		if (x->operands[o].type == X86_OP_IMM)
			imm = true;
		else if (x->operands[o].type == X86_OP_REG &&
			 (x->operands[o].access & CS_AC_WRITE) &&
			 x->operands[o].size >= 4)
			r = x->operands[o].reg;
	}
	if (!imm || x->op_count != 2 || branched_to(f, i->address))
		return X86_REG_INVALID;
	return r;
}

static void flow_node(struct flow *f, csh cs, long node)
{
	const cs_insn *i = &f->insn[node / 2];
	const cs_x86 *x = &i->detail->x86;
	int seen = node & 1;
	struct astate s = f->st[node], js;
	x86_reg zero;
	uint64_t target;
	long t;

	if (i->id == X86_INS_SYSCALL) {
		if (seen) {
			f->why = "a path makes two system calls";
			return;
		}
		seen = 1;
		set_reg(&s, X86_REG_RAX, UNK);
		set_reg(&s, X86_REG_RCX, UNK);
		set_reg(&s, X86_REG_R11, UNK);
	} else if (i->id == X86_INS_SYSENTER || in_group(i, CS_GRP_INT) ||
		   in_group(i, CS_GRP_IRET)) {
		f->why = "it traps in another way than syscall";
		return;
	} else if (i->id == X86_INS_HLT || i->id == X86_INS_UD2) {
		return; /* the path aborts */
	} else if (in_group(i, CS_GRP_RET)) {
		flow_exit(f, seen);
		return;
	} else if (in_group(i, CS_GRP_JUMP)) {
		if (!in_group(i, CS_GRP_BRANCH_RELATIVE) || !x->op_count ||
		    x->operands[0].type != X86_OP_IMM) {
			f->why = "it jumps indirectly";
			return;
		}
		target = x->operands[0].imm;
		t = index_of(f->insn, f->n, target);
		if (t < 0 && in_regions(f, target)) {
			f->why = "a jump lands inside an instruction";
			return;
		}
		if (t < 0 && !seen && i->id == X86_INS_JMP) {
			f->tail_exit = true;
			if (f->follow && f->nreg < MAX_REGIONS) {
				f->follow_to = target; /* analysed again */
				return;
			}
		}
		zero = zeroed(f, node / 2);
		js = s;
		if (zero != X86_REG_INVALID)
			set_reg(i->id == X86_INS_JE ? &js : &s, zero,
				(struct aval){ .kind = V_CONST, .c = 0 });
		if (t < 0)
			flow_exit(f, seen); /* a tail call */
		else
			flow_to(f, t, seen, &js);
		if (i->id == X86_INS_JMP)
			return;
	} else {
		transfer(&s, cs, i);
	}
	if (node / 2 + 1 < f->n &&
	    f->insn[node / 2 + 1].address == i->address + i->size)
		flow_to(f, node / 2 + 1, seen, &s);
	else if (i->id != X86_INS_CALL) /* a last call does not return */
		flow_exit(f, seen);
}

/* Each system call site's number and arguments, from the final states. */
static int collect(const struct flow *f, struct dc_sysstub *st)
{
	bool mapped[6] = { false };

	memset(st, 0, sizeof(*st));
	st->nr = -1;
	memset(st->sysarg, -1, sizeof(st->sysarg));
	for (long k = 0; k < f->n; k++) {
		const struct astate *s = &f->st[k * 2];
		struct aval nr;

		if (f->insn[k].id != X86_INS_SYSCALL || !s->live)
			continue;
		nr = get_reg(s, X86_REG_RAX, 8);
		if (nr.kind != V_CONST || (st->nr >= 0 && nr.c != st->nr))
			return -ENOENT;
		if (st->nsites == DC_STUB_SITES)
			return -ENOENT;
		st->nr = nr.c;
		st->site[st->nsites] = f->insn[k].address + f->insn[k].size;
		st->tail |= f->insn[k].address < f->start ||
			    f->insn[k].address >= f->end;
		for (int j = 0; j < 6; j++) {
			struct aval v = get_reg(s, dc_x86_sys_args[j], 8);

			if (v.kind != V_CONST)
				continue;
			st->sysconst[st->nsites] |= 1u << j;
			st->sysval[st->nsites][j] = v.c;
		}
		/* An argument is mapped only where every site agrees. */
		for (int a = 0; a < 6; a++) {
			int at = -1;

			for (int j = 0; j < 6; j++) {
				struct aval v =
				    get_reg(s, dc_x86_sys_args[j], 8);

				if (is_arg(&v) && v.arg == a) {
					at = j;
					if (v.narrow)
						st->narrow |= 1 << a;
					if (v.kind == V_ARG0)
						st->or0 |= 1 << a;
					break;
				}
			}
			if (!st->nsites) {
				st->sysarg[a] = at;
				mapped[a] = at >= 0;
			} else if (mapped[a] && st->sysarg[a] != at) {
				st->sysarg[a] = -1;
				mapped[a] = false;
			}
		}
		st->nsites++;
	}
	return st->nsites ? 0 : -ENOENT;
}

/* One pass of the analysis over the regions decoded so far. */
static int analyse(struct flow *f, const struct dc_code *c)
{
	struct astate entry = { .live = true, .sp_known = true };

	f->st = calloc(f->n * 2, sizeof(*f->st));
	f->work = calloc(f->n * 2, sizeof(*f->work));
	f->queued = calloc(f->n * 2, sizeof(*f->queued));
	if (!f->st || !f->work || !f->queued)
		return -ENOMEM;
	for (int a = 0; a < 6; a++)
		entry.reg[gpr_index(dc_x86_call_args[a])] =
		    (struct aval){ .kind = V_ARG, .arg = a };
	flow_to(f, index_of(f->insn, f->n, f->start), 0, &entry);
	while (f->nwork && !f->why && !f->follow_to) {
		long node = f->work[--f->nwork];

		f->queued[node] = false;
		flow_node(f, c->cs, node);
	}
	if (f->unseen_exit && !f->why && !f->follow_to)
		f->why = no_syscall;
	return 0;
}

/* Decode the code a jump out leads to, up to the next region, into
 * @reg kept by address. */
static int add_region(const struct dc_code *c, struct region *reg, int *nreg,
		      uint64_t start)
{
	uint64_t size = MAX_STUB_BYTES;
	struct region r = { .start = start };
	int k = *nreg;

	if (start >= c->len)
		return -ENOENT;
	for (int i = 0; i < *nreg; i++)
		if (reg[i].start > start && reg[i].start - start < size)
			size = reg[i].start - start;
	if (size > c->len - start)
		size = c->len - start;
	r.n = dc_code_decode(c, start, size, 0, &r.insn);
	if (r.n <= 0)
		return -ENOENT;
	r.end = r.insn[r.n - 1].address + r.insn[r.n - 1].size;
	while (k > 0 && reg[k - 1].start > start) {
		reg[k] = reg[k - 1];
		k--;
	}
	reg[k] = r;
	(*nreg)++;
	return 0;
}

/* Every region's instructions, by address, for the flow. */
static int merge(struct flow *f, const struct region *reg, int nreg,
		 cs_insn **all)
{
	long n = 0;

	for (int r = 0; r < nreg; r++)
		n += reg[r].n;
	*all = malloc(n * sizeof(**all));
	if (!*all)
		return -ENOMEM;
	n = 0;
	for (int r = 0; r < nreg; r++) {
		memcpy(*all + n, reg[r].insn, reg[r].n * sizeof(**all));
		n += reg[r].n;
	}
	f->insn = *all;
	f->n = n;
	f->nreg = nreg;
	return 0;
}

static void flow_reset(struct flow *f)
{
	free(f->st);
	free(f->work);
	free(f->queued);
	f->st = NULL;
	f->work = NULL;
	f->queued = NULL;
	f->nwork = 0;
	f->why = NULL;
	f->follow_to = 0;
	f->tail_exit = false;
	f->unseen_exit = false;
}

int dc_sysstub(const struct dc_code *c, uint64_t off, uint64_t size,
	       struct dc_sysstub *st, const char **why)
{
	struct region reg[MAX_REGIONS] = { 0 };
	struct flow f = { .reg = reg, .start = off, .end = off + size };
	cs_insn *all = NULL;
	int nreg = 1, err;

	*why = NULL;
	memset(st, 0, sizeof(*st));
	if (size > MAX_STUB_BYTES) {
		*why = "too large for a wrapper";
		return -ENOENT;
	}
	reg[0] = (struct region){ .start = off, .end = off + size };
	reg[0].n = dc_code_decode(c, off, size, 0, &reg[0].insn);
	if (reg[0].n <= 0) {
		*why = "cannot be decoded";
		return -ENOENT;
	}
	/* Alone first; then, if a path without a system call jumps out,
	 * followed into each function it jumps to. */
	for (;;) {
		free(all);
		all = NULL;
		err = merge(&f, reg, nreg, &all) ?: analyse(&f, c);
		if (err) {
			*why = "out of memory";
			goto cleanup;
		}
		if (f.follow_to) {
			uint64_t to = f.follow_to;

			flow_reset(&f);
			if (add_region(c, reg, &nreg, to)) {
				*why = "it jumps where its code cannot be read";
				err = -ENOENT;
				goto cleanup;
			}
			continue;
		}
		if (!f.why || !f.tail_exit || f.follow)
			break;
		flow_reset(&f);
		f.follow = true;
	}
	err = -ENOENT;
	if (f.why) {
		*why = f.why;
		/* Where its other paths make their syscall, in code it
		 * jumps to: there the syscall is its uprobe's call's. */
		if (f.why == no_syscall && nreg > 1 && collect(&f, st))
			st->nsites = 0;
		goto cleanup;
	}
	err = collect(&f, st);
	if (err)
		*why = "its system calls differ or are not constant";
cleanup:
	free(f.st);
	free(f.work);
	free(f.queued);
	free(all);
	for (int r = 0; r < nreg; r++)
		cs_free(reg[r].insn, reg[r].n);
	return err;
}
