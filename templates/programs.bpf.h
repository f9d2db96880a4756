/* SPDX-License-Identifier: MIT */
/*
 * The programs of every generated object. Included after the generated
 * tables dc_caps[] (per probe: which arguments to capture) and dc_sysnr[]
 * (syscall number -> probe id + 1).
 */
#ifndef DATACRUMBS_PROGRAMS_BPF_H
#define DATACRUMBS_PROGRAMS_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "fdgen.bpf.h"
#include "uread.bpf.h"
#include "profile.bpf.h"
#include "emit.bpf.h"
#include "proc.bpf.h"
#include "vma.bpf.h"
#include "capture.bpf.h"
#include "tpemit.bpf.h"
#include "syswrap.bpf.h"
#include "uring.bpf.h"
#include "libaio.bpf.h"
#include "posixaio.bpf.h"

/* libbpf's USDT argument decoding; our pt_regs has the kernel's names. */
#define __VMLINUX_H__
#include <stdbool.h>
#include <bpf/usdt.bpf.h>

/* Kernels without BPF cookies (DC_FB_COOKIES): uprobes by place, sized
 * by the runtime; and what each process's addresses resolved to. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct dc_uprobe_key);
	__type(value, __u32);
} dc_uprobe_ids SEC(".maps");

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

/* @vma: this program may call bpf_find_vma (Linux 5.17), which it may
 * only contain where the kernel has it. */
static __always_inline int dc_regs_entry(struct pt_regs *ctx, bool traced,
					 bool vma)
{
	__u64 a[6] = { ctx->di, ctx->si, ctx->dx, ctx->cx, ctx->r8, ctx->r9 };
	__u64 cookie;
	__u32 probe;

	if (dc_cfg.fallbacks & DC_FB_COOKIES)
		cookie = dc_uprobe_by_place(ctx);
	else
		cookie = bpf_get_attach_cookie(ctx);
	probe = cookie & DC_COOKIE_PROBE;
	if (probe >= DC_NPROBES)
		return 0;
	if (cookie >> DC_UCOOKIE_MOVED)
		dc_arg_moved(a, cookie >> DC_UCOOKIE_MOVED);
	return dc_capture_enter(probe, a, vma ? ctx->ip : 0, traced,
				(__u32)cookie);
}

/* A uretprobe, or a plain uprobe at a return site (DC_UCOOKIE_RET): both
 * see the call return. */
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
	dc_regs_entry(ctx, false, true);
	return 0;
}

/* The same for kernels without bpf_find_vma (DC_FB_FIND_VMA). */
SEC("uprobe.multi")
int dc_uprobe_entry_compat(struct pt_regs *ctx)
{
	dc_regs_entry(ctx, false, false);
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
	return dc_regs_entry(ctx, true, true) || (cookie & DC_UCOOKIE_NORET);
}

SEC("kprobe.multi")
int dc_kprobe_entry(struct pt_regs *ctx)
{
	return dc_regs_entry(ctx, false, true);
}

SEC("kretprobe.multi")
int dc_kprobe_exit(struct pt_regs *ctx)
{
	return dc_regs_exit(ctx, true);
}

/* The syscalls sys_enter and sys_exit act on, a bit each, set by the
 * runtime after load: traced ones, the wrappers' and chdir's. Every
 * other syscall of every process leaves at once. */
__u64 dc_sys_want[DC_SYSNR_MAX / 64];

static __always_inline bool dc_sys_wanted(__u64 nr)
{
	return nr < DC_SYSNR_MAX && (dc_sys_want[nr / 64] >> (nr % 64) & 1);
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

	if (!dc_sys_wanted(ctx[1]))
		return 0;
	probe = dc_sys_probe(ctx[1]);
	if (probe >= DC_NPROBES && !dc_wraps.n)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!dc_traced(tgid))
		return 0;
	t = dc_thread_new(tgid);
	if (!t) {
		if (probe < DC_NPROBES)
			dc_lose(probe, DC_LOSS_STATE);
		return 0;
	}
	dc_sys_args(regs, a);
	now = bpf_ktime_get_ns();
	if (dc_wraps.n) {
		w = dc_wrap_site_of(t, regs->ip, ctx[1], vma);
		if (w)
			dc_wrap_enter(t, w, a, regs->ip, now);
	}
	if (probe < DC_NPROBES) {
		__u64 v[DC_CAPTURE] = {};
		__s32 sfd = dc_capture(probe, a, v, vma ? regs->ip : 0, 0);

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

static __always_inline int dc_sys_exit_on(unsigned long long *ctx, bool vma)
{
	struct pt_regs *regs = (void *)ctx[0];
	long nr = regs->orig_ax, ret = ctx[1];
	struct dc_thread *t;
	struct dc_frame *f;
	__u64 id, now;
	__u32 probe;
	bool cd;

	if (!dc_sys_wanted(nr))
		return 0;
	probe = dc_sys_probe(nr);
	cd = nr == DC_NR_CHDIR || nr == DC_NR_FCHDIR;

	if (probe >= DC_NPROBES && !dc_wraps.n && !cd)
		return 0;
	id = bpf_get_current_pid_tgid();
	if (!dc_traced(id >> 32))
		return 0;
	if (cd && !ret)
		dc_cwd_event(regs, nr, id >> 32);
	t = dc_thread_get();
	if (!t)
		return 0;
	now = bpf_ktime_get_ns();
	if (probe < DC_NPROBES) {
		f = dc_pop(t, probe);
		if (f)
			dc_emit(t, f, probe, ret, dc_cap(probe), t->job, id,
				now);
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

/*
 * Every tracepoint probe: the cookie says which probe and side. Kernel
 * work is recorded only in a traced task's context, nested under the
 * traced call it runs in; the end of a pair may run anywhere (an
 * interrupt completing a block request) and takes the begin's task.
 */
static __always_inline int dc_tracepoint_as(void *ctx, __u32 cookie)
{
	__u32 probe = cookie / 2;
	struct dc_tp_key key = { .probe = probe };
	struct dc_tp_open o = {}, *open;
	const struct dc_tp_cfg *cfg;
	__u64 id, now = bpf_ktime_get_ns();

	cfg = bpf_map_lookup_elem(&dc_tpcfg, &cookie);
	if (!cfg || probe >= DC_NPROBES)
		return 0;
	for (int i = 0; i < DC_TP_KEYS; i++)
		if (i < cfg->nkeys)
			key.k[i] = dc_tp_read(ctx, &cfg->key[i]);
	if (cfg->kind == DC_TP_END) {
		open = bpf_map_lookup_elem(&dc_tp_pending, &key);
		if (open) {
			dc_tp_emit(open, probe, now);
			bpf_map_delete_elem(&dc_tp_pending, &key);
		}
		return 0;
	}
	id = bpf_get_current_pid_tgid();
	if (!dc_traced(id >> 32))
		return 0;
	o.job = dc_job_of(id >> 32);
	dc_point_open(&o, id, now);
	for (int i = 0; i < DC_CAPTURE; i++)
		if (i < cfg->nfields)
			o.val[i] = dc_tp_read(ctx, &cfg->field[i]);
	if (cfg->kind == DC_TP_INSTANT)
		dc_tp_emit(&o, probe, now);
	else if (bpf_map_update_elem(&dc_tp_pending, &key, &o, BPF_ANY))
		dc_lose(probe, DC_LOSS_STATE);
	return 0;
}

SEC("tracepoint")
int dc_tracepoint(void *ctx)
{
	return dc_tracepoint_as(ctx, bpf_get_attach_cookie(ctx));
}

/* Kernels without BPF cookies (DC_FB_COOKIES): the generator makes one of
 * these a tracepoint side, and the loader takes them instead. */
#define DC_TRACEPOINT_AS(cookie)                                               \
	SEC("tracepoint")                                                      \
	int dc_tp_##cookie(void *ctx)                                          \
	{                                                                      \
		return dc_tracepoint_as(ctx, cookie);                          \
	}

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
	return dc_emit(t, f, probe, 0, c, t->job, id, now);
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

/* Server mode: a process that loads libdatacrumbs-client.so calls its
 * datacrumbs_client_join() once; from then on it and its children are
 * traced. */
SEC("uprobe")
int dc_client_join(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	(void)ctx;
	/* A process joining this way starts a job of its own. */
	if (tgid == dc_cfg.self_pid)
		return 0;
	if (!dc_traced(tgid))
		dc_mark(tgid, tgid);
	dc_proc_event(DC_EV_JOIN, tgid, bpf_get_current_pid_tgid(), 0, "", 0);
	return 0;
}

/* The runtime starts or stops tracing a process through this program,
 * so its bit is set or cleared atomically, as fork and exit do. */
SEC("syscall")
int dc_set_traced(struct dc_mark_args *a)
{
	a->ret = a->if_new && dc_traced(a->tgid) ? 0 : dc_mark(a->tgid, a->job);
	return 0;
}

/* Server mode: a task that moves into a followed cgroup is traced in its
 * job; one that moves out of the cgroup whose job it is traced in is no
 * longer. Tasks already in a cgroup when it is followed are marked by
 * the runtime, and children inherit their parent's mark. */
SEC("tp_btf/cgroup_attach_task")
int dc_cgroup_attach(unsigned long long *ctx)
{
	struct cgroup *dst = (void *)ctx[0];
	struct task_struct *task = (void *)ctx[2];
	struct dc_cgroup_follow *f;
	struct kernfs_node *kn = NULL;
	const struct cred *cred = NULL;
	__u32 tgid = task->tgid, cur, uid = -1, euid = -1;
	__u64 id = 0;

	bpf_probe_read_kernel(&kn, sizeof(kn), &dst->kn);
	if (kn)
		bpf_probe_read_kernel(&id, sizeof(id), &kn->id);
	f = bpf_map_lookup_elem(&dc_cgroups, &id);
	cur = dc_traced(tgid) ? dc_job_of(tgid) : 0;
	if (f && !cur && f->uid) {
		/* Followed for a user: only their own tasks. */
		bpf_probe_read_kernel(&cred, sizeof(cred), &task->cred);
		if (cred) {
			bpf_probe_read_kernel(&uid, sizeof(uid),
					      &cred->uid.val);
			bpf_probe_read_kernel(&euid, sizeof(euid),
					      &cred->euid.val);
		}
		if (uid != f->uid || euid != f->uid)
			f = NULL;
	}
	if (f && !cur)
		dc_mark(tgid, f->job);
	else if (!f && cur >= DC_CGROUP_JOBS)
		dc_mark(tgid, 0);
	return 0;
}

/* Children of traced processes are traced from their first instruction. */
SEC("tp_btf/sched_process_fork")
int dc_fork(unsigned long long *ctx)
{
	struct task_struct *parent = (void *)ctx[0];
	struct task_struct *child = (void *)ctx[1];
	__u32 ptgid = parent->tgid, ctgid = child->tgid;

	if (!dc_traced(ptgid))
		return 0;
	/* The child joins its parent's job. */
	if (ptgid != ctgid && !dc_cfg.trace_all &&
	    dc_mark(ctgid, dc_job_of(ptgid))) {
		__u32 k = DC_LIMIT_PROCS;
		__u64 *n = bpf_map_lookup_elem(&dc_limits, &k);

		if (n)
			__sync_fetch_and_add(n, 1);
	}
	if (ptgid == ctgid)
		dc_paio_helper(child);
	dc_proc_event(DC_EV_FORK, ctgid, child->pid, ptgid, child->comm, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int dc_exec(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	struct linux_binprm *bprm = (void *)ctx[2];
	__u32 tgid = task->tgid;

	if (!dc_traced(tgid))
		return 0;
	dc_vma_forget();
	dc_proc_event(DC_EV_EXEC, tgid, task->pid, 0, task->comm,
		      BPF_CORE_READ_BITFIELD_PROBED(bprm, secureexec)
			  ? DC_PROC_SECURE
			  : 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int dc_exit_task(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	__u32 tgid = task->tgid, tid = task->pid;
	struct signal_struct *sig = NULL;
	int live = -1;

	if (dc_cfg.profile)
		dc_agg_flush();
	/* Task storage goes with its thread; state by tid is removed. */
	if (dc_cfg.fallbacks & DC_FB_THREADS)
		bpf_map_delete_elem(&dc_threads_tid, &tid);
	if (!dc_traced(tgid))
		return 0;
	dc_proc_event(DC_EV_EXIT, tgid, tid, 0, task->comm, 0);
	/* Called after do_exit() counted this thread out of signal->live.
	 * Read, not walked: the verifier's check of a walked pointer
	 * searches all of vmlinux's BTF, 2.5 ms of every start. */
	bpf_probe_read_kernel(&sig, sizeof(sig), &task->signal);
	if (sig &&
	    !bpf_probe_read_kernel(&live, sizeof(live), &sig->live.counter) &&
	    live == 0 && !dc_cfg.trace_all)
		dc_mark(tgid, 0);
	return 0;
}

/* Profile mode: the epoch whose thread aggregates dc_agg_iter takes, set
 * by the runtime once no CPU writes them any more. */
__u32 dc_drain_epoch;

/* Profile mode: every thread's aggregates of the drained epoch, as
 * struct dc_agg_slot records; taken, they are cleared. */
SEC("iter/task")
int dc_agg_iter(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	__u32 e = dc_drain_epoch & 1;
	struct dc_thread *t;

	if (!task)
		return 0;
	t = dc_thread_of(task, task->pid, false);
	if (!t)
		return 0;
	for (int i = 0; i < DC_AGG_SLOTS; i++) {
		struct dc_agg_slot *s = &t->agg[e][i];

		if (!s->v.count)
			continue;
		bpf_seq_write(seq, s, sizeof(*s));
		s->v.count = 0;
	}
	return 0;
}

#endif /* DATACRUMBS_PROGRAMS_BPF_H */
