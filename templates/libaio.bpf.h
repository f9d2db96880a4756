/* SPDX-License-Identifier: MIT */
/*
 * Linux AIO (libaio) requests, from io_submit to the io_getevents that
 * reaps them. At sys_enter_io_submit each iocb the call passes is read
 * from user memory (command, fd, offset, length) and kept by the
 * process and the iocb's address, which the kernel gives back in the
 * io_event's obj; io_getevents' events array is remembered at its entry
 * and read at its exit, for as many events as it returned. The latency
 * is what the program sees: submission to reaping.
 */
#ifndef DATACRUMBS_LIBAIO_BPF_H
#define DATACRUMBS_LIBAIO_BPF_H

#include "datacrumbs.bpf.h"
#include "tpemit.bpf.h"
#include "async.bpf.h"

#define DC_AIO_BATCH 64 /* iocbs or events read per call */

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, struct dc_aio_key);
	__type(value, struct dc_async_open);
} dc_aio_pending SEC(".maps");

/* A thread in io_getevents: where its events go. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} dc_aio_reaping SEC(".maps");

/* struct iocb of <linux/aio_abi.h>, as far as it is read. */
struct dc_iocb {
	__u64 data;
	__u32 key, rw_flags;
	__u16 opcode;
	__s16 reqprio;
	__u32 fd;
	__u64 buf;
	__u64 nbytes;
	__s64 offset;
};

struct dc_io_event {
	__u64 data;
	__u64 obj; /* the iocb's user address */
	__s64 res;
	__s64 res2;
};

/* The iocb at user address @iocb begins now, if its command is traced.
 * A global function, verified once rather than for each of the batch's
 * entries. */
__noinline int dc_aio_start(__u64 iocb, __u32 job, __u64 id, __u64 now)
{
	struct dc_aio_key key = { .tgid = id >> 32, .iocb = iocb };
	struct dc_async_open u;
	struct dc_iocb cb;
	__u32 probe;

	if (bpf_probe_read_user(&cb, sizeof(cb), (void *)iocb))
		return -1;
	probe = dc_libaio_ops[cb.opcode & (DC_LIBAIO_OPS - 1)];
	if (!probe-- || probe >= DC_NPROBES)
		return 0;
	__builtin_memset(&u, 0, sizeof(u));
	dc_async_start(&u, probe, (__s32)cb.fd, cb.offset, cb.nbytes, job, id,
		       now);
	bpf_map_update_elem(&dc_aio_pending, &key, &u, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_io_submit")
int dc_aio_submit(struct dc_sys_enter_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	const __u64 *iocbpp = (const __u64 *)ctx->args[2];
	long nr = ctx->args[1];
	__u64 iocb;
	__u32 job;

	if (!dc_traced(id >> 32))
		return 0;
	job = dc_job_of(id >> 32);
	for (int i = 0; i < DC_AIO_BATCH && i < nr; i++)
		if (bpf_probe_read_user(&iocb, sizeof(iocb), &iocbpp[i]) ||
		    dc_aio_start(iocb, job, id, now))
			break;
	return 0;
}

static __always_inline int dc_aio_reap_enter(struct dc_sys_enter_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), events = ctx->args[3];
	__u32 tid = id;

	if (!dc_traced(id >> 32))
		return 0;
	bpf_map_update_elem(&dc_aio_reaping, &tid, &events, BPF_ANY);
	return 0;
}

/* The io_event at user address @at: its request ends now. A global
 * function, verified once rather than for each of the batch's events. */
__noinline int dc_aio_end(__u64 at, __u64 id, __u64 now)
{
	struct dc_aio_key key = { .tgid = id >> 32 };
	struct dc_async_open *u;
	struct dc_io_event ev;

	if (bpf_probe_read_user(&ev, sizeof(ev), (void *)at))
		return -1;
	key.iocb = ev.obj;
	u = bpf_map_lookup_elem(&dc_aio_pending, &key);
	if (!u)
		return 0;
	dc_tp_emit_ret(&u->o, u->probe, now, ev.res);
	bpf_map_delete_elem(&dc_aio_pending, &key);
	return 0;
}

static __always_inline int dc_aio_reap_exit(struct dc_sys_exit_rec *ctx)
{
	__u64 id = bpf_get_current_pid_tgid(), now = bpf_ktime_get_ns();
	__u32 tid = id;
	__u64 *events;
	long n = ctx->ret;

	events = bpf_map_lookup_elem(&dc_aio_reaping, &tid);
	if (!events)
		return 0;
	for (int i = 0; i < DC_AIO_BATCH && i < n; i++)
		if (dc_aio_end(*events + i * sizeof(struct dc_io_event), id,
			       now))
			break;
	bpf_map_delete_elem(&dc_aio_reaping, &tid);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_io_getevents")
int dc_aio_getevents(struct dc_sys_enter_rec *ctx)
{
	return dc_aio_reap_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_getevents")
int dc_aio_getevents_exit(struct dc_sys_exit_rec *ctx)
{
	return dc_aio_reap_exit(ctx);
}

SEC("tracepoint/syscalls/sys_enter_io_pgetevents")
int dc_aio_pgetevents(struct dc_sys_enter_rec *ctx)
{
	return dc_aio_reap_enter(ctx);
}

SEC("tracepoint/syscalls/sys_exit_io_pgetevents")
int dc_aio_pgetevents_exit(struct dc_sys_exit_rec *ctx)
{
	return dc_aio_reap_exit(ctx);
}

#endif
