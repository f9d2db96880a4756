// SPDX-License-Identifier: MIT
/* datacrumbs-runtime: load a generated object, trace, write a DFTracer trace.
 */
#include <errno.h>
#include <bpf/bpf.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "elfsym.h"
#include "json.h"
#include "launch.h"
#include "log.h"
#include "profile.h"
#include "roles.h"
#include "runtime.h"
#include "server.h"
#include "sinks.h"
#include "sysenv.h"

#define EXIT_LOST 3 /* --strict and events were lost */

static const char usage[] =
    "Usage: %1$s [OPTIONS] OBJECT [-- COMMAND [ARGS...]]\n"
    "       %1$s --server [OPTIONS] OBJECT\n"
    "       %1$s --track PID | --untrack PID | --status | --follow-cgroup DIR\n"
    "Trace COMMAND and its descendants with an object from datacrumbs-gen.\n"
    "  -o, --output PATH        trace file (.pfw.gz, .pfw) or directory (.)\n"
    "      --force              replace an existing -o file of yours\n"
    "  -p, --pid PID            trace PID and its future children "
    "(repeatable)\n"
    "  -a, --all                trace every process on the machine\n"
    "  -d, --duration SECONDS   stop tracing after SECONDS (COMMAND goes on)\n"
    "  -m, --mode MODE          trace (every call) or profile (kernel "
    "counters)\n"
    "  -i, --interval SECONDS   profile interval (default 1)\n"
    "  -l, --layers LIST        trace only these layers (e.g. POSIX,sys)\n"
    "      --min-duration SEC   drop calls shorter than SEC (counted)\n"
    "      --paths/--exclude-paths PREFIX   keep/drop calls on files under it\n"
    "      --server             run as a collector: --socket PATH (default\n"
    "                           " DC_DEFAULT_SOCKET "), --ready-file PATH,\n"
    "                           --client-lib PATH (libdatacrumbs-client.so)\n"
    "      --ringbuf-size SIZE  (16M); --member-size SIZE (1M); --level N (1)\n"
    "      --max-procs N        processes traced at once (65536)\n"
    "      --wrappers tp|uprobe read(), write()...: at the syscall (tp) or "
    "not\n"
    "      --strict             exit with status 3 if any event was lost\n"
    "      --user USER          run COMMAND as USER, who then owns the trace\n"
    "  -q, --quiet; -v, --verbose (libbpf's log); -h, --help; --version\n"
    "Exits with COMMAND's status. SIGINT or SIGTERM stops tracing cleanly.\n";

struct opts {
	const char *output;
	int *pids;
	int npids;
	bool all;
	double duration;
	size_t ringbuf_size;
	size_t member_size;
	unsigned long max_procs;
	int level;
	bool strict;
	bool profile;
	double interval;
	bool server;
	const char *socket;
	const char *ready_file;
	const char *client_lib;
	const char *request; /* client mode: the line sent to the server */
	char request_buf[4200];
	const char *layers;
	uint64_t min_dur_ns;
	const char **paths, **xpaths;
	int npaths, nxpaths;
	struct dc_user user;
	bool quiet;
	bool verbose;
	const char *save;     /* --save-records */
	bool wrapper_uprobes; /* --wrappers uprobe */
	bool force;	      /* --force: replace the user's own -o file */
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
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

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long long v;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'G':
	case 'g':
		v <<= 10;
		/* fallthrough */
	case 'M':
	case 'm':
		v <<= 10;
		/* fallthrough */
	case 'K':
	case 'k':
		v <<= 10;
		end++;
		break;
	}
	if (*end || !v)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	enum {
		O_RINGBUF = 256,
		O_MEMBER,
		O_LEVEL,
		O_STRICT,
		O_SAVE,
		O_MINDUR,
		O_PATHS,
		O_XPATHS,
		O_SERVER,
		O_SOCKET,
		O_READY,
		O_CLIENTLIB,
		O_TRACK,
		O_UNTRACK,
		O_STATUS,
		O_CGROUP,
		O_USER,
		O_MAXPROCS,
		O_WRAPPERS,
		O_FORCE,
	};
	static const struct option lopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "pid", required_argument, NULL, 'p' },
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "mode", required_argument, NULL, 'm' },
		{ "interval", required_argument, NULL, 'i' },
		{ "layers", required_argument, NULL, 'l' },
		{ "min-duration", required_argument, NULL, O_MINDUR },
		{ "paths", required_argument, NULL, O_PATHS },
		{ "exclude-paths", required_argument, NULL, O_XPATHS },
		{ "server", no_argument, NULL, O_SERVER },
		{ "socket", required_argument, NULL, O_SOCKET },
		{ "ready-file", required_argument, NULL, O_READY },
		{ "client-lib", required_argument, NULL, O_CLIENTLIB },
		{ "track", required_argument, NULL, O_TRACK },
		{ "untrack", required_argument, NULL, O_UNTRACK },
		{ "status", no_argument, NULL, O_STATUS },
		{ "follow-cgroup", required_argument, NULL, O_CGROUP },
		{ "ringbuf-size", required_argument, NULL, O_RINGBUF },
		{ "member-size", required_argument, NULL, O_MEMBER },
		{ "level", required_argument, NULL, O_LEVEL },
		{ "strict", no_argument, NULL, O_STRICT },
		{ "save-records", required_argument, NULL, O_SAVE },
		{ "user", required_argument, NULL, O_USER },
		{ "max-procs", required_argument, NULL, O_MAXPROCS },
		{ "wrappers", required_argument, NULL, O_WRAPPERS },
		{ "force", no_argument, NULL, O_FORCE },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "+o:p:ad:m:i:l:qvh", lopts,
				  NULL)) != -1) {
		switch (opt) {
		case 'o': o->output = optarg; break;
		case 'p': {
			long pid = strtol(optarg, &end, 10);
			int *v;

			if (*end || pid <= 0 || pid > INT_MAX) {
				dc_err("--pid: '%s' is not a process id",
				       optarg);
				return -EINVAL;
			}
			v = realloc(o->pids, (o->npids + 1) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			o->pids = v;
			o->pids[o->npids++] = pid;
			break;
		}
		case 'a': o->all = true; break;
		case 'd':
			o->duration = strtod(optarg, &end);
			if (*end || o->duration <= 0) {
				dc_err("--duration: '%s' is not a number of "
				       "seconds",
				       optarg);
				return -EINVAL;
			}
			break;
		case 'm':
			if (strcmp(optarg, "trace") &&
			    strcmp(optarg, "profile")) {
				dc_err("--mode: '%s' is not trace or profile",
				       optarg);
				return -EINVAL;
			}
			o->profile = !strcmp(optarg, "profile");
			break;
		case 'i':
			o->interval = strtod(optarg, &end);
			if (*end || o->interval < 0.01 || o->interval > 86400) {
				dc_err("--interval: '%s' is not 0.01 to 86400 "
				       "seconds",
				       optarg);
				return -EINVAL;
			}
			break;
		case 'l': o->layers = optarg; break;
		case O_MINDUR: {
			double sec = strtod(optarg, &end);

			if (*end || sec < 0 || sec > 3600) {
				dc_err("--min-duration: '%s' is not 0 to 3600 "
				       "seconds",
				       optarg);
				return -EINVAL;
			}
			o->min_dur_ns = sec * 1e9;
			break;
		}
		case O_PATHS:
		case O_XPATHS: {
			const char ***v =
			    opt == O_PATHS ? &o->paths : &o->xpaths;
			int *n = opt == O_PATHS ? &o->npaths : &o->nxpaths;
			const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

			if (!nv)
				return -ENOMEM;
			nv[(*n)++] = optarg;
			*v = nv;
			break;
		}
		case O_SERVER: o->server = true; break;
		case O_SOCKET: o->socket = optarg; break;
		case O_READY: o->ready_file = optarg; break;
		case O_CLIENTLIB: o->client_lib = optarg; break;
		case O_TRACK:
		case O_UNTRACK:
		case O_STATUS:
		case O_CGROUP:
			snprintf(o->request_buf, sizeof(o->request_buf),
				 "%s %s\n",
				 opt == O_TRACK	    ? "track"
				 : opt == O_UNTRACK ? "untrack"
				 : opt == O_STATUS  ? "status"
						    : "follow-cgroup",
				 opt == O_STATUS ? "" : optarg);
			o->request = o->request_buf;
			break;
		case O_RINGBUF:
			/* The kernel takes at most 2 GiB and would answer
			 * more with a verifier log; 1 GiB is plenty. */
			if (parse_size(optarg, &o->ringbuf_size) ||
			    (o->ringbuf_size & (o->ringbuf_size - 1)) ||
			    o->ringbuf_size < 4096 ||
			    o->ringbuf_size > (1ul << 30)) {
				dc_err("--ringbuf-size: '%s' is not a power of "
				       "two from 4K to 1G",
				       optarg);
				return -EINVAL;
			}
			break;
		case O_MEMBER:
			if (parse_size(optarg, &o->member_size) ||
			    o->member_size > (1u << 30)) {
				dc_err("--member-size: '%s' is not a size up "
				       "to 1G",
				       optarg);
				return -EINVAL;
			}
			break;
		case O_LEVEL:
			o->level = strtol(optarg, &end, 10);
			if (*end || o->level < 1 || o->level > 9) {
				dc_err("--level: '%s' is not 1-9", optarg);
				return -EINVAL;
			}
			break;
		case O_STRICT: o->strict = true; break;
		case O_SAVE: o->save = optarg; break;
		case O_MAXPROCS:
			o->max_procs = strtoul(optarg, &end, 10);
			if (*end || o->max_procs < 1 ||
			    o->max_procs > (1ul << 24)) {
				dc_err("--max-procs: '%s' is not 1 to 16M",
				       optarg);
				return -EINVAL;
			}
			break;
		case O_WRAPPERS:
			if (strcmp(optarg, "tp") && strcmp(optarg, "uprobe")) {
				dc_err("--wrappers: '%s' is not tp or uprobe",
				       optarg);
				return -EINVAL;
			}
			o->wrapper_uprobes = !strcmp(optarg, "uprobe");
			break;
		case O_FORCE: o->force = true; break;
		case O_USER:
			if (dc_user_parse(optarg, &o->user)) {
				dc_err("--user: no user '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose = true; break;
		case 'h': printf(usage, dc_prog()); exit(0);
		case 'V': dc_version(); exit(0);
		default: fprintf(stderr, usage, dc_prog()); return -EINVAL;
		}
	}
	if (o->request)
		return optind == argc ? 0 : -EINVAL;
	if (optind >= argc) {
		fprintf(stderr, usage, dc_prog());
		return -EINVAL;
	}
	if (o->server && optind + 1 < argc) {
		dc_err("--server traces processes that join it, not a COMMAND");
		return -EINVAL;
	}
	if (optind + 1 == argc && !o->all && !o->npids && !o->server) {
		dc_err("nothing to trace: give a COMMAND after '--', -p PID or "
		       "--all");
		return -EINVAL;
	}
	return 0;
}

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* Trace path: -o as a file, or NAME-HOST-RUNID.pfw.gz in -o's directory. */
static int output_path(const char *opt, const char *name, char *out,
		       size_t size)
{
	char host[64] = "host", stamp[32];
	const char *dir = opt ? opt : ".";
	const char *base = strrchr(name, '/');
	time_t t = time(NULL);
	struct stat st;

	if (opt && (has_suffix(opt, ".pfw") || has_suffix(opt, ".pfw.gz"))) {
		snprintf(out, size, "%s", opt);
		return 0;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		dc_err("-o %s: not a directory, nor a name ending in .pfw or "
		       ".pfw.gz",
		       dir);
		return -ENOTDIR;
	}
	gethostname(host, sizeof(host) - 1);
	host[strcspn(host, ".")] = '\0';
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%S", localtime(&t));
	if (snprintf(out, size, "%s/%s-%s-%s-%d.pfw.gz", dir,
		     base ? base + 1 : name, host, stamp,
		     getpid()) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

static void start_date(char *date, size_t size)
{
	time_t t = time(NULL);

	strftime(date, size, "%Y-%m-%dT%H:%M:%S%z", localtime(&t));
}

/* Attached wrappers traced at sys_enter (@via_sys), or uprobes left on
 * an instruction the kernel single-steps. */
static size_t count_probes(const struct dc_rt *rt, bool via_sys)
{
	size_t n = 0;

	for (size_t i = 0; i < rt->nprobes; i++)
		n += rt->probes[i].attached &&
		     (via_sys ? rt->probes[i].via_sys : rt->probes[i].slow);
	return n;
}

static void start_args(struct dc_buf *b, struct dc_rt *rt, char **cmd,
		       const struct opts *o, const char *date)
{
	size_t attached = 0;

	/* A server attaches them with its first job: it counts those it
	 * will attach. */
	for (size_t i = 0; i < rt->nprobes; i++)
		attached += o->server ? !rt->probes[i].disabled
				      : rt->probes[i].attached;
	dc_buf_adds(b, "\"cmd\":");
	if (cmd) {
		struct dc_buf c = {};

		for (int i = 0; cmd[i]; i++)
			dc_buf_addf(&c, "%s%s", i ? " " : "", cmd[i]);
		dc_json_str(b, c.p ? c.p : "", c.len);
		dc_buf_free(&c);
	} else {
		dc_buf_adds(b, o->all ? "\"--all\"" : "\"--pid\"");
	}
	dc_buf_addf(b,
		    ",\"version\":\"%s\",\"date\":\"%s\",\"mode\":\"%s\","
		    "\"probes\":%zu",
		    DC_VERSION, date, o->profile ? "profile" : "trace",
		    attached);
	if (o->profile)
		dc_buf_addf(b, ",\"interval_us\":%llu",
			    (unsigned long long)(o->interval * 1e6));
	dc_buf_addf(b, ",\"uprobes\":\"%s\"",
		    rt->session ? "session" : "pairs");
	dc_buf_addf(b, ",\"wrappers_at_syscalls\":%zu,\"slow_uprobes\":%zu",
		    count_probes(rt, true), count_probes(rt, false));
}

/* Report losses; returns how many events were lost in all. */
/* Calls written, in every trace of the run. */
static uint64_t calls(const struct dc_rt *rt)
{
	uint64_t n = 0;

	for (size_t i = 0; i < rt->nprobes; i++)
		n += rt->probes[i].calls;
	return n;
}

static uint64_t end_args(struct dc_buf *b, struct dc_rt *rt, bool quiet)
{
	uint64_t by_reason[DC_LOSS_NR] = {}, total = 0, untraced, unmatched;

	dc_read_losses(rt);
	for (size_t i = 0; i < rt->nprobes; i++) {
		const struct dc_probe *p = &rt->probes[i];

		for (int r = 0; r < DC_LOSS_NR; r++) {
			if (!p->lost[r])
				continue;
			by_reason[r] += p->lost[r];
			/* Calls dropped by --min-duration were asked for. */
			if (r == DC_SKIP_SHORT)
				continue;
			total += p->lost[r];
			if (!quiet)
				dc_warn("lost %llu %s %s events (%s)",
					(unsigned long long)p->lost[r],
					p->d->layer, p->d->name,
					dc_loss_name(r));
		}
	}
	/* -q shortens the list, never hides that events were lost. */
	if (quiet && total)
		dc_warn("lost %llu events (per probe and reason in the "
			"trace's end record)",
			(unsigned long long)total);
	/* A wrapper's call not recognised is a call lost. */
	unmatched = dc_limit(rt, DC_LIMIT_VMA);
	if (unmatched)
		dc_warn("lost %llu calls of syscall wrappers: their syscalls "
			"could not be matched to them",
			(unsigned long long)unmatched);
	total += unmatched;
	dc_buf_addf(b, "\"num_events\":%llu,\"dropped\":%llu",
		    (unsigned long long)calls(rt), (unsigned long long)total);
	for (int r = 0; r < DC_LOSS_NR; r++)
		dc_buf_addf(b, ",\"%s\":%llu", dc_loss_name(r),
			    (unsigned long long)by_reason[r]);
	dc_buf_addf(b, ",\"filtered_paths\":%llu,\"bad_records\":%llu",
		    (unsigned long long)rt->w.filtered,
		    (unsigned long long)rt->bad_records);
	/* Not events, but a hole all the same: --strict counts it. */
	untraced = dc_untraced_procs(rt);
	dc_buf_addf(b, ",\"untraced_procs\":%llu",
		    (unsigned long long)untraced);
	if (untraced)
		dc_warn("%llu processes were not traced: more than --max-procs "
			"were traced at once",
			(unsigned long long)untraced);
	dc_buf_addf(b, ",\"unmatched_wrappers\":%llu",
		    (unsigned long long)unmatched);
	dc_withheld_args(&rt->held, b);
	/* Per probe, so a reader can add lost to written for each call. */
	dc_buf_adds(b, ",\"lost\":{");
	for (size_t i = 0, n = 0; i < rt->nprobes; i++) {
		const struct dc_probe *p = &rt->probes[i];
		uint64_t sum = 0;

		for (int r = 0; r < DC_LOSS_NR; r++)
			sum += r == DC_SKIP_SHORT ? 0 : p->lost[r];
		if (!sum)
			continue;
		dc_buf_addf(b, "%s\"%s/%s\":%llu", n++ ? "," : "", p->d->layer,
			    p->d->name, (unsigned long long)sum);
	}
	dc_buf_adds(b, "}");
	return total;
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
	uint64_t cpu = cpu_ns() - rt->cpu0_ns - rt->detach_cpu_ns;
	struct stat st;
	bool *seen;

	dc_info("trace: %s (%llu events, %llu lost, %lld bytes)", path,
		(unsigned long long)rt->w.calls, (unsigned long long)lost,
		stat(path, &st) ? -1LL : (long long)st.st_size);
	/* What tracing cost this machine in user space, per event. */
	dc_info("runtime CPU while tracing: %.3f s, %llu ns per event; "
		"detaching took %.2f s",
		cpu / 1e9,
		(unsigned long long)(rt->w.calls ? cpu / rt->w.calls : 0),
		rt->detach_ns / 1e9);
	/* Per layer, in the order layers first appear; O(probes x layers),
	 * as there can be thousands of probes. */
	seen = calloc(rt->nprobes, sizeof(*seen));
	for (size_t i = 0; seen && i < rt->nprobes; i++) {
		uint64_t n = 0;

		if (seen[i])
			continue;
		for (size_t j = i; j < rt->nprobes; j++)
			if (!seen[j] && !strcmp(rt->probes[j].d->layer,
						rt->probes[i].d->layer)) {
				n += rt->probes[j].calls;
				seen[j] = true;
			}
		dc_info("  %-8s %10llu events", rt->probes[i].d->layer,
			(unsigned long long)n);
	}
	free(seen);
}

/* A process gone: its fds' generations leave the kernel's map too. */
static void forget_fdgens(struct dc_proc *p, void *arg)
{
	struct bpf_map *m = arg;

	dc_map_foreach (&p->fdgens, i) {
		struct {
			__u32 pid;
			__s32 fd;
		} key = { p->pid, (__s32)(uint32_t)p->fdgens.keys[i] };

		bpf_map_delete_elem(bpf_map__fd(m), &key);
	}
}

/* Every few seconds, free processes long gone (long runs, servers). */
static void reap(struct dc_rt *rt, const struct opts *o)
{
	static uint64_t last;
	uint64_t now = now_ns(), age = 5000000000ull;

	if (now - last < 1000000000ull)
		return;
	last = now;
	if (o->profile && o->interval * 3e9 > age)
		age = o->interval * 3e9;
	dc_procs_reap(&rt->ps, now, age, forget_fdgens, rt->o.maps.fdgen);
}

/* A new file only: whatever is at @path is someone's. */
static int touch(const char *path)
{
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* A statically linked command has no shared library for the object's
 * uprobes to sit in: say so, or an empty layer would go unexplained. */
static void hint_static(const struct dc_rt *rt, const char *cmd)
{
	char path[PATH_MAX] = "";
	const char *lib = NULL, *dirs = getenv("PATH");

	for (size_t i = 0; i < rt->nprobes && !lib; i++)
		if (rt->probes[i].d->mech == DC_MECH_UPROBE &&
		    strstr(rt->probes[i].d->path, ".so"))
			lib = rt->probes[i].d->target;
	if (!lib)
		return;
	if (strchr(cmd, '/')) {
		snprintf(path, sizeof(path), "%s", cmd);
	} else {
		for (const char *d = dirs ? dirs : "/usr/bin:/bin"; *d;) {
			size_t k = strcspn(d, ":");

			snprintf(path, sizeof(path), "%.*s/%s", (int)k, d, cmd);
			if (!access(path, X_OK))
				break;
			path[0] = '\0';
			d += k + (d[k] == ':');
		}
	}
	if (path[0] && dc_elf_is_static(path) == 1)
		dc_warn("%s is statically linked: the uprobes on %s and other "
			"shared libraries never fire in it, only its syscalls "
			"are traced (datacrumbs-explore %s probes its own "
			"functions)",
			cmd, lib, path);
}

/* Who asked for the trace: the user behind sudo, else the real user. */
static void asker(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	char *end;
	unsigned long v;

	*uid = getuid();
	*gid = getgid();
	if (!u || !g || *uid != 0)
		return;
	v = strtoul(u, &end, 10);
	if (*u && !*end && v < (uid_t)-1)
		*uid = v;
	v = strtoul(g, &end, 10);
	if (*g && !*end && v < (gid_t)-1)
		*gid = v;
}

/*
 * The trace file. Root may write where users can (their directories),
 * so a trace is a new file (O_EXCL), never reached through a symbolic
 * link; --force replaces only a plain file of the user who asked. A
 * trace has one writer: the flock is held for the runtime's life. It
 * belongs to whom it traces: --user, the user behind sudo, or the
 * owner of the first -p process.
 */
static int open_trace(const char *path, const struct opts *o)
{
	int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	uid_t uid = o->user.uid, me;
	gid_t gid = o->user.gid, my_gid;
	bool existed = false;
	char proc[32];
	struct stat st;
	int fd;

	asker(&me, &my_gid);
	fd = open(path, flags | O_CREAT | O_EXCL, 0640);
	if (fd < 0 && errno == EEXIST && !lstat(path, &st) &&
	    S_ISREG(st.st_mode) && o->force) {
		fd = open(path, flags);
		existed = fd >= 0;
	}
	if (fd < 0) {
		int e = errno;

		if (e == EEXIST && !lstat(path, &st) && S_ISLNK(st.st_mode))
			e = ELOOP;
		if (e == ELOOP)
			dc_err("cannot create %s: it is a symbolic link", path);
		else if (e == EEXIST && S_ISREG(st.st_mode) && st.st_nlink == 1)
			dc_err(
			    "%s: exists; --force replaces a file of your own",
			    path);
		else if (e == EEXIST)
			dc_err("%s: not a plain file of one link; not writing "
			       "over it",
			       path);
		else
			dc_err("cannot create %s: %s", path, strerror(e));
		return -1;
	}
	if (existed &&
	    (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
		dc_err("%s: not a plain file of one link; not writing over it",
		       path);
		close(fd);
		return -1;
	}
	if (existed && st.st_uid != me) {
		dc_err("%s: belongs to uid %u, not to you (uid %u); not "
		       "replacing it",
		       path, (unsigned)st.st_uid, (unsigned)me);
		close(fd);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		dc_err("%s: another datacrumbs-runtime is writing it", path);
		close(fd);
		return -1;
	}
	if (existed && (ftruncate(fd, 0) || fchmod(fd, 0640))) {
		dc_err("cannot replace %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!o->user.set) {
		uid = me;
		gid = my_gid;
	}
	if (!o->user.set && !getenv("SUDO_UID") && o->npids) {
		snprintf(proc, sizeof(proc), "/proc/%d", o->pids[0]);
		if (!stat(proc, &st)) {
			uid = st.st_uid;
			gid = st.st_gid;
		}
	}
	if (fchown(fd, uid, gid))
		dc_warn("%s: cannot give it to uid %u: %s", path, uid,
			strerror(errno));
	return fd;
}

/* Files the process has open so far are named from /proc now: records
 * reach the runtime in batches, possibly after the process is gone. A
 * launched command is still stopped before its exec (@exec_next): the
 * runtime's own descriptors it holds then close at the exec. */
static int trace_pid(struct dc_rt *rt, int pid, bool exec_next)
{
	struct dc_proc *p = dc_proc_get(&rt->ps, pid);

	if (p) {
		dc_fd_snapshot(&rt->ps, p, exec_next);
		p->exec_pending = exec_next;
		if (!exec_next)
			dc_proc_facts(p);
	}
	return dc_trace_pid(rt, pid);
}

/* Server mode: wait for events or a request; 2 when a request is there. */
static int wait_any(struct dc_rt *rt, int lfd)
{
	struct pollfd p[2] = { { ring_buffer__epoll_fd(rt->rb), POLLIN, 0 },
			       { lfd, POLLIN, 0 } };
	int n = poll(p, 2, 100);

	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	/* Consume even without a wakeup: the BPF side batches them. */
	n = ring_buffer__consume(rt->rb);
	if (n < 0)
		return n;
	return p[1].revents & POLLIN ? 2 : 0;
}

/* After the traced work: take what is in flight, close the trace. */
static int finish(struct dc_rt *rt, const struct opts *o, const char *path,
		  int ret)
{
	uint64_t lost, t0 = now_ns(), cpu0 = cpu_ns();
	struct dc_buf args = {};
	int err;

	/* No new events past this point; then take everything in flight.
	 * Detaching is the kernel's work, not a cost per event. */
	dc_detach_all(rt);
	rt->detach_ns = now_ns() - t0;
	rt->detach_cpu_ns = cpu_ns() - cpu0;
	dc_ringbuf_drain(rt);
	if (rt->profile && dc_profile_tick(rt, now_ns(), true))
		dc_err("reading the profile maps failed; counters are missing");
	lost = end_args(&args, rt, o->quiet);
	dc_buf_add(&args, "", 1);
	if (rt->server)
		dc_info("closed %zu job traces", dc_sinks_close(rt, args.p));
	dc_pfw_marker(&rt->w, "end", now_ns(), args.p);
	dc_buf_free(&args);
	err = dc_pfw_close(&rt->w);
	if (err) {
		dc_err("writing %s failed: %s; the trace holds what was "
		       "written before",
		       path, strerror(-err));
		if (!ret)
			ret = 1;
	}
	dc_withheld_say(&rt->held, path);
	if (!o->quiet)
		summary(rt, path, lost);
	if ((lost || dc_untraced_procs(rt)) && o->strict && !ret)
		ret = EXIT_LOST;
	return ret;
}

static int run(const struct opts *o, const char *obj, char **cmd)
{
	struct dc_rt rt = {};
	struct dc_buf args = {};
	struct sigaction sa = {};
	struct dc_pfw_opts wo;
	char path[PATH_MAX] = "", sink_dir[PATH_MAX], date[64];
	uint64_t deadline = 0, t_load, t_attach, t_ready;
	int err, fd = -1, lfd = -1, status, ret = 1;
	bool writer = false, started = false, write_failed = false;
	bool timed_out = false, ready_made = false;
	struct stat rst;
	int exec_fd = -1;
	pid_t child = 0;

	rt.layers = o->layers;
	rt.min_dur_ns = o->min_dur_ns;
	rt.max_procs = o->max_procs;
	rt.server = o->server;
	rt.wrappers = !o->wrapper_uprobes;
	rt.trace_owner = o->user.set ? o->user.uid : 0;
	/* Refused before anything is loaded or started. */
	if (o->ready_file && !lstat(o->ready_file, &rst)) {
		dc_err("--ready-file %s: exists; not touching it",
		       o->ready_file);
		return 1;
	}
	t_load = now_ns();
	if (dc_sysenv_check() ||
	    dc_load(&rt, obj, o->all, o->profile, o->ringbuf_size) ||
	    output_path(o->output,
			cmd	    ? cmd[0]
			: o->server ? "server"
				    : "trace",
			path, sizeof(path)))
		goto cleanup;
	t_attach = now_ns();
	fd = open_trace(path, o);
	if (fd < 0)
		goto cleanup;
	wo = (struct dc_pfw_opts){ .compress = dc_pfw_compressed(path),
				   .level = o->level,
				   .member_size = o->member_size,
				   .interval_ns = 1000000000ull };
	writer = !dc_pfw_open(&rt.w, fd, &rt.ps, &wo);
	rt.wo = wo;
	rt.w_path = path;
	rt.server = o->server;
	/* Job traces go beside the server's own. */
	snprintf(sink_dir, sizeof(sink_dir), "%s", path);
	if (strrchr(sink_dir, '/'))
		*strrchr(sink_dir, '/') = '\0';
	else
		strcpy(sink_dir, ".");
	rt.sink_dir = sink_dir;
	rt.w.paths = o->paths;
	rt.w.npaths = o->npaths;
	rt.w.xpaths = o->xpaths;
	rt.w.nxpaths = o->nxpaths;
	if (!writer || dc_ringbuf_open(&rt)) {
		dc_err("cannot set up the trace writer");
		goto cleanup;
	}
	if (o->save && !(rt.save = fopen(o->save, "wxe"))) {
		dc_err("cannot create %s: %s", o->save, strerror(errno));
		goto cleanup;
	}
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	for (int i = 0; i < o->npids; i++) {
		if (kill(o->pids[i], 0) && errno == ESRCH) {
			dc_err("--pid %d: no such process", o->pids[i]);
			goto cleanup;
		}
		if ((err = trace_pid(&rt, o->pids[i], false))) {
			dc_err("cannot register pid %d: %s", o->pids[i],
			       strerror(-err));
			goto cleanup;
		}
	}
	/* Every libc call the runtime makes traps once libc is probed:
	 * the date is read before attaching. */
	start_date(date, sizeof(date));
	/* A server attaches the probes when a job starts. */
	if (o->server ? dc_attach_tracking(&rt) : dc_attach_all(&rt))
		goto cleanup;
	t_ready = now_ns();
	/* Launched after attaching, so no breakpoint is installed in the
	 * copy of the runtime that is about to exec. */
	if (cmd) {
		hint_static(&rt, cmd[0]);
		child = dc_launch_stopped(cmd, &o->user, &exec_fd);
		if (child < 0) {
			dc_err("cannot start %s: %s", cmd[0], strerror(-child));
			child = 0;
			goto cleanup;
		}
		if ((err = trace_pid(&rt, child, true))) {
			dc_err("cannot register pid %d: %s", child,
			       strerror(-err));
			goto cleanup;
		}
	}
	if (o->server) {
		const char *lib = o->client_lib ? o->client_lib
				  : !access(DC_BUILD_CLIENT_LIB, R_OK)
				      ? DC_BUILD_CLIENT_LIB
				      : DC_INSTALL_CLIENT_LIB;
		const char *sock = o->socket ? o->socket : DC_DEFAULT_SOCKET;

		if (dc_server_attach_client(&rt, lib))
			goto cleanup;
		lfd = dc_server_listen(sock);
		if (lfd < 0) {
			dc_err("--socket %s: %s", sock,
			       lfd == -EEXIST ? "exists and is not a socket; "
						"not removing it"
			       : lfd == -EADDRINUSE
				   ? "another datacrumbs-runtime --server "
				     "is listening there"
				   : strerror(-lfd));
			goto cleanup;
		}
	}
	start_args(&args, &rt, cmd, o, date);
	dc_buf_add(&args, "", 1);
	dc_pfw_marker(&rt.w, "start", now_ns(), args.p);
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
			obj, rt.nprobes, (t_attach - t_load) / 1e6,
			(t_ready - t_attach) / 1e6);
	if (o->profile &&
	    dc_profile_init(&rt, (uint64_t)(o->interval * 1e9), now_ns()))
		goto cleanup;
	rt.cpu0_ns = cpu_ns();
	started = true;
	ret = 0;

	if (o->ready_file && !(err = touch(o->ready_file)))
		ready_made = true;
	else if (o->ready_file) {
		dc_err("--ready-file %s: %s", o->ready_file,
		       err == -EEXIST ? "exists; not touching it"
				      : strerror(-err));
		goto cleanup;
	}
	while (!stop_signal) {
		err = lfd >= 0 ? wait_any(&rt, lfd) : dc_ringbuf_poll(&rt, 100);
		if (err < 0) {
			dc_err("reading the ring buffer: %s", strerror(-err));
			break;
		}
		if (err == 2)
			dc_server_serve(&rt, lfd, path);
		if (o->server) {
			dc_server_jobs(&rt, now_ns());
			dc_sinks_tick(&rt, now_ns());
		}
		reap(&rt, o);
		if ((err = dc_pfw_tick(&rt.w, now_ns())) && !write_failed) {
			write_failed = true;
			dc_err("%s: %s; the trace keeps what was written, "
			       "tracing stops",
			       path, strerror(-err));
			/* Tracing that cannot be written only costs. */
			if (!o->server)
				dc_detach_all(&rt);
		}
		if (rt.profile &&
		    (err = dc_profile_tick(&rt, now_ns(), false))) {
			dc_err("reading the profile maps: %s", strerror(-err));
			break;
		}
		if (child && waitpid(child, &status, WNOHANG) == child) {
			ret = dc_exit_code(status);
			child = 0;
			break;
		}
		if (deadline && now_ns() >= deadline) {
			timed_out = true;
			break;
		}
		if (o->npids && !cmd && !o->all && !dc_traced_alive(&rt)) {
			if (!o->quiet)
				dc_info("every traced process has exited");
			break;
		}
	}
	if (stop_signal) {
		if (!o->quiet)
			dc_info("%s: stopping", strsignal(stop_signal));
		if (child)
			ret = 128 + stop_signal;
		child = 0; /* it keeps running, untraced */
	}
	ret = finish(&rt, o, path, ret);
	writer = false;
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
	if (writer)
		dc_gz_close(&rt.w.gz);
	if (fd >= 0 && close(fd) && !ret) {
		dc_err("closing %s: %s", path, strerror(errno));
		ret = 1;
	}
	if (fd >= 0 && !started)
		unlink(path);
	if (lfd >= 0) {
		close(lfd);
		unlink(o->socket ? o->socket : DC_DEFAULT_SOCKET);
	}
	if (ready_made)
		unlink(o->ready_file);
	if (rt.save && fclose(rt.save) && !ret) {
		dc_err("writing %s: %s", o->save, strerror(errno));
		ret = 1;
	}
	dc_profile_free(&rt);
	dc_unload(&rt);
	dc_procs_free(&rt.ps);
	dc_buf_free(&args);
	return ret;
}

int main(int argc, char **argv)
{
	struct opts o = { .ringbuf_size = 16 << 20,
			  .member_size = 1 << 20,
			  .level = 1,
			  .interval = 1 };
	char **cmd = NULL;
	int ret;

	dc_log_init(argv[0]);
	if (parse_args(argc, argv, &o))
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
	ret = run(&o, argv[optind], cmd);
	free(o.pids);
	free(o.paths);
	free(o.xpaths);
	return ret;
}
