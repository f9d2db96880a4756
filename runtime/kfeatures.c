// SPDX-License-Identifier: MIT
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include <datacrumbs/abi.h>

#include "bpflinks.h"
#include "kfeatures.h"
#include "log.h"

bool dc_kernel_has_uprobe_session(void)
{
	return dc_uprobe_link_supported(DC_TRACE_UPROBE_SESSION) == 1;
}

/* Asked by dc_kernel_check() and the loader: probed once (a program
 * load and a link attempt). */
static int uprobe_multi(void)
{
	static int has = -ENODATA;

	if (has == -ENODATA)
		has = dc_uprobe_link_supported(BPF_TRACE_UPROBE_MULTI);
	return has;
}

bool dc_kernel_has_uprobe_multi(void)
{
	return uprobe_multi() == 1;
}

/* A feature and its fallback: DC_FB_* of abi.h. */
static const struct fallback {
	__u32 bit;
	const char *name; /* in DATACRUMBS_FALLBACKS and the start record */
	const char *why;  /* what is missing, and what is done instead */
} fallbacks[] = {
	{ DC_FB_THREADS, "threads",
	  "no task storage (Linux 5.11): per-thread state in a hash map by "
	  "thread id" },
	{ DC_FB_SYSCALL_PROG, "syscall_prog",
	  "no syscall programs (5.14): traced processes marked by map "
	  "updates" },
	{ DC_FB_COOKIES, "cookies",
	  "no BPF cookies (5.15): a uprobe's probe found by its address" },
	{ DC_FB_FIND_VMA, "find_vma",
	  "no bpf_find_vma (5.17): libraries mapped later seen at their "
	  "mmap, wrappers by their code" },
	{ DC_FB_KPROBE_MULTI, "kprobe_multi",
	  "no kprobe.multi links (5.18 with CONFIG_FPROBE): a perf-event "
	  "kprobe per kernel function" },
	{ DC_FB_PREALLOC, "prealloc",
	  "no BPF memory allocator (6.1): hash maps preallocated" },
};

/* Does the kernel lack @bit's feature? Asked of the kernel: a helper
 * or program type it does not know is refused with EINVAL. */
static bool lacks(__u32 bit)
{
	switch (bit) {
	case DC_FB_THREADS:
		return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE,
						 NULL) == 0;
	case DC_FB_SYSCALL_PROG:
		return libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_SYSCALL,
						  NULL) == 0;
	case DC_FB_COOKIES:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					       BPF_FUNC_get_attach_cookie,
					       NULL) == 0;
	case DC_FB_FIND_VMA:
		return libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE,
					       BPF_FUNC_find_vma, NULL) == 0;
	case DC_FB_KPROBE_MULTI: /* 5.18, and only with CONFIG_FPROBE */
		return dc_kprobe_multi_supported() <= 0;
	case DC_FB_PREALLOC:
		/* Before the BPF memory allocator (6.1) a tracing program
		 * using a hash map allocated at run time makes the kernel
		 * WARN (tainting it) or, with PREEMPT_RT, refuse it. Asking
		 * would be that warning: user ring buffers came in the same
		 * release. */
		return libbpf_probe_bpf_map_type(BPF_MAP_TYPE_USER_RINGBUF,
						 NULL) == 0;
	}
	return false;
}

/* DATACRUMBS_FALLBACKS=threads,... (or "all") asks for fallbacks this
 * kernel does not need: how the tests try them on a new kernel. */
static bool forced(const char *name)
{
	const char *e = getenv("DATACRUMBS_FALLBACKS"), *p;
	size_t n = strlen(name);

	if (!e)
		return false;
	if (!strcmp(e, "all"))
		return true;
	for (p = e; (p = strstr(p, name)); p += n)
		if ((p == e || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

/* A name in DATACRUMBS_FALLBACKS that names no fallback is a typo the
 * user would not otherwise notice. */
static void check_forced(void)
{
	const char *e = getenv("DATACRUMBS_FALLBACKS"), *p, *end;

	if (!e || !strcmp(e, "all"))
		return;
	for (p = e; *p; p = *end ? end + 1 : end) {
		size_t i, n;

		end = strchrnul(p, ',');
		n = end - p;
		for (i = 0; i < sizeof(fallbacks) / sizeof(*fallbacks); i++)
			if (strlen(fallbacks[i].name) == n &&
			    !strncmp(p, fallbacks[i].name, n))
				break;
		if (i == sizeof(fallbacks) / sizeof(*fallbacks))
			dc_warn(
			    "DATACRUMBS_FALLBACKS: no fallback named '%.*s' "
			    "(threads, syscall_prog, cookies, find_vma, "
			    "kprobe_multi, prealloc, all)",
			    (int)n, p);
	}
}

__u32 dc_kernel_fallbacks(void)
{
	static __u32 fb, known;

	if (known)
		return fb;
	check_forced();
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(*fallbacks); i++)
		if (forced(fallbacks[i].name) || lacks(fallbacks[i].bit))
			fb |= fallbacks[i].bit;
	known = 1;
	return fb;
}

void dc_kernel_fallback_names(__u32 fb, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = 0;
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(*fallbacks); i++)
		if (fb & fallbacks[i].bit && len < size)
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", fallbacks[i].name);
}

const char *dc_kernel_fallback_why(__u32 bit)
{
	for (size_t i = 0; i < sizeof(fallbacks) / sizeof(*fallbacks); i++)
		if (fallbacks[i].bit == bit)
			return fallbacks[i].why;
	return NULL;
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
	/* Without uprobe_multi links (Linux < 6.6), one perf-event uprobe
	 * a function: uprobes.c; what else is missing has its fallback in
	 * dc_kernel_fallbacks(). */
	return 0;
}
