/* SPDX-License-Identifier: MIT */
/*
 * System calls, from the raw sys_enter and sys_exit tracepoints: traced
 * syscalls, the calls of the thin wrappers around them (syswrap.bpf.h),
 * the directory changes relative paths are named against, and the
 * libraries mapped later (libmap.bpf.h).
 */
#ifndef DATACRUMBS_SYSCALL_BPF_H
#define DATACRUMBS_SYSCALL_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "emit.bpf.h"
#include "capture.bpf.h"
#include "syswrap.bpf.h"
#include "libmap.bpf.h"

/* The syscalls sys_enter and sys_exit act on, a bit each, set by the
 * runtime after load: traced ones, the wrappers', chdir's and, with
 * dc_libs_at_exit, mmap's. Every other syscall of every process leaves
 * at once. */
__u64 dc_sys_want[DC_SYSNR_MAX / 64];

static __always_inline bool dc_sys_wanted(__u64 nr)
{
	return nr < DC_SYSNR_MAX && (dc_sys_want[nr / 64] >> (nr % 64) & 1);
}

/* The descriptor syscall @nr frees: its own, -1 for a range; or -2 when
 * it frees none. dup2 and dup3 free their target if it is open. */
static __always_inline __s32 dc_sys_frees(long nr, const struct pt_regs *regs)
{
	if (nr == DC_NR_CLOSE)
		return (__s32)regs->di;
	if (nr == DC_NR_DUP2 || nr == DC_NR_DUP3)
		return (__s32)regs->si;
	return nr == DC_NR_CLOSE_RANGE ? -1 : -2;
}

/* Marked at entry and at exit: whenever the kernel freed the number
 * within the call, a call on it made after the entry is older than the
 * mark the runtime reads. */
static __always_inline void dc_freed(__u32 tgid, __s32 fd, __u64 now)
{
	__u32 k = dc_close_slot(tgid, fd);
	__u64 *ts = bpf_map_lookup_elem(&dc_close_ts, &k);

	if (ts)
		*ts = now;
}

static __always_inline __u32 dc_sys_probe(long nr)
{
	__u32 id;

	if (nr < 0 || nr >= DC_SYSNR_MAX)
		return DC_NPROBES;
	id = dc_sysnr[nr];
	return id ? id - 1 : DC_NPROBES;
}

/*
 * Every system call of every process passes here: one no program acts on
 * leaves at its first instructions, an untraced process's after one
 * lookup more. A traced one may be a traced syscall, a traced
 * wrapper's (recognised from where it was made), or both: the wrapper's
 * call is pushed first, so the syscall nests under it.
 */
static __always_inline int dc_sys_enter_on(unsigned long long *ctx, bool vma)
{
	struct pt_regs *regs = (void *)ctx[0];
	const struct dc_wrap_site *w = 0;
	struct dc_thread *t;
	__u64 a[6], now;
	__u32 tgid, probe;
	__s32 freed;

	if (!dc_sys_wanted(ctx[1]))
		return 0;
	probe = dc_sys_probe(ctx[1]);
	freed = dc_sys_frees(ctx[1], regs);
	if (probe >= DC_NPROBES && !dc_wraps.n && freed == -2)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!dc_traced(tgid))
		return 0;
	now = bpf_ktime_get_ns();
	if (freed != -2)
		dc_freed(tgid, freed, now);
	t = dc_thread_new(tgid);
	if (!t) {
		if (probe < DC_NPROBES)
			dc_lose(probe, DC_LOSS_STATE);
		return 0;
	}
	dc_sys_args(regs, a);
	if (dc_wraps.n) {
		w = dc_wrap_site_of(t, regs->ip, ctx[1], vma);
		if (w)
			dc_wrap_enter(t, w, a, regs->ip, now);
	}
	if (probe < DC_NPROBES) {
		__u64 v[DC_CAPTURE] = {};
		__s32 sfd = dc_capture(probe, a, v, regs->ip, 0, vma);

		dc_push_on(t, probe, v, sfd, 0, now);
	}
	return 0;
}

SEC("tp_btf/sys_enter")
int dc_sys_enter(unsigned long long *ctx)
{
	return dc_sys_enter_on(ctx, true);
}

/* Kernels without bpf_find_vma (DC_FB_FIND_VMA): wrappers by code. */
SEC("tp_btf/sys_enter")
int dc_sys_enter_compat(unsigned long long *ctx)
{
	return dc_sys_enter_on(ctx, false);
}

/* A traced process changed directory: the runtime names relative paths
 * against it. Sent from the scratch buffer, as long as its path. */
static __always_inline void dc_cwd_event(struct pt_regs *regs, long nr,
					 __u32 pid)
{
	__u32 zero = 0, len = 0;
	struct dc_cwd_event *e = bpf_map_lookup_elem(&dc_scratch, &zero);
	long n;

	if (!e)
		return;
	e->kind = DC_EV_CHDIR;
	e->pid = pid;
	e->fd = nr == DC_NR_FCHDIR ? (__s32)regs->di : -1;
	e->pad = 0;
	e->ts = bpf_ktime_get_ns();
	if (nr == DC_NR_CHDIR) {
		n = bpf_probe_read_user_str(e->path, sizeof(e->path),
					    (const void *)regs->di);
		len = n > 0 ? n : 0;
		if (len > DC_PATH_MAX)
			len = DC_PATH_MAX;
	}
	e->path_len = len;
	bpf_ringbuf_output(&dc_events, e,
			   __builtin_offsetof(struct dc_cwd_event, path) + len,
			   dc_wakeup());
}

/* @vma: as for sys_enter; a kernel with bpf_find_vma (5.17) also lets
 * the exit pass global functions pointers (5.12). */
static __always_inline int dc_sys_exit_on(unsigned long long *ctx, bool vma)
{
	struct pt_regs *regs = (void *)ctx[0];
	long nr = regs->orig_ax, ret = ctx[1];
	struct dc_thread *t;
	struct dc_frame *f;
	__u64 id, now;
	__u32 probe;
	__s32 freed;
	bool cd;

	if (!dc_sys_wanted(nr))
		return 0;
	probe = dc_sys_probe(nr);
	cd = nr == DC_NR_CHDIR || nr == DC_NR_FCHDIR;
	freed = dc_sys_frees(nr, regs);

	if (probe >= DC_NPROBES && !dc_wraps.n && !cd && nr != DC_NR_MMAP &&
	    freed == -2)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!dc_traced(id >> 32))
		return 0;
	now = bpf_ktime_get_ns();
	if (freed != -2)
		dc_freed(id >> 32, freed, now);
	if (cd && !ret)
		dc_cwd_event(regs, nr, id >> 32);
	if (nr == DC_NR_MMAP && dc_libs_at_exit)
		dc_lib_check_regs(id >> 32, ret, regs);
	t = dc_thread_get();
	if (!t)
		return 0;
	if (probe < DC_NPROBES) {
		f = dc_pop(t, probe);
		if (f)
			dc_emit(t, f, probe, ret, dc_cap(probe), t->job, id,
				now, vma);
	}
	if (dc_wraps.n)
		dc_wrap_exit(t, ret, regs, t->job, id, now, vma);
	return 0;
}

SEC("tp_btf/sys_exit")
int dc_sys_exit(unsigned long long *ctx)
{
	return dc_sys_exit_on(ctx, true);
}

SEC("tp_btf/sys_exit")
int dc_sys_exit_compat(unsigned long long *ctx)
{
	return dc_sys_exit_on(ctx, false);
}

#endif /* DATACRUMBS_SYSCALL_BPF_H */
