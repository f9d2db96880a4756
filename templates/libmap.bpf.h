/* SPDX-License-Identifier: MIT */
/*
 * Libraries mapped after start (a child's own, one dlopen()ed): a traced
 * process that maps a regular file executable which the runtime has not
 * checked is stopped at the mmap's return, and the runtime is told. It
 * attaches the uprobes of each spec whose library the file is, then
 * continues the process: no call into the library runs before its
 * probes are in. Each file is checked once a run (dc_libs).
 */
#ifndef DC_LIBMAP_BPF_H
#define DC_LIBMAP_BPF_H

#include "datacrumbs.bpf.h"

#define DC_VM_EXEC   0x4
#define DC_S_IFMT    0170000
#define DC_S_IFREG   0100000
#define DC_SIGSTOP   19
#define DC_MAX_ERRNO 4095

/* Files the runtime has checked, by inode; a file evicted is checked
 * again, which costs one stop more. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct dc_lib_key);
	__type(value, __u8);
} dc_libs SEC(".maps");

struct dc_lib_vma {
	__u64 start, end, ino;
	__u32 dev;
	bool exec; /* a regular file, mapped executable */
};

static long dc_lib_vma_found(struct task_struct *task,
			     struct vm_area_struct *vma, struct dc_lib_vma *v)
{
	struct file *file = NULL;
	struct inode *inode = NULL;
	struct super_block *sb = NULL;
	unsigned short mode = 0;

	(void)task;
	v->start = vma->vm_start;
	v->end = vma->vm_end;
	if (!(vma->vm_flags & DC_VM_EXEC))
		return 0;
	/* Read, not walked, as in vma.bpf.h. */
	bpf_probe_read_kernel(&file, sizeof(file), &vma->vm_file);
	if (file)
		bpf_probe_read_kernel(&inode, sizeof(inode), &file->f_inode);
	if (!inode)
		return 0;
	bpf_probe_read_kernel(&mode, sizeof(mode), &inode->i_mode);
	bpf_probe_read_kernel(&v->ino, sizeof(v->ino), &inode->i_ino);
	bpf_probe_read_kernel(&sb, sizeof(sb), &inode->i_sb);
	if (sb)
		bpf_probe_read_kernel(&v->dev, sizeof(v->dev), &sb->s_dev);
	v->exec = (mode & DC_S_IFMT) == DC_S_IFREG;
	return 0;
}

static __always_inline void dc_lib_unchecked(void)
{
	__u32 k = DC_LIMIT_LIBS;
	__u64 *n = bpf_map_lookup_elem(&dc_limits, &k);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* Set by the runtime when the sys_exit program runs: that program then
 * checks each mmap of a traced process, and dc_lib_mapped is left out. */
bool dc_libs_at_exit;

/* Traced process @tgid's mmap returned @addr: a file there not checked
 * yet stops it until the runtime has seen to it. */
static __always_inline void dc_lib_check(__u32 tgid, unsigned long addr)
{
	struct dc_lib_vma v = {};
	struct dc_lib_event *e;
	struct dc_lib_key k;

	if (addr >= -(unsigned long)DC_MAX_ERRNO)
		return;
	/* Only tries the memory map's lock: another thread may hold it. */
	if (bpf_find_vma(bpf_get_current_task_btf(), addr, dc_lib_vma_found, &v,
			 0) ||
	    !v.end) {
		dc_lib_unchecked();
		return;
	}
	if (!v.exec)
		return;
	k = (struct dc_lib_key){ .ino = v.ino, .dev = v.dev };
	if (bpf_map_lookup_elem(&dc_libs, &k))
		return;
	/* Stopped only when the runtime is sure to hear of it. */
	e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);
	if (!e) {
		dc_lib_unchecked();
		return;
	}
	*e = (struct dc_lib_event){ .kind = DC_EV_LIB,
				    .pid = tgid,
				    .start = v.start,
				    .end = v.end,
				    .ino = v.ino,
				    .dev = v.dev };
	bpf_send_signal(DC_SIGSTOP);
	bpf_ringbuf_submit(e, 0);
}

/* Used only where no sys_exit program runs: this tracepoint is one more
 * function on the kernel's sys_exit tracepoint, and with two there every
 * syscall of every process calls them in a loop of indirect calls
 * instead of one direct call (about 45 ns a syscall on Linux 6.18). */
SEC("tracepoint/syscalls/sys_exit_mmap")
int dc_lib_mapped(struct dc_sys_exit_rec *rec)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (dc_traced(tgid))
		dc_lib_check(tgid, rec->ret);
	return 0;
}

#endif /* DC_LIBMAP_BPF_H */
