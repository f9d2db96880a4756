// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "bpflinks.h"

/*
 * Tries a link of attach type @type, its other fields in @attr, for an
 * empty kprobe program loaded for that type: 0 when the kernel made it,
 * else -errno; -EPERM or -ENOPROTOOPT when the program could not even
 * be loaded (no privilege; an attach type the kernel does not know).
 */
static int try_link(int type, union bpf_attr *attr)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	int prog, link, err;

	prog =
	    bpf_prog_load(BPF_PROG_TYPE_KPROBE, NULL, "GPL", insns, 2, &opts);
	if (prog < 0)
		return errno == EPERM ? -EPERM : -ENOPROTOOPT;
	attr->link_create.prog_fd = prog;
	attr->link_create.attach_type = type;
	link = syscall(__NR_bpf, BPF_LINK_CREATE, attr, sizeof(*attr));
	err = link < 0 ? -errno : 0;
	if (link >= 0)
		close(link);
	close(prog);
	return err;
}

/* A link on "/": a kernel that has the link type refuses the directory
 * with EBADF, one that does not refuses the attach type with EINVAL.
 * libbpf probes uprobe_multi the same way. */
int dc_uprobe_link_supported(int type)
{
	unsigned long offset = 0;
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.uprobe_multi.path = (uintptr_t) "/";
	attr.link_create.uprobe_multi.offsets = (uintptr_t)&offset;
	attr.link_create.uprobe_multi.cnt = 1;
	err = try_link(type, &attr);
	if (err == -EPERM)
		return -EPERM;
	return !err || err == -EBADF;
}

/* An address array the kernel cannot read: one that has the link type
 * faults copying it; an older one refuses the attach type (EINVAL)
 * first; one built without fprobes says EOPNOTSUPP. */
int dc_kprobe_multi_supported(void)
{
	union bpf_attr attr;
	int err;

	memset(&attr, 0, sizeof(attr));
	attr.link_create.kprobe_multi.addrs = 1;
	attr.link_create.kprobe_multi.cnt = 1;
	err = try_link(BPF_TRACE_KPROBE_MULTI, &attr);
	if (err == -EOPNOTSUPP)
		return -EOPNOTSUPP;
	return !err || err == -EFAULT;
}

/* The perf PMU type of uprobes, from sysfs, read once: > 0, or -errno. */
static int uprobe_pmu(void)
{
	static int type;
	FILE *f;

	if (type)
		return type;
	f = fopen("/sys/bus/event_source/devices/uprobe/type", "re");
	if (!f)
		return type = -errno;
	if (fscanf(f, "%d", &type) != 1 || type <= 0)
		type = -EINVAL;
	fclose(f);
	return type;
}

int dc_uprobe_perf_attach(const char *path, unsigned long offset, int prog)
{
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = uprobe_pmu(), fd;

	if (type < 0)
		return type;
	attr.type = type;
	attr.config1 = (uintptr_t)path;
	attr.config2 = offset;
	/* Every process that maps @path: any pid, one CPU. */
	fd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		     PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}
