// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/bpf.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "kfeatures.h"
#include "log.h"

/*
 * Asks for a uprobe_multi link of @type on "/": a kernel that has the
 * link type refuses the directory with EBADF, one that does not refuses
 * the attach type with EINVAL. libbpf probes uprobe_multi the same way.
 * Returns 1, 0, or -EPERM.
 */
static int has_uprobe_link(int type)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	unsigned long offset = 0;
	union bpf_attr attr;
	int prog, link, err;

	prog =
	    bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog < 0)
		return errno == EPERM ? -EPERM : 0;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = prog;
	attr.link_create.attach_type = type;
	attr.link_create.uprobe_multi.path = (uintptr_t) "/";
	attr.link_create.uprobe_multi.offsets = (uintptr_t)&offset;
	attr.link_create.uprobe_multi.cnt = 1;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));
	err = link < 0 ? errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0 || err == EBADF;
}

bool dc_kernel_has_uprobe_session(void)
{
	return has_uprobe_link(DC_TRACE_UPROBE_SESSION) == 1;
}

/* Asked by dc_kernel_check() and the loader: probed once (a program
 * load and a link attempt). */
static int uprobe_multi(void)
{
	static int has = -ENODATA;

	if (has == -ENODATA)
		has = has_uprobe_link(BPF_TRACE_UPROBE_MULTI);
	return has;
}

bool dc_kernel_has_uprobe_multi(void)
{
	return uprobe_multi() == 1;
}

static int missing(const char *what, const char *since)
{
	dc_err("this kernel has no %s (Linux %s or newer has it)", what, since);
	return -ENOTSUP;
}

int dc_kernel_check(void)
{
	if (uprobe_multi() == -EPERM)
		return 0;
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		return missing("BTF (/sys/kernel/btf/vmlinux)",
			       "5.5 with CONFIG_DEBUG_INFO_BTF");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL) == 0)
		return missing("BPF ring buffer", "5.8");
	if (libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 0)
		return missing("BPF task storage", "5.11");
	/* Without uprobe_multi links (Linux < 6.6), one perf-event uprobe
	 * a function: uprobes.c. */
	return 0;
}
