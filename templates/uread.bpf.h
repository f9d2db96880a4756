/* SPDX-License-Identifier: MIT */
/*
 * Reads of the traced process's memory: out parameters and strings at a
 * call's return, what its feeders passed it, the descriptor behind a
 * stream.
 */
#ifndef DATACRUMBS_UREAD_BPF_H
#define DATACRUMBS_UREAD_BPF_H

#include "datacrumbs.bpf.h"
#include "thread.bpf.h"

static __always_inline __u64 dc_read_u64(__u64 addr)
{
	__u64 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (const void *)addr);
	return v;
}

/* The descriptor behind a glibc FILE *, or -1. */
static __always_inline __s32 dc_stream_fd(__u64 stream)
{
	__s32 fd = -1;

	if (stream &&
	    bpf_probe_read_user(&fd, sizeof(fd),
				(const void *)(stream + dc_cfg.fileno_off)))
		fd = -1;
	return fd;
}

/* The length of the user string at @p, up to 4 KiB: the bytes fputs
 * writes, fgets reads. Read in pieces a stack buffer holds. A global
 * function: the verifier walks its 64 turns once, not at each slot of
 * each program that measures a string (a fifth of dc_uprobe_session's
 * verification). */
__noinline __u64 dc_user_strlen(__u64 p)
{
	char piece[64];
	__u64 len = 0;

	for (int k = 0; k < 64 && p; k++) {
		long n = bpf_probe_read_user_str(piece, sizeof(piece),
						 (const void *)(p + len));

		if (n <= 0)
			break;
		len += n - 1;
		if (n < (long)sizeof(piece))
			break;
	}
	return len;
}

/* @v read through its pointers: the word at offset @off[0] of what it
 * points to, and so on, @hops times (once if 0); with @addr, the address
 * of the last word instead of the word (0 when a pointer on the way
 * cannot be read). */
static __always_inline __u64 dc_follow(const volatile __u16 *off, __u8 hops,
				       __u64 v, bool addr)
{
	for (int k = 0; k < DC_HOPS; k++) {
		if (k && k >= hops)
			break;
		if (addr && (k + 1 >= hops || k == DC_HOPS - 1))
			return v ? v + off[k] : 0;
		v = dc_read_u64(v + off[k]);
	}
	return v;
}

/* Slot @i's value @v read through its pointers at the object's offsets. */
static __always_inline __u64 dc_read_hops(const volatile struct dc_capture *c,
					  int i, __u64 v)
{
	return dc_follow(c->deref_off[i & (DC_CAPTURE - 1)],
			 c->deref_hops[i & (DC_CAPTURE - 1)], v, false);
}

/* The words whose addresses the call's feeders passed it, read as it
 * returns: it has settled them. Only calls of a library (uprobes) are
 * fed. */
static __always_inline int dc_read_passed_on(__u32 probe, struct dc_frame *f)
{
	const volatile struct dc_capture *c;

	if (!f)
		return 0;
	/* Masked in the code, as dc_cap() does. */
	asm volatile("" : "+r"(probe));
	c = &dc_caps[probe & (DC_CAPS_SIZE - 1)];
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (!(c->pass_mask & (1 << i)) || !c->deref_hops[i])
			continue;
		f->val[i] = dc_read_hops(c, i, f->val[i]);
		if (c->int_mask & (1 << i))
			f->val[i] = (__u64)(__s64)(int)f->val[i];
	}
	return 0;
}

/* A global function, which the verifier walks once, not once for every
 * way a program reaches it; one taking a pointer needs Linux 5.12. */
__noinline int dc_read_passed(__u32 probe, struct dc_frame *f)
{
	return dc_read_passed_on(probe, f);
}

/* Out parameters are read at return: the call has filled them in. */
static __always_inline void dc_fix_exit(const volatile struct dc_capture *c,
					struct dc_frame *f, long ret)
{
	for (int i = 0; i < DC_CAPTURE; i++) {
		if (c->deref_exit_mask & (1 << i))
			f->val[i] = dc_read_u64(f->val[i]);
		if ((c->str_exit_mask & (1 << i)) && ret)
			f->val[i] = dc_user_strlen(f->val[i]);
	}
	if (c->ret_stream)
		f->sfd = dc_stream_fd(ret);
}

/* The first string of a call's text (a function's name) takes at most
 * this much of the buffer, the second (its source file) the rest. */
#define DC_TEXT_FIRST 256

/* The strings of the slots of @mask, at most two, each NUL-terminated
 * (empty when unreadable), one after the other in @buf: their length. */
static __always_inline __u32 dc_read_texts(char *buf, __u8 mask,
					   const struct dc_frame *f)
{
	__u64 p[2] = {};
	__u32 len, got = 0;
	long n;

	for (int i = 0; i < DC_CAPTURE; i++) {
		if (!(mask & (1 << i)))
			continue;
		if (got == 0)
			p[0] = f->val[i];
		else if (got == 1)
			p[1] = f->val[i];
		got++;
	}
	n = bpf_probe_read_user_str(buf, DC_TEXT_FIRST, (const void *)p[0]);
	if (n <= 0) {
		buf[0] = 0;
		n = 1;
	}
	if (got < 2)
		return n;
	/* The mask tells the verifier the second read stays in @buf. */
	len = n & (2 * DC_TEXT_FIRST - 1);
	n = bpf_probe_read_user_str(buf + len, DC_PATH_MAX - 2 * DC_TEXT_FIRST,
				    (const void *)p[1]);
	if (n <= 0) {
		buf[len] = 0;
		n = 1;
	}
	return len + (n & (DC_PATH_MAX - 1));
}

#endif /* DATACRUMBS_UREAD_BPF_H */
