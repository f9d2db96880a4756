/* SPDX-License-Identifier: MIT */
/*
 * Process records (fork, exec, exit, a client joining): who the process
 * is and what rights it holds, for the runtime to keep a process out of
 * a trace whose owner has fewer.
 */
#ifndef DATACRUMBS_PROC_BPF_H
#define DATACRUMBS_PROC_BPF_H

#include "datacrumbs.bpf.h"

/* Every right of the current task a trace's owner may lack: its ids,
 * groups and capabilities (DC_PROC_CAPS in the flags; those held in a
 * user namespace of its own give nothing over the host's files). */
static __always_inline void dc_proc_creds(struct dc_proc_event *e)
{
	/* Only read through: a plain pointer serves every kernel. */
	struct task_struct *task = (void *)bpf_get_current_task();
	struct user_namespace *ns = 0;
	const struct cred *cred = 0;
	struct group_info *gi = 0;
	__u64 prm = 0, eff = 0;
	int level = 0;
	__u32 n = 0;

	bpf_probe_read_kernel(&cred, sizeof(cred),
			      __builtin_preserve_access_index(&task->cred));
	if (!cred)
		return;
	bpf_core_read(&e->euid, sizeof(e->euid), &cred->euid.val);
	bpf_core_read(&e->egid, sizeof(e->egid), &cred->egid.val);
	bpf_core_read(&e->suid, sizeof(e->suid), &cred->suid.val);
	bpf_core_read(&e->sgid, sizeof(e->sgid), &cred->sgid.val);
	bpf_core_read(&e->fsuid, sizeof(e->fsuid), &cred->fsuid.val);
	bpf_core_read(&e->fsgid, sizeof(e->fsgid), &cred->fsgid.val);
	bpf_core_read(&prm, sizeof(prm), &cred->cap_permitted);
	bpf_core_read(&eff, sizeof(eff), &cred->cap_effective);
	bpf_core_read(&ns, sizeof(ns), &cred->user_ns);
	if (ns)
		bpf_core_read(&level, sizeof(level), &ns->level);
	if ((prm || eff) && !level)
		e->flags |= DC_PROC_CAPS;
	bpf_core_read(&gi, sizeof(gi), &cred->group_info);
	if (gi)
		bpf_core_read(&n, sizeof(n), &gi->ngroups);
	e->ngroups = n;
	if (n > DC_PROC_GROUPS)
		n = DC_PROC_GROUPS;
	if (n)
		bpf_core_read(e->groups, n * sizeof(__u32), &gi->gid);
}

/* From the kernel's uapi auxvec.h: macros, so in no BTF. */
#define DC_AT_NULL   0
#define DC_AT_SECURE 23
#define DC_AUXV_MAX  32 /* pairs; AT_VECTOR_SIZE is 56 words at most */

/* DC_PROC_SECURE if the current process's image was exec'd with
 * AT_SECURE, from its mm's copy of the auxiliary vector. Read here, as
 * it runs: a process that joins and exits at once is gone before the
 * runtime could read its /proc/PID/auxv. Unknown counts as secure. */
static __always_inline __u32 dc_exec_secure(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct mm_struct *mm = 0;
	unsigned long *av;
	unsigned long kv[2];

	bpf_probe_read_kernel(&mm, sizeof(mm),
			      __builtin_preserve_access_index(&task->mm));
	if (!mm)
		return DC_PROC_SECURE;
	av = __builtin_preserve_access_index(&mm->saved_auxv[0]);
	for (int i = 0; i < DC_AUXV_MAX; i++) {
		if (bpf_probe_read_kernel(kv, sizeof(kv), av + 2 * i) ||
		    kv[0] == DC_AT_NULL)
			break;
		if (kv[0] == DC_AT_SECURE)
			return kv[1] ? DC_PROC_SECURE : 0;
	}
	return DC_PROC_SECURE;
}

/* A process record; @flags: DC_PROC_SECURE for an exec or a join whose
 * image has AT_SECURE. */
static __always_inline void dc_proc_event(__u16 kind, __u32 pid, __u32 tid,
					  __u32 ppid, const char *comm,
					  __u32 flags)
{
	struct dc_proc_event *e;
	__u64 ug = bpf_get_current_uid_gid();

	e = bpf_ringbuf_reserve(&dc_events, sizeof(*e), 0);
	if (!e)
		return; /* the runtime falls back to /proc for these */
	__builtin_memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->pid = pid;
	e->tid = tid;
	e->ppid = ppid;
	e->ts = bpf_ktime_get_ns();
	e->uid = e->euid = e->suid = e->fsuid = (__u32)ug;
	e->gid = e->egid = e->sgid = e->fsgid = ug >> 32;
	e->flags = flags;
	/* The runtime keeps a process that has more rights than a trace's
	 * owner (a setuid or setgid program) out of that trace. An exit
	 * needs none of it. */
	if (kind != DC_EV_EXIT)
		dc_proc_creds(e);
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), comm);
	/* The runtime reads /proc when a process forks or execs, while the
	 * process is still there: wake it at once. */
	bpf_ringbuf_submit(e, BPF_RB_FORCE_WAKEUP);
}

#endif /* DATACRUMBS_PROC_BPF_H */
