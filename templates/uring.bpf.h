/* SPDX-License-Identifier: MIT */
/*
 * io_uring requests, from submission to completion. At
 * io_uring_submit_req the request is prepared: its opcode, fd (the cqe's
 * fd until completion) and, for reads and writes, the offset and length
 * in its struct io_rw are read with CO-RE from the kernel's own types.
 * The pending request is keyed by its address; io_uring_complete gives
 * its result. The runtime attaches the submission program to the name
 * this kernel gives the event (io_uring_submit_sqe before Linux 6.3) and
 * loads the one completion program that reads its result where this
 * kernel passes it (lib/kuring.h).
 */
#ifndef DATACRUMBS_URING_BPF_H
#define DATACRUMBS_URING_BPF_H

#include <bpf/bpf_core_read.h>
#include "datacrumbs.bpf.h"
#include "tpemit.bpf.h"
#include "async.bpf.h"

/* The kernel's types, as far as they are read; CO-RE finds the fields
 * wherever this kernel has them (fd and res sit in unions there). */
struct kiocb___dc {
	long long ki_pos;
} __attribute__((preserve_access_index));

struct io_rw___dc {
	struct kiocb___dc kiocb;
	__u32 len;
} __attribute__((preserve_access_index));

struct io_cqe___dc {
	int fd;
} __attribute__((preserve_access_index));

struct io_kiocb___dc {
	__u8 opcode;
	struct io_cqe___dc cqe;
} __attribute__((preserve_access_index));

struct io_uring_cqe___dc {
	__s32 res;
} __attribute__((preserve_access_index));

/* Requests in flight. LRU: one whose completion never comes (a ring torn
 * down) cannot fill it. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct dc_async_open);
} dc_uring_pending SEC(".maps");

SEC("tp_btf/io_uring_submit_req")
int dc_uring_submit(unsigned long long *ctx)
{
	struct io_kiocb___dc *req = (void *)ctx[0];
	struct io_rw___dc *rw = (void *)req; /* the command area comes first */
	__u64 id = bpf_get_current_pid_tgid(), key = ctx[0];
	struct dc_async_open u = {};
	long long pos = 0;
	__u8 op = 0;
	__u32 len = 0, probe;
	int fd = -1;

	if (!dc_traced(id >> 32))
		return 0;
	bpf_core_read(&op, sizeof(op), &req->opcode);
	probe = dc_uring_ops[op & (DC_URING_OPS - 1)];
	if (!probe-- || probe >= DC_NPROBES)
		return 0;
	bpf_core_read(&fd, sizeof(fd), &req->cqe.fd);
	bpf_core_read(&pos, sizeof(pos), &rw->kiocb.ki_pos);
	bpf_core_read(&len, sizeof(len), &rw->len);
	dc_async_start(&u, probe, fd, pos, len, dc_job_of(id >> 32), id,
		       bpf_ktime_get_ns());
	bpf_map_update_elem(&dc_uring_pending, &key, &u, BPF_ANY);
	return 0;
}

/* Request @key is done with result @res. */
static __always_inline void dc_uring_done(__u64 key, __s32 res)
{
	struct dc_async_open *u = bpf_map_lookup_elem(&dc_uring_pending, &key);

	if (!u)
		return;
	dc_tp_emit_ret(&u->o, u->probe, bpf_ktime_get_ns(), res);
	bpf_map_delete_elem(&dc_uring_pending, &key);
}

/* io_uring_complete(ctx, req, cqe): Linux 6.3 on. */
SEC("tp_btf/io_uring_complete")
int dc_uring_complete(unsigned long long *ctx)
{
	struct io_uring_cqe___dc *cqe = (void *)ctx[2];
	__s32 res = 0;

	bpf_core_read(&res, sizeof(res), &cqe->res);
	dc_uring_done(ctx[1], res);
	return 0;
}

/* io_uring_complete(ctx, req, user_data, res, ...): Linux 6.0 to 6.2. */
SEC("tp_btf/io_uring_complete")
int dc_uring_complete_res(unsigned long long *ctx)
{
	dc_uring_done(ctx[1], (__s32)ctx[3]);
	return 0;
}

#endif
