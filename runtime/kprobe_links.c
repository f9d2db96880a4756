// SPDX-License-Identifier: MIT
/*
 * Kernel functions where the kernel has no kprobe.multi links (before
 * 5.18, or built without CONFIG_FPROBE as Debian 12's 6.1 is): one
 * perf-event kprobe and one kretprobe a function, each with its cookie;
 * without cookies (before 5.15) the entry program finds the probe by the
 * function's address instead (dc_kprobe_ids).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kprobe_links.h"

struct named {
	const char *name;
	size_t i; /* in the caller's arrays */
};

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct named *)a)->name,
		      ((const struct named *)b)->name);
}

/*
 * The address of each of @n functions, from /proc/kallsyms: the first of
 * a name, as the kernel's own lookup of a kprobe's symbol takes it. 0
 * where there is none, or where kptr_restrict hides it.
 */
static int kallsyms_addrs(const char *const *syms, size_t n, __u64 *addrs)
{
	struct named *s = calloc(n, sizeof(*s)), key, *hit;
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = NULL;
	int err = 0;

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		s[i] = (struct named){ syms[i], i };
		addrs[i] = 0;
	}
	qsort(s, n, sizeof(*s), by_name);
	f = fopen("/proc/kallsyms", "re");
	if (!f) {
		err = -errno;
		goto cleanup;
	}
	key.name = name;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T'))
			continue;
		hit = bsearch(&key, s, n, sizeof(*s), by_name);
		if (hit && !addrs[hit->i])
			addrs[hit->i] = addr;
	}
cleanup:
	if (f)
		fclose(f);
	free(s);
	return err;
}

int dc_kprobes_place(struct dc_session *sess, const char *const *syms,
		     const __u64 *cookies, size_t n, bool *placed)
{
	int fd = bpf_map__fd(sess->o.maps.kprobe_ids);
	__u64 *addrs = calloc(n ? n : 1, sizeof(*addrs));
	int err;

	if (!addrs)
		return -ENOMEM;
	err = kallsyms_addrs(syms, n, addrs);
	for (size_t i = 0; i < n && !err; i++) {
		__u32 id = cookies[i];

		placed[i] = addrs[i] != 0;
		if (placed[i] &&
		    bpf_map_update_elem(fd, &addrs[i], &id, BPF_ANY))
			err = -errno;
	}
	free(addrs);
	return err;
}

int dc_kprobes_attach(struct dc_session *sess, struct bpf_program *entry,
		      struct bpf_program *exit, const char *const *syms,
		      const __u64 *cookies, size_t n)
{
	struct bpf_link **made = calloc(2 * n + 1, sizeof(*made));
	bool by_addr = sess->o.cfg->fallbacks & DC_FB_COOKIES;
	int err = 0;

	if (!made)
		return -ENOMEM;
	/* Returns first: a call that enters traced leaves traced. */
	for (size_t i = 0; i < 2 * n && !err; i++) {
		bool ret = i < n;
		LIBBPF_OPTS(bpf_kprobe_opts, o, .retprobe = ret,
			    .bpf_cookie = by_addr ? 0 : cookies[i % n]);

		made[i] = bpf_program__attach_kprobe_opts(ret ? exit : entry,
							  syms[i % n], &o);
		if (!made[i])
			err = -errno;
	}
	err = dc_links_add_all(&sess->links, made, 2 * n, err);
	free(made);
	return err;
}
