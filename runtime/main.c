// SPDX-License-Identifier: MIT
/* datacrumbs-runtime: load a generated object, trace, write a DFTracer trace.
 */
#include <stdarg.h>
#include <errno.h>
#include <fcntl.h>
#include <bpf/bpf.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "cli.h"
#include "config.h"
#include "elfsym.h"
#include "latelib.h"
#include "launch.h"
#include "log.h"
#include "mounts.h"
#include "output.h"
#include "profile.h"
#include "pysetup.h"
#include "subproc.h"
#include "records.h"
#include "runtime.h"
#include "server.h"
#include "sinks.h"
#include "sysenv.h"

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static void on_ignored(int sig)
{
	(void)sig;
}

/*
 * Signals that would end the runtime with its trace unfinished, and that
 * a traced command run as root may send it (kill -HUP $PPID). Caught,
 * not ignored, so the command's exec resets them to their default; one
 * the runtime was started ignoring (nohup) stays so, for the command
 * too.
 */
static void shrug_signals(void)
{
	static const int sigs[] = { SIGHUP,    SIGUSR1, SIGUSR2,   SIGPIPE,
				    SIGALRM,   SIGIO,	SIGPROF,   SIGPWR,
				    SIGSTKFLT, SIGXCPU, SIGVTALRM, SIGXFSZ };
	struct sigaction sa = { .sa_handler = on_ignored,
				.sa_flags = SA_RESTART },
			 old;
	size_t n = sizeof(sigs) / sizeof(sigs[0]);

	for (int i = 0; i < (int)n + SIGRTMAX - SIGRTMIN + 1; i++) {
		int sig = i < (int)n ? sigs[i] : SIGRTMIN + i - (int)n;

		if (!sigaction(sig, NULL, &old) && old.sa_handler == SIG_DFL)
			sigaction(sig, &sa, NULL);
	}
}

static int libbpf_log(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ull + t.tv_nsec;
}

static void start_date(char *date, size_t size)
{
	time_t t = time(NULL);

	strftime(date, size, "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
}

/* CPU time of all the runtime's threads, not of the traced command. */
static uint64_t cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void summary(struct dc_rt *rt, const char *path, uint64_t lost)
{
	uint64_t cpu = cpu_ns() - rt->cpu0_ns - rt->detach_cpu_ns, unchecked;
	struct stat st;
	bool *seen;

	dc_info("trace: %s (%llu events, %llu lost, %lld bytes)", path,
		(unsigned long long)rt->out.w.calls, (unsigned long long)lost,
		stat(path, &st) ? -1LL : (long long)st.st_size);
	/* What tracing cost this machine in user space, per event. */
	dc_info(
	    "runtime CPU while tracing: %.3f s, %llu ns per event; "
	    "detaching took %.2f s",
	    cpu / 1e9,
	    (unsigned long long)(rt->out.w.calls ? cpu / rt->out.w.calls : 0),
	    rt->detach_ns / 1e9);
	/* Per layer, in the order layers first appear; O(probes x layers),
	 * as there can be thousands of probes. */
	seen = calloc(rt->sess.nprobes, sizeof(*seen));
	for (size_t i = 0; seen && i < rt->sess.nprobes; i++) {
		uint64_t n = 0;

		if (seen[i])
			continue;
		for (size_t j = i; j < rt->sess.nprobes; j++)
			if (!seen[j] && !strcmp(rt->sess.probes[j].d->layer,
						rt->sess.probes[i].d->layer)) {
				n += rt->sess.probes[j].calls;
				seen[j] = true;
			}
		dc_info("  %-8s %10llu events", rt->sess.probes[i].d->layer,
			(unsigned long long)n);
	}
	free(seen);
	dc_uprobes_say_idle(&rt->sess);
	unchecked = dc_limit(&rt->sess, DC_LIMIT_LIBS);
	if (unchecked)
		dc_info("  %llu libraries mapped by traced programs were not "
			"checked for the specs' (their memory map was busy, or "
			"the ring buffer full): calls into them may be missing",
			(unsigned long long)unchecked);
}

/* A process gone for good: its trace forgets it, and its fds'
 * generations and Darshan patterns (of the fd and of a stream on it) and
 * its open handles' directions and generations leave the kernel's maps,
 * or a process given its pid would find them. */
static void forget_proc(struct dc_proc *p, void *arg)
{
	struct dc_rt *rt = arg;
	const struct dc_obj_maps *m = &rt->sess.o.maps;

	dc_sink_forget(&rt->out, p);
	dc_map_foreach (&p->fdgens, i) {
		struct {
			__u32 pid;
			__s32 fd;
		} key = { p->pid, (__s32)(uint32_t)p->fdgens.keys[i] };

		bpf_map_delete_elem(bpf_map__fd(m->fdgen), &key);
		bpf_map_delete_elem(bpf_map__fd(m->fdpat), &key);
		key.fd |= DC_PAT_STREAM;
		bpf_map_delete_elem(bpf_map__fd(m->fdpat), &key);
	}
	/* Those open, and those closed lately whose generations it knows. */
	for (int k = 0; k < 2; k++) {
		const struct dc_map *hm = k ? &p->hgens : &p->handles;

		dc_map_foreach (hm, i) {
			struct {
				__u32 pid, pad;
				__u64 h;
			} key = { p->pid, 0, hm->keys[i] };

			bpf_map_delete_elem(bpf_map__fd(m->hdl), &key);
		}
	}
}

/* Every few seconds, free processes long gone (long runs, servers). */
static void reap(struct dc_rt *rt, const struct dc_opts *o)
{
	static uint64_t last;
	uint64_t now = now_ns(), age = 5000000000ull;

	if (now - last < 1000000000ull)
		return;
	last = now;
	if (o->profile && o->interval * 3e9 > age)
		age = o->interval * 3e9;
	dc_procs_reap(&rt->ps, now, age, forget_proc, rt);
}

/* A statically linked command has no shared library for the object's
 * uprobes to sit in: say so, or an empty layer would go unexplained. */
static void hint_static(const struct dc_rt *rt, const char *cmd,
			const char *path)
{
	const char *lib = NULL;

	for (size_t i = 0; i < rt->sess.nprobes && !lib; i++)
		if (rt->sess.probes[i].d->mech == DC_MECH_UPROBE &&
		    strstr(rt->sess.probes[i].d->path, ".so"))
			lib = rt->sess.probes[i].d->target;
	if (lib && path && dc_elf_is_static(path) == 1)
		dc_warn("%s is statically linked: the uprobes on %s and other "
			"shared libraries never fire in it, only its syscalls "
			"are traced (datacrumbs-explore %s probes its own "
			"functions)",
			cmd, lib, path);
}

/* Files the process has open so far are named from /proc now: records
 * reach the runtime in batches, possibly after the process is gone. A
 * launched command is still stopped before its exec (@exec_next): the
 * runtime's own descriptors it holds then close at the exec. */
static int trace_pid(struct dc_rt *rt, int pid, bool exec_next)
{
	struct dc_proc *p = dc_proc_get(&rt->ps, pid);

	if (p) {
		dc_fd_snapshot(&rt->ps, p, now_ns(), exec_next);
		dc_proc_cwd(p);
		p->exec_pending = exec_next;
		if (!exec_next)
			dc_proc_facts(p);
	}
	return dc_trace_pid(&rt->sess, pid);
}

/* After the traced work: take what is in flight, close the trace. */
static int finish(struct dc_rt *rt, const struct dc_opts *o, const char *path,
		  int ret)
{
	uint64_t lost, t0 = now_ns(), cpu0 = cpu_ns();
	struct dc_rec_counts counts;
	struct dc_buf args = {};

	/* No new events past this point; then take everything in flight.
	 * Detaching is the kernel's work, not a cost per event. */
	dc_detach_all(&rt->sess);
	rt->detach_ns = now_ns() - t0;
	rt->detach_cpu_ns = cpu_ns() - cpu0;
	if (rt->profile && dc_profile_flip(rt->profile))
		dc_err("reading the profile maps failed; counters are missing");
	dc_ringbuf_drain(rt);
	if (rt->profile && dc_profile_write(rt->profile, now_ns(), true))
		dc_err("reading the profile maps failed; counters are missing");
	dc_read_losses(&rt->sess);
	counts = (struct dc_rec_counts){
		.unmatched = dc_limit(&rt->sess, DC_LIMIT_VMA),
		.untraced = dc_untraced_procs(&rt->sess),
		.filtered = rt->filter.filtered,
		.bad_records = rt->bad_records,
	};
	lost = dc_rec_end(&args, &rt->sess, &counts, &rt->out.held, o->quiet);
	if (rt->sess.opt.server)
		dc_info("closed %zu job traces",
			dc_sinks_close(&rt->out, args.p));
	if (dc_sinks_end(&rt->out, args.p) && !ret)
		ret = 1;
	dc_buf_free(&args);
	if (!o->quiet)
		summary(rt, path, lost);
	if ((lost || counts.untraced) && o->strict && !ret)
		ret = DC_EXIT_LOST;
	return ret;
}

/* The run's losses so far, for the end of a job's trace. */
static uint64_t lost_total(void *sess)
{
	return dc_lost_total(sess);
}

/* The run's trace at @path (its fd in *@fd, for the caller to close),
 * its writer, where job traces go (@dir), the filters, the ring buffer's
 * consumer and --save-records. 0, or -errno after a message. */
static int open_outputs(struct dc_rt *rt, const struct dc_opts *o,
			const char *path, char *dir, size_t dir_size, int *fd)
{
	int err;

	*fd = dc_output_open(path, o, &rt->out.dirfd);
	if (*fd < 0)
		return *fd;
	rt->out.wo = (struct dc_pfw_opts){ .compress = dc_pfw_compressed(path),
					   .level = o->level,
					   .member_size = o->member_size,
					   .interval_ns = 1000000000ull };
	rt->out.server = o->server;
	rt->out.profile = o->profile;
	rt->out.lost = lost_total;
	rt->out.lost_ctx = &rt->sess;
	/* Job traces go beside the server's own. */
	snprintf(dir, dir_size, "%s", path);
	if (strrchr(dir, '/'))
		*strrchr(dir, '/') = '\0';
	else
		snprintf(dir, dir_size, ".");
	rt->out.dir = dir;
	rt->filter = (struct dc_filter){ .paths = o->paths,
					 .npaths = o->npaths,
					 .xpaths = o->xpaths,
					 .nxpaths = o->nxpaths };
	err = dc_sinks_open(&rt->out, *fd, path) ?: dc_ringbuf_open(rt);
	if (err) {
		dc_err("cannot set up the trace writer");
		return err;
	}
	if (o->save && !(rt->save = fopen(o->save, "wxe"))) {
		err = -errno;
		dc_err("cannot create %s: %s", o->save, strerror(-err));
		return err;
	}
	return 0;
}

/* Whose rights the run's trace is held to (0: root's, it keeps all):
 * --user's; with -p, whom the trace was given to, unless that is who ran
 * the runtime (as root, or through sudo: root's rights either way). */
static uint32_t held_to(const struct dc_opts *o, int fd)
{
	struct stat st;

	if (o->user.set)
		return o->user.uid;
	if (!o->npids || getenv("SUDO_UID") || fstat(fd, &st) ||
	    st.st_uid == getuid())
		return 0;
	return st.st_uid;
}

/* -p: each process, traced from now on. 0, or -errno after a message. */
static int trace_pids(struct dc_rt *rt, const struct dc_opts *o)
{
	int err;

	for (int i = 0; i < o->npids; i++) {
		if (!dc_pid_running(o->pids[i])) {
			dc_err("--pid %d: no such process", o->pids[i]);
			return -ESRCH;
		}
		if ((err = trace_pid(rt, o->pids[i], false))) {
			dc_err("cannot register pid %d: %s", o->pids[i],
			       strerror(-err));
			return err;
		}
	}
	return 0;
}

/* COMMAND, started stopped before its exec (as --user) and traced: its
 * pid, or -errno after a message (a child it cannot trace is killed
 * here; the caller owns *@exec_fd). */
static pid_t launch(struct dc_rt *rt, const struct dc_opts *o, char **cmd,
		    int *exec_fd)
{
	char *env = NULL;
	pid_t child;
	int err;

	hint_static(rt, cmd[0], rt->sess.opt.command);
	/* A failure was said; the command runs all the same. */
	if (!o->no_python_setup)
		dc_python_env(&rt->sess, o->user.set ? o->user.uid : getuid(),
			      &env);
	child = dc_launch_stopped(cmd, &o->user, env, exec_fd);
	free(env);
	if (child < 0) {
		dc_err("cannot start %s: %s", cmd[0], strerror(-child));
		return child;
	}
	if ((err = trace_pid(rt, child, true))) {
		dc_err("cannot register pid %d: %s", child, strerror(-err));
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		return err;
	}
	return child;
}

/* Server mode: the client library's probe and the control socket. 0, or
 * -errno after a message. */
static int serve(struct dc_rt *rt, const struct dc_opts *o,
		 struct dc_server *srv, const char *trace)
{
	const char *lib = o->client_lib ? o->client_lib
			  : !access(DC_BUILD_CLIENT_LIB, R_OK)
			      ? DC_BUILD_CLIENT_LIB
			      : DC_INSTALL_CLIENT_LIB;
	const char *sock = o->socket ? o->socket : DC_DEFAULT_SOCKET;
	int err;

	err = dc_server_attach_client(&rt->sess, lib);
	if (err)
		return err;
	err = dc_server_open(srv, &rt->sess, &rt->ps, &rt->out,
			     ring_buffer__epoll_fd(rt->rb), sock, trace);
	if (err)
		dc_err("--socket %s: %s", sock,
		       err == -EEXIST ? "exists and is not a socket; not "
					"removing it"
		       : err == -EADDRINUSE
			   ? "another datacrumbs-runtime --server is "
			     "listening there"
			   : strerror(-err));
	return err;
}

/*
 * Trace until the command exits (*@child becomes 0, its status is
 * returned), a signal, --duration (*@timed_out) or, with -p only, the
 * last traced process's exit; a server (@srv, else NULL) also answers
 * requests and ends its jobs. Returns the command's exit status, or 0.
 */
static int trace_loop(struct dc_rt *rt, const struct dc_opts *o,
		      struct dc_server *srv, const char *path,
		      uint64_t deadline, bool command, pid_t *child,
		      bool *timed_out)
{
	bool write_failed = false;
	int err, status, ret = 0;

	while (!stop_signal) {
		if (!srv)
			err = dc_ringbuf_poll(rt, 100);
		/* A server answers callers after the events that came with
		 * them: a joined process is known by then. */
		else if (!(err = dc_server_wait(srv, rt->rb_more ? 0 : 100)) &&
			 !(err = dc_ringbuf_consume(rt)))
			dc_server_serve(srv);
		if (err < 0) {
			dc_err("reading the ring buffer: %s", strerror(-err));
			break;
		}
		if (srv) {
			dc_server_jobs(srv, now_ns(), rt->want_probes);
			rt->want_probes = false;
			dc_sinks_tick(&rt->out, now_ns(), &rt->ps,
				      &srv->cgroups);
		}
		reap(rt, o);
		if ((err = dc_pfw_tick(&rt->out.w, now_ns())) &&
		    !write_failed) {
			write_failed = true;
			dc_err("%s: %s; the trace keeps what was written, "
			       "tracing stops",
			       path, strerror(-err));
			/* Tracing that cannot be written only costs. */
			if (!o->server)
				dc_detach_all(&rt->sess);
		}
		if (rt->profile && dc_profile_due(rt->profile, now_ns()) &&
		    ((err = dc_profile_flip(rt->profile)) ||
		     (err = dc_ringbuf_catch_up(rt)) ||
		     (err = dc_profile_write(rt->profile, now_ns(), false)))) {
			dc_err("reading the profile maps: %s", strerror(-err));
			break;
		}
		if (*child && waitpid(*child, &status, WNOHANG) == *child) {
			ret = dc_exit_code(status);
			*child = 0;
			break;
		}
		if (deadline && now_ns() >= deadline) {
			*timed_out = true;
			break;
		}
		if (o->npids && !command && !o->all &&
		    !dc_traced_alive(&rt->sess)) {
			if (!o->quiet)
				dc_info("every traced process has exited");
			break;
		}
	}
	if (stop_signal) {
		if (!o->quiet)
			dc_info("%s: stopping", strsignal(stop_signal));
		if (*child)
			ret = 128 + stop_signal;
		*child = 0; /* it keeps running, untraced */
	}
	return ret;
}

/* What the session takes of the command line; @exe is COMMAND's. */
static struct dc_session_opts session_opts(const struct dc_opts *o,
					   const char *exe, char **cmd)
{
	return (struct dc_session_opts){
		.layers = o->layers,
		.trace_all = o->all,
		.profile = o->profile,
		.server = o->server,
		.wrappers = !o->wrapper_uprobes,
		.min_dur_ns = o->min_dur_ns,
		.max_procs = o->max_procs,
		.ringbuf_size = o->ringbuf_size,
		.verifier_stats = o->verbose > 1,
		.command = exe,
		.argv = cmd,
	};
}

static int run(const struct dc_opts *o, const char *obj, char **cmd)
{
	struct dc_rt rt = {};
	struct dc_buf args = {};
	struct sigaction sa = {};
	char path[PATH_MAX] = "", sink_dir[PATH_MAX], date[64], exe[PATH_MAX];
	uint64_t deadline = 0, t_load, t_attach, t_ready;
	int err, fd = -1, status, ret = 1;
	struct dc_server srv = {};
	bool started = false;
	bool timed_out = false, ready_made = false;
	struct stat rst;
	int exec_fd = -1;
	pid_t child = 0;

	rt.sess.opt = session_opts(
	    o, cmd && !dc_which(cmd[0], exe, sizeof(exe)) ? exe : NULL, cmd);
	rt.out.dirfd = -1;
	/* Refused before anything is loaded or started. */
	if (o->ready_file && !lstat(o->ready_file, &rst)) {
		dc_err("--ready-file %s: exists; not touching it",
		       o->ready_file);
		return 1;
	}
	/* Every job's trace takes a descriptor; past the limit, jobs'
	 * events go to the server's own trace and that is reported. */
	if (o->server)
		dc_raise_nofile();
	t_load = now_ns();
	if (dc_sysenv_check() || dc_load(&rt.sess, obj) ||
	    dc_output_path(o->output,
			   cmd	       ? cmd[0]
			   : o->server ? "server"
				       : "trace",
			   path, sizeof(path)))
		goto cleanup;
	rt.ps.closes = rt.sess.o.closes;
	t_attach = now_ns();
	if (open_outputs(&rt, o, path, sink_dir, sizeof(sink_dir), &fd))
		goto cleanup;
	rt.out.owner = held_to(o, fd);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGQUIT, &sa, NULL);

	if (trace_pids(&rt, o))
		goto cleanup;
	/* Every libc call the runtime makes traps once libc is probed:
	 * the date and the mounts are read before attaching. */
	start_date(date, sizeof(date));
	rt.out.mounts = dc_mounts_json();
	if (!rt.out.mounts)
		dc_warn("cannot read the mounted file systems: %s; the report "
			"will not know files' file systems",
			strerror(errno));
	/* A server attaches the probes when a job starts. */
	if (o->server ? dc_attach_tracking(&rt.sess) : dc_attach_all(&rt.sess))
		goto cleanup;
	/* -p's processes were stopped at no mapping: their files now. */
	if (o->npids && dc_latelib_traced(&rt.sess))
		goto cleanup;
	t_ready = now_ns();
	/* Launched after attaching, so no breakpoint is installed in the
	 * copy of the runtime that is about to exec. */
	if (cmd && (child = launch(&rt, o, cmd, &exec_fd)) < 0) {
		child = 0;
		goto cleanup;
	}
	if (o->server && serve(&rt, o, &srv, path))
		goto cleanup;
	dc_rec_start(&args, &rt.sess, rt.out.mounts, cmd, o, date);
	dc_pfw_marker(&rt.out.w, "start", now_ns(), args.p);
	if (o->duration > 0)
		deadline = now_ns() + (uint64_t)(o->duration * 1e9);
	err = child ? dc_launch_release(child, exec_fd) : 0;
	exec_fd = -1;
	if (err) {
		/* Nothing ran: no trace is left behind. */
		dc_err("cannot run %s: %s; no trace written", cmd[0],
		       strerror(-err));
		ret = err == -ENOENT ? 127 : 126;
		goto cleanup;
	}
	/* Only once the command runs: whoever waits for this line may stop
	 * the runtime (test_e2e_modes does), and the command must go on. */
	if (!o->quiet)
		dc_info("tracing %s with %s (%zu probes; loaded in %.0f ms, "
			"attached in %.0f ms)",
			cmd	 ? cmd[0]
			: o->all ? "all processes"
				 : "the given pids",
			obj, rt.sess.nprobes, (t_attach - t_load) / 1e6,
			(t_ready - t_attach) / 1e6);
	if (o->profile &&
	    dc_profile_init(&rt.profile, &rt.sess, &rt.ps, &rt.filter, &rt.out,
			    (uint64_t)(o->interval * 1e9), now_ns()))
		goto cleanup;
	rt.cpu0_ns = cpu_ns();
	started = true;
	ret = 0;

	if (o->ready_file && !(err = dc_output_touch(o->ready_file)))
		ready_made = true;
	else if (o->ready_file) {
		dc_err("--ready-file %s: %s", o->ready_file,
		       err == -EEXIST ? "exists; not touching it"
				      : strerror(-err));
		goto cleanup;
	}
	ret = trace_loop(&rt, o, o->server ? &srv : NULL, path, deadline,
			 cmd != NULL, &child, &timed_out);
	ret = finish(&rt, o, path, ret);
	/* -d ends the tracing, not the command: it goes on untraced and
	 * its status is still ours. */
	if (timed_out && child) {
		if (!o->quiet)
			dc_info("--duration reached: %s goes on untraced",
				cmd[0]);
		while (waitpid(child, &status, 0) < 0 && errno == EINTR)
			;
		if (!ret)
			ret = dc_exit_code(status);
		child = 0;
	}
cleanup:
	if (exec_fd >= 0)
		close(exec_fd);
	if (child) {
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
	}
	dc_sinks_free(&rt.out);
	if (fd >= 0 && close(fd) && !ret) {
		dc_err("closing %s: %s", path, strerror(errno));
		ret = 1;
	}
	/* Where it was made: the path may lead elsewhere by now. */
	if (fd >= 0 && !started)
		unlinkat(rt.out.dirfd,
			 strrchr(path, '/') ? strrchr(path, '/') + 1 : path, 0);
	if (rt.out.dirfd >= 0)
		close(rt.out.dirfd);
	dc_server_close(&srv);
	if (ready_made)
		unlink(o->ready_file);
	if (rt.save && fclose(rt.save) && !ret) {
		dc_err("writing %s: %s", o->save, strerror(errno));
		ret = 1;
	}
	dc_profile_free(rt.profile);
	free(rt.out.mounts);
	dc_ringbuf_close(&rt);
	dc_unload(&rt.sess);
	dc_procs_free(&rt.ps);
	dc_buf_free(&args);
	return ret;
}

/* A standard descriptor the runtime was started without would be the
 * number of the next file it opens, the trace: its messages (fd 2) would
 * be written into it. Each closed one is /dev/null instead. */
static int std_fds(void)
{
	for (int fd = 0; fd < 3; fd++) {
		int n;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		/* The lowest number free: @fd itself. */
		n = open("/dev/null", O_RDWR);
		if (n < 0)
			return -errno;
		if (n != fd) {
			close(n);
			return -EBADF;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dc_opts o = { .ringbuf_size = 16 << 20,
			     .member_size = 1 << 20,
			     .level = 1,
			     .interval = 1 };
	char **cmd = NULL;
	int ret;

	if (std_fds())
		return 1;
	shrug_signals();
	dc_log_init(argv[0]);
	if (dc_cli_parse(argc, argv, &o))
		return 2;
	if (o.request)
		return dc_server_request(
		    o.socket ? o.socket : DC_DEFAULT_SOCKET, o.request);
	/* getopt stops at OBJECT, so a "--" after it is still here. */
	if (optind + 1 < argc)
		cmd = argv + optind + 1 + !strcmp(argv[optind + 1], "--");
	if (cmd && !*cmd) {
		dc_err("'--' must be followed by a COMMAND");
		return 2;
	}
	libbpf_set_print(o.verbose ? libbpf_log : libbpf_quiet);
	if (o.check) {
		struct dc_session sess = { .opt =
					       session_opts(&o, NULL, NULL) };

		ret = dc_check(&sess, argv[optind]);
	} else {
		ret = run(&o, argv[optind], cmd);
	}
	dc_cli_free(&o);
	return ret;
}
