/* SPDX-License-Identifier: MIT */
/*
 * Functions in user space (uprobes) and in the kernel (kprobes): one
 * entry and one return program for every probe, the attach cookie
 * saying which; and, for kernels without cookies, the probe found by the
 * place that fired.
 */
#ifndef DATACRUMBS_UPROBE_BPF_H
#define DATACRUMBS_UPROBE_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "emit.bpf.h"
#include "capture.bpf.h"

/* Kernels without BPF cookies (DC_FB_COOKIES): uprobes by place, sized
 * by the runtime; and what each process's addresses resolved to. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct dc_uprobe_key);
	__type(value, __u32);
} dc_uprobe_ids SEC(".maps");

/* Kernels without kprobe.multi links nor cookies: kprobes by their
 * function's address, filled by the runtime. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u32);
} dc_kprobe_ids SEC(".maps");

/* An exec keeps the tgid but makes a new memory map. */
struct dc_uprobe_ip {
	__u64 tgid;
	__u64 mm;
	__u64 ip;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_uprobe_ip);
	__type(value, __u32);
} dc_uprobe_ips SEC(".maps");

/* The probe of the uprobe that fired, without a cookie: the first time in
 * a memory map by its place in its file, the user frame's build id and
 * offset, which the kernel resolves as bpf_find_vma would; then by
 * address. DC_NPROBES when not found. */
static __always_inline __u32 dc_uprobe_by_place(struct pt_regs *ctx)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct dc_uprobe_ip at = { bpf_get_current_pid_tgid() >> 32, 0,
				   ctx->ip };
	struct bpf_stack_build_id s;
	struct dc_uprobe_key k = {};
	__u32 *p;

	bpf_probe_read_kernel(&at.mm, sizeof(at.mm),
			      __builtin_preserve_access_index(&task->mm));
	p = bpf_map_lookup_elem(&dc_uprobe_ips, &at);
	if (p)
		return *p;
	if (bpf_get_stack(ctx, &s, sizeof(s),
			  BPF_F_USER_STACK | BPF_F_USER_BUILD_ID) !=
		sizeof(s) ||
	    s.status != BPF_STACK_BUILD_ID_VALID)
		return DC_NPROBES;
	__builtin_memcpy(k.build_id, s.build_id, sizeof(k.build_id));
	k.offset = s.offset;
	p = bpf_map_lookup_elem(&dc_uprobe_ids, &k);
	if (!p)
		return DC_NPROBES;
	bpf_map_update_elem(&dc_uprobe_ips, &at, p, BPF_ANY);
	return *p;
}

/* Kernels without bpf_find_vma: where the file the probe fired in is
 * mapped (its bias, dc_mpich_size), from the user frame's offset in it,
 * kept by the thread for the probe's address. */
static __always_inline void dc_vma_prime(struct pt_regs *ctx)
{
	struct dc_thread *t = dc_thread_get();
	struct bpf_stack_build_id s;
	__u64 ip = ctx->ip;

	if (!t || dc_vma_cached(t, ip) ||
	    bpf_get_stack(ctx, &s, sizeof(s),
			  BPF_F_USER_STACK | BPF_F_USER_BUILD_ID) !=
		sizeof(s) ||
	    s.status != BPF_STACK_BUILD_ID_VALID)
		return;
	t->vma[t->vma_next++ & (DC_VMAS - 1)] =
	    (struct dc_vma){ ip, ip + 1, ip - s.offset, -1, 0 };
}

/* The probe of the innermost call of the thread: a uretprobe without a
 * cookie returns from it, as the runtime attaches no return probes to
 * feeders (which push no frame). */
static __always_inline __u32 dc_uprobe_top(void)
{
	struct dc_thread *t = dc_thread_get();
	__u32 d;

	if (!t)
		return DC_NPROBES;
	d = t->depth;
	if (d == 0 || d > DC_MAX_DEPTH)
		return DC_NPROBES;
	return t->f[dc_frame_slot(d - 1)].probe;
}

static __always_inline int dc_regs_ret(struct pt_regs *ctx, __u32 probe,
				       bool modern)
{
	const volatile struct dc_capture *c;
	long ret = ctx->ax;

	if (probe >= DC_NPROBES)
		return 0;
	c = dc_cap(probe);
	if (c->feeds)
		return 0;
	if (c->ret_int)
		ret = (int)ret;
	return dc_exit(probe, ret, c, modern);
}

/* The argument an instruction before the probe copied to another
 * register (DC_UCOOKIE_MOVED) is read from there; each index constant,
 * and no copy of the arguments on a stack the exit's calls share. */
static __always_inline void dc_arg_moved(__u64 *a, __u64 moved)
{
	__u32 to = (moved & 7) - 1;
	__u64 v = dc_pick(a, (moved >> 3) & 7);

	for (int i = 0; i < 6; i++)
		if (i == to)
			a[i] = v;
}

/* The probe of a kprobe: its cookie, or without cookies its function's
 * address. A kprobe at a function's start sees the instruction pointer
 * just past the int3 that it is, or that an ftrace-based one emulates;
 * past an endbr64 where the kernel has indirect-branch tracking.
 * DC_NPROBES when not found. */
static __always_inline __u64 dc_kprobe_cookie(struct pt_regs *ctx)
{
	__u64 addr = ctx->ip - 1;
	__u32 *p;

	if (!(dc_cfg.fallbacks & DC_FB_COOKIES))
		return bpf_get_attach_cookie(ctx);
	p = bpf_map_lookup_elem(&dc_kprobe_ids, &addr);
	if (!p) {
		addr -= 4;
		p = bpf_map_lookup_elem(&dc_kprobe_ids, &addr);
	}
	return p ? *p : DC_NPROBES;
}

/* @cookie: the probe's, found by the caller. @vma: this program may call
 * bpf_find_vma (Linux 5.17), which it may only contain where the kernel
 * has it. */
static __always_inline int dc_regs_entry(struct pt_regs *ctx, __u64 cookie,
					 bool traced, bool vma)
{
	__u64 a[6] = { ctx->di, ctx->si, ctx->dx, ctx->cx, ctx->r8, ctx->r9 };
	__u32 probe = cookie & DC_COOKIE_PROBE;

	if (probe >= DC_NPROBES)
		return 0;
	if (cookie >> DC_UCOOKIE_MOVED)
		dc_arg_moved(a, cookie >> DC_UCOOKIE_MOVED);
	if (!vma && dc_cap(probe)->dtype_kind == DC_DTYPE_MPICH)
		dc_vma_prime(ctx);
	return dc_capture_enter(probe, a, ctx->ip, traced, (__u32)cookie, vma);
}

static __always_inline __u64 dc_uprobe_cookie(struct pt_regs *ctx)
{
	if (dc_cfg.fallbacks & DC_FB_COOKIES)
		return dc_uprobe_by_place(ctx);
	return bpf_get_attach_cookie(ctx);
}

/* A uretprobe or kretprobe, or a plain uprobe at a return site
 * (DC_UCOOKIE_RET): each sees the call return. */
static __always_inline int dc_regs_exit(struct pt_regs *ctx, bool modern)
{
	__u32 probe;

	if (dc_cfg.fallbacks & DC_FB_COOKIES)
		probe = dc_uprobe_top();
	else
		probe = bpf_get_attach_cookie(ctx) & DC_COOKIE_PROBE;
	return dc_regs_ret(ctx, probe, modern);
}

/* Functions in user space (uprobes) and in the kernel (kprobes) pass
 * arguments the same way; one body serves both. Not a session, so 0:
 * 1 would ask an older kernel to remove the breakpoint. */
SEC("uprobe.multi")
int dc_uprobe_entry(struct pt_regs *ctx)
{
	dc_regs_entry(ctx, dc_uprobe_cookie(ctx), false, true);
	return 0;
}

/* The same for kernels without bpf_find_vma (DC_FB_FIND_VMA). */
SEC("uprobe.multi")
int dc_uprobe_entry_compat(struct pt_regs *ctx)
{
	dc_regs_entry(ctx, dc_uprobe_cookie(ctx), false, false);
	return 0;
}

SEC("uretprobe.multi")
int dc_uprobe_exit(struct pt_regs *ctx)
{
	return dc_regs_exit(ctx, true);
}

SEC("uretprobe.multi")
int dc_uprobe_exit_compat(struct pt_regs *ctx)
{
	return dc_regs_exit(ctx, false);
}

/*
 * uprobe.session (Linux 6.13): one uprobe per function serves entry and
 * return, half the breakpoints to install at start-up. libbpf 1.4 knows
 * no such section, so the loader gives this program its attach type, or
 * leaves it out on older kernels. At entry, 1 spares an untraced
 * process the return trap, and spares it a call whose return is seen
 * at a site of its own (DC_UCOOKIE_NORET), or that is that site.
 */
extern bool bpf_session_is_return(void) __ksym __weak;

SEC("uprobe.multi")
int dc_uprobe_session(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx);

	/* One copy of the return's code: the verifier checks it once. */
	if (bpf_session_is_return() || (cookie & DC_UCOOKIE_RET)) {
		dc_regs_ret(ctx, cookie & DC_COOKIE_PROBE, true);
		return 1;
	}
	if (!dc_traced(bpf_get_current_pid_tgid() >> 32))
		return 1;
	return dc_regs_entry(ctx, cookie, true, true) ||
	       (cookie & DC_UCOOKIE_NORET);
}

/* kprobe.multi links, or perf-event kprobes where the kernel has none
 * (DC_FB_KPROBE_MULTI): the runtime makes both kinds take it. No user
 * address to resolve: never bpf_find_vma. */
SEC("kprobe.multi")
int dc_kprobe_entry(struct pt_regs *ctx)
{
	return dc_regs_entry(ctx, dc_kprobe_cookie(ctx), false, false);
}

SEC("kretprobe.multi")
int dc_kprobe_exit(struct pt_regs *ctx)
{
	return dc_regs_exit(ctx, true);
}

/* Kernels without bpf_find_vma, whose verifier may not take the global
 * functions of the modern exit (5.12). */
SEC("kretprobe.multi")
int dc_kprobe_exit_compat(struct pt_regs *ctx)
{
	return dc_regs_exit(ctx, false);
}

#endif /* DATACRUMBS_UPROBE_BPF_H */
