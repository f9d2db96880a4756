/* SPDX-License-Identifier: MIT */
/*
 * The programs of every generated object. Included after the generated
 * tables dc_caps[] (per probe: which arguments to capture) and dc_sysnr[]
 * (syscall number -> probe id + 1).
 */
#ifndef DATACRUMBS_PROGRAMS_BPF_H
#define DATACRUMBS_PROGRAMS_BPF_H

#include "datacrumbs.bpf.h"

/* Sign-extend the slots holding a C int: the register's upper half is
 * undefined for them. */
static __always_inline __u64 dc_fix(const struct dc_capture *c, int i, __u64 v)
{
	return c->int_mask & (1 << i) ? (__u64)(__s64)(int)v : v;
}

/* Pick argument @n of six already loaded into scalars: the verifier
 * refuses a context pointer that clang has offset before loading. */
static __always_inline __u64 dc_pick(const __u64 *a, __u8 n)
{
	switch (n) {
	case 0: return a[0];
	case 1: return a[1];
	case 2: return a[2];
	case 3: return a[3];
	case 4: return a[4];
	default: return a[5];
	}
}

static __always_inline int dc_capture_enter(__u32 probe, const __u64 *a)
{
	const struct dc_capture *c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	__u64 v[DC_CAPTURE] = {};
	__s32 sfd = -1;

	for (int i = 0; i < DC_CAPTURE; i++) {
		if (i >= c->nslots)
			break;
		v[i] = dc_fix(c, i, dc_pick(a, c->slot_arg[i]));
		if (c->deref_entry_mask & (1 << i))
			v[i] = dc_read_u64(v[i]);
		if (c->stream_slot == i)
			sfd = dc_stream_fd(v[i]);
	}
	return dc_enter(probe, v, sfd);
}

SEC("uprobe.multi")
int dc_uprobe_entry(struct pt_regs *ctx)
{
	__u32 probe = bpf_get_attach_cookie(ctx);
	__u64 a[6] = { ctx->di, ctx->si, ctx->dx, ctx->cx, ctx->r8, ctx->r9 };

	if (probe >= DC_NPROBES)
		return 0;
	return dc_capture_enter(probe, a);
}

SEC("uretprobe.multi")
int dc_uprobe_exit(struct pt_regs *ctx)
{
	__u32 probe = bpf_get_attach_cookie(ctx);
	const struct dc_capture *c;
	long ret = ctx->ax;

	if (probe >= DC_NPROBES)
		return 0;
	c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	if (c->ret_int)
		ret = (int)ret;
	return dc_exit(probe, ret, c);
}

static __always_inline __u32 dc_sys_probe(long nr)
{
	__u32 id;

	if (nr < 0 || nr >= DC_SYSNR_MAX)
		return DC_NPROBES;
	id = dc_sysnr[nr];
	return id ? id - 1 : DC_NPROBES;
}

SEC("tp_btf/sys_enter")
int dc_sys_enter(unsigned long long *ctx)
{
	struct pt_regs *regs = (void *)ctx[0];
	__u32 probe = dc_sys_probe(ctx[1]);
	__u64 a[6];

	if (probe >= DC_NPROBES)
		return 0;
	/* The syscall ABI passes the fourth argument in r10, not cx. */
	a[0] = regs->di;
	a[1] = regs->si;
	a[2] = regs->dx;
	a[3] = regs->r10;
	a[4] = regs->r8;
	a[5] = regs->r9;
	return dc_capture_enter(probe, a);
}

SEC("tp_btf/sys_exit")
int dc_sys_exit(unsigned long long *ctx)
{
	struct pt_regs *regs = (void *)ctx[0];
	__u32 probe = dc_sys_probe(regs->orig_ax);

	if (probe >= DC_NPROBES)
		return 0;
	return dc_exit(probe, (long)ctx[1],
		       &dc_caps[probe & (DC_CAPS_SIZE - 1)]);
}

/* Children of traced processes are traced from their first instruction. */
SEC("tp_btf/sched_process_fork")
int dc_fork(unsigned long long *ctx)
{
	struct task_struct *parent = (void *)ctx[0];
	struct task_struct *child = (void *)ctx[1];
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (!dc_traced(ptgid))
		return 0;
	if (ptgid != ctgid && !dc_cfg.trace_all)
		bpf_map_update_elem(&dc_pids, &ctgid, &one, BPF_ANY);
	dc_proc_event(DC_EV_FORK, ctgid, child->pid, ptgid, child->comm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int dc_exec(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	__u32 tgid = task->tgid;

	if (!dc_traced(tgid))
		return 0;
	dc_proc_event(DC_EV_EXEC, tgid, task->pid, 0, task->comm);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int dc_exit_task(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	__u32 tgid = task->tgid, tid = task->pid;

	if (!dc_traced(tgid))
		return 0;
	dc_proc_event(DC_EV_EXIT, tgid, tid, 0, task->comm);
	/* Called after do_exit() counted this thread out of signal->live. */
	if (task->signal->live.counter == 0)
		bpf_map_delete_elem(&dc_pids, &tgid);
	return 0;
}

#endif /* DATACRUMBS_PROGRAMS_BPF_H */
