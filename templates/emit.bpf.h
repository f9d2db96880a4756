/* SPDX-License-Identifier: MIT */
/*
 * A traced call returns: its frame is popped and becomes an event on the
 * ring buffer, or, in profile mode, an aggregate.
 */
#ifndef DATACRUMBS_EMIT_BPF_H
#define DATACRUMBS_EMIT_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "fdgen.bpf.h"
#include "uread.bpf.h"
#include "profile.bpf.h"

/* Room to assemble an event with a path before bpf_ringbuf_output(). */
struct dc_path_event {
	struct dc_event ev;
	char path[DC_PATH_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_path_event);
} dc_scratch SEC(".maps");

static __always_inline void dc_fill(struct dc_event *e, struct dc_thread *t,
				    struct dc_frame *f, __u64 id, __u64 now,
				    long ret)
{
	__u32 d = t->depth; /* already popped: frames below are the parents */

	e->kind = DC_EV_CALL;
	e->level = d + 1;
	e->probe = f->probe;
	e->pid = id >> 32;
	e->tid = (__u32)id;
	e->ts = f->ts;
	e->dur = now - f->ts;
	e->seq = f->seq;
	e->parent_seq = 0;
	if (d > 0 && d <= DC_MAX_DEPTH)
		e->parent_seq = t->f[dc_frame_slot(d - 1)].seq;
	e->ret = ret;
	e->val[0] = f->val[0];
	e->val[1] = f->val[1];
	e->val[2] = f->val[2];
	e->val[3] = f->val[3];
	e->path_len = 0;
	e->flags = t->aio_helper ? DC_CALL_AIO_HELPER : 0;
	e->job = 0;
	e->gen = 0;
	e->sfd = f->sfd;
}

/* A traced call returns: its frame, popped from @t, becomes an event
 * (or an aggregate). @modern: the program may pass a global function a
 * pointer (Linux 5.12; dc_exit()). */
static __always_inline int dc_emit(struct dc_thread *t, struct dc_frame *f,
				   __u32 probe, long ret,
				   const volatile struct dc_capture *c,
				   __u32 job, __u64 id, __u64 now, bool modern)
{
	__u32 gen = 0;
	__u16 inner = 0;
	int path_slot = c->path_slot;

	dc_fix_exit(c, f, ret);
	/* --min-duration, in the kernel: a short call costs no event. Calls
	 * that change what an fd means are kept, or names would go stale. */
	if (now - f->ts < dc_cfg.min_dur_ns && !c->track && !c->gen_what) {
		dc_lose(probe, DC_SKIP_SHORT);
		return 0;
	}
	if (dc_cfg.profile) {
		/* Read once: a second volatile read would keep both
		 * functions, and the verifier's walk of each, in every
		 * program. */
		bool track = c->track;

		if (!track && modern)
			return dc_aggregate_popped_in(t, probe, ret, id, now);
		if (!track)
			return dc_aggregate_popped(probe, ret, id, now);
		gen = dc_track_gen(c, f, id, ret);
		inner = dc_inner(t, c);
	}

	if (path_slot < 0 && !c->text_mask) {
		struct dc_event *e;

		e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);
		if (!e) {
			dc_lose(probe, DC_LOSS_RINGBUF);
			return 0;
		}
		dc_fill(e, t, f, id, now, ret);
		e->gen = gen;
		e->flags |= inner ? DC_CALL_INNER : 0;
		e->job = job;
		bpf_ringbuf_submit(e, dc_wakeup());
		return 0;
	}

	__u32 zero = 0;
	struct dc_path_event *pe = bpf_map_lookup_elem(&dc_scratch, &zero);
	__u32 len;
	long n;

	if (!pe)
		return 0;
	dc_fill(&pe->ev, t, f, id, now, ret);
	pe->ev.gen = gen;
	pe->ev.flags |= inner ? DC_CALL_INNER : 0;
	pe->ev.job = job;
	if (c->text_mask) {
		len = dc_read_texts(pe->path, c->text_mask, f);
	} else {
		/* Read at return: the kernel has faulted the string in by
		 * now. */
		n = bpf_probe_read_user_str(
		    pe->path, sizeof(pe->path),
		    (const void *)f->val[path_slot & (DC_CAPTURE - 1)]);
		/* "" reads as 0 bytes on some kernels (6.1 and 6.12 here),
		 * its NUL uncounted; it is still a path: fstatat(fd, "",
		 * AT_EMPTY_PATH) is about fd's file. */
		if (n == 0) {
			pe->path[0] = 0;
			n = 1;
		}
		len = n > 0 ? n : 0;
		if (len > DC_PATH_MAX)
			len = DC_PATH_MAX;
	}
	pe->ev.path_len = len;
	if (bpf_ringbuf_output(&dc_events, pe, sizeof(pe->ev) + len,
			       dc_wakeup()))
		dc_lose(probe, DC_LOSS_RINGBUF);
	return 0;
}

/* @modern: the program may call a global function taking a pointer
 * (Linux 5.12): the _compat programs of older kernels may not. */
static __always_inline int
dc_exit(__u32 probe, long ret, const volatile struct dc_capture *c, bool modern)
{
	__u64 now = bpf_ktime_get_ns();
	__u64 id = bpf_get_current_pid_tgid();
	struct dc_thread *t;
	struct dc_frame *f;

	if (!dc_traced(id >> 32))
		return 0;
	t = dc_thread_get();
	if (!t)
		return 0;
	f = dc_pop(t, probe);
	if (!f)
		return 0;
	if (c->pass_mask && modern)
		dc_read_passed(probe, f);
	else if (c->pass_mask)
		dc_read_passed_on(probe, f);
	return dc_emit(t, f, probe, ret, c, t->job, id, now, modern);
}

#endif /* DATACRUMBS_EMIT_BPF_H */
