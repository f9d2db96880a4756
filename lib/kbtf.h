/* SPDX-License-Identifier: MIT */
#ifndef DC_KBTF_H
#define DC_KBTF_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/btf.h>

/*
 * The running kernel's BTF, read in place and indexed by type id, for
 * the few names the generator and the runtime look up (tracepoints,
 * kernel functions, io_uring's arguments). libbpf's btf__parse() reads,
 * copies and checks all 5 MB of it first: 50 ms on a small VM, where the
 * runtime's loading of a whole object takes 170.
 */
struct dc_kbtf {
	void *data; /* the file, mapped or read */
	size_t size;
	bool mapped;
	const char *types; /* the type section */
	const char *strs;  /* the string section */
	__u32 strs_len;
	__u32 *off; /* offset of each type in types; [0] is void's */
	__u32 n;    /* types, void included */
};

#define DC_KBTF_PATH "/sys/kernel/btf/vmlinux"

/* Open the BTF at @path (DC_KBTF_PATH: the kernel's): mapped where the
 * kernel allows it (Linux 6.16), else read. 0, or a negative errno:
 * -EPROTO for what is not BTF, or a kind this reader does not know. */
int dc_kbtf_open(struct dc_kbtf *k, const char *path);
void dc_kbtf_close(struct dc_kbtf *k);

/* Type @id, or NULL past the last; void (0) has none. */
const struct btf_type *dc_kbtf_type(const struct dc_kbtf *k, __u32 id);
/* The string at @off, or NULL past the section. */
const char *dc_kbtf_name(const struct dc_kbtf *k, __u32 off);
/* The first type of kind @kind named @name: its id, or -ENOENT. */
int dc_kbtf_find(const struct dc_kbtf *k, const char *name, int kind);
/* @id through typedefs and qualifiers: the id of what it names (0 for
 * void), or -EINVAL for a chain too long to be a type. */
int dc_kbtf_resolve(const struct dc_kbtf *k, __u32 id);

#endif
