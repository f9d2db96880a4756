/* SPDX-License-Identifier: MIT */
/*
 * The mapping of the current process an address lies in: where a file's
 * offset 0 sits in memory, and which traced library it is. Resolving one
 * costs a bpf_find_vma (300 ns); a thread keeps the last few it resolved,
 * so most calls pay a compare.
 */
#ifndef DC_VMA_BPF_H
#define DC_VMA_BPF_H

#include "datacrumbs.bpf.h"
#include "inode.bpf.h"
#include "thread.bpf.h"

#define DC_PAGE_SHIFT 12

/* The libraries holding wrappers, by inode; n == 0: none traced. */
struct dc_wrap_libs dc_wraps;

static long dc_vma_found(struct task_struct *task, struct vm_area_struct *vma,
			 struct dc_vma *v)
{
	struct dc_file_id id = {};
	struct file *file = NULL;

	(void)task;
	v->start = vma->vm_start;
	v->end = vma->vm_end;
	v->bias = vma->vm_start - (vma->vm_pgoff << DC_PAGE_SHIFT);
	v->lib = -1;
	bpf_probe_read_kernel(&file, sizeof(file), &vma->vm_file);
	if (!dc_file_id(file, &id))
		return 0;
	for (int i = 0; i < DC_WRAP_LIBS; i++)
		if (i < dc_wraps.n && dc_wraps.lib[i].ino == id.ino &&
		    dc_wraps.lib[i].dev == id.dev)
			v->lib = i;
	return 0;
}

/* The mapping of @ip the thread keeps, or NULL. */
static __always_inline struct dc_vma *dc_vma_cached(struct dc_thread *t,
						    __u64 ip)
{
	struct dc_vma *v = 0;

	for (int i = 0; i < DC_VMAS; i++)
		if (ip >= t->vma[i].start && ip < t->vma[i].end)
			v = &t->vma[i];
	return v;
}

/* Resolve @ip's mapping into the calling thread's cache: the slot it
 * took, or -1. A global function, verified once: bpf_find_vma's
 * callback is verified at each call, and inlined at each place that
 * resolves an address it was a quarter of dc_sys_enter's verification.
 * Only a miss of the cache pays for looking the thread up again. */
__noinline int dc_vma_resolve(__u64 ip)
{
	struct dc_thread *t = dc_thread_get();
	struct dc_vma found = {};
	__u32 slot;

	if (!t ||
	    bpf_find_vma(bpf_get_current_task_btf(), ip, dc_vma_found, &found,
			 0) ||
	    !found.end)
		return -1;
	slot = t->vma_next++ & (DC_VMAS - 1);
	t->vma[slot] = found;
	return slot;
}

/* The mapping @ip lies in, or NULL when it cannot be resolved now
 * (bpf_find_vma only tries the memory map's lock, which a thread
 * changing the map holds). @t is the calling thread's. Only the
 * programs of kernels with bpf_find_vma (5.17) call it. */
static __always_inline struct dc_vma *dc_vma_of(struct dc_thread *t, __u64 ip)
{
	struct dc_vma *v;
	int slot;

	if (!ip)
		return 0;
	v = dc_vma_cached(t, ip);
	if (v)
		return v;
	slot = dc_vma_resolve(ip);
	return slot < 0 ? 0 : &t->vma[slot & (DC_VMAS - 1)];
}

/* A new program (exec) maps its libraries afresh. */
static __always_inline void dc_vma_forget(void)
{
	struct dc_thread *t = dc_thread_get();

	if (t)
		__builtin_memset(t->vma, 0, sizeof(t->vma));
}

#endif /* DC_VMA_BPF_H */
