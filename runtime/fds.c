// SPDX-License-Identifier: MIT
/* Each process's descriptor table: what an fd meant, and when. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "procs.h"

/* fd + 1 keeps fd 0 off the map's reserved key 0. */
static uint64_t fd_key(int64_t fd)
{
	return (uint64_t)fd + 1;
}

/*
 * What an fd referred to, and when: [from, until), from its open's return
 * to its close's entry. A parent call is resolved after its children (it
 * returns last), so a close inside fclose must not hide the file from
 * fclose itself; nor may a later open of the same number rename earlier
 * calls.
 */
struct dc_fdent {
	struct dc_file *f;
	uint64_t from, until;
	struct dc_fdent *older;
	uint32_t depth; /* entries in the chain from here, when set */
};

/*
 * A record comes after others by as long as its call took: a close that
 * flushes to a parallel file system, or a preempted thread, while other
 * threads reuse its fd number many times. An fd keeps what it meant over
 * the last FD_HISTORY_NS, at most FD_HISTORY_MAX meanings; trimmed every
 * FD_TRIM_EVERY sets, so a set costs O(1) on average.
 */
#define FD_HISTORY_NS  1000000000ull
#define FD_HISTORY_MAX 1024
#define FD_TRIM_EVERY  64

static void free_chain(void *v)
{
	for (struct dc_fdent *e = v, *o; e; e = o) {
		o = e->older;
		free(e);
	}
}

/* @fd refers to @f (NULL: unknown) from @ts on. */
static void fd_push(struct dc_proc *p, int64_t fd, struct dc_file *f,
		    uint64_t ts)
{
	struct dc_fdent *head = dc_map_get(&p->fds, fd_key(fd)), *e, *o;
	uint32_t n = 1;

	/* The same open seen from two layers: the inner one returned first. */
	if (head && head->f == f && head->until == UINT64_MAX) {
		if (ts < head->from)
			head->from = ts;
		return;
	}
	e = malloc(sizeof(*e));
	if (!e)
		return;
	*e = (struct dc_fdent){ f, ts, UINT64_MAX, head,
				head ? head->depth + 1 : 1 };
	if (head && head->until > ts)
		head->until = ts;
	if (dc_map_put(&p->fds, fd_key(fd), e)) {
		free(e);
		return;
	}
	if (e->depth % FD_TRIM_EVERY)
		return;
	for (o = e; o->older; o = o->older, n++) {
		uint64_t until = o->older->until;

		if (n >= FD_HISTORY_MAX ||
		    (until < ts && ts - until > FD_HISTORY_NS)) {
			free_chain(o->older);
			o->older = NULL;
			break;
		}
	}
	e->depth = n;
}

/* Whether a close since @ts (0: since tracing began) may have freed @fd
 * of process @pid (abi.h): /proc would then show what took its number,
 * not what a call at @ts used. A slot never noted holds 0. */
static bool freed_since(const struct dc_procs *ps, uint32_t pid, int64_t fd,
			uint64_t ts)
{
	const volatile __u64 *c = ps->closes;
	__u64 one, range;

	if (!c)
		return false;
	one = c[dc_close_slot(pid, fd)];
	range = c[dc_close_slot(pid, -1)];
	return (one && one >= ts) || (range && range >= ts);
}

struct dc_file *dc_fd_lookup(struct dc_procs *ps, struct dc_proc *p, int64_t fd,
			     uint64_t ts)
{
	char link[64], target[PATH_MAX];
	struct dc_fdent *head, *e;
	uint64_t from = 0;
	struct dc_file *f;
	ssize_t n;

	if (fd < 0 || fd > INT_MAX)
		return NULL;
	head = dc_map_get(&p->fds, fd_key(fd));
	for (e = head; e; e = e->older)
		if (e->from <= ts && ts < e->until)
			return e->f;
	/* Seen, and the call is not after its last close: a gap. After it,
	 * the number was taken by a call no probe traces, which only the
	 * closes the programs mark let /proc name. */
	if (head && (!ps->closes || ts < head->until))
		return NULL;
	if (head)
		from = head->until;
	/* Else never seen: opened before tracing began, or by such a call
	 * (pipe, socket, one passed over a socket). */
	if (freed_since(ps, p->pid, fd, ts))
		return NULL;
	snprintf(link, sizeof(link), "/proc/%u/fd/%lld", p->pid, (long long)fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0) {
		/* The process is gone (records arrive late): its fd stays
		 * unknown, so stop asking /proc for it on every call
		 * (bench/replay spent 90% of its time there). */
		if (kill(p->pid, 0) && errno == ESRCH)
			fd_push(p, fd, NULL, from);
		return NULL;
	}
	target[n] = '\0';
	f = dc_file_intern(ps, target);
	if (f)
		fd_push(p, fd, f, from);
	return f;
}

struct dc_file *dc_fd_initial(struct dc_procs *ps, struct dc_proc *p,
			      int64_t fd)
{
	struct dc_fdent *e;

	if (fd < 0 || fd > INT_MAX)
		return NULL;
	e = dc_map_get(&p->fds, fd_key(fd));
	if (!e)
		return dc_fd_lookup(ps, p, fd, 0);
	while (e->older)
		e = e->older;
	return e->from == 0 ? e->f : NULL;
}

/*
 * Whether @fd of the runtime's own fork, stopped before its exec, closes
 * at that exec. A fork copies the close-on-exec flags, so the runtime's
 * own descriptor tells in one call, where /proc's fdinfo took dozens
 * (once libc is probed, each libc call of the runtime's traps). One the
 * runtime closed since (the exec pipe's far end) was close-on-exec.
 */
static bool closes_at_exec(long fd)
{
	int flags = fcntl(fd, F_GETFD);

	return flags < 0 || flags & FD_CLOEXEC;
}

void dc_fd_snapshot(struct dc_procs *ps, struct dc_proc *p, uint64_t ts,
		    bool exec_next)
{
	char dir[64];
	struct dirent *de;
	DIR *d;
	snprintf(dir, sizeof(dir), "/proc/%u/fd", p->pid);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name ||
		    dc_map_get(&p->fds, fd_key(fd)) ||
		    (exec_next && closes_at_exec(fd)))
			continue;
		dc_fd_lookup(ps, p, fd, ts);
	}
	closedir(d);
}

void dc_fd_set(struct dc_proc *p, int64_t fd, struct dc_file *f, uint64_t ts)
{
	if (fd >= 0 && fd <= INT_MAX && f)
		fd_push(p, fd, f, ts);
}

void dc_fd_close(struct dc_proc *p, int64_t fd, uint64_t ts)
{
	struct dc_fdent *head;

	if (fd < 0 || fd > INT_MAX)
		return;
	head = dc_map_get(&p->fds, fd_key(fd));
	if (head) {
		if (ts < head->until && ts >= head->from)
			head->until = ts;
		return;
	}
	/* Closing an fd never seen: a tombstone keeps a later lookup from
	 * asking /proc, where the number may already be reused. */
	head = calloc(1, sizeof(*head));
	if (!head)
		return;
	head->until = ts;
	if (dc_map_put(&p->fds, fd_key(fd), head))
		free(head);
}

/* A child starts with what each of its parent's fds refers to now. */
void dc_fds_copy(struct dc_proc *p, const struct dc_proc *parent)
{
	dc_map_foreach (&parent->fds, i) {
		struct dc_fdent *e = malloc(sizeof(*e));

		if (!e)
			return;
		*e = *(const struct dc_fdent *)parent->fds.vals[i];
		/* To the child, inherited fds predate its tracing. */
		e->from = 0;
		e->older = NULL;
		if (dc_map_put(&p->fds, parent->fds.keys[i], e))
			free(e);
	}
}

void dc_fds_free(struct dc_proc *p)
{
	dc_map_free(&p->fds, free_chain);
}
