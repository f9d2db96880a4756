/* SPDX-License-Identifier: MIT */
/*
 * Thin system call wrappers traced with no uprobe. The runtime finds each
 * wrapper's syscall instructions in the library's code; at sys_enter the
 * user instruction pointer lies just past one of them, so the wrapper's
 * call is recorded from the tracepoint, nested over the system call, at
 * the tracepoint's cost instead of a trap's. Several functions may
 * reach one site (glibc's stat and lstat jump into fstatat): the
 * syscall's arguments tell whose call it is.
 */
#ifndef DC_SYSWRAP_BPF_H
#define DC_SYSWRAP_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "uread.bpf.h"
#include "emit.bpf.h"
#include "vma.bpf.h"
#include "capture.bpf.h"

/* lib << 32 | file offset just past a syscall instruction -> wrapper.
 * Both maps are filled by user space at attach and only read here: sized
 * for the most sites there can be, so nothing is preallocated. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256); /* sized by the runtime */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u64);
	__type(value, struct dc_wrap_site);
} dc_wrap_sites SEC(".maps");

/* syscall number << 12 | page offset of the site -> wrapper: for when
 * the mapping cannot be resolved. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256); /* sized by the runtime */
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, __u32);
	__type(value, struct dc_wrap_site);
} dc_wrap_byoff SEC(".maps");

static __always_inline void dc_wrap_unmatched(void)
{
	__u32 k = DC_LIMIT_VMA;
	__u64 *n = bpf_map_lookup_elem(&dc_limits, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * The mapping of @ip could not be resolved (bpf_find_vma only tries the
 * process's memory map lock, and a thread changing the map holds it):
 * a wrapper's site has the page offset of its file offset, and is
 * confirmed by the code bytes before it.
 */
static __always_inline const struct dc_wrap_site *dc_wrap_by_code(__u64 ip,
								  long nr)
{
	__u32 key = (__u32)nr << 12 | (ip & 0xfff);
	const struct dc_wrap_site *w =
	    bpf_map_lookup_elem(&dc_wrap_byoff, &key);
	__u64 code[DC_WRAP_CODE / 8];

	if (!w)
		return 0; /* no wrapper makes this syscall there */
	if (w->cand[0].probe == DC_WRAP_AMBIGUOUS ||
	    bpf_probe_read_user(code, sizeof(code),
				(const void *)(ip - DC_WRAP_CODE))) {
		dc_wrap_unmatched();
		return 0;
	}
	if (code[0] != *(const __u64 *)&w->code[0] ||
	    code[1] != *(const __u64 *)&w->code[8])
		return 0;
	return w;
}

/* The wrapper whose syscall @nr's instruction ends at @ip, or NULL;
 * without @vma (no bpf_find_vma) by its code alone. */
static __always_inline const struct dc_wrap_site *
dc_wrap_site_of(struct dc_thread *t, __u64 ip, long nr, bool vma)
{
	struct dc_vma *v;
	__u64 key;

	if (dc_cfg.wrap_by_code || !vma)
		return dc_wrap_by_code(ip, nr);
	v = dc_vma_of(t, ip);
	if (!v)
		return dc_wrap_by_code(ip, nr);
	if (v->lib < 0)
		return 0;
	key = (__u64)v->lib << 32 | (__u32)(ip - v->bias);
	return bpf_map_lookup_elem(&dc_wrap_sites, &key);
}

/* The kernel restarts the call (a signal came): the wrapper has not
 * returned yet. */
static __always_inline bool dc_restarting(long ret)
{
	return ret == -512 || ret == -513 || ret == -514 || ret == -516;
}

static __always_inline bool dc_wrap_holds(const struct dc_wrap_cand *c,
					  const __u64 *a)
{
	for (int k = 0; k < DC_WRAP_CONDS; k++) {
		const struct dc_wrap_cond *q = &c->cond[k];
		__u64 v;

		if (k >= c->nconds)
			break;
		v = dc_pick(a, q->arg);
		if (q->narrow)
			v = (__u32)v;
		if (v != q->val)
			return false;
	}
	return true;
}

/* The function whose call made syscall arguments @a at site @w, or
 * NULL: the first candidate whose conditions hold. An inside one holds
 * when the thread's innermost call (probe @top) is its uprobe's. */
static __always_inline const struct dc_wrap_cand *
dc_wrap_pick(const struct dc_wrap_site *w, const __u64 *a, __u32 top)
{
	for (int i = 0; i < DC_WRAP_CANDS; i++) {
		const struct dc_wrap_cand *c = &w->cand[i];

		if (c->probe >= DC_NPROBES)
			break;
		if (c->inside ? c->probe == top : dc_wrap_holds(c, a))
			return c;
	}
	return 0;
}

/* sys_enter at a wrapper's site: its call begins, unless it is the same
 * call's syscall restarted. */
static __always_inline void dc_wrap_enter(struct dc_thread *t,
					  const struct dc_wrap_site *w,
					  const __u64 *a, __u64 ip, __u64 now)
{
	const volatile struct dc_capture *c;
	const struct dc_wrap_cand *wc;
	__u32 probe, d = t->depth, open = DC_NPROBES;
	__u64 v[DC_CAPTURE] = {};
	struct dc_frame *top;

	if (d > 0 && d <= DC_MAX_DEPTH) {
		top = &t->f[dc_frame_slot(d - 1)];
		if ((top->flags & DC_FRAME_RESTART) && top->site == ip) {
			top->flags &= ~DC_FRAME_RESTART;
			return;
		}
		if (!(top->flags & DC_FRAME_SYS))
			open = top->probe;
	}
	wc = dc_wrap_pick(w, a, open);
	if (!wc || wc->inside)
		return;
	probe = wc->probe;
	if (probe >= DC_NPROBES)
		return;
	c = dc_cap(probe);
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (i >= c->nslots)
			break;
		v[i] = dc_fix(c, i, dc_pick(a, wc->slot_arg[i]));
		if (c->deref_entry_mask & (1 << i))
			v[i] = dc_read_u64(v[i]);
	}
	/* The wrapper began before its syscall: a close, seen first
	 * returning from the syscall, must not hide the file from it. */
	dc_push_on(t, probe, v, -1, DC_FRAME_SYS, now - 1);
	if (d < DC_MAX_DEPTH)
		t->f[dc_frame_slot(d)].site = ip;
}

/* A system call's six arguments as the syscall ABI passes them: the
 * fourth in r10, not cx. */
static __always_inline void dc_sys_args(const struct pt_regs *regs, __u64 a[6])
{
	a[0] = regs->di;
	a[1] = regs->si;
	a[2] = regs->dx;
	a[3] = regs->r10;
	a[4] = regs->r8;
	a[5] = regs->r9;
}

/* sys_exit: the wrapper on top of the thread's stack returns with its
 * system call, -errno becoming -1 as the C library returns it. Another
 * syscall's exit (rt_sigreturn after a handler) is not its return. */
static __always_inline void dc_wrap_exit(struct dc_thread *t, long ret,
					 const struct pt_regs *regs, __u32 job,
					 __u64 id, __u64 now, bool vma)
{
	__u64 ip = regs->ip, a[6];
	__u32 d = t->depth, probe;
	const struct dc_wrap_site *w;
	struct dc_frame *f;

	/* Too deep to be kept (a deep Python stack): its sys_enter counted
	 * it, every time, restarts included; its exit uncounts it. The
	 * registers still hold the syscall's arguments. */
	if (d > DC_MAX_DEPTH) {
		w = dc_wrap_site_of(t, ip, regs->orig_ax, vma);
		dc_sys_args(regs, a);
		/* An inside call pushed nothing: too deep, none is seen. */
		if (w && dc_wrap_pick(w, a, DC_NPROBES))
			t->depth = d - 1;
		return;
	}
	if (d == 0)
		return;
	f = &t->f[dc_frame_slot(d - 1)];
	if (!(f->flags & DC_FRAME_SYS) || f->site != ip)
		return;
	if (dc_restarting(ret)) {
		f->flags |= DC_FRAME_RESTART;
		return;
	}
	probe = f->probe;
	if (probe >= DC_NPROBES)
		return;
	t->depth = d - 1;
	dc_emit(t, f, probe, ret < 0 && ret >= -4095 ? -1 : ret, dc_cap(probe),
		job, id, now, vma);
}

#endif /* DC_SYSWRAP_BPF_H */
