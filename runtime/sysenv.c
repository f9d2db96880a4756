// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "log.h"
#include "syscalls.h"
#include "sysenv.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static int has_cap(const struct __user_cap_data_struct *d, int cap)
{
	return !!(d[cap / 32].effective & (1u << (cap % 32)));
}

static int check_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};
	const char *missing[3];
	int n = 0;

	if (syscall(SYS_capget, &h, d))
		return 0; /* cannot tell: let bpf() say */
	if (has_cap(d, CAP_SYS_ADMIN))
		return 0;
	if (!has_cap(d, CAP_BPF))
		missing[n++] = "CAP_BPF";
	if (!has_cap(d, CAP_PERFMON))
		missing[n++] = "CAP_PERFMON";
	if (!has_cap(d, CAP_DAC_READ_SEARCH))
		missing[n++] = "CAP_DAC_READ_SEARCH";
	if (!n)
		return 0;
	dc_err("missing capabilit%s %s%s%s%s%s: run as root, or see "
	       "docs/cli.md for running with file capabilities",
	       n > 1 ? "ies" : "y", missing[0], n > 1 ? ", " : "",
	       n > 1 ? missing[1] : "", n > 2 ? ", " : "",
	       n > 2 ? missing[2] : "");
	return -EPERM;
}

static int check_tracefs(void)
{
	if (dc_tracefs_events())
		return 0;
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
		dc_err(
		    "tracefs is not mounted and mounting it failed (%s): run "
		    "'mount -t tracefs tracefs /sys/kernel/tracing' as root",
		    strerror(errno));
		return -errno;
	}
	dc_info("mounted tracefs on /sys/kernel/tracing (tracepoints need it)");
	return 0;
}

/*
 * Kernels before memory-cgroup accounting of BPF (Linux 5.11, probed by
 * the helper that came with it, as libbpf does) charge every map to
 * RLIMIT_MEMLOCK. libbpf lifts that limit, which only works up to the
 * hard limit without CAP_SYS_RESOURCE; the maps would then fail with a
 * bare EPERM.
 */
static int check_memlock(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = {};
	struct rlimit rl;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_max == RLIM_INFINITY)
		return 0;
	if (syscall(SYS_capget, &h, d) || has_cap(d, CAP_SYS_RESOURCE))
		return 0;
	if (libbpf_probe_bpf_helper(BPF_PROG_TYPE_SOCKET_FILTER,
				    BPF_FUNC_ktime_get_coarse_ns, NULL) > 0)
		return 0;
	dc_err("missing capability CAP_SYS_RESOURCE: this kernel charges BPF "
	       "maps to the locked-memory limit (Linux 5.11 and later do "
	       "not), whose hard limit is %llu KiB; grant it too, or raise "
	       "the limit to unlimited (ulimit -l, limits.conf)",
	       (unsigned long long)rl.rlim_max / 1024);
	return -EPERM;
}

int dc_sysenv_check(void)
{
	int err = check_caps();

	if (!err)
		err = check_memlock();
	if (err)
		return err;
	if (faccessat(AT_FDCWD, "/sys/kernel/btf/vmlinux", R_OK, AT_EACCESS)) {
		dc_err("no kernel BTF at /sys/kernel/btf/vmlinux: a kernel "
		       "built with CONFIG_DEBUG_INFO_BTF=y is needed");
		return -ENOENT;
	}
	return check_tracefs();
}

/* The limit the runtime was started with, for its commands. */
static struct rlimit nofile_orig;
static bool nofile_raised;

/* The kernel's ceiling for the open-files limit (fs.nr_open), or 0. */
static rlim_t nr_open(void)
{
	unsigned long long n = 0;
	FILE *f = fopen("/proc/sys/fs/nr_open", "re");

	if (!f)
		return 0;
	if (fscanf(f, "%llu", &n) != 1)
		n = 0;
	fclose(f);
	return n;
}

void dc_raise_nofile(void)
{
	struct rlimit rl;
	rlim_t top = nr_open();

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return;
	if (!nofile_raised)
		nofile_orig = rl;
	/* Root may lift the hard limit too: 4,096 is a common one, and
	 * perf-event uprobes take two descriptors a function. */
	if (top > rl.rlim_max &&
	    !setrlimit(RLIMIT_NOFILE, &(struct rlimit){ top, top })) {
		nofile_raised = true;
		return;
	}
	if (rl.rlim_cur == rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		dc_warn("cannot raise the open-files limit to %llu: %s",
			(unsigned long long)rl.rlim_max, strerror(errno));
	else
		nofile_raised = true;
}

void dc_restore_nofile(void)
{
	if (nofile_raised)
		setrlimit(RLIMIT_NOFILE, &nofile_orig);
}
