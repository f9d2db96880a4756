/* SPDX-License-Identifier: MIT */
#ifndef DC_CLI_H
#define DC_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launch.h"

/* Exit status when --strict is given and events were lost. */
#define DC_EXIT_LOST 3

/* The command line, as parsed: read by every stage, changed by none. */
struct dc_opts {
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
	int verbose;	  /* -v: libbpf's log; -vv: and verifier statistics */
	const char *save; /* --save-records */
	bool wrapper_uprobes; /* --wrappers uprobe */
	bool force;	      /* --force: replace the user's own -o file */
	bool no_python_setup; /* leave COMMAND's PYTHONPATH as it is */
	bool check;	      /* --check: load OBJECT, say what it gets */
};

/* Fill @o (its defaults set by the caller) from @argv. 0, or -errno
 * after a message; --help and --version print and exit. */
int dc_cli_parse(int argc, char **argv, struct dc_opts *o);
void dc_cli_free(struct dc_opts *o);

#endif
