/* SPDX-License-Identifier: MIT */
/*
 * The base of every generated object, and the file by which the
 * generator finds the templates: the configuration, the maps every
 * program reaches (events, traced processes, limits, losses) and
 * whether a process is traced. What each probe captures is data
 * (dc_caps[], generated), so one entry/exit program pair serves every
 * probe of a mechanism and attaching costs two links per binary, not two
 * per function or shape. The headers built on this one are listed in
 * docs/design.md.
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

/* When each traced (process, descriptor) was last freed (abi.h); read by
 * the runtime through its own mapping. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, DC_CLOSE_SLOTS);
	__uint(map_flags, BPF_F_MMAPABLE);
	__type(key, __u32);
	__type(value, __u64);
} dc_close_ts SEC(".maps");

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

/* Defined, by the generator, after this file. */
static const volatile struct dc_capture dc_caps[DC_CAPS_SIZE];

/* A global function: the verifier checks it once, not at each of the
 * places (some in loops over the frame stack) that count a loss. */
__noinline int dc_lose(__u32 probe, __u32 reason)
{
	__u32 key = probe * DC_LOSS_NR + reason;
	__u64 *n = bpf_map_lookup_elem(&dc_lost, &key);

	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
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

#endif /* DATACRUMBS_BPF_H */
