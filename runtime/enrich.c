// SPDX-License-Identifier: MIT
/*
 * A raw record becomes a call: decoded, given its file and object,
 * checked against the filters and handed on (to nesting and a sink, or
 * to profile mode); records of forks, execs and exits keep the process
 * table (procs.c) in step.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "latelib.h"
#include "log.h"
#include "nesting.h"
#include "profile.h"
#include "sinks.h"
#include "runtime.h"

/* The file a call concerns: its path, else its fd, the fd behind its
 * stream, or what its handle was opened on. */
static struct dc_file *file_of(struct dc_rt *rt, struct dc_proc *p,
			       const struct dc_probe *pr,
			       const struct dc_event *e)
{
	const char *path = (const char *)(e + 1);
	const char *abs;

	if (pr->path_slot >= 0 && e->path_len) {
		int64_t dirfd = pr->dirfd_slot >= 0
				    ? (int64_t)e->val[pr->dirfd_slot]
				    : -100;

		/* fstatat(fd, "", AT_EMPTY_PATH) and the like: the call is
		 * about dirfd's own file; an empty path alone names none. */
		if (!path[0])
			return pr->dirfd_slot >= 0
				   ? dc_fd_lookup(&rt->ps, p, dirfd, e->ts)
				   : NULL;
		abs = dc_abs_path(&rt->ps, p, dirfd, path, e->ts);
		if (!abs)
			return NULL;
		return dc_file_intern(&rt->ps, abs);
	}
	if (pr->fd_slot >= 0)
		return dc_fd_lookup(&rt->ps, p, (int64_t)e->val[pr->fd_slot],
				    e->ts);
	if (e->sfd >= 0)
		return dc_fd_lookup(&rt->ps, p, e->sfd, e->ts);
	if (pr->handle_slot >= 0 && !pr->handle_out)
		return dc_handle_lookup(p, e->val[pr->handle_slot]);
	return NULL;
}

/* The object in its file a call concerns (an HDF5 dataset or group): the
 * one it opens or creates by name, else its handle's. Before track(),
 * which forgets a handle the call closes. */
static const char *object_of(struct dc_rt *rt, struct dc_proc *p,
			     const struct dc_probe *pr,
			     const struct dc_event *e)
{
	uint64_t base = pr->handle_slot >= 0 ? e->val[pr->handle_slot] : 0;

	if (pr->name_slot >= 0 && e->path_len) {
		if (pr->d->ret != DC_RET_HANDLE || (int64_t)e->ret <= 0)
			return NULL;
		return dc_handle_set_object(&rt->ps, p, e->ret, base,
					    (const char *)(e + 1));
	}
	if (pr->handle_slot >= 0 && !pr->handle_out)
		return dc_handle_object(p, base);
	return NULL;
}

/* The strings that follow a call whose probe captures a function's name
 * and source file, in slot order. */
static void texts_of(struct dc_rt *rt, const struct dc_probe *pr,
		     const struct dc_event *e, struct dc_call *c)
{
	const char *s = (const char *)(e + 1), *end = s + e->path_len;

	for (int i = 0; i < pr->d->nslots && s < end; i++) {
		int role = pr->d->slot_role[i];

		if (role == DC_ROLE_FUNC && s[0])
			c->func = dc_name_intern(&rt->ps, s);
		else if (role == DC_ROLE_SRCFILE && s[0])
			c->srcfile = dc_name_intern(&rt->ps, s);
		if (role == DC_ROLE_FUNC || role == DC_ROLE_SRCFILE)
			s += strlen(s) + 1;
	}
}

/* The name of the block device in the call's first device slot. */
static const char *device_of(struct dc_rt *rt, const struct dc_probe *pr,
			     const struct dc_event *e)
{
	for (int i = 0; pr->dev_slots && i < pr->d->nslots; i++)
		if (pr->dev_slots & 1u << i)
			return dc_dev_name(&rt->ps, (uint32_t)e->val[i]);
	return NULL;
}

/* Keep the process's descriptor and handle tables in step with what the
 * call did. */
static void track(struct dc_proc *p, const struct dc_probe *pr,
		  const struct dc_event *e, struct dc_file *f, bool profile)
{
	const struct dc_probe_info *d = pr->d;
	/* An fd is new from its open's return: another thread's close of the
	 * same number may begin after the open began, and its record may
	 * come later. */
	uint64_t end = e->ts + e->dur;

	if (d->ret == DC_RET_HANDLE && e->ret > 0)
		dc_handle_set(p, e->ret, f);
	if (pr->handle_out && (d->ret != DC_RET_STATUS || e->ret == 0))
		dc_handle_set(p, e->val[pr->handle_slot], f);
	else if (pr->closes && pr->handle_slot >= 0 && profile)
		dc_handle_close_later(p, e->val[pr->handle_slot]);
	else if (pr->closes && pr->handle_slot >= 0)
		dc_handle_close(p, e->val[pr->handle_slot]);
	if (e->ret < 0 && d->ret != DC_RET_ADDR && d->ret != DC_RET_STREAM)
		return;
	/* Profile mode: aggregates name an fd by its generation. */
	if (e->gen) {
		int64_t fd =
		    pr->fd_effect == DC_FD_NEW || pr->fd_effect == DC_FD_DUPFD
			? e->ret
		    : pr->fd_effect == DC_FD_NEW_STREAM ? e->sfd
		    : pr->fd_effect == DC_FD_NEW_AT_NEWFD
			? (int64_t)e->val[pr->newfd_slot]
			: -1;

		if (fd >= 0 && f)
			dc_map_put(
			    &p->fdgens,
			    (uint64_t)(uint32_t)fd | (uint64_t)e->gen << 32, f);
	}
	switch (pr->fd_effect) {
	case DC_FD_NEW: dc_fd_set(p, e->ret, f, end); break;
	case DC_FD_NEW_AT_NEWFD:
		dc_fd_set(p, (int64_t)e->val[pr->newfd_slot], f, end);
		break;
	case DC_FD_NEW_STREAM:
		if (e->ret)
			dc_fd_set(p, e->sfd, f, end);
		break;
	case DC_FD_CLOSE:
		dc_fd_close(p, (int64_t)e->val[pr->fd_slot], e->ts);
		break;
	case DC_FD_CLOSE_STREAM: dc_fd_close(p, e->sfd, e->ts); break;
	case DC_FD_DUPFD:
		/* Other commands return flags, not a descriptor. */
		if (e->val[pr->dupfd_cmd_slot] == F_DUPFD ||
		    e->val[pr->dupfd_cmd_slot] == F_DUPFD_CLOEXEC)
			dc_fd_set(p, e->ret, f, end);
		break;
	case DC_FD_CLOSE_RANGE:
		for (uint64_t fd = e->val[pr->fd_slot];
		     fd <= e->val[pr->newfd_slot] && fd < 65536; fd++)
			dc_fd_close(p, fd, e->ts);
		break;
	case DC_FD_KEEP: break;
	}
}

/* Whom a process runs as and with whose rights, from its records. */
static void set_creds(struct dc_rt *rt, const struct dc_proc_event *pe)
{
	struct dc_proc *p = dc_proc_get(&rt->ps, pe->pid);

	if (p)
		dc_privs_record(p, pe);
}

/* Profile mode: the generation a call that gave a handle gave it (the
 * programs number the opens of each handle value) names its file and
 * object, for aggregates of calls on it to be named by. */
static int handle_gen(struct dc_proc *p, const struct dc_probe *pr,
		      const struct dc_event *e, const struct dc_call *c)
{
	uint64_t h;

	if (!e->gen || (pr->d->ret != DC_RET_HANDLE && !pr->handle_out))
		return 0;
	h = pr->d->ret == DC_RET_HANDLE ? (uint64_t)e->ret
					: e->val[pr->handle_slot];
	return dc_handle_gen_set(p, h, e->gen, c->file, c->object);
}

static int on_call(struct dc_rt *rt, const struct dc_event *e, size_t size)
{
	struct dc_probe *pr;
	struct dc_rthread *t;
	struct dc_proc *p;
	struct dc_call c;

	if (size < sizeof(*e) || e->probe >= rt->sess.nprobes ||
	    size < sizeof(*e) + e->path_len ||
	    (e->path_len && ((const char *)(e + 1))[e->path_len - 1])) {
		rt->bad_records++;
		return 0;
	}
	pr = &rt->sess.probes[e->probe];
	p = dc_proc_get(&rt->ps, e->pid);
	t = dc_thread_get(&rt->ps, e->tid, e->pid);
	if (!p || !t)
		return -ENOMEM;
	dc_proc_describe(p, t);
	c = (struct dc_call){
		.probe = pr,
		.proc = p,
		.thread = t,
		.file = file_of(rt, p, pr, e),
		.pid = e->pid,
		.tid = e->tid,
		.level = e->level,
		.aio_helper = e->flags & DC_CALL_AIO_HELPER,
		.ts = e->ts,
		.dur = e->dur,
		.seq = e->seq,
		.parent_seq = e->parent_seq,
		.ret = e->ret,
		.sfd = e->sfd,
		.inner = e->flags & DC_CALL_INNER,
	};
	memcpy(c.val, e->val, sizeof(c.val));
	c.object = object_of(rt, p, pr, e);
	c.device = device_of(rt, pr, e);
	if (pr->texts)
		texts_of(rt, pr, e, &c);
	track(p, pr, e, c.file, rt->profile);
	if (e->job)
		p->job = e->job;
	if (dc_withhold(&rt->out, p))
		return 0;
	if (rt->profile) {
		dc_profile_call(rt->profile, &c);
		return handle_gen(p, pr, e, &c);
	}
	if (!dc_filter_keep(&rt->filter, c.file)) {
		c.filtered = true;
		rt->filter.filtered++;
	}
	return dc_nest_add(dc_sink(&rt->out, p), t, &c);
}

static int on_chdir(struct dc_rt *rt, const struct dc_cwd_event *e, size_t size)
{
	const size_t head = offsetof(struct dc_cwd_event, path);
	struct dc_proc *p;

	if (size < head || size < head + e->path_len ||
	    (e->path_len && e->path[e->path_len - 1])) {
		rt->bad_records++;
		return 0;
	}
	p = dc_proc_get(&rt->ps, e->pid);
	if (!p)
		return -ENOMEM;
	dc_proc_chdir(&rt->ps, p, e->fd, e->path_len ? e->path : NULL, e->ts);
	return 0;
}

/* Raw records kept for bench/replay: each is its size, then its bytes
 * padded to 8 so the replay can use them in place. */
static void save(struct dc_rt *rt, const void *data, size_t size)
{
	static const char pad[8];
	uint32_t n = size;

	fwrite(&n, sizeof(n), 1, rt->save);
	fwrite(pad, 1, 4, rt->save);
	fwrite(data, 1, size, rt->save);
	fwrite(pad, 1, -size & 7, rt->save);
}

/* The traced thread an exec or exit record is about, or NULL. */
static struct dc_rthread *record_thread(struct dc_rt *rt,
					const struct dc_proc_event *pe)
{
	struct dc_rthread *t = dc_map_get(&rt->ps.threads, pe->tid);

	return t && t->pid == pe->pid ? t : NULL;
}

/* The trace @t's records go to: its process's. */
static struct dc_pfw *thread_sink(struct dc_rt *rt, const struct dc_rthread *t)
{
	return dc_sink(&rt->out, dc_map_get(&rt->ps.procs, t->pid));
}

int dc_enrich_record(struct dc_rt *rt, const void *data, size_t size)
{
	const struct dc_proc_event *pe = data;
	struct dc_rthread *t;
	struct dc_proc *p;
	char comm[17];
	int err;

	rt->records++;
	if (rt->save)
		save(rt, data, size);
	if (size < sizeof(__u16)) {
		rt->bad_records++;
		return 0;
	}
	if (pe->kind == DC_EV_CALL)
		return on_call(rt, data, size);
	if (pe->kind == DC_EV_CHDIR)
		return on_chdir(rt, data, size);
	if (pe->kind == DC_EV_LIB) {
		err = dc_latelib_mapped(&rt->sess, data, size);
		rt->bad_records += err == -EBADMSG;
		return err == -EBADMSG ? 0 : err;
	}
	if (size < sizeof(*pe)) {
		rt->bad_records++;
		return 0;
	}
	memcpy(comm, pe->comm, 16);
	comm[16] = '\0';
	switch (pe->kind) {
	case DC_EV_FORK:
		if (pe->pid != pe->ppid)
			dc_proc_fork(&rt->ps, pe->ppid, pe->pid, comm);
		set_creds(rt, pe);
		break;
	case DC_EV_EXEC:
		set_creds(rt, pe);
		/* The calls its thread had open ended with the old program
		 * (dc_exec_unwind()): what it holds nested in them is
		 * written now, not when the thread ends. */
		if ((t = record_thread(rt, pe)))
			dc_nest_flush(thread_sink(rt, t), t);
		dc_proc_exec(&rt->ps, pe->pid, comm);
		/* then its files are named as for a join */
		__attribute__((fallthrough));
	case DC_EV_JOIN:
		if (pe->kind == DC_EV_JOIN)
			set_creds(rt, pe);
		rt->want_probes |=
		    rt->sess.opt.server && !rt->sess.probes_attached;
		p = dc_proc_get(&rt->ps, pe->pid);
		if (p) {
			dc_fd_snapshot(&rt->ps, p, pe->ts, false);
			dc_proc_facts(p);
		}
		/* Named in the trace under its old program (the exec call's
		 * own record comes first): the new name now, as it may make
		 * no call the trace shows. */
		if (p && pe->kind == DC_EV_EXEC)
			dc_sink_exec(&rt->out, p, pe->ts);
		break;
	case DC_EV_EXIT:
		if ((t = record_thread(rt, pe))) {
			struct dc_pfw *w = thread_sink(rt, t);

			dc_nest_flush(w, t);
			dc_pfw_thread_exit(w, t, comm, pe->ts);
			/* A long-running tracer must not keep the dead: a
			 * thread's state goes when it exits. */
			dc_map_del(&rt->ps.threads, pe->tid);
			dc_thread_free(t);
		}
		p = pe->tid == pe->pid ? dc_map_get(&rt->ps.procs, pe->pid)
				       : NULL;
		if (p)
			p->exited_ns = pe->ts;
		/* USDT links made for it alone (usdts.c) go with it. */
		if (pe->tid == pe->pid)
			dc_links_drop_pid(&rt->sess.links, pe->pid);
		break;
	default: rt->bad_records++;
	}
	return 0;
}

void dc_enrich_flush(struct dc_rt *rt)
{
	dc_map_foreach (&rt->ps.threads, i) {
		struct dc_rthread *t = rt->ps.threads.vals[i];
		struct dc_proc *p = dc_map_get(&rt->ps.procs, t->pid);

		dc_nest_flush(dc_sink(&rt->out, p), t);
		dc_pfw_thread_unnamed(dc_sink(&rt->out, p), t,
				      p ? p->comm : "?", 0);
	}
}
