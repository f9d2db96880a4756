// SPDX-License-Identifier: MIT
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "buf.h"
#include "links.h"

int dc_links_add(struct dc_links *k, struct bpf_link *l)
{
	if (dc_grow((void **)&k->l, k->n, sizeof(*k->l), 64)) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	k->l[k->n++] = l;
	return 0;
}

int dc_links_add_usdt(struct dc_links *k, struct bpf_link *l, __u32 pid)
{
	if (dc_grow((void **)&k->usdt, k->nusdt, sizeof(*k->usdt), 64)) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	k->usdt[k->nusdt++] = (struct dc_usdt_link){ l, pid };
	return 0;
}

void dc_links_drop_pid(struct dc_links *k, __u32 pid)
{
	size_t kept = 0;

	for (size_t i = 0; i < k->nusdt; i++)
		if (pid && k->usdt[i].pid == pid)
			bpf_link__destroy(k->usdt[i].l);
		else
			k->usdt[kept++] = k->usdt[i];
	k->nusdt = kept;
}

int dc_links_add_all(struct dc_links *k, struct bpf_link **made, size_t n,
		     int err)
{
	/* dc_links_add() destroys the link it cannot hold. */
	for (size_t i = 0; i < n; i++)
		if (!made[i])
			continue;
		else if (err)
			bpf_link__destroy(made[i]);
		else
			err = dc_links_add(k, made[i]);
	return err;
}

int dc_links_add_fd(struct dc_links *k, int fd)
{
	if (dc_grow((void **)&k->fds, k->nfds, sizeof(*k->fds), 64)) {
		close(fd);
		return -ENOMEM;
	}
	k->fds[k->nfds++] = fd;
	return 0;
}

void dc_links_truncate(struct dc_links *k, size_t n)
{
	while (k->n > n)
		bpf_link__destroy(k->l[--k->n]);
}

void dc_links_tracking(struct dc_links *k)
{
	k->ntracking = k->n;
}

struct slice {
	struct dc_links *k;
	size_t from; /* l[from..] */
	size_t first;
	size_t stride;
};

static void *detach_slice(void *arg)
{
	struct slice *s = arg;

	for (size_t i = s->from + s->first; i < s->k->n; i += s->stride)
		bpf_link__destroy(s->k->l[i]);
	for (size_t i = s->first; i < s->k->nfds; i += s->stride)
		close(s->k->fds[i]);
	return NULL;
}

/*
 * Each detach waits for a grace period: ~70 ms for a tracepoint, ~1 s for
 * a uprobe.multi link (RCU tasks trace) on these machines. One after
 * another that is seconds; concurrent detaches share grace periods, so
 * links are dealt round-robin to threads.
 */
void dc_links_detach(struct dc_links *k, bool all)
{
	enum { MAX_THREADS = 64 };
	struct slice slices[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	bool started[MAX_THREADS] = {};
	size_t from = all ? 0 : k->ntracking;
	size_t nall = k->n - from + k->nfds;
	size_t n = nall < MAX_THREADS ? nall : MAX_THREADS;

	for (size_t i = 0; i < k->nusdt; i++)
		bpf_link__destroy(k->usdt[i].l);
	free(k->usdt);
	k->usdt = NULL;
	k->nusdt = 0;
	for (size_t i = 0; i < n; i++) {
		slices[i] = (struct slice){ k, from, i, n };
		started[i] =
		    !pthread_create(&tids[i], NULL, detach_slice, &slices[i]);
		if (!started[i])
			detach_slice(&slices[i]);
	}
	for (size_t i = 0; i < n; i++)
		if (started[i])
			pthread_join(tids[i], NULL);
	free(k->fds);
	k->fds = NULL;
	k->nfds = 0;
	k->n = from;
	if (all) {
		free(k->l);
		k->l = NULL;
		k->ntracking = 0;
	}
}
