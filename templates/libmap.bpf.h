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
#include "inode.bpf.h"

#define DC_SIGSTOP   19
#define DC_MAX_ERRNO 4095

/* Files the runtime has checked, by inode; a file evicted is checked
 * again, which costs one stop more. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, struct dc_file_id);
	__type(value, __u8);
} dc_libs SEC(".maps");

/* mmap's prot and flags (uapi asm-generic/mman*.h). */
#define DC_PROT_EXEC 0x4
#define DC_MAP_ANON  0x20
#define DC_PAGE_SIZE 4096UL

/* The file mmap was handed, as the kernel took it: @fd in the current
 * task's table, read (not walked) as in inode.bpf.h. NULL if gone. */
static __always_inline struct file *dc_fd_file(unsigned int fd)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct files_struct *files = NULL;
	struct fdtable *fdt = NULL;
	struct file **fds = NULL, *file = NULL;
	unsigned int max = 0;

	bpf_probe_read_kernel(&files, sizeof(files), &task->files);
	if (files)
		bpf_probe_read_kernel(&fdt, sizeof(fdt), &files->fdt);
	if (!fdt)
		return NULL;
	bpf_probe_read_kernel(&max, sizeof(max), &fdt->max_fds);
	bpf_probe_read_kernel(&fds, sizeof(fds), &fdt->fd);
	if (fd >= max || !fds)
		return NULL;
	bpf_probe_read_kernel(&file, sizeof(file), &fds[fd]);
	return file;
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

/* Whether @file is a regular file; its inode as dc_libs keys it in @k. */
static __always_inline bool dc_file_key(struct file *file, struct dc_file_id *k)
{
	return (dc_file_id(file, k) & DC_S_IFMT) == DC_S_IFREG;
}

/* Stop the current process @tgid until the runtime has seen to file @k,
 * mapped at [@start, @end) (0, 0: its executable). Stopped only when the
 * runtime is sure to hear of it. */
static __always_inline void dc_lib_stop(__u32 tgid, __u64 start, __u64 end,
					const struct dc_file_id *k)
{
	struct dc_lib_event *e;

	e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);
	if (!e) {
		dc_lib_unchecked();
		return;
	}
	*e = (struct dc_lib_event){ .kind = DC_EV_LIB,
				    .pid = tgid,
				    .start = start,
				    .end = end,
				    .ino = k->ino,
				    .dev = k->dev };
	bpf_send_signal(DC_SIGSTOP);
	bpf_ringbuf_submit(e, 0);
}

/* mmap's arguments that say what it maps. */
struct dc_mmap_args {
	__u64 len, prot, flags, fd;
};

static __always_inline bool dc_maps_code(const struct dc_mmap_args *m)
{
	return (m->prot & DC_PROT_EXEC) && !(m->flags & DC_MAP_ANON);
}

/* Traced process @tgid's mmap of @m returned @addr: a regular file
 * mapped executable there, not checked yet, stops the process until the
 * runtime has seen to it. The mapping is read off the call, not looked
 * up (bpf_find_vma, 5.17, only tries the memory map's lock): the same on
 * every kernel. */
static __always_inline void dc_lib_check(__u32 tgid, unsigned long addr,
					 const struct dc_mmap_args *m)
{
	struct dc_file_id k = {};
	struct file *file;
	unsigned long len;

	if (addr >= -(unsigned long)DC_MAX_ERRNO || !dc_maps_code(m))
		return;
	file = dc_fd_file(m->fd);
	if (!file) {
		/* Closed by another thread meanwhile. */
		dc_lib_unchecked();
		return;
	}
	if (!dc_file_key(file, &k) || bpf_map_lookup_elem(&dc_libs, &k))
		return;
	len = (m->len + DC_PAGE_SIZE - 1) & ~(DC_PAGE_SIZE - 1);
	dc_lib_stop(tgid, addr, addr + len, &k);
}

/* Kernels without BPF cookies attach USDT probes in a PIE one process
 * at a time (libbpf finds a probe by its address there): the names of
 * the executables the runtime attaches so. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 64);
	__type(key, struct dc_usdt_exe);
	__type(value, __u8);
} dc_usdt_procs SEC(".maps");

/* Traced process @tgid exec'd @bprm: if its executable is named as such
 * a file, it is stopped before its first instruction until the runtime
 * has attached its probes (if it is that file). */
static __always_inline void dc_exec_check(__u32 tgid, struct linux_binprm *bprm)
{
	const unsigned char *name = NULL;
	struct dc_usdt_exe n = {};
	struct dc_file_id k = {};
	struct dentry *d = NULL;
	struct file *file = NULL;

	if (!(dc_cfg.fallbacks & DC_FB_COOKIES))
		return;
	bpf_probe_read_kernel(&file, sizeof(file), &bprm->file);
	if (file)
		bpf_probe_read_kernel(&d, sizeof(d), &file->f_path.dentry);
	if (d)
		bpf_probe_read_kernel(&name, sizeof(name), &d->d_name.name);
	if (!name ||
	    bpf_probe_read_kernel_str(n.name, sizeof(n.name), name) <= 0 ||
	    !bpf_map_lookup_elem(&dc_usdt_procs, &n) || !dc_file_key(file, &k))
		return;
	dc_lib_stop(tgid, 0, 0, &k);
}

/* The sys_exit program, when it runs, reads the arguments from the
 * syscall's saved registers. */
static __always_inline void dc_lib_check_regs(__u32 tgid, unsigned long addr,
					      struct pt_regs *regs)
{
	struct dc_mmap_args m = { regs->si, regs->dx, regs->r10, regs->r8 };

	dc_lib_check(tgid, addr, &m);
}

/*
 * Else the classic syscalls/sys_{enter,exit}_mmap tracepoints, whose
 * records hold the arguments and the result: the kernel runs a program
 * there only for mmap, where a raw sys_exit program would run, and cost
 * about 100 ns, after every syscall of every process. Entry keeps a
 * traced thread's mapping of code until its exit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct dc_mmap_args);
} dc_mmaps SEC(".maps");

SEC("tracepoint/syscalls/sys_enter_mmap")
int dc_lib_mapping(struct dc_sys_enter_rec *rec)
{
	struct dc_mmap_args m = { rec->args[1], rec->args[2], rec->args[3],
				  rec->args[4] };
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = id;

	if (dc_maps_code(&m) && dc_traced(id >> 32))
		bpf_map_update_elem(&dc_mmaps, &tid, &m, BPF_ANY);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mmap")
int dc_lib_mapped(struct dc_sys_exit_rec *rec)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct dc_mmap_args *m;
	__u32 tid = id;

	m = bpf_map_lookup_elem(&dc_mmaps, &tid);
	if (!m)
		return 0;
	dc_lib_check(id >> 32, rec->ret, m);
	bpf_map_delete_elem(&dc_mmaps, &tid);
	return 0;
}

#endif /* DC_LIBMAP_BPF_H */
