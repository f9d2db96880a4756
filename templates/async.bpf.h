/* SPDX-License-Identifier: MIT */
/*
 * Asynchronous requests (io_uring, Linux AIO, POSIX AIO): the record
 * kept from submission to completion, the key of a request by its
 * control block, and how a request begins.
 */
#ifndef DATACRUMBS_ASYNC_BPF_H
#define DATACRUMBS_ASYNC_BPF_H

#include "datacrumbs.bpf.h"
#include "capture.bpf.h"
#include "tpemit.bpf.h"

/* A request by its process and control block (iocb or aiocb). */
struct dc_aio_key {
	__u32 tgid;
	__u32 pad;
	__u64 iocb; /* its user address */
};

/* An asynchronous request in flight (io_uring's or Linux AIO's). */
struct dc_async_open {
	struct dc_tp_open o;
	__u32 probe;
	__u32 pad;
};

/* Request @u of @probe begins now: its slots from the request's fd,
 * offset and length (@fd, @off, @len, by argument position), nested
 * under the submitting thread's traced call. */
static __always_inline void dc_async_start(struct dc_async_open *u, __u32 probe,
					   __s64 fd, __u64 off, __u64 len,
					   __u32 job, __u64 id, __u64 now)
{
	const volatile struct dc_capture *c = dc_cap(probe);
	__u64 a[6] = { fd, off, len };

	for (int i = 0; i < DC_CAPTURE; i++)
		if (i < c->nslots)
			u->o.val[i] = dc_pick(a, c->slot_arg[i]);
	u->o.job = job;
	u->probe = probe;
	dc_point_open(&u->o, id, now);
}

#endif /* DATACRUMBS_ASYNC_BPF_H */
