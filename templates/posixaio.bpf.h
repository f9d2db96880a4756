/* SPDX-License-Identifier: MIT */
/*
 * POSIX AIO requests (glibc's aio_read, aio_write, aio_fsync and
 * lio_listio), from submission to the first aio_return on their aiocb,
 * which is when the program learns the result. One uprobe program is
 * attached to those functions, its cookie saying which (enum
 * dc_paio_at). At submission the aiocb is read from user memory (fd,
 * offset, length; lio_listio's command) and kept by process and aiocb
 * address; aio_return reads the result glibc stored in the aiocb, the
 * value it is about to return. glibc does the I/O in helper threads of
 * the process, whose own pread and pwrite are traced like any call; a
 * thread created inside a submission is one, and its calls are marked
 * (DC_CALL_AIO_HELPER), so a request's bytes are not counted twice.
 */
#ifndef DATACRUMBS_POSIXAIO_BPF_H
#define DATACRUMBS_POSIXAIO_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "tpemit.bpf.h"
#include "async.bpf.h"

#define DC_PAIO_BATCH  64  /* lio_listio entries followed per call */
#define DC_EINPROGRESS 115 /* __error_code of a request not yet done */
#define DC_O_DSYNC     010000

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dc_aio_key);
	__type(value, struct dc_async_open);
} dc_paio_pending SEC(".maps");

/* Request @op on the aiocb at @cb begins now. An aiocb submitted again
 * before its result was taken is a request never returned: counted. A
 * global function, verified once rather than for each of lio_listio's
 * entries. */
__noinline int dc_paio_start(__u64 cb, __u32 op, __u32 job, __u64 id, __u64 now)
{
	struct dc_aio_key key = { .tgid = id >> 32, .iocb = cb };
	__u32 probe = dc_paio_ops[op & (DC_PAIO_OPS - 1)];
	struct dc_async_open u, *old;
	__s32 fd = -1;
	__u64 len = 0;
	__s64 off = 0;

	if (!probe-- || probe >= DC_NPROBES)
		return 0;
	if (bpf_probe_read_user(&fd, sizeof(fd),
				(void *)(cb + DC_AIOCB_FILDES)) ||
	    bpf_probe_read_user(&len, sizeof(len),
				(void *)(cb + DC_AIOCB_NBYTES)) ||
	    bpf_probe_read_user(&off, sizeof(off),
				(void *)(cb + DC_AIOCB_OFFSET)))
		return 0;
	__builtin_memset(&u, 0, sizeof(u));
	dc_async_start(&u, probe, fd, off, len, job, id, now);
	if (!bpf_map_update_elem(&dc_paio_pending, &key, &u, BPF_NOEXIST))
		return 0;
	old = bpf_map_lookup_elem(&dc_paio_pending, &key);
	if (old)
		dc_lose(old->probe, DC_LOSS_NORETURN);
	bpf_map_update_elem(&dc_paio_pending, &key, &u, BPF_ANY);
	return 0;
}

/* lio_listio(mode, list, n, sevp): each entry reading or writing. */
static __always_inline void dc_paio_listio(__u64 list, long n, __u32 job,
					   __u64 id, __u64 now)
{
	for (int i = 0; i < DC_PAIO_BATCH && i < n; i++) {
		__u64 cb = 0;
		__s32 op = -1;

		if (bpf_probe_read_user(&cb, sizeof(cb),
					(void *)(list + i * 8)))
			break;
		/* NULL entries are allowed, and LIO_NOP does nothing. */
		if (!cb ||
		    bpf_probe_read_user(&op, sizeof(op),
					(void *)(cb + DC_AIOCB_LIO_OPCODE)))
			continue;
		if (op == DC_PAIO_READ || op == DC_PAIO_WRITE)
			dc_paio_start(cb, op, job, id, now);
	}
}

/* aio_return(cb): the request's result, as glibc is about to return it. */
static __always_inline void dc_paio_return(__u64 cb, __u64 id, __u64 now)
{
	struct dc_aio_key key = { .tgid = id >> 32, .iocb = cb };
	struct dc_async_open *u;
	struct {
		__s32 error;
		__u32 pad;
		__s64 ret;
	} res;

	_Static_assert(DC_AIOCB_RETURN == DC_AIOCB_ERROR + 8,
		       "the result follows the error code");
	u = bpf_map_lookup_elem(&dc_paio_pending, &key);
	if (!u || bpf_probe_read_user(&res, sizeof(res),
				      (void *)(cb + DC_AIOCB_ERROR)))
		return;
	/* Asked too early (undefined in POSIX): the request goes on. */
	if (res.error == DC_EINPROGRESS)
		return;
	dc_tp_emit_ret(&u->o, u->probe, now, res.ret);
	bpf_map_delete_elem(&dc_paio_pending, &key);
}

/* Everything a request needs is in the arguments and the aiocb; the
 * submissions' returns (dc_paio_exit) only end the window in which
 * glibc creates its helper threads. */
SEC("uprobe.multi")
int dc_paio(struct pt_regs *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 at = bpf_get_attach_cookie(ctx), job;
	struct dc_thread *t;

	if (!dc_traced(id >> 32))
		return 0;
	if (at == DC_PAIO_AT_RETURN) {
		dc_paio_return(ctx->di, id, now);
		return 0;
	}
	t = dc_thread_new(id >> 32);
	if (t)
		t->in_paio = 1;
	job = dc_job_of(id >> 32);
	switch (at) {
	case DC_PAIO_AT_READ:
		dc_paio_start(ctx->di, DC_PAIO_READ, job, id, now);
		break;
	case DC_PAIO_AT_WRITE:
		dc_paio_start(ctx->di, DC_PAIO_WRITE, job, id, now);
		break;
	case DC_PAIO_AT_FSYNC:
		dc_paio_start(ctx->si,
			      (int)ctx->di == DC_O_DSYNC ? DC_PAIO_FDSYNC
							 : DC_PAIO_FSYNC,
			      job, id, now);
		break;
	case DC_PAIO_AT_LISTIO:
		dc_paio_listio(ctx->si, (int)ctx->dx, job, id, now);
		break;
	}
	return 0;
}

SEC("uretprobe.multi")
int dc_paio_exit(struct pt_regs *ctx)
{
	struct dc_thread *t;

	(void)ctx;
	if (!dc_traced(bpf_get_current_pid_tgid() >> 32))
		return 0;
	t = dc_thread_get();
	if (t)
		t->in_paio = 0;
	return 0;
}

/* A thread created by a traced thread: glibc's AIO helper when its
 * creator is inside a submission (__aio_enqueue_request creates them
 * there, and nowhere else). */
static __always_inline void dc_paio_helper(struct task_struct *child)
{
	struct dc_thread *t = dc_thread_get(), *h;

	if (!t || !t->in_paio)
		return;
	h = dc_thread_of(child, child->pid, true);
	if (h)
		h->aio_helper = 1;
}

static long dc_paio_unreturned(void *map, struct dc_aio_key *key,
			       struct dc_async_open *u, void *ctx)
{
	(void)ctx;
	dc_lose(u->probe, DC_LOSS_NORETURN);
	bpf_map_delete_elem(map, key);
	return 0;
}

/* The runtime runs this once the probes are detached: a request whose
 * result was never taken with aio_return is counted, not forgotten. */
SEC("syscall")
int dc_paio_sweep(void *ctx)
{
	(void)ctx;
	bpf_for_each_map_elem(&dc_paio_pending, dc_paio_unreturned, NULL, 0);
	return 0;
}

#endif
