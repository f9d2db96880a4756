// SPDX-License-Identifier: MIT
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "emulated.h"
#include "retsite.h"

/* Larger functions are not searched: their flow is too costly to walk
 * for each candidate, and wrappers this matters for are small. */
#define MAX_FLOW_BYTES 4096

struct flow {
	const cs_insn *in;
	long n;
	uint64_t end;  /* first byte past the function */
	long entry;    /* index of the entry probe's instruction */
	uint8_t *seen; /* per instruction, for one walk */
	long *todo;
};

static bool in_group(const cs_insn *i, uint8_t g)
{
	for (int k = 0; k < i->detail->groups_count; k++)
		if (i->detail->groups[k] == g)
			return true;
	return false;
}

static long index_at(const struct flow *f, uint64_t a)
{
	long lo = 0, hi = f->n;

	while (lo < hi) {
		long mid = (lo + hi) / 2;

		if (f->in[mid].address < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < f->n && f->in[lo].address == a ? lo : -1;
}

/* Where control goes after instruction @k: up to two instructions into
 * @next. Returns how many (0: the path ends, by ret, a trap, or a call
 * that does not return as it is the function's last), or -1 when it
 * leaves the function another way or cannot be followed. */
static int successors(const struct flow *f, long k, long next[2])
{
	const cs_insn *i = &f->in[k];
	const cs_x86 *x = &i->detail->x86;
	uint64_t fall = i->address + i->size;
	int n = 0;

	switch (i->id) {
	case X86_INS_RET:
	case X86_INS_UD2:
	case X86_INS_HLT:
	case X86_INS_INT3: return 0;
	default: break;
	}
	if (in_group(i, CS_GRP_CALL))
		return fall >= f->end ? 0 : (next[0] = k + 1, 1);
	if (in_group(i, CS_GRP_JUMP)) {
		if (!x->op_count || x->operands[0].type != X86_OP_IMM)
			return -1;
		next[n] = index_at(f, x->operands[0].imm);
		if (next[n++] < 0)
			return -1;
		if (i->id == X86_INS_JMP)
			return n;
	}
	if (fall >= f->end)
		return -1;
	next[n++] = k + 1;
	return n;
}

static bool writes_rax(const struct dc_code *c, const cs_insn *i)
{
	cs_regs rd, wr;
	uint8_t nrd, nwr;

	if (i->id == X86_INS_SYSCALL ||
	    cs_regs_access(c->cs, i, rd, &nrd, wr, &nwr) != CS_ERR_OK)
		return true;
	for (int k = 0; k < nwr; k++)
		if (dc_x86_gpr(wr[k]) == X86_REG_RAX)
			return true;
	return false;
}

/*
 * Walk every path from instruction @from. Before @site (@after false):
 * each must reach @site before a return or a way out. After it: each
 * must return with rax untouched, without coming back to it. Either
 * way none may come back to the entry probe. Returns whether all do;
 * *@reached: @site was reached.
 */
static bool walk(const struct dc_code *c, struct flow *f, long from, long site,
		 bool after, bool *reached)
{
	long top = 0, next[2];

	for (long k = 0; k < f->n; k++)
		f->seen[k] = 0;
	f->todo[top++] = from;
	while (top) {
		long k = f->todo[--top];
		const cs_insn *i = &f->in[k];
		bool call = in_group(i, CS_GRP_CALL);
		int n;

		if (after && k != from && !call && writes_rax(c, i))
			return false;
		n = successors(f, k, next);
		if (n < 0 || (!n && i->id == X86_INS_RET && !after))
			return false;
		/* A call that returns clobbers rax after the site. */
		if (after && k != from && n && call)
			return false;
		for (int j = 0; j < n; j++) {
			long t = next[j];

			if (t <= f->entry || (t == site && after))
				return false;
			if (t == site) {
				*reached = true;
				continue;
			}
			if (!f->seen[t]) {
				f->seen[t] = 1;
				f->todo[top++] = t;
			}
		}
	}
	return true;
}

static bool is_site(const struct dc_code *c, struct flow *f, long k)
{
	const cs_insn *i = &f->in[k];
	bool reached = false;

	/* At a call, rax is not yet the function's return. */
	if (!dc_insn_emulated(i->bytes, i->size) || in_group(i, CS_GRP_CALL) ||
	    dc_code_usdt_at(c, i->address))
		return false;
	return walk(c, f, f->entry, k, false, &reached) && reached &&
	       walk(c, f, k, k, true, &reached);
}

int dc_ret_site(const struct dc_code *c, uint64_t off, uint64_t size,
		uint32_t entry, uint32_t *at, const char **why)
{
	struct flow f = { .end = off + size };
	cs_insn *insn;
	int err = -ENOENT;
	long n;

	*why = "too large to find where it returns";
	if (size > MAX_FLOW_BYTES)
		return err;
	n = dc_code_decode(c, off, size, 0, &insn);
	*why = "cannot be decoded whole";
	if (n <= 0)
		return err;
	f.in = insn;
	f.n = n;
	f.entry = index_at(&f, off + entry);
	f.seen = calloc(n, 1);
	f.todo = calloc(n, sizeof(*f.todo));
	if (!f.seen || !f.todo) {
		*why = "out of memory";
		err = -ENOMEM;
		goto cleanup;
	}
	if (f.entry < 0 || insn[n - 1].address + insn[n - 1].size < f.end)
		goto cleanup;
	*why = "no instruction the kernel emulates that each return passes";
	for (long k = f.entry + 1; k < n; k++)
		if (is_site(c, &f, k)) {
			*at = insn[k].address - off;
			err = 0;
			break;
		}
cleanup:
	free(f.seen);
	free(f.todo);
	cs_free(insn, n);
	return err;
}
