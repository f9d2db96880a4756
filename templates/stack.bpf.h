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

/*
 * Pop the innermost frame of @probe holding @v in the slots of @mask.
 * Frames above it belong to calls whose return was never seen (longjmp,
 * a probe the kernel skipped): they are dropped and counted, so one lost
 * return cannot shift every later match. NULL, with the stack as it
 * was, when no frame matches.
 */
static __always_inline struct dc_frame *
dc_pop_match(struct dc_thread *t, __u32 probe, __u8 mask, const __u64 *v)
{
	__u32 d = t->depth, top, found = DC_MAX_DEPTH;

	if (d == 0)
		return 0;
	if (d > DC_MAX_DEPTH) {
		t->depth = d - 1;
		return 0;
	}
	for (int i = 0; i < DC_MAX_DEPTH && i < d; i++) {
		top = dc_frame_slot(d - 1 - i);
		if (t->f[top].probe == probe && dc_same(&t->f[top], mask, v)) {
			found = top;
			break;
		}
	}
	if (found == DC_MAX_DEPTH)
		return 0; /* its entry predates tracing */
	for (int i = 0; i < DC_MAX_DEPTH && i < d - 1 - found; i++)
		dc_lose(t->f[dc_frame_slot(d - 1 - i)].probe, DC_LOSS_NORETURN);
	t->depth = found;
	return &t->f[found];
}

static __always_inline struct dc_frame *dc_pop(struct dc_thread *t, __u32 probe)
{
	return dc_pop_match(t, probe, 0, 0);
}

#endif /* DATACRUMBS_STACK_BPF_H */
