/* SPDX-License-Identifier: MIT */
/*
 * A probe's capture: its slots read from the call's arguments (and, by
 * name, from structures the library's layouts describe), the descriptor
 * behind them fed, and the call opened. Shared by every mechanism that
 * begins a call from arguments: uprobes, kprobes, syscall wrappers and
 * asynchronous requests.
 */
#ifndef DATACRUMBS_CAPTURE_BPF_H
#define DATACRUMBS_CAPTURE_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"
#include "stack.bpf.h"
#include "uread.bpf.h"
#include "vma.bpf.h"

/* Probe @probe's capture. The mask stays in the code: after a bounds
 * check clang would drop it, and the verifier cannot always follow the
 * check to the access. */
static __always_inline const volatile struct dc_capture *dc_cap(__u32 probe)
{
	asm volatile("" : "+r"(probe));
	return &dc_caps[probe & (DC_CAPS_SIZE - 1)];
}

/* Sign-extend the slots holding a C int: the register's upper half is
 * undefined for them. */
static __always_inline __u64 dc_fix(const volatile struct dc_capture *c, int i,
				    __u64 v)
{
	return c->int_mask & (1 << i) ? (__u64)(__s64)(int)v : v;
}

/* Pick argument @n of six already loaded into scalars: the verifier
 * refuses a context pointer that clang has offset before loading. */
static __always_inline __u64 dc_pick(const __u64 *a, __u8 n)
{
	switch (n) {
	case 0: return a[0];
	case 1: return a[1];
	case 2: return a[2];
	case 3: return a[3];
	case 4: return a[4];
	default: return a[5];
	}
}

/*
 * An MPICH datatype object begins as struct MPIR_Datatype does (MPICH 3.3
 * and newer): its handle, a reference count, then its size.
 */
struct dc_mpich_type {
	__s32 handle;
	__s32 ref_count;
	__s64 size;
};

/* MPICH handle @h's size: a built-in type's handle holds it; another's
 * object is in one of the library's tables, found from where its code
 * is mapped (@ip lies in it), and is taken only if it names @h. @vma:
 * the mapping may be looked up (bpf_find_vma), else only the one the
 * thread keeps for @ip (dc_vma_prime) is used. */
static __always_inline __u64 dc_mpich_size(__u64 ip, __u32 h, bool vma)
{
	struct dc_mpich_type o;
	__u64 at, blocks;
	struct dc_thread *t;
	struct dc_vma *v;
	__u32 idx;

	if (h >> 30 == 1)
		return (h >> 8) & 0xff;
	if (h >> 30 < 2 || !dc_cfg.mpich_objsize)
		return 0;
	t = dc_thread_get();
	v = !t ? 0 : vma ? dc_vma_of(t, ip) : dc_vma_cached(t, ip);
	if (!v)
		return 0;
	if (h >> 30 == 2) {
		/* Preallocated: index in the low 26 bits. */
		idx = h & 0x3ffffff;
		if (idx >= dc_cfg.mpich_ndirect)
			return 0;
		at = v->bias + dc_cfg.mpich_direct;
	} else {
		/* Allocated later: a block of 4096, then the index in it. */
		idx = h & 0xfff;
		if (bpf_probe_read_user(
			&blocks, sizeof(blocks),
			(const void *)(v->bias + dc_cfg.mpich_indirect)) ||
		    bpf_probe_read_user(
			&at, sizeof(at),
			(const void *)(blocks + ((h >> 12) & 0x3fff) * 8)))
			return 0;
	}
	at += (__u64)idx * dc_cfg.mpich_objsize;
	if (bpf_probe_read_user(&o, sizeof(o), (const void *)at) ||
	    o.handle != (__s32)h || o.size < 0)
		return 0;
	return o.size;
}

/* The size in bytes of MPI datatype @t, or 0 when it cannot be told (an
 * MPI library whose layout the runtime did not find): the call's bytes
 * are then unknown, never wrong. @ip: where the probe fired. */
static __always_inline __u64 dc_dtype_size(__u8 kind, __u64 t, __u64 ip,
					   bool vma)
{
	__u64 size = 0;

	if (kind == DC_DTYPE_OMPI && t && dc_cfg.ompi_size_off &&
	    bpf_probe_read_user(&size, sizeof(size),
				(const void *)(t + dc_cfg.ompi_size_off)))
		size = 0;
	if (kind == DC_DTYPE_MPICH)
		size = dc_mpich_size(ip, (__u32)t, vma);
	return size;
}

/* The same as global functions, each verified once: inlined in the
 * capture's loop, it was two fifths of the uprobe program's
 * verification. Two, as only the programs of kernels with bpf_find_vma
 * may contain it. */
__noinline __u64 dc_dtype_bytes(__u32 kind, __u64 t, __u64 ip)
{
	return dc_dtype_size(kind, t, ip, true);
}

__noinline __u64 dc_dtype_bytes_compat(__u32 kind, __u64 t, __u64 ip)
{
	return dc_dtype_size(kind, t, ip, false);
}

/* Where each copy of a library keeps the fields probes read by name. */
struct dc_layouts dc_layouts;

/* Slot @i of @probe, @v, read through its pointers at the offsets of
 * layout @lay (dc_layouts) or, for 0, the object's; a feeder's late
 * role left at the address of its word. Where @v is NULL and the slot
 * says so (ROLE@A|N@B), argument N, @alt, read through null_off takes
 * its place. A global function: the verifier walks it once, not in
 * every path of every program capturing a call. */
__noinline __u64 dc_read_slot(__u32 probe, __u32 i, __u32 lay, __u64 v,
			      __u64 alt)
{
	const volatile struct dc_capture *c = dc_cap(probe);
	__u8 hops = c->null_hops;
	bool addr;

	if (!v && c->null_slot == i + 1)
		v = hops ? dc_follow(c->null_off, hops, alt, false) : alt;
	i &= DC_CAPTURE - 1;
	addr = c->feeds && (c->deref_exit_mask & (1 << i));
	return dc_follow(lay ? dc_layouts.off[lay & (DC_LAYOUTS - 1)][i]
			     : c->deref_off[i],
			 c->deref_hops[i], v, addr);
}

/* The slots of @probe from its arguments @a, and the descriptor behind
 * its stream, if it has one. @ip: where the probe fired, @vma: whether
 * its mapping may be looked up (dc_mpich_size). @lay: its fields'
 * offsets in this copy (dc_layouts), or 0 for the object's. */
static __always_inline __s32 dc_capture(__u32 probe, const __u64 *a, __u64 *v,
					__u64 ip, __u32 lay, bool vma)
{
	const volatile struct dc_capture *c = dc_cap(probe);
	/* Each field of the table is a load (it is volatile): read once. */
	__u8 n = c->nslots, ints = c->int_mask, deref = c->deref_entry_mask,
	     dtype = c->dtype_mask, str = c->str_mask;
	/* What a slot read through a NULL argument may start from. */
	__u64 alt = dc_pick(a, c->null_arg);
	/* Filled by the functions that feed this call. */
	__u8 fed =
	    (c->feeds ? 0 : c->pass_mask) |
	    (c->fed_slot >= 0 ? 1 << (c->fed_slot & (DC_CAPTURE - 1)) : 0);
	__s8 stream = c->stream_slot;
	__s32 sfd = -1;

	for (int i = 0; i < DC_CAPTURE; i++) {
		__u8 bit = 1 << i;

		if (i >= n)
			break;
		if (fed & bit) {
			v[i] = 0;
			continue;
		}
		v[i] = dc_pick(a, c->slot_arg[i]);
		if (deref & bit)
			v[i] = dc_read_slot(probe, i, lay, v[i], alt);
		/* A C int read through pointers is cut to size after. */
		if (ints & bit)
			v[i] = (__u64)(__s64)(int)v[i];
		if (dtype & bit && vma)
			v[i] = dc_dtype_bytes(c->dtype_kind, v[i], ip);
		else if (dtype & bit)
			v[i] = dc_dtype_bytes_compat(c->dtype_kind, v[i], ip);
		if (str & bit)
			v[i] = dc_user_strlen(v[i]);
		if (stream == i)
			sfd = dc_stream_fd(v[i]);
	}
	return sfd;
}

/*
 * An inner function that feeds its caller (HDF5's layout code under
 * H5Dwrite): its bytes, the product of its quantities, go to the call it
 * feeds when that is the thread's innermost traced call, and the values
 * and pointers it hands on to that call's slots for them. It pushes no
 * frame and makes no event.
 */
static __always_inline void dc_feed(__u32 probe, __u32 target, const __u64 *a,
				    __u64 ip, __u32 lay, bool vma)
{
	const volatile struct dc_capture *tc, *c = dc_cap(probe);
	struct dc_thread *t = dc_thread_get();
	__u64 v[DC_CAPTURE] = {}, bytes = 1;
	bool quantity = false;
	struct dc_frame *f;
	__u32 d;

	if (!t)
		return;
	d = t->depth;
	if (d == 0 || d > DC_MAX_DEPTH)
		return;
	f = &t->f[dc_frame_slot(d - 1)];
	if (f->probe != target)
		return;
	tc = dc_cap(target);
	dc_capture(probe, a, v, ip, lay, vma);
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (i >= c->nslots)
			break;
		if (c->pass_mask & (1 << i)) {
			/* The first feeder's stays: HDF5 closes a virtual
			 * dataset's sources inside its own close. */
			if (c->pass_to[i] >= 0 &&
			    !f->val[c->pass_to[i] & (DC_CAPTURE - 1)])
				f->val[c->pass_to[i] & (DC_CAPTURE - 1)] = v[i];
			continue;
		}
		bytes *= v[i];
		quantity = true;
	}
	if (quantity && tc->fed_slot >= 0 &&
	    f->val[tc->fed_slot & (DC_CAPTURE - 1)] != DC_SIZE_UNKNOWN)
		f->val[tc->fed_slot & (DC_CAPTURE - 1)] += bytes;
}

/* @traced: the caller has already checked that the process is traced.
 * @cookie: the uprobe's (DC_COOKIE_*), past the probe id.
 * Returns 1 for a feeder, which has no return to see. */
static __always_inline int dc_capture_enter(__u32 probe, const __u64 *a,
					    __u64 ip, bool traced, __u32 cookie,
					    bool vma)
{
	__u32 feeds = dc_cap(probe)->feeds;
	__s8 fed = dc_cap(probe)->fed_slot;
	__u64 v[DC_CAPTURE] = {};
	__s32 sfd;

	if (feeds) {
		if (traced || dc_traced(bpf_get_current_pid_tgid() >> 32))
			dc_feed(probe, feeds - 1, a, ip,
				cookie >> DC_COOKIE_LAYOUT_SHIFT &
				    (DC_LAYOUTS - 1),
				vma);
		return 1;
	}
	sfd = dc_capture(probe, a, v, ip, 0, vma);
	if ((cookie & DC_COOKIE_UNFED) && fed >= 0)
		v[fed & (DC_CAPTURE - 1)] = DC_SIZE_UNKNOWN;
	return traced ? dc_push(probe, v, sfd) : dc_enter(probe, v, sfd);
}

#endif /* DATACRUMBS_CAPTURE_BPF_H */
