/* SPDX-License-Identifier: MIT */
/*
 * USDT probes: a point of its own, or the begin and end of a call (a
 * Python function's entry and return).
 */
#ifndef DATACRUMBS_USDT_BPF_H
#define DATACRUMBS_USDT_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "emit.bpf.h"
#include "capture.bpf.h"
#include "tpemit.bpf.h"

/* libbpf's USDT argument decoding; our pt_regs has the kernel's names. */
#define __VMLINUX_H__
#include <stdbool.h>
#include <bpf/usdt.bpf.h>

/*
 * The end @end of a USDT pair completes the innermost open call of its
 * begin @probe whose strings are at the same addresses as its own (a
 * Python function's name and file): a return whose entry was not seen
 * (a frame entered before tracing began, or on CPython 3.11 before a
 * profile function was set) finds none, is counted and leaves the stack
 * as it was.
 */
static __always_inline int dc_usdt_end(__u32 end, __u32 probe, const __u64 *v,
				       __u64 id)
{
	const volatile struct dc_capture *c = dc_cap(probe);
	__u64 now = bpf_ktime_get_ns();
	struct dc_thread *t = dc_thread_get();
	struct dc_frame *f;

	/* A call too deep to keep was counted at its entry. */
	if (t && t->depth > DC_MAX_DEPTH) {
		t->depth--;
		return 0;
	}
	f = t ? dc_pop_match(t, probe, c->text_mask, v) : 0;
	if (!f) {
		dc_lose(end, DC_LOSS_NOENTRY);
		return 0;
	}
	return dc_emit(t, f, probe, 0, c, t->job, id, now, false);
}

/* Argument @arg of the USDT probe firing, 0 where it cannot be read. A
 * global function, verified once: libbpf's decoding has a path for each
 * kind of argument, which inlined for every slot the verifier walked in
 * combination (40,000 of dc_usdt's instructions; dc_same() was the
 * rest). */
__noinline __u64 dc_usdt_slot(struct pt_regs *ctx, __u32 arg)
{
	long v;

	return bpf_usdt_arg(ctx, arg, &v) ? 0 : v;
}

/* A USDT probe is a point, not a call: one event of no duration, nested
 * under the traced call it fires in. A pair's begin and end make a call
 * like a function's entry and return. */
SEC("usdt")
int dc_usdt(struct pt_regs *ctx)
{
	__u32 probe = bpf_usdt_cookie(ctx);
	const volatile struct dc_capture *c;
	struct dc_tp_open o = {};
	__u64 id = bpf_get_current_pid_tgid();

	if (probe >= DC_NPROBES || !dc_traced(id >> 32))
		return 0;
	c = dc_cap(probe);
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (i >= c->nslots)
			break;
		o.val[i] = dc_usdt_slot(ctx, c->slot_arg[i]);
	}
	if (c->ends)
		return dc_usdt_end(probe, c->ends - 1, o.val, id);
	if (c->opens)
		return dc_push(probe, o.val, -1);
	o.job = dc_job_of(id >> 32);
	dc_point_open(&o, id, bpf_ktime_get_ns());
	dc_tp_emit(&o, probe, o.ts);
	return 0;
}

#endif /* DATACRUMBS_USDT_BPF_H */
