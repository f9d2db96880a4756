/* SPDX-License-Identifier: MIT */
/*
 * The stack of a thread's traced calls: an entry pushes a frame, its
 * return pops the frame it matches.
 */
#ifndef DATACRUMBS_STACK_BPF_H
#define DATACRUMBS_STACK_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"

/* A call of a traced thread enters: push its frame. */
static __always_inline int dc_push_on(struct dc_thread *t, __u32 probe,
				      const __u64 *v, __s32 sfd, __u32 flags,
				      __u64 now)
{
	struct dc_frame *f;
	__u32 d;

	d = t->depth++;
	if (d >= DC_MAX_DEPTH) {
		dc_lose(probe, DC_LOSS_DEPTH);
		return 0;
	}
	f = &t->f[d];
	f->probe = probe;
	f->seq = ++t->next_seq;
	f->val[0] = v[0];
	f->val[1] = v[1];
	f->val[2] = v[2];
	f->val[3] = v[3];
	f->sfd = sfd;
	f->flags = flags;
	f->ts = now;
	return 0;
}

static __always_inline int dc_push(__u32 probe, const __u64 *v, __s32 sfd)
{
	struct dc_thread *t = dc_thread_new(bpf_get_current_pid_tgid() >> 32);

	if (!t) {
		dc_lose(probe, DC_LOSS_STATE);
		return 0;
	}
	return dc_push_on(t, probe, v, sfd, 0, bpf_ktime_get_ns());
}

static __always_inline int dc_enter(__u32 probe, const __u64 *v, __s32 sfd)
{
	if (!dc_traced(bpf_get_current_pid_tgid() >> 32))
		return 0;
	return dc_push(probe, v, sfd);
}

/* The calling thread's frames @from to @to - 1 are calls whose return
 * will not be seen: count each for @reason (never came, or an exec ended
 * them). A global function, verified once: inlined, its loop was walked
 * again for each way dc_pop_match()'s search ends (a sixth of
 * dc_sys_exit's verification). Only a lost return pays for looking the
 * thread up again. */
__noinline int dc_lose_unreturned(__u32 from, __u32 to, __u32 reason)
{
	struct dc_thread *t = dc_thread_get();

	if (!t)
		return 0;
	for (int i = 0; i < DC_MAX_DEPTH; i++) {
		if (from + i >= to)
			break;
		dc_lose(t->f[dc_frame_slot(from + i)].probe, reason);
	}
	return 0;
}

/* Whether frame @f holds @v in the slots of @mask. Without a branch a
 * slot: inside dc_pop_match()'s loop, branches here multiplied the paths
 * the verifier walked (a second of dc_usdt's loading). */
static __always_inline bool dc_same(const struct dc_frame *f, __u8 mask,
				    const __u64 *v)
{
	__u64 diff = 0;

	for (int i = 0; i < DC_CAPTURE; i++)
		diff |= (f->val[i] ^ v[i]) & -(__u64)((mask >> i) & 1);
	return !diff;
}

/* The slot of the innermost of @t's @d frames that is @probe's and
 * holds @v in the slots of @mask, or DC_MAX_DEPTH. */
static __always_inline __u32 dc_find_frame(struct dc_thread *t, __u32 d,
					   __u32 probe, __u8 mask,
					   const __u64 *v)
{
	__u32 top, found = DC_MAX_DEPTH;

	for (int i = 0; i < DC_MAX_DEPTH && i < d; i++) {
		top = dc_frame_slot(d - 1 - i);
		if (t->f[top].probe == probe && dc_same(&t->f[top], mask, v)) {
			found = top;
			break;
		}
	}
	return found;
}

/* The calling thread's innermost frame of @probe, below its top: a
 * global function, verified once, as the search's loop is walked for
 * each state a program reaches it in (a fifth of dc_sys_exit's
 * verification). Only a return whose frame is not on top pays for
 * looking the thread up again. */
__noinline int dc_find_below(__u32 probe)
{
	struct dc_thread *t = dc_thread_get();
	__u32 d;

	if (!t)
		return DC_MAX_DEPTH;
	d = t->depth;
	if (d > DC_MAX_DEPTH)
		return DC_MAX_DEPTH;
	/* Knowing d's bound, clang drops the loop's constant one, which
	 * the verifier needs. */
	asm volatile("" : "+r"(d));
	return dc_find_frame(t, d, probe, 0, 0);
}

/*
 * Pop the innermost frame of @probe holding @v in the slots of @mask.
 * Frames above it belong to calls whose return was never seen (longjmp,
 * a probe the kernel skipped): they are dropped and counted, so one lost
 * return cannot shift every later match. NULL, with the stack as it
 * was, when no frame matches. @top_first (a constant, with no @mask):
 * look at the top frame, the rule, before searching below it.
 */
static __always_inline struct dc_frame *dc_pop_frame(struct dc_thread *t,
						     __u32 probe, __u8 mask,
						     const __u64 *v,
						     bool top_first)
{
	__u32 d = t->depth, found;

	if (d == 0)
		return 0;
	if (d > DC_MAX_DEPTH) {
		t->depth = d - 1;
		return 0;
	}
	if (top_first) {
		found = dc_frame_slot(d - 1);
		if (t->f[found].probe != probe)
			found = dc_find_below(probe);
	} else {
		found = dc_find_frame(t, d, probe, mask, v);
	}
	if (found >= DC_MAX_DEPTH)
		return 0; /* its entry predates tracing */
	if (found + 1 < d)
		dc_lose_unreturned(found + 1, d, DC_LOSS_NORETURN);
	t->depth = found;
	/* The mask again where found came from dc_find_below(): each form
	 * keeps its callers' verification smallest. */
	return top_first ? &t->f[dc_frame_slot(found)] : &t->f[found];
}

static __always_inline struct dc_frame *
dc_pop_match(struct dc_thread *t, __u32 probe, __u8 mask, const __u64 *v)
{
	return dc_pop_frame(t, probe, mask, v, false);
}

static __always_inline struct dc_frame *dc_pop(struct dc_thread *t, __u32 probe)
{
	return dc_pop_frame(t, probe, 0, 0, true);
}

#endif /* DATACRUMBS_STACK_BPF_H */
