// SPDX-License-Identifier: MIT
/* datacrumbs-runtime's command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "log.h"
#include "server.h"

static const char usage[] =
    "Usage: %1$s [OPTIONS] OBJECT [-- COMMAND [ARGS...]]\n"
    "       %1$s --server [OPTIONS] OBJECT\n"
    "       %1$s --check [OPTIONS] OBJECT  (loads it; attaches nothing)\n"
    "       %1$s --track PID | --untrack PID | --status | --follow-cgroup DIR\n"
    "Trace COMMAND and its descendants with an object from datacrumbs-gen.\n"
    "  -o, --output PATH        trace file (.pfw.gz, .pfw) or directory (.)\n"
    "      --force              replace an existing -o file of yours\n"
    "  -p, --pid PID, -a, --all trace PID and its children (repeatable), or "
    "all\n"
    "  -d, --duration SECONDS   stop tracing after SECONDS (COMMAND goes on)\n"
    "  -m, --mode MODE          trace (every call) or profile (kernel "
    "counters)\n"
    "  -i, --interval SECONDS   profile interval (default 1)\n"
    "  -l, --layers LIST        trace only these layers (e.g. POSIX,sys)\n"
    "      --min-duration SEC   drop calls shorter than SEC (counted)\n"
    "      --paths/--exclude-paths PREFIX   keep/drop calls on files under it\n"
    "      --server             a collector: --socket PATH (" DC_DEFAULT_SOCKET
    "),\n"
    "                           --ready-file PATH, --client-lib PATH\n"
    "      --ringbuf-size SIZE  (16M); --member-size SIZE (1M); --level N (1)\n"
    "      --max-procs N        processes traced at once (65536)\n"
    "      --wrappers tp|uprobe read(), write()...: at the syscall (tp) or "
    "not\n"
    "      --strict             exit with status 3 if any event was lost\n"
    "      --no-python-setup    leave COMMAND's PYTHONPATH as it is\n"
    "      --user USER          USER's trace: run COMMAND as, follow a cgroup "
    "for\n"
    "  -q, --quiet; -v/-vv libbpf's log/verifier stats; -h, --help; --version\n"
    "Exits with COMMAND's status. SIGINT or SIGTERM stops tracing cleanly.\n";

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

int dc_cli_parse(int argc, char **argv, struct dc_opts *o)
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
		O_NOPYSETUP,
		O_CHECK,
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
		{ "no-python-setup", no_argument, NULL, O_NOPYSETUP },
		{ "check", no_argument, NULL, O_CHECK },
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
		case O_CGROUP: {
			/* The server has a working directory of its own. */
			char cwd[PATH_MAX] = "";

			if (opt == O_CGROUP && *optarg != '/' &&
			    !getcwd(cwd, sizeof(cwd) - 1))
				return -errno;
			if (*cwd)
				strcat(cwd, "/");
			snprintf(o->request_buf, sizeof(o->request_buf),
				 "%s %s%s\n",
				 opt == O_TRACK	    ? "track"
				 : opt == O_UNTRACK ? "untrack"
				 : opt == O_STATUS  ? "status"
						    : "follow-cgroup",
				 cwd, opt == O_STATUS ? "" : optarg);
			o->request = o->request_buf;
			break;
		}
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
		case O_NOPYSETUP: o->no_python_setup = true; break;
		case O_CHECK: o->check = true; break;
		case O_USER:
			if (dc_user_parse(optarg, &o->user)) {
				dc_err("--user: no user '%s'", optarg);
				return -EINVAL;
			}
			break;
		case 'q': o->quiet = true; break;
		case 'v': o->verbose++; break;
		case 'h': printf(usage, dc_prog()); exit(0);
		case 'V': dc_version(); exit(0);
		default: fprintf(stderr, usage, dc_prog()); return -EINVAL;
		}
	}
	/* Root follows a cgroup for a job's user: its tasks of theirs, into
	 * traces of theirs. */
	if (o->request && o->user.set &&
	    !strncmp(o->request, "follow-cgroup ", 14)) {
		char path[sizeof(o->request_buf)];

		snprintf(path, sizeof(path), "%s", o->request + 14);
		if (snprintf(o->request_buf, sizeof(o->request_buf),
			     "follow-cgroup-as %u:%u %s", (unsigned)o->user.uid,
			     (unsigned)o->user.gid,
			     path) >= (int)sizeof(o->request_buf))
			return -ENAMETOOLONG;
	}
	if (o->request)
		return optind == argc ? 0 : -EINVAL;
	if (optind >= argc) {
		fprintf(stderr, usage, dc_prog());
		return -EINVAL;
	}
	if (o->check && (optind + 1 < argc || o->all || o->npids || o->server ||
			 o->output)) {
		dc_err("--check loads OBJECT and stops: no COMMAND, -p, --all, "
		       "--server or -o");
		return -EINVAL;
	}
	if (o->server && optind + 1 < argc) {
		dc_err("--server traces processes that join it, not a COMMAND");
		return -EINVAL;
	}
	/* A COMMAND may follow OBJECT without "--": an option put there by
	 * mistake would be run. */
	if (optind + 1 < argc && argv[optind + 1][0] == '-' &&
	    strcmp(argv[optind + 1], "--")) {
		dc_err("%s after %s: options go before OBJECT; a COMMAND after "
		       "'--'",
		       argv[optind + 1], argv[optind]);
		return -EINVAL;
	}
	if (optind + 1 == argc && !o->all && !o->npids && !o->server &&
	    !o->check) {
		dc_err("nothing to trace: give a COMMAND after '--', -p PID or "
		       "--all");
		return -EINVAL;
	}
	return 0;
}

void dc_cli_free(struct dc_opts *o)
{
	free(o->pids);
	free(o->paths);
	free(o->xpaths);
}
