/* SPDX-License-Identifier: MIT */
/*
 * Which processes are traced: children of traced ones from their fork,
 * processes that join (server mode) or move into a followed cgroup; the
 * records of their fork, exec and exit; and, in profile mode, their
 * threads' aggregates, taken by the runtime or flushed at exit.
 */
#ifndef DATACRUMBS_LIFECYCLE_BPF_H
#define DATACRUMBS_LIFECYCLE_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "profile.bpf.h"
#include "proc.bpf.h"
#include "vma.bpf.h"
#include "posixaio.bpf.h"
#include "libmap.bpf.h"
#include "syscall.bpf.h"

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
	dc_proc_event(DC_EV_JOIN, tgid, bpf_get_current_pid_tgid(), 0, "",
		      dc_exec_secure());
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

/*
 * An exec ends the calls its thread had open in the old program (execvp
 * and its callers never return): they are counted, not as lost, and the
 * new program's calls start at depth 0. Kept open, they would be the
 * parents of every later call of the thread, and the runtime would hold
 * all of those until the thread ended. The exec syscall's own frame, on
 * top when the sys layer traces it, is returned: its call has succeeded.
 */
static __always_inline struct dc_frame *dc_exec_unwind(struct dc_thread *t)
{
	struct dc_frame *top;
	__u32 d, exec = 0;

	if (!t || !t->depth)
		return 0;
	d = t->depth;
	top = &t->f[dc_frame_slot(d - 1)];
	if (d <= DC_MAX_DEPTH && !(top->flags & DC_FRAME_SYS) &&
	    top->probe < DC_NPROBES &&
	    (top->probe == dc_sys_probe(DC_NR_EXECVE) ||
	     top->probe == dc_sys_probe(DC_NR_EXECVEAT)))
		exec = 1;
	dc_lose_unreturned(0, d - exec, DC_END_EXEC);
	t->depth = 0;
	return exec ? top : 0;
}

/*
 * Where an execveat's name starts in @fdpath, "/dev/fd/N" or
 * "/dev/fd/N/rel" as the kernel made it of a descriptor and a path not
 * absolute: at the empty string after N, or at "rel". Read with the
 * descriptor, either names the file as the call's own arguments do.
 */
static __always_inline __u32 dc_fdpath_tail(const char *fdpath)
{
	char s[24] = {};
	__u32 i;

	bpf_probe_read_kernel_str(s, sizeof(s), fdpath);
	for (i = 8; i < sizeof(s) - 1; i++) {
		if (s[i] == '/')
			return i + 1;
		if (!s[i])
			break;
	}
	return i;
}

/*
 * The exec syscall's call ends here, not at its sys_exit, which may not
 * name it (x86-64 reports a successful execveat's return as execve's).
 * Its path, read at return, was in the old program's memory: the new
 * one's stack holds the kernel's copy (AT_EXECFN), which for an
 * execveat with a descriptor is "/dev/fd/N[/rel]": its tail is named
 * with the descriptor, so the call is sent before the exec closes it.
 */
static __always_inline void dc_exec_return(struct dc_thread *t,
					   struct dc_frame *f,
					   struct linux_binprm *bprm)
{
	const volatile struct dc_capture *c = dc_cap(f->probe);
	unsigned long exec = BPF_CORE_READ(bprm, exec);
	__s8 path = c->path_slot;
	const char *fdpath;

	if (path >= 0 && bpf_core_field_exists(bprm->fdpath) &&
	    (fdpath = BPF_CORE_READ(bprm, fdpath)))
		exec += dc_fdpath_tail(fdpath);
	if (path >= 0)
		f->val[path & (DC_CAPTURE - 1)] = exec;
	dc_emit(t, f, f->probe, 0, c, t->job, bpf_get_current_pid_tgid(),
		bpf_ktime_get_ns(), false);
}

SEC("tp_btf/sched_process_exec")
int dc_exec(unsigned long long *ctx)
{
	struct task_struct *task = (void *)ctx[0];
	struct linux_binprm *bprm = (void *)ctx[2];
	__u32 tgid = task->tgid, old_tid = ctx[1];
	struct dc_thread *t;
	struct dc_frame *f;

	if (!dc_traced(tgid))
		return 0;
	dc_vma_forget();
	dc_thread_follow_exec(old_tid, task->pid);
	t = dc_thread_get();
	f = dc_exec_unwind(t);
	if (f)
		dc_exec_return(t, f, bprm);
	dc_proc_event(DC_EV_EXEC, tgid, task->pid, 0, task->comm,
		      BPF_CORE_READ_BITFIELD_PROBED(bprm, secureexec)
			  ? DC_PROC_SECURE
			  : 0);
	dc_exec_check(tgid, bprm);
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

#endif /* DATACRUMBS_LIFECYCLE_BPF_H */
