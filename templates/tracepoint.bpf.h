/* SPDX-License-Identifier: MIT */
/*
 * Kernel tracepoints: one program for every probe and side, the cookie
 * saying which, and one program a side where there are no cookies.
 */
#ifndef DATACRUMBS_TRACEPOINT_BPF_H
#define DATACRUMBS_TRACEPOINT_BPF_H

#include "datacrumbs.bpf.h"
#include "tpemit.bpf.h"

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

#endif /* DATACRUMBS_TRACEPOINT_BPF_H */
