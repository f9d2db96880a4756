/* SPDX-License-Identifier: MIT */
#ifndef DC_KURING_H
#define DC_KURING_H

struct dc_kbtf;

/*
 * The shape of this kernel's io_uring tracepoints, read off its BTF. The
 * submission tracepoint passes the request first under either name
 * (io_uring_submit_sqe until Linux 6.3, io_uring_submit_req since); the
 * completion passes the request second and either the whole cqe (6.3 on)
 * or the result among scalars (6.0 to 6.2: ctx, req, user_data, res, ...).
 * Older kernels pass no request at all: NONE.
 */
enum dc_uring_shape {
	DC_URING_NONE,
	DC_URING_CQE, /* io_uring_complete(ctx, req, cqe) */
	DC_URING_RES, /* io_uring_complete(ctx, req, user_data, res, ...) */
};

/* The shape of @vmlinux's io_uring tracepoints, and in *@submit the
 * submission event's name (without its group) when it is not NONE. */
enum dc_uring_shape dc_uring_shape(const struct dc_kbtf *vmlinux,
				   const char **submit);

#endif
