/* SPDX-License-Identifier: MIT */
/*
 * The part of every generated object that does not depend on the specs:
 * maps, process filtering, the per-thread call stack and the entry/exit
 * logic. What each probe captures is data (dc_caps[], generated), so one
 * entry/exit program pair serves every probe of a mechanism and attaching
 * costs two links per binary, not two per function or shape.
 */
#ifndef DATACRUMBS_BPF_H
#define DATACRUMBS_BPF_H

#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "dc_kernel.h"
#include <datacrumbs/abi.h>

char LICENSE[] SEC("license") = "GPL";

const volatile struct dc_config dc_cfg = {};

/* Sized by the runtime (--ringbuf-size) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20);
} dc_events SEC(".maps");

/* Processes being traced (tgid) and the job each belongs to (the server
 * writes one trace per job); children join their parent's job at fork.
 * Not preallocated: it changes only at fork and exit, and 64K entries
 * took 1.5 ms of every start. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, __u32);
	__type(value, __u32);
} dc_pids SEC(".maps");

/* The processes being traced, a bit per tgid: what every program checks
 * first, since an array lookup is a load where a hash lookup in dc_pids
 * costs 30 ns. pid_max / 64 words, sized by the runtime. Set with dc_pids
 * by dc_mark(). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 4194304 / 64);
	__type(key, __u32);
	__type(value, __u64);
} dc_traced_bits SEC(".maps");

/* Server mode: cgroups (v2 ids) whose tasks are traced, and their jobs. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, DC_CGROUPS_MAX);
	__type(key, __u64);
	__type(value, struct dc_cgroup_follow);
} dc_cgroups SEC(".maps");

/* Limits hit outside any probe, for the runtime to report, by enum
 * dc_limit. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_LIMIT_NR);
	__type(key, __u32);
	__type(value, __u64);
} dc_limits SEC(".maps");

/* Losses per probe and reason, index probe * DC_LOSS_NR + reason. Not
 * per-CPU: the kernel allocates a per-CPU array element by element, 30 ms
 * at start-up for 5,518 probes; losses are rare enough to add atomically. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_NPROBES *DC_LOSS_NR);
	__type(key, __u32);
	__type(value, __u64);
} dc_lost SEC(".maps");

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
	/* Profile mode: the call being folded, from dc_aggregate_popped()
	 * to dc_agg_commit(). */
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

/* Profile mode: aggregates of the current and the previous interval. The
 * runtime flips dc_epoch, then drains the map no longer written. */
struct dc_agg_map {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_agg_key);
	__type(value, struct dc_agg_val);
};

struct dc_agg_map dc_agg0 SEC(".maps");
struct dc_agg_map dc_agg1 SEC(".maps");

/* Which of the two the programs write: set by the runtime through the
 * bpf() syscall, so no mmap coherence is assumed. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} dc_epoch SEC(".maps");

/* Aggregations under way on this CPU: after flipping dc_epoch the runtime
 * waits to see each CPU at 0 before draining the old map, so no update is
 * lost between its lookup and delete. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dc_inflight SEC(".maps");

/* Each fd's generation: bumped when a tracked call gives it a new file,
 * so aggregates of an fd reused within one interval stay apart. */
struct dc_fd_key {
	__u32 pid;
	__s32 fd;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_fd_key);
	__type(value, __u32);
} dc_fdgen SEC(".maps");

/* Bumped after every change to dc_fdgen: a thread's cached generations
 * are good while it has not moved. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} dc_fdver SEC(".maps");

/* Profile mode: where an fd's (or, with DC_PAT_STREAM, a stream's)
 * Darshan pattern left off, as of its generation @gen: Darshan keeps
 * this per file record. One lookup per call that moves or seeks. */

struct dc_fdpat {
	__u32 gen;
	__u32 last_io; /* DC_PAT_READ or DC_PAT_WRITE; 0: none yet */
	__s64 off;     /* the fd's offset, as Darshan follows it */
	__s64 last[2]; /* the last byte read, written */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_fd_key);
	__type(value, struct dc_fdpat);
} dc_fdpat SEC(".maps");

/* Profile mode: what Darshan's counters need of a library handle (an
 * MPI_File, an HDF5 dataset) between calls. A handle is 64 bits: its own
 * map keeps dc_fdpat's key, and the POSIX path's lookups, at 8 bytes.
 * Only calls on handles look here; a few are open at once. */
struct dc_handle_key {
	__u32 pid;
	__u32 pad;
	__u64 h;
};

struct dc_hdl {
	/* Opens that gave this value: a freed MPI_File is given again by
	 * the next open, and the aggregates of a reopened handle stay
	 * apart; the runtime learns each generation's file from the open's
	 * event. 0: not opened while traced. */
	__u32 gen;
	/* The direction of its last read or write since that open, for
	 * Darshan's MPIIO_ and H5D_RW_SWITCHES; 0: none yet. */
	__u32 last_io;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 65536);
	__type(key, struct dc_handle_key);
	__type(value, struct dc_hdl);
} dc_hdl SEC(".maps");

/* Defined, by the generator, after this file. */
static const volatile struct dc_capture dc_caps[DC_CAPS_SIZE];

static __always_inline void dc_lose(__u32 probe, __u32 reason);

static __always_inline __u32 dc_gen_of(__u32 pid, __s32 fd)
{
	struct dc_fd_key k = { pid, fd };
	__u32 *g = bpf_map_lookup_elem(&dc_fdgen, &k);

	return g ? *g : 0;
}

static __always_inline struct dc_hdl *dc_hdl_of(__u32 pid, __u64 h)
{
	struct dc_handle_key k = { .pid = pid, .h = h };

	return bpf_map_lookup_elem(&dc_hdl, &k);
}

/* A new open gave handle @h: its generation, never 0, with no direction
 * yet. */
static __always_inline __u32 dc_hgen_bump(__u32 pid, __u64 h)
{
	struct dc_handle_key k = { .pid = pid, .h = h };
	struct dc_hdl *s = dc_hdl_of(pid, h), fresh = {};

	if (!h)
		return 0;
	fresh.gen = (__u16)((s ? s->gen : 0) + 1);
	fresh.gen = fresh.gen ? fresh.gen : 1;
	bpf_map_update_elem(&dc_hdl, &k, &fresh, BPF_ANY);
	return fresh.gen;
}

static __always_inline __u32 dc_gen_bump(__u32 pid, __s32 fd)
{
	struct dc_fd_key k = { pid, fd };
	__u32 g = dc_gen_of(pid, fd) + 1, zero = 0;
	__u64 *ver;

	if (fd < 0)
		return 0;
	bpf_map_update_elem(&dc_fdgen, &k, &g, BPF_ANY);
	ver = bpf_map_lookup_elem(&dc_fdver, &zero);
	if (ver)
		__sync_fetch_and_add(ver, 1);
	return g;
}

static __always_inline void dc_lose(__u32 probe, __u32 reason)
{
	__u32 key = probe * DC_LOSS_NR + reason;
	__u64 *n = bpf_map_lookup_elem(&dc_lost, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/*
 * Wake the runtime only once the ring buffer is a quarter full. A wakeup
 * is a cross-CPU interrupt that costs more than the event itself (about
 * 5 us per event on these VMs when events come slowly, as from uprobes);
 * the runtime also polls every 100 ms.
 */
static __always_inline __u64 dc_wakeup(void)
{
	return bpf_ringbuf_query(&dc_events, BPF_RB_AVAIL_DATA) >
		       dc_cfg.ring_size / 4
		   ? BPF_RB_FORCE_WAKEUP
		   : BPF_RB_NO_WAKEUP;
}

/* Whether process @tgid is traced: one load for the untraced. */
static __always_inline bool dc_traced(__u32 tgid)
{
	__u32 k = tgid >> 6;
	__u64 *w;

	if (dc_cfg.trace_all)
		return tgid != dc_cfg.self_pid;
	w = bpf_map_lookup_elem(&dc_traced_bits, &k);
	return w && (*w >> (tgid & 63) & 1);
}

/* The job of a traced process: 1 with --all. */
static __always_inline __u32 dc_job_of(__u32 tgid)
{
	__u32 *job;

	if (dc_cfg.trace_all)
		return 1;
	job = bpf_map_lookup_elem(&dc_pids, &tgid);
	return job ? *job : 0;
}

/* Start tracing @tgid in @job, or stop (@job 0). dc_pids first, so a
 * set bit always has its job. -1 when dc_pids is full (--max-procs). */
static __always_inline int dc_mark(__u32 tgid, __u32 job)
{
	__u32 k = tgid >> 6;
	__u64 *w = bpf_map_lookup_elem(&dc_traced_bits, &k);
	__u64 bit = 1ull << (tgid & 63);

	if (!w)
		return -1;
	/* Atomic adds, not and/or (Linux 5.12): only this tgid's fork,
	 * exit or the runtime changes its bit, never two at once. */
	if (!job) {
		if (*w & bit)
			__sync_fetch_and_add(w, -bit);
		bpf_map_delete_elem(&dc_pids, &tgid);
		return 0;
	}
	if (bpf_map_update_elem(&dc_pids, &tgid, &job, BPF_ANY))
		return -1;
	if (!(*w & bit))
		__sync_fetch_and_add(w, bit);
	return 0;
}

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

/* A call of a traced thread enters: push its frame. */
static __always_inline int dc_push_on(struct dc_thread *t, __u32 probe,
				      const __u64 *v, __s32 sfd, __u32 flags,
				      __u64 now)
{
	struct dc_frame *f;
	__u32 d;

	d = t->depth++;
	if (d >= DC_MAX_DEPTH) {
		dc_lose(probe, DC_LOSS_DEPTH);
		return 0;
	}
	f = &t->f[d];
	f->probe = probe;
	f->seq = ++t->next_seq;
	f->val[0] = v[0];
	f->val[1] = v[1];
	f->val[2] = v[2];
	f->val[3] = v[3];
	f->sfd = sfd;
	f->flags = flags;
	f->ts = now;
	return 0;
}

static __always_inline int dc_push(__u32 probe, const __u64 *v, __s32 sfd)
{
	struct dc_thread *t = dc_thread_new(bpf_get_current_pid_tgid() >> 32);

	if (!t) {
		dc_lose(probe, DC_LOSS_STATE);
		return 0;
	}
	return dc_push_on(t, probe, v, sfd, 0, bpf_ktime_get_ns());
}

static __always_inline int dc_enter(__u32 probe, const __u64 *v, __s32 sfd)
{
	if (!dc_traced(bpf_get_current_pid_tgid() >> 32))
		return 0;
	return dc_push(probe, v, sfd);
}

/* Whether frame @f holds @v in the slots of @mask. Without a branch a
 * slot: inside dc_pop_match()'s loop, branches here multiplied the paths
 * the verifier walked (a second of dc_usdt's loading). */
static __always_inline bool dc_same(const struct dc_frame *f, __u8 mask,
				    const __u64 *v)
{
	__u64 diff = 0;

	for (int i = 0; i < DC_CAPTURE; i++)
		diff |= (f->val[i] ^ v[i]) & -(__u64)((mask >> i) & 1);
	return !diff;
}

/*
 * Pop the innermost frame of @probe holding @v in the slots of @mask.
 * Frames above it belong to calls whose return was never seen (longjmp,
 * a probe the kernel skipped): they are dropped and counted, so one lost
 * return cannot shift every later match. NULL, with the stack as it
 * was, when no frame matches.
 */
static __always_inline struct dc_frame *
dc_pop_match(struct dc_thread *t, __u32 probe, __u8 mask, const __u64 *v)
{
	__u32 d = t->depth, top, found = DC_MAX_DEPTH;

	if (d == 0)
		return 0;
	if (d > DC_MAX_DEPTH) {
		t->depth = d - 1;
		return 0;
	}
	for (int i = 0; i < DC_MAX_DEPTH && i < d; i++) {
		top = dc_frame_slot(d - 1 - i);
		if (t->f[top].probe == probe && dc_same(&t->f[top], mask, v)) {
			found = top;
			break;
		}
	}
	if (found == DC_MAX_DEPTH)
		return 0; /* its entry predates tracing */
	for (int i = 0; i < DC_MAX_DEPTH && i < d - 1 - found; i++)
		dc_lose(t->f[dc_frame_slot(d - 1 - i)].probe, DC_LOSS_NORETURN);
	t->depth = found;
	return &t->f[found];
}

static __always_inline struct dc_frame *dc_pop(struct dc_thread *t, __u32 probe)
{
	return dc_pop_match(t, probe, 0, 0);
}

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

static __always_inline __u64 dc_read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* The descriptor behind a glibc FILE *, or -1. */
static __always_inline __s32 dc_stream_fd(__u64 stream)
{
	__s32 fd = -1;

	if (stream &&
	    bpf_probe_read_user(&fd, sizeof(fd),
				(const void *)(stream + dc_cfg.fileno_off)))
		fd = -1;
	return fd;
}

/* The length of the user string at @p, up to 4 KiB: the bytes fputs
 * writes, fgets reads. Read in pieces a stack buffer holds. */
static __always_inline __u64 dc_user_strlen(__u64 p)
{
	char piece[64];
	__u64 len = 0;

	for (int k = 0; k < 64 && p; k++) {
		long n = bpf_probe_read_user_str(piece, sizeof(piece),
						 (const void *)(p + len));

		if (n <= 0)
			break;
		len += n - 1;
		if (n < (long)sizeof(piece))
			break;
	}
	return len;
}

/* Slot @i's value @v read through its pointers: the word at the first
 * offset of what it points to, and so on, one hop if none is given. */
static __always_inline __u64 dc_read_hops(const volatile struct dc_capture *c,
					  int i, __u64 v)
{
	__u8 hops = c->deref_hops[i & (DC_CAPTURE - 1)];

	for (int k = 0; k < DC_HOPS; k++) {
		if (k && k >= hops)
			break;
		v = dc_read_u64(v + c->deref_off[i & (DC_CAPTURE - 1)][k]);
	}
	return v;
}

/* The pointers the call's feeders passed it, read through as it returns:
 * it has settled what they point to. Only calls of a library (uprobes)
 * are fed. */
static __always_inline int dc_read_passed_on(__u32 probe, struct dc_frame *f)
{
	const volatile struct dc_capture *c;

	if (!f)
		return 0;
	/* Masked in the code, as dc_cap() does. */
	asm volatile("" : "+r"(probe));
	c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (!(c->pass_mask & (1 << i)) || !c->deref_hops[i])
			continue;
		f->val[i] = dc_read_hops(c, i, f->val[i]);
		if (c->int_mask & (1 << i))
			f->val[i] = (__u64)(__s64)(int)f->val[i];
	}
	return 0;
}

/* A global function, which the verifier walks once, not once for every
 * way a program reaches it; one taking a pointer needs Linux 5.12. */
__noinline int dc_read_passed(__u32 probe, struct dc_frame *f)
{
	return dc_read_passed_on(probe, f);
}

/* Out parameters are read at return: the call has filled them in. */
static __always_inline void dc_fix_exit(const volatile struct dc_capture *c,
					struct dc_frame *f, long ret)
{
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (c->deref_exit_mask & (1 << i))
			f->val[i] = dc_read_u64(f->val[i]);
		if ((c->str_exit_mask & (1 << i)) && ret)
			f->val[i] = dc_user_strlen(f->val[i]);
	}
	if (c->ret_stream)
		f->sfd = dc_stream_fd(ret);
}

/* MPI: the call's items (size_slot) times their datatype's size (the
 * dtype_mask slot), as dc_call_bytes() computes it in trace mode. */
static __always_inline __u64 dc_items_bytes(const volatile struct dc_capture *c,
					    const struct dc_frame *f)
{
	__s64 items = (__s32)f->val[c->size_slot & (DC_CAPTURE - 1)];
	__u64 size = 0;

	for (int i = 0; i < DC_CAPTURE; i++)
		if (c->dtype_mask & (1 << i))
			size = f->val[i];
	return items > 0 ? (__u64)items * size : 0;
}

/* Fold aggregate @a into @v; its Darshan pattern counters only if
 * @pat (a call that had none leaves them 0). */
static __always_inline void dc_agg_fold(struct dc_agg_val *v,
					const struct dc_agg_val *a, bool pat)
{
	if (a->dur_min < v->dur_min || !v->count)
		v->dur_min = a->dur_min;
	if (a->dur_max > v->dur_max)
		v->dur_max = a->dur_max;
	v->count += a->count;
	v->dur_sum += a->dur_sum;
	v->size_sum += a->size_sum;
	v->errs += a->errs;
	v->unsized += a->unsized;
	if (!pat)
		return;
	if (a->max_byte > v->max_byte)
		v->max_byte = a->max_byte;
	for (int i = 0; i < DC_HIST_N; i++)
		v->hist[i] += a->hist[i];
	v->seq += a->seq;
	v->consec += a->consec;
	v->switches += a->switches;
}

/* Fold @a into key @k's aggregate in @map. */
static __always_inline void dc_agg_add(void *map, const struct dc_agg_key *k,
				       const struct dc_agg_val *a, __u32 probe)
{
	struct dc_agg_val *v = bpf_map_lookup_elem(map, k);

	if (!v) {
		if (!bpf_map_update_elem(map, k, a, BPF_NOEXIST))
			return;
		/* Another CPU created it: add to this CPU's copy. */
		v = bpf_map_lookup_elem(map, k);
		if (!v) {
			dc_lose(probe, DC_LOSS_AGG_FULL);
			return;
		}
	}
	dc_agg_fold(v, a, true);
}

/*
 * A thread's own aggregates, kept in its state: most calls of a thread
 * go to a few (probe, file) pairs, and a compare there costs a tenth of
 * a hash lookup. The runtime takes them each interval with a task
 * iterator (dc_agg_iter). A new key takes the slot used least recently
 * (@used: when each was last, in @now's clock), whose aggregate moves to
 * @map: the keys a loop keeps using stay.
 */
static __always_inline void dc_slot_add(struct dc_agg_slot *s, __u64 *used,
					void *map, const struct dc_agg_key *k,
					const struct dc_agg_val *a, __u64 now,
					bool pat)
{
	__u64 oldest = ~0ull;
	int victim = 0;

	for (int i = 0; i < DC_AGG_SLOTS; i++) {
		if (s[i].v.count && s[i].k.probe == k->probe &&
		    s[i].k.obj == k->obj && s[i].k.kind == k->kind &&
		    s[i].k.inner == k->inner && s[i].k.hgen == k->hgen) {
			dc_agg_fold(&s[i].v, a, pat);
			used[i] = now;
			return;
		}
		if (!s[i].v.count)
			used[i] = 0;
		if (used[i] < oldest) {
			oldest = used[i];
			victim = i;
		}
	}
	victim &= DC_AGG_SLOTS - 1;
	if (s[victim].v.count)
		dc_agg_add(map, &s[victim].k, &s[victim].v, s[victim].k.probe);
	s[victim].k = *k;
	s[victim].v = *a;
	used[victim] = now;
}

/* An fd's generation, from the thread's cache while no fd of a traced
 * process has changed: the lookup it saves is a third of an aggregate. */
static __always_inline __u32 dc_gen_cached(struct dc_thread *t, __u32 pid,
					   __s32 fd)
{
	__u32 zero = 0, i = fd & (DC_GEN_CACHE - 1);
	__u64 *ver = bpf_map_lookup_elem(&dc_fdver, &zero), v;

	if (!ver)
		return dc_gen_of(pid, fd);
	v = *(volatile __u64 *)ver;
	if (t->fdver != v) {
		__builtin_memset(t->gen_fd, 0, sizeof(t->gen_fd));
		t->fdver = v;
	}
	if (t->gen_fd[i] != fd + 1) {
		t->gen[i] = dc_gen_of(pid, fd);
		t->gen_fd[i] = fd + 1;
	}
	return t->gen[i];
}

/* Profile mode: a thread's own aggregates go to the map before it exits
 * and its state with it; they count in the current interval. */
static __always_inline void dc_agg_flush(void)
{
	struct dc_thread *t = dc_thread_get();
	__u32 zero = 0, *epoch, e;
	__u64 *fl;

	if (!t)
		return;
	fl = bpf_map_lookup_elem(&dc_inflight, &zero);
	if (fl)
		__sync_fetch_and_add(fl, 1);
	epoch = bpf_map_lookup_elem(&dc_epoch, &zero);
	e = epoch ? *(volatile __u32 *)epoch & 1 : 0;
	for (int ep = 0; ep < 2; ep++)
		for (int i = 0; i < DC_AGG_SLOTS; i++) {
			struct dc_agg_slot *s = &t->agg[ep][i];

			if (!s->v.count)
				continue;
			dc_agg_add(e ? (void *)&dc_agg1 : (void *)&dc_agg0,
				   &s->k, &s->v, s->k.probe);
			s->v.count = 0;
		}
	asm volatile("" ::: "memory");
	if (fl)
		*(volatile __u64 *)fl = *fl - 1;
}

/* Darshan's access size bucket of @n bytes: 0-100, 100-1K, ... 1G+. */
static __always_inline int dc_bucket(__u64 n)
{
	static const __u64 top[DC_HIST_N] = { DC_DBUCKETS(DC_DBUCKET_BOUND, ) };
	int b = 0;

	for (int i = 0; i < DC_HIST_N - 1; i++)
		b += n > top[i];
	return b;
}

/* Whether the call on top of @t's stack (popped: its parent is at
 * depth - 1) is inside one Darshan sees, as Darshan would not see it: a
 * call inside POSIX or STDIO (fopen's open), or inside its own module. */
static __always_inline __u16 dc_inner(const struct dc_thread *t,
				      const volatile struct dc_capture *c)
{
	__u32 d = t->depth;
	__u8 pm;

	if (!c->dmod || d == 0 || d > DC_MAX_DEPTH)
		return 0;
	pm =
	    dc_caps[t->f[dc_frame_slot(d - 1)].probe & (DC_CAPS_SIZE - 1)].dmod;
	return pm == DC_DMOD_POSIX || pm == DC_DMOD_STDIO || pm == c->dmod;
}

/* Darshan's pattern of a call @c on fd @fd (generation @gen) that moved
 * @n bytes, or moved the offset, into @a: its fd's state, in dc_fdpat,
 * is where its previous call left off. Threads sharing an fd update it
 * unlocked; Darshan serializes them. */
static __always_inline void dc_pattern(const volatile struct dc_capture *c,
				       const struct dc_frame *f, __u32 pid,
				       __s32 fd, __u32 gen, long ret, __u64 n,
				       struct dc_agg_val *a)
{
	struct dc_fd_key k = { pid, fd };
	struct dc_fdpat *p = bpf_map_lookup_elem(&dc_fdpat, &k), fresh = {};
	__u32 pat = c->pat;
	__s64 off, *last;
	int b;

	if (!p) {
		fresh.gen = gen;
		bpf_map_update_elem(&dc_fdpat, &k, &fresh, BPF_ANY);
		p = bpf_map_lookup_elem(&dc_fdpat, &k);
		if (!p)
			return;
	}
	if (p->gen != gen) {
		/* A new file on the fd: Darshan's open starts at 0. */
		*p = fresh;
		p->gen = gen;
	}
	switch (pat) {
	case DC_PAT_SEEK: p->off = ret; return;
	case DC_PAT_SSEEK:
		if (c->whence_slot >= 0 && c->off_slot >= 0 &&
		    f->val[c->whence_slot & (DC_CAPTURE - 1)] == 0)
			p->off = f->val[c->off_slot & (DC_CAPTURE - 1)];
		return;
	case DC_PAT_REWIND: p->off = 0; return;
	}
	off = c->off_slot >= 0 ? (__s64)f->val[c->off_slot & (DC_CAPTURE - 1)]
			       : p->off;
	last = &p->last[pat == DC_PAT_WRITE];
	a->seq = off > *last;
	a->consec = off == *last + 1;
	*last = off + n - 1;
	p->off = off + n;
	a->max_byte = off + n - 1;
	b = dc_bucket(n);
	if (b >= 0 && b < DC_HIST_N)
		a->hist[b] = 1;
	a->switches = p->last_io && p->last_io != pat;
	p->last_io = pat;
}

/* Darshan's size bucket and read/write switch of a read or write @c
 * of @n bytes on handle @h, whose state is @s (NULL: none yet): Darshan
 * keeps no offset for these. */
static __always_inline void dc_hpattern(const volatile struct dc_capture *c,
					struct dc_hdl *s, __u32 pid, __u64 h,
					__u64 n, struct dc_agg_val *a)
{
	struct dc_handle_key k = { .pid = pid, .h = h };
	struct dc_hdl fresh = { .last_io = c->pat };
	int b = dc_bucket(n);

	if (b >= 0 && b < DC_HIST_N)
		a->hist[b] = 1;
	if (!s) {
		bpf_map_update_elem(&dc_hdl, &k, &fresh, BPF_ANY);
		return;
	}
	a->switches = s->last_io && s->last_io != c->pat;
	s->last_io = c->pat;
}

/* Profile mode: a call's key and aggregate, into @t->call. */
static __always_inline void dc_agg_build(struct dc_thread *t,
					 const volatile struct dc_capture *c,
					 const struct dc_frame *f, __u32 probe,
					 __u64 id, __u64 now, long ret)
{
	struct dc_agg_key *k = &t->call.k;
	struct dc_agg_val *a = &t->call.v;
	__s8 slot = c->obj_slot;
	struct dc_hdl *hs = NULL;
	__s32 fd = -1;
	bool failed;

	*k = (struct dc_agg_key){ .pid = id >> 32,
				  .tid = (__u32)id,
				  .probe = probe,
				  .kind = c->obj_kind,
				  .inner = dc_inner(t, c) };
	*a = (struct dc_agg_val){ .count = 1,
				  .dur_sum = now - f->ts,
				  .dur_min = now - f->ts,
				  .dur_max = now - f->ts };
	if (c->obj_kind == DC_OBJ_HANDLE && slot >= 0) {
		k->obj = f->val[slot & (DC_CAPTURE - 1)];
		hs = dc_hdl_of(k->pid, k->obj);
		k->hgen = hs ? hs->gen : 0;
	} else if (c->obj_kind == DC_OBJ_FD || c->obj_kind == DC_OBJ_STREAM) {
		fd = c->obj_kind == DC_OBJ_FD && slot >= 0
			 ? (__s32)f->val[slot & (DC_CAPTURE - 1)]
			 : f->sfd;
		k->obj = (__u32)fd | (__u64)dc_gen_cached(t, k->pid, fd) << 32;
	}
	if (ret >= 0 &&
	    (c->size_kind == DC_RET_SIZE || c->size_kind == DC_RET_ISIZE))
		a->size_sum = ret;
	else if (ret >= 0 && c->size_kind == DC_RET_ITEMS && c->size_slot >= 0)
		a->size_sum = ret * f->val[c->size_slot & (DC_CAPTURE - 1)];
	else if (ret == 0 && c->size_kind == DC_RET_STATUS && c->dtype_mask &&
		 c->size_slot >= 0)
		a->size_sum = dc_items_bytes(c, f);
	else if (ret >= 0 && c->size_kind == DC_RET_CHAR)
		a->size_sum = 1;
	else if (ret >= 0 && c->size_kind == DC_RET_STATUS &&
		 c->fed_slot >= 0 &&
		 f->val[c->fed_slot & (DC_CAPTURE - 1)] == DC_SIZE_UNKNOWN)
		a->unsized = 1;
	else if (ret >= 0 && c->size_kind == DC_RET_STATUS && c->fed_slot >= 0)
		a->size_sum = f->val[c->fed_slot & (DC_CAPTURE - 1)];
	else if ((c->str_mask || c->str_exit_mask) && c->size_slot >= 0 &&
		 (c->size_kind == DC_RET_ADDR ? ret != 0 : ret >= 0))
		a->size_sum = f->val[c->size_slot & (DC_CAPTURE - 1)];
	failed = c->dmod == DC_DMOD_MPIIO ? ret != 0 : ret < 0;
	a->errs = failed;
	if (c->pat && fd >= 0 && !failed && !k->inner)
		dc_pattern(c, f, k->pid,
			   c->obj_kind == DC_OBJ_STREAM ? fd | DC_PAT_STREAM
							: fd,
			   k->obj >> 32, ret, a->size_sum, a);
	else if (c->pat && c->obj_kind == DC_OBJ_HANDLE && !failed &&
		 !k->inner && !a->unsized)
		dc_hpattern(c, hs, k->pid, k->obj, a->size_sum, a);
}

/* Profile mode: fold the calling thread's built call (@pat: with its
 * pattern counters) into its interval's aggregates. A global function,
 * as dc_aggregate_popped() is: split there, the verifier walks the
 * building's paths and the folding's one after the other instead of
 * every pair of them. */
__noinline int dc_agg_commit(__u64 now, __u32 pat)
{
	struct dc_thread *t = dc_thread_get();
	__u32 zero = 0, *epoch, e;
	__u64 *fl;

	if (!t)
		return 0;
	/* An atomic add is a full barrier: the epoch is read after it. The
	 * decrement below needs none: x86 keeps stores in order, so it is
	 * seen after the aggregate's. Only this CPU writes its counter. */
	fl = bpf_map_lookup_elem(&dc_inflight, &zero);
	if (fl)
		__sync_fetch_and_add(fl, 1);
	epoch = bpf_map_lookup_elem(&dc_epoch, &zero);
	e = epoch ? *(volatile __u32 *)epoch & 1 : 0;
	dc_slot_add(t->agg[e], t->agg_used[e],
		    e ? (void *)&dc_agg1 : (void *)&dc_agg0, &t->call.k,
		    &t->call.v, now, pat);
	asm volatile("" ::: "memory");
	if (fl)
		*(volatile __u64 *)fl = *fl - 1;
	return 0;
}

/* Profile mode: fold the call just popped from the calling thread's
 * stack (its frame lies at the stack's depth) into its aggregate. A
 * global function is verified once, on its own: inlined into every exit
 * path, the aggregation's branches multiplied the callers' past Linux
 * 6.1's limit of 1M instructions. Scalar arguments only: a pointer
 * argument needs Linux 5.12. */
__noinline int dc_aggregate_popped(__u32 probe, long ret, __u64 id, __u64 now)
{
	const volatile struct dc_capture *c;
	struct dc_thread *t = dc_thread_get();

	if (!t)
		return 0;
	/* Masked in the code, as dc_cap() does. */
	asm volatile("" : "+r"(probe));
	c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	dc_agg_build(t, c, &t->f[dc_frame_slot(t->depth)], probe, id, now, ret);
	return dc_agg_commit(now, c->pat != DC_PAT_NONE);
}

/* Profile mode: the generation a tracked call gives its new fd or
 * handle. */
static __always_inline __u32 dc_track_gen(const volatile struct dc_capture *c,
					  const struct dc_frame *f, __u64 id,
					  long ret)
{
	if (ret < 0 && c->gen_what != DC_GEN_SFD)
		return 0;
	switch (c->gen_what) {
	case DC_GEN_RET: return dc_gen_bump(id >> 32, ret);
	case DC_GEN_SLOT:
		return dc_gen_bump(
		    id >> 32, (__s32)f->val[c->gen_slot & (DC_CAPTURE - 1)]);
	case DC_GEN_SFD: return ret ? dc_gen_bump(id >> 32, f->sfd) : 0;
	case DC_GEN_RET_IF_DUP: {
		/* fcntl: F_DUPFD and F_DUPFD_CLOEXEC return a new fd; other
		 * commands return flags, not an fd. */
		__u64 cmd = f->val[c->gen_slot & (DC_CAPTURE - 1)];

		return cmd == DC_F_DUPFD || cmd == DC_F_DUPFD_CLOEXEC
			   ? dc_gen_bump(id >> 32, ret)
			   : 0;
	}
	case DC_GEN_HANDLE_RET:
		return ret > 0 ? dc_hgen_bump(id >> 32, ret) : 0;
	/* The call's status: 0 is success (MPI_SUCCESS). */
	case DC_GEN_HANDLE_SLOT:
		return ret ? 0
			   : dc_hgen_bump(
				 id >> 32,
				 f->val[c->gen_slot & (DC_CAPTURE - 1)]);
	}
	return 0;
}

/* The first string of a call's text (a function's name) takes at most
 * this much of the buffer, the second (its source file) the rest. */
#define DC_TEXT_FIRST 256

/* The strings of the slots of @mask, at most two, each NUL-terminated
 * (empty when unreadable), one after the other in @buf: their length. */
static __always_inline __u32 dc_read_texts(char *buf, __u8 mask,
					   const struct dc_frame *f)
{
	__u64 p[2] = {};
	__u32 len, got = 0;
	long n;

	for (int i = 0; i < DC_CAPTURE; i++) {
		if (!(mask & (1 << i)))
			continue;
		if (got == 0)
			p[0] = f->val[i];
		else if (got == 1)
			p[1] = f->val[i];
		got++;
	}
	n = bpf_probe_read_user_str(buf, DC_TEXT_FIRST, (const void *)p[0]);
	if (n <= 0) {
		buf[0] = 0;
		n = 1;
	}
	if (got < 2)
		return n;
	/* The mask tells the verifier the second read stays in @buf. */
	len = n & (2 * DC_TEXT_FIRST - 1);
	n = bpf_probe_read_user_str(buf + len, DC_PATH_MAX - 2 * DC_TEXT_FIRST,
				    (const void *)p[1]);
	if (n <= 0) {
		buf[len] = 0;
		n = 1;
	}
	return len + (n & (DC_PATH_MAX - 1));
}

/* A traced call returns: its frame, popped from @t, becomes an event
 * (or an aggregate). */
static __always_inline int dc_emit(struct dc_thread *t, struct dc_frame *f,
				   __u32 probe, long ret,
				   const volatile struct dc_capture *c,
				   __u32 job, __u64 id, __u64 now)
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
		if (!c->track)
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
	return dc_emit(t, f, probe, ret, c, t->job, id, now);
}

/* Every right of the current task a trace's owner may lack: its ids,
 * groups and capabilities (DC_PROC_CAPS in the flags; those held in a
 * user namespace of its own give nothing over the host's files). */
static __always_inline void dc_proc_creds(struct dc_proc_event *e)
{
	/* Only read through: a plain pointer serves every kernel. */
	struct task_struct *task = (void *)bpf_get_current_task();
	struct user_namespace *ns = 0;
	const struct cred *cred = 0;
	struct group_info *gi = 0;
	__u64 prm = 0, eff = 0;
	int level = 0;
	__u32 n = 0;

	bpf_probe_read_kernel(&cred, sizeof(cred),
			      __builtin_preserve_access_index(&task->cred));
	if (!cred)
		return;
	bpf_core_read(&e->euid, sizeof(e->euid), &cred->euid.val);
	bpf_core_read(&e->egid, sizeof(e->egid), &cred->egid.val);
	bpf_core_read(&e->suid, sizeof(e->suid), &cred->suid.val);
	bpf_core_read(&e->sgid, sizeof(e->sgid), &cred->sgid.val);
	bpf_core_read(&e->fsuid, sizeof(e->fsuid), &cred->fsuid.val);
	bpf_core_read(&e->fsgid, sizeof(e->fsgid), &cred->fsgid.val);
	bpf_core_read(&prm, sizeof(prm), &cred->cap_permitted);
	bpf_core_read(&eff, sizeof(eff), &cred->cap_effective);
	bpf_core_read(&ns, sizeof(ns), &cred->user_ns);
	if (ns)
		bpf_core_read(&level, sizeof(level), &ns->level);
	if ((prm || eff) && !level)
		e->flags |= DC_PROC_CAPS;
	bpf_core_read(&gi, sizeof(gi), &cred->group_info);
	if (gi)
		bpf_core_read(&n, sizeof(n), &gi->ngroups);
	e->ngroups = n;
	if (n > DC_PROC_GROUPS)
		n = DC_PROC_GROUPS;
	if (n)
		bpf_core_read(e->groups, n * sizeof(__u32), &gi->gid);
}

/* A process record; @flags: DC_PROC_SECURE for an exec that gave it. */
static __always_inline void dc_proc_event(__u16 kind, __u32 pid, __u32 tid,
					  __u32 ppid, const char *comm,
					  __u32 flags)
{
	struct dc_proc_event *e;
	__u64 ug = bpf_get_current_uid_gid();

	e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);
	if (!e)
		return; /* the runtime falls back to /proc for these */
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	e->tid = tid;
	e->ppid = ppid;
	e->ts = bpf_ktime_get_ns();
	e->uid = e->euid = e->suid = e->fsuid = (__u32)ug;
	e->gid = e->egid = e->sgid = e->fsgid = ug >> 32;
	e->flags = flags;
	/* The runtime keeps a process that has more rights than a trace's
	 * owner (a setuid or setgid program) out of that trace. An exit
	 * needs none of it. */
	if (kind != DC_EV_EXIT)
		dc_proc_creds(e);
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm);
	/* The runtime reads /proc when a process forks or execs, while the
	 * process is still there: wake it at once. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

#endif /* DATACRUMBS_BPF_H */
