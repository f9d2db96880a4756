/* SPDX-License-Identifier: MIT */
/*
 * Profile mode: calls folded into aggregates in the kernel, with the
 * counters of Darshan's access patterns, instead of one event each.
 */
#ifndef DATACRUMBS_PROFILE_BPF_H
#define DATACRUMBS_PROFILE_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "fdgen.bpf.h"

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

/* Fold @a into key @k's aggregate in @map. Both are copied to the
 * stack first: Linux 6.1 takes no other memory for a map's key or value
 * than the stack's or a map's, and in dc_aggregate_popped_in() the
 * thread's state is neither. */
static __always_inline void dc_agg_add(void *map, const struct dc_agg_key *k,
				       const struct dc_agg_val *a, __u32 probe)
{
	struct dc_agg_key key = *k;
	struct dc_agg_val val = *a;
	struct dc_agg_val *v = bpf_map_lookup_elem(map, &key);

	if (!v) {
		if (!bpf_map_update_elem(map, &key, &val, BPF_NOEXIST))
			return;
		/* Another CPU created it: add to this CPU's copy. */
		v = bpf_map_lookup_elem(map, &key);
		if (!v) {
			dc_lose(probe, DC_LOSS_AGG_FULL);
			return;
		}
	}
	dc_agg_fold(v, &val, true);
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

/* Profile mode: fold thread @t's built call (@pat: with its pattern
 * counters) into its interval's aggregates. */
static __always_inline void dc_agg_commit(struct dc_thread *t, __u64 now,
					  __u32 pat)
{
	__u32 zero = 0, *epoch, e;
	__u64 *fl;

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
}

/* Profile mode: fold the call just popped from @t's stack (its frame
 * lies at the stack's depth) into its aggregate. */
static __always_inline int dc_agg_popped(struct dc_thread *t, __u32 probe,
					 long ret, __u64 id, __u64 now)
{
	const volatile struct dc_capture *c;

	/* Masked in the code, as dc_cap() does. */
	asm volatile("" : "+r"(probe));
	c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	dc_agg_build(t, c, &t->f[dc_frame_slot(t->depth)], probe, id, now, ret);
	dc_agg_commit(t, now, c->pat != DC_PAT_NONE);
	return 0;
}

/*
 * The fold as global functions, each verified once on its own: inlined
 * into every exit path, the aggregation's branches multiplied the
 * callers' past Linux 6.1's limit of 1M instructions. Linux 5.12 and
 * later take the thread's state as an argument; before, a global
 * function takes scalars only and looks it up again (about 25 ns).
 */
__noinline int dc_aggregate_popped(__u32 probe, long ret, __u64 id, __u64 now)
{
	struct dc_thread *t = dc_thread_get();

	return t ? dc_agg_popped(t, probe, ret, id, now) : 0;
}

__noinline int dc_aggregate_popped_in(struct dc_thread *t, __u32 probe,
				      long ret, __u64 id, __u64 now)
{
	return t ? dc_agg_popped(t, probe, ret, id, now) : 0;
}

#endif /* DATACRUMBS_PROFILE_BPF_H */
