/* SPDX-License-Identifier: MIT */
/*
 * Work that begins and ends in different programs (a tracepoint pair, a
 * USDT point, an asynchronous request): its open record, kept until its
 * end, and the event emitted then.
 */
#ifndef DATACRUMBS_TPEMIT_BPF_H
#define DATACRUMBS_TPEMIT_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"

/* Tracepoint field layouts by probe * 2 + side, filled by the runtime. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_NPROBES * 2);
	__type(key, __u32);
	__type(value, struct dc_tp_cfg);
} dc_tpcfg SEC(".maps");

struct dc_tp_key {
	__u32 probe;
	__u32 pad;
	__u64 k[DC_TP_KEYS];
};

struct dc_tp_open {
	__u64 ts;
	__u64 seq;
	__u64 parent_seq;
	__u64 val[DC_CAPTURE];
	__u32 pid;
	__u32 tid;
	__u32 level;
	__u32 job;
};

/* Begin events waiting for their end (a block request in flight). LRU:
 * an end that never comes cannot fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dc_tp_key);
	__type(value, struct dc_tp_open);
} dc_tp_pending SEC(".maps");

/* Work seen in the current task (a tracepoint, a USDT point): it takes
 * the next sequence number of the thread and nests under its traced call. */
static __always_inline void dc_point_open(struct dc_tp_open *o, __u64 id,
					  __u64 now)
{
	struct dc_thread *t;

	o->ts = now;
	o->pid = id >> 32;
	o->tid = (__u32)id;
	o->level = 1;
	t = dc_thread_get();
	if (!t)
		return;
	o->seq = ++t->next_seq;
	if (t->depth > 0 && t->depth <= DC_MAX_DEPTH) {
		o->level = t->depth + 1;
		o->parent_seq = t->f[dc_frame_slot(t->depth - 1)].seq;
	}
}

static __always_inline __u64 dc_tp_read(void *ctx, const struct dc_tp_field *f)
{
	const void *p = ctx + (f->off & 0xfff);
	__u64 v = 0;

	switch (f->size) {
	case 1: {
		__u8 x = 0;

		bpf_probe_read_kernel(&x, 1, p);
		v = f->sign ? (__u64)(__s8)x : x;
		break;
	}
	case 2: {
		__u16 x = 0;

		bpf_probe_read_kernel(&x, 2, p);
		v = f->sign ? (__u64)(__s16)x : x;
		break;
	}
	case 4: {
		__u32 x = 0;

		bpf_probe_read_kernel(&x, 4, p);
		v = f->sign ? (__u64)(__s32)x : x;
		break;
	}
	default: bpf_probe_read_kernel(&v, 8, p);
	}
	return v;
}

static __always_inline void dc_tp_emit_ret(const struct dc_tp_open *o,
					   __u32 probe, __u64 now, long ret)
{
	struct dc_event *e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);

	if (!e) {
		dc_lose(probe, DC_LOSS_RINGBUF);
		return;
	}
	e->kind = DC_EV_CALL;
	e->level = o->level;
	e->probe = probe;
	e->pid = o->pid;
	e->tid = o->tid;
	e->ts = o->ts;
	e->dur = now - o->ts;
	e->seq = o->seq;
	e->parent_seq = o->parent_seq;
	e->ret = ret;
	e->val[0] = o->val[0];
	e->val[1] = o->val[1];
	e->val[2] = o->val[2];
	e->val[3] = o->val[3];
	e->path_len = 0;
	e->flags = 0;
	e->sfd = -1;
	e->gen = 0;
	e->job = o->job;
	bpf_ringbuf_submit(e, dc_wakeup());
}

static __always_inline void dc_tp_emit(const struct dc_tp_open *o, __u32 probe,
				       __u64 now)
{
	dc_tp_emit_ret(o, probe, now, 0);
}

#endif /* DATACRUMBS_TPEMIT_BPF_H */
