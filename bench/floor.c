// SPDX-License-Identifier: MIT
/*
 * floor [-u LIBRARY:FUNCTION]... COMMAND...: run COMMAND with programs
 * that do nothing attached where DataCrumbs attaches its own: the
 * syscall tracepoints (tp_btf sys_enter and sys_exit), or, with -u, the
 * entry and return of each FUNCTION of LIBRARY (a path), as the runtime
 * attaches uprobes on this kernel. What they cost is the floor under
 * every figure of that layer: the tracepoint or the trap itself, and,
 * under bpf_stats, the measurement.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "elfsym.h"
#include "kfeatures.h"

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* "return 0" as a BTF-typed raw tracepoint program on @tp. */
static int attach_empty(struct btf *vmlinux, const char *tp)
{
	char name[64];
	int id, fd;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF);
	if (id < 0)
		return id;
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .attach_btf_id = id,
		    .expected_attach_type = BPF_TRACE_RAW_TP);
	snprintf(name, sizeof(name), "floor_%s", tp);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, name, "GPL", ret0, 2, &opts);
	if (fd < 0)
		return fd;
	return bpf_raw_tracepoint_open(NULL, fd) < 0 ? -errno : 0;
}

/* An empty uprobe program of attach type @type on @path at @off. The
 * link is made with the bpf() call itself: libbpf 1.4 passes no path for
 * an attach type newer than it (session, 6.13). */
static int uprobe_link(const char *path, unsigned long off, int type,
		       __u32 flags)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts, .expected_attach_type = type);
	union bpf_attr attr;
	int fd;

	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "floor_uprobe", "GPL", ret0, 2,
			   &opts);
	if (fd < 0)
		return fd;
	memset(&attr, 0, sizeof(attr));
	attr.link_create.prog_fd = fd;
	attr.link_create.attach_type = type;
	attr.link_create.uprobe_multi.path = (uintptr_t)path;
	attr.link_create.uprobe_multi.offsets = (uintptr_t)&off;
	attr.link_create.uprobe_multi.cnt = 1;
	attr.link_create.uprobe_multi.flags = flags;
	return syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr)) < 0
		   ? -errno
		   : 0;
}

/* Kernels without uprobe_multi links (< 6.6): an empty program on a
 * perf-event uprobe at @off of @path, a return probe if @ret, as libbpf
 * attaches one for the runtime there. */
static int uprobe_perf(const char *path, unsigned long off, bool ret)
{
	LIBBPF_OPTS(bpf_prog_load_opts, opts);
	struct perf_event_attr attr = { .size = sizeof(attr) };
	int type = -1, fd, pfd;
	FILE *f;

	f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
	if (!f)
		return -errno;
	if (fscanf(f, "%d", &type) != 1)
		type = -1;
	fclose(f);
	if (type < 0)
		return -ENOENT;
	fd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "floor_uprobe", "GPL", ret0, 2,
			   &opts);
	if (fd < 0)
		return fd;
	attr.type = type;
	/* config bit 0 is "retprobe" in the uprobe PMU's format. */
	attr.config = ret;
	attr.config1 = (uintptr_t)path;
	attr.config2 = off;
	pfd = syscall(__NR_perf_event_open, &attr, -1, 0, -1,
		      PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0 || ioctl(pfd, PERF_EVENT_IOC_SET_BPF, fd) ||
	    ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		return -errno;
	return 0;
}

/* @spec, "LIBRARY:FUNCTION": one session link where the kernel has them
 * (returning 0, the program runs at the return too), else an entry and a
 * return link, else perf-event uprobes, as the runtime chooses. */
static int attach_uprobe(const char *spec)
{
	const char *colon = strrchr(spec, ':');
	const struct dc_elf_sym *s;
	struct dc_elf_syms syms;
	char *lib;
	int err;

	if (!colon || colon == spec || !colon[1])
		return -EINVAL;
	lib = strndup(spec, colon - spec);
	if (!lib)
		return -ENOMEM;
	err = dc_elf_syms_load(lib, &syms);
	if (err)
		goto cleanup;
	s = dc_elf_syms_find(&syms, colon + 1);
	if (!s)
		err = -ENOENT;
	else if (dc_kernel_has_uprobe_session())
		err = uprobe_link(lib, s->offset, DC_TRACE_UPROBE_SESSION, 0);
	else if (dc_kernel_has_uprobe_multi())
		err = uprobe_link(lib, s->offset, BPF_TRACE_UPROBE_MULTI, 0)
			  ?: uprobe_link(lib, s->offset, BPF_TRACE_UPROBE_MULTI,
					 BPF_F_UPROBE_MULTI_RETURN);
	else
		err = uprobe_perf(lib, s->offset, false)
			  ?: uprobe_perf(lib, s->offset, true);
	dc_elf_syms_free(&syms);
cleanup:
	free(lib);
	return err;
}

int main(int argc, char **argv)
{
	int err = 0, status, arg = 1;
	struct btf *vmlinux;
	pid_t pid;

	while (arg + 1 < argc && !strcmp(argv[arg], "-u") && !err) {
		err = attach_uprobe(argv[arg + 1]);
		if (err)
			fprintf(stderr, "floor: %s: %s\n", argv[arg + 1],
				strerror(-err));
		arg += 2;
	}
	if (err)
		return 1;
	if (arg >= argc) {
		fprintf(stderr, "usage: floor [-u LIBRARY:FUNCTION]... COMMAND "
				"[ARGS...]\n");
		return 2;
	}
	if (arg == 1) {
		vmlinux = btf__load_vmlinux_btf();
		if (!vmlinux) {
			fprintf(stderr, "floor: no kernel BTF\n");
			return 1;
		}
		err = attach_empty(vmlinux, "sys_enter")
			  ?: attach_empty(vmlinux, "sys_exit");
		btf__free(vmlinux);
		if (err) {
			fprintf(stderr, "floor: %s\n", strerror(-err));
			return 1;
		}
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[arg], argv + arg);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
