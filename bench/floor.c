// SPDX-License-Identifier: MIT
/*
 * floor COMMAND...: run COMMAND with programs that do nothing attached
 * to the syscall tracepoints DataCrumbs uses (tp_btf sys_enter and
 * sys_exit). What they cost is the floor under every syscall figure:
 * the tracepoint itself, and, under bpf_stats, the measurement.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* "return 0" as a BTF-typed raw tracepoint program on @tp. */
static int attach_empty(struct btf *vmlinux, const char *tp)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
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

int main(int argc, char **argv)
{
	struct btf *vmlinux = btf__load_vmlinux_btf();
	int err, status;
	pid_t pid;

	if (argc < 2) {
		fprintf(stderr, "usage: floor COMMAND [ARGS...]\n");
		return 2;
	}
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
	pid = fork();
	if (pid == 0) {
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
