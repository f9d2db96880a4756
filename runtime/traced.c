// SPDX-License-Identifier: MIT
/*
 * Which processes are traced: the pids map (pid to job) and the bit set
 * the probes test, which the BPF side also updates at fork and exit.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include "procs.h"
#include "session.h"

/*
 * dc_mark() from user space, for kernels without syscall programs
 * (DC_FB_SYSCALL_PROG): the bit's word is rewritten whole, so a fork in
 * another process of the same 64 tgids at that instant may lose its bit.
 */
static int set_traced_maps(struct dc_session *sess, __u32 tgid, __u32 job,
			   bool if_new)
{
	const struct dc_obj_maps *m = &sess->o.maps;
	__u32 k = tgid >> 6;
	__u64 w = 0, bit = 1ull << (tgid & 63);

	if (bpf_map_lookup_elem(bpf_map__fd(m->traced_bits), &k, &w))
		return -errno;
	if (if_new && w & bit)
		return 0;
	if (!job) {
		w &= ~bit;
		bpf_map_delete_elem(bpf_map__fd(m->pids), &tgid);
	} else {
		if (bpf_map_update_elem(bpf_map__fd(m->pids), &tgid, &job,
					BPF_ANY))
			return -ENOSPC;
		w |= bit;
	}
	return bpf_map_update_elem(bpf_map__fd(m->traced_bits), &k, &w, BPF_ANY)
		   ? -errno
		   : 0;
}

int dc_set_traced(struct dc_session *sess, int pid, __u32 job, bool if_new)
{
	struct dc_mark_args a = { .tgid = pid, .job = job, .if_new = if_new };
	/* A syscall program's context is copied back into ctx_in. */
	LIBBPF_OPTS(bpf_test_run_opts, opts, .ctx_in = &a,
		    .ctx_size_in = sizeof(a));

	if (sess->o.cfg->fallbacks & DC_FB_SYSCALL_PROG)
		return set_traced_maps(sess, pid, job, if_new);

	if (bpf_prog_test_run_opts(bpf_program__fd(sess->o.progs.set_traced),
				   &opts))
		return -errno;
	return a.ret ? -ENOSPC : 0;
}

int dc_trace_pid(struct dc_session *sess, int pid)
{
	/* A process named starts its own job. */
	return dc_set_traced(sess, pid, pid, false);
}

int dc_traced_each(struct dc_session *sess,
		   int (*fn)(struct dc_session *sess, __u32 pid, void *ctx),
		   void *ctx)
{
	int fd = bpf_map__fd(sess->o.maps.pids), err = 0;
	__u32 key, next;
	void *prev = NULL;

	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		err = fn(sess, next, ctx);
		key = next;
		prev = &key;
	}
	return err;
}

static int running(struct dc_session *sess, __u32 pid, void *ctx)
{
	(void)sess;
	(void)ctx;
	return dc_pid_running(pid);
}

bool dc_traced_alive(struct dc_session *sess)
{
	/* The BPF side adds children at fork and removes a process when
	 * its last thread exits; /proc guards against a missed exit (a -p
	 * process that exited while the probes were attached, left a
	 * zombie by a parent that waits for us). */
	return dc_traced_each(sess, running, NULL);
}
