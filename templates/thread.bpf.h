/* SPDX-License-Identifier: MIT */
/*
 * A traced thread's state, in task-local storage (or a map by thread id
 * on kernels without it): its stack of calls under way, the mappings it
 * resolved last and, in profile mode, its own aggregates.
 */
#ifndef DATACRUMBS_THREAD_BPF_H
#define DATACRUMBS_THREAD_BPF_H

#include "datacrumbs.bpf.h"

/* dc_frame.flags */
#define DC_FRAME_SYS	 1 /* a wrapper's call, pushed at sys_enter */
#define DC_FRAME_RESTART 2 /* ... whose syscall the kernel will restart */

struct dc_frame {
	__u64 ts;
	__u64 seq;
	__u64 val[DC_CAPTURE];
	__u32 probe;
	__s32 sfd;
	__u32 flags;
	__u32 pad;
	__u64 site; /* DC_FRAME_SYS: the user ip of its syscall */
};

/* A mapping of the thread's process (vma.bpf.h): where a syscall came
 * from, or where a library keeps its data. */
struct dc_vma {
	__u64 start, end;
	__u64 bias; /* file offset = address - bias */
	__s32 lib;  /* index into dc_wraps, or -1 */
	__u32 pad;
};

/* The slot of frame @i. The mask stays even where clang proves it
 * redundant: Linux 6.1's verifier loses a 32-bit index's bounds across
 * its zero extension without it. */
static __always_inline __u32 dc_frame_slot(__u32 i)
{
	asm volatile("" : "+r"(i));
	return i & (DC_MAX_DEPTH - 1);
}

#define DC_VMAS	     2
#define DC_GEN_CACHE 4 /* fd generations a thread keeps, by fd % 4 */
#define DC_AGG_SLOTS 4 /* profile mode: aggregates a thread keeps */
struct dc_thread {
	__u64 next_seq;
	__u32 depth; /* may exceed DC_MAX_DEPTH; deeper frames are not kept */
	__u32 vma_next;
	__u32 job;	  /* the process's job, looked up once */
	__u16 in_paio;	  /* in a POSIX AIO submission (posixaio.bpf.h) */
	__u16 aio_helper; /* made by one: DC_CALL_AIO_HELPER */
	struct dc_vma vma[DC_VMAS];
	/* Profile mode: generations of fds it used, as of dc_fdver. */
	__u64 fdver;
	__s32 gen_fd[DC_GEN_CACHE]; /* fd + 1; 0: empty */
	__u32 gen[DC_GEN_CACHE];
	struct dc_agg_slot agg[2][DC_AGG_SLOTS]; /* by epoch */
	__u64 agg_used[2][DC_AGG_SLOTS];
	/* Profile mode: the call being folded, from dc_agg_build() to
	 * dc_agg_commit() (kept off the BPF stack: 512 bytes). */
	struct dc_agg_slot call;
	struct dc_frame f[DC_MAX_DEPTH];
};

/* Task-local storage: freed by the kernel when the thread exits. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct dc_thread);
} dc_threads SEC(".maps");

/* Kernels without task storage (Linux < 5.11, DC_FB_THREADS): the same
 * state by thread id, removed when the thread exits; sized by the
 * loader. Only one of the two maps is created. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_thread);
} dc_threads_tid SEC(".maps");

/* A new thread's state by tid starts as this, never written. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct dc_thread);
} dc_thread_zero SEC(".maps");

/* Thread @tid's state by tid (DC_FB_THREADS), made if @create. */
static __always_inline struct dc_thread *dc_thread_by_tid(__u32 tid,
							  bool create)
{
	struct dc_thread *t = bpf_map_lookup_elem(&dc_threads_tid, &tid);
	__u32 k = 0;
	void *zero;

	if (t || !create)
		return t;
	zero = bpf_map_lookup_elem(&dc_thread_zero, &k);
	if (!zero)
		return 0;
	bpf_map_update_elem(&dc_threads_tid, &tid, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(&dc_threads_tid, &tid);
}

/* @task's state, made if @create: @task is a BTF pointer, @tid its id. */
static __always_inline struct dc_thread *dc_thread_of(struct task_struct *task,
						      __u32 tid, bool create)
{
	if (dc_cfg.fallbacks & DC_FB_THREADS)
		return dc_thread_by_tid(tid, create);
	return bpf_task_storage_get(
	    &dc_threads, task, 0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* The calling thread's state; bpf_get_current_task_btf() is as new as
 * task storage, so the fallback does without it too. */
static __always_inline struct dc_thread *dc_thread_cur(bool create)
{
	if (dc_cfg.fallbacks & DC_FB_THREADS)
		return dc_thread_by_tid((__u32)bpf_get_current_pid_tgid(),
					create);
	return bpf_task_storage_get(&dc_threads, bpf_get_current_task_btf(), 0,
				    create ? BPF_LOCAL_STORAGE_GET_F_CREATE
					   : 0);
}

/* A thread has just exec'd, and it may not have been the leader:
 * de_thread() gave it the leader's id. Task storage follows the thread;
 * a state by tid (DC_FB_THREADS) is moved from @old_tid to @tid here. */
static __always_inline void dc_thread_follow_exec(__u32 old_tid, __u32 tid)
{
	struct dc_thread *t;

	if (!(dc_cfg.fallbacks & DC_FB_THREADS) || old_tid == tid)
		return;
	t = dc_thread_by_tid(old_tid, false);
	if (t)
		bpf_map_update_elem(&dc_threads_tid, &tid, t, BPF_ANY);
	bpf_map_delete_elem(&dc_threads_tid, &old_tid);
}

/* The calling thread's state, made on its first traced call. */
static __always_inline struct dc_thread *dc_thread_new(__u32 tgid)
{
	struct dc_thread *t = dc_thread_cur(true);

	if (t && !t->job)
		t->job = dc_job_of(tgid);
	return t;
}

static __always_inline struct dc_thread *dc_thread_get(void)
{
	return dc_thread_cur(false);
}

#endif /* DATACRUMBS_THREAD_BPF_H */
