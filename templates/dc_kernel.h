/* SPDX-License-Identifier: MIT */
/*
 * The few kernel types the generated programs touch, marked for CO-RE so
 * libbpf relocates every field access against the running kernel's BTF
 * (/sys/kernel/btf/vmlinux). Declaring only these instead of including a
 * full vmlinux.h keeps each clang run well under a second.
 */
#ifndef DC_KERNEL_H
#define DC_KERNEL_H

#if !defined(__TARGET_ARCH_x86)
#error "only x86_64 is supported so far"
#endif

struct pt_regs {
	unsigned long r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	unsigned long ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} __attribute__((preserve_access_index));

struct signal_struct {
	struct {
		int counter;
	} live; /* threads of the group still running */
} __attribute__((preserve_access_index));

/* kgid_t: a struct of one value. */
struct group_info {
	int ngroups;
	struct {
		unsigned int val;
	} gid[];
} __attribute__((preserve_access_index));

/* 0: the initial user namespace. */
struct user_namespace {
	int level;
} __attribute__((preserve_access_index));

/* kuid_t and kgid_t: a struct of one value; kernel_cap_t: 64 bits (a u64
 * since 6.3, two u32 before), read whole. */
struct cred {
	struct {
		unsigned int val;
	} uid, gid, suid, sgid, euid, egid, fsuid, fsgid;
	struct {
		unsigned long long val;
	} cap_permitted, cap_effective;
	struct group_info *group_info;
	struct user_namespace *user_ns;
} __attribute__((preserve_access_index));

/* Set by the exec when the new image must not trust its caller
 * (AT_SECURE). */
struct linux_binprm {
	struct file *file;
	unsigned int secureexec : 1;
	const char *fdpath; /* execveat's "/dev/fd/N/..." (Linux 5.9) */
	unsigned long exec; /* the new stack's copy of the file name */
} __attribute__((preserve_access_index));

/* The auxiliary vector its image was exec'd with (AT_SECURE among it):
 * pairs of words; its length differs by kernel, a reader stops at
 * AT_NULL. */
struct mm_struct {
	unsigned long saved_auxv[2];
} __attribute__((preserve_access_index));

/* A task's open files: the table mmap took its file from. */
struct file;

struct fdtable {
	unsigned int max_fds;
	struct file **fd;
} __attribute__((preserve_access_index));

struct files_struct {
	struct fdtable *fdt;
} __attribute__((preserve_access_index));

struct task_struct {
	int pid;
	int tgid;
	char comm[16];
	struct signal_struct *signal;
	const struct cred *cred;
	struct mm_struct *mm;
	struct files_struct *files;
} __attribute__((preserve_access_index));

/* A task iterator's context (profile mode's dc_agg_iter). */
struct seq_file;

struct bpf_iter_meta {
	struct seq_file *seq;
} __attribute__((preserve_access_index));

struct bpf_iter__task {
	struct bpf_iter_meta *meta;
	struct task_struct *task;
} __attribute__((preserve_access_index));

/* A cgroup's id is its kernfs node's. */
struct kernfs_node {
	unsigned long long id;
} __attribute__((preserve_access_index));

struct cgroup {
	struct kernfs_node *kn;
} __attribute__((preserve_access_index));

/* What a wrapper's syscall site is resolved through (bpf_find_vma), and
 * the file a library is mapped from. */
struct super_block {
	unsigned int s_dev;
} __attribute__((preserve_access_index));

struct inode {
	unsigned short i_mode;
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));

/* A name in the dentry cache: its bytes, NUL-terminated. */
struct qstr {
	const unsigned char *name;
} __attribute__((preserve_access_index));

struct dentry {
	struct qstr d_name;
} __attribute__((preserve_access_index));

struct path {
	struct dentry *dentry;
} __attribute__((preserve_access_index));

struct file {
	struct path f_path;
	struct inode *f_inode;
} __attribute__((preserve_access_index));

struct vm_area_struct {
	unsigned long vm_start;
	unsigned long vm_end;
	unsigned long vm_pgoff;
	unsigned long vm_flags; /* in an anonymous union since 6.3 */
	struct file *vm_file;
} __attribute__((preserve_access_index));

/* The syscall tracepoints' records (syscalls/sys_enter_*, sys_exit_*). */
struct dc_sys_enter_rec {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__u64 args[6];
};

struct dc_sys_exit_rec {
	__u64 common;
	__s32 nr;
	__u32 pad;
	__s64 ret;
};

/* Syscall numbers the programs act on themselves (x86_64): mmap, those
 * that change a process's working directory, the execs, and those that
 * free a descriptor. */
#define DC_NR_CLOSE	  3
#define DC_NR_MMAP	  9
#define DC_NR_DUP2	  33
#define DC_NR_DUP3	  292
#define DC_NR_CLOSE_RANGE 436
#define DC_NR_EXECVE	  59
#define DC_NR_CHDIR	  80
#define DC_NR_FCHDIR	  81
#define DC_NR_EXECVEAT	  322

/* fcntl commands that return a new fd (uapi asm-generic/fcntl.h; the
 * second is F_LINUX_SPECIFIC_BASE + 6). */
#define DC_F_DUPFD	   0
#define DC_F_DUPFD_CLOEXEC 1030

#endif /* DC_KERNEL_H */
