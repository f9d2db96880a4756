// SPDX-License-Identifier: MIT
/* datacrumbs-explore: libraries and binaries -> probe specs. */
#include <errno.h>
#include <getopt.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore.h"
#include "fileio.h"
#include "log.h"

static const char usage[] =
    "Usage: %s [OPTIONS] TARGET...\n"
    "\n"
    "Write probe specs for the functions of libraries or programs (a path,\n"
    "a soname like libhdf5.so, or a stem like hdf5), ready for "
    "datacrumbs-gen.\n"
    "\n"
    "  -H, --header FILE     read prototypes from FILE (repeatable): "
    "arguments\n"
    "                        get roles (path, fd, count, offset, handle ...)\n"
    "  -I DIR, -D NAME[=V]   passed to clang when parsing headers\n"
    "  -m, --match REGEX     keep functions with a name matching REGEX\n"
    "  -x, --exclude REGEX   leave out functions matching REGEX\n"
    "  -l, --layer NAME      trace category (default: HDF5, MPIIO, "
    "POSIX/STDIO\n"
    "                        for known libraries, else app)\n"
    "  -a, --all             every function, not the curated set of a known "
    "library\n"
    "  -c, --check           attach every probe now; leave out what the kernel "
    "refuses\n"
    "  -u, --usdt            also list the targets' USDT probes (any "
    "provider)\n"
    "  -k, --kernel          list syscalls and I/O tracepoints (no TARGET)\n"
    "  -o, --output FILE     write to FILE (default: standard output)\n"
    "  -h, --help            show this help; --version\n";

struct opts {
	const char **headers;
	int nheaders;
	const char **cargs;
	int ncargs;
	struct xp_filter filter;
	bool check;
	bool usdt;
	bool kernel;
	const char *output;
};

static int push(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
	static const struct option lopts[] = {
		{ "header", required_argument, NULL, 'H' },
		{ "match", required_argument, NULL, 'm' },
		{ "exclude", required_argument, NULL, 'x' },
		{ "layer", required_argument, NULL, 'l' },
		{ "all", no_argument, NULL, 'a' },
		{ "check", no_argument, NULL, 'c' },
		{ "usdt", no_argument, NULL, 'u' },
		{ "kernel", no_argument, NULL, 'k' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	int opt, err = 0;

	while (!err && (opt = getopt_long(argc, argv, "H:I:D:m:x:l:acukho:",
					  lopts, NULL)) != -1) {
		switch (opt) {
		case 'H': err = push(&o->headers, &o->nheaders, optarg); break;
		case 'I':
		case 'D': {
			char *a = malloc(strlen(optarg) + 3);

			if (!a)
				return -ENOMEM;
			sprintf(a, "-%c%s", opt, optarg);
			err = push(&o->cargs, &o->ncargs, a);
			break;
		}
		case 'm': o->filter.match = optarg; break;
		case 'x': o->filter.exclude = optarg; break;
		case 'l':
			o->filter.layer = optarg;
			if (!*optarg || strlen(optarg) >= DC_LAYER_MAX) {
				dc_err("--layer: 1-%d characters",
				       DC_LAYER_MAX - 1);
				return -EINVAL;
			}
			break;
		case 'a': o->filter.all = true; break;
		case 'c': o->check = true; break;
		case 'u': o->usdt = true; break;
		case 'k': o->kernel = true; break;
		case 'o': o->output = optarg; break;
		case 'h': printf(usage, dc_prog()); exit(0);
		case 'V': dc_version(); exit(0);
		default: fprintf(stderr, usage, dc_prog()); return -EINVAL;
		}
	}
	if (!err && optind == argc && !o->kernel) {
		fprintf(stderr, usage, dc_prog());
		return -EINVAL;
	}
	return err;
}

/* Everything or nothing: a file is written through a temporary one. */
static int write_out(const char *path, const char *data, size_t len)
{
	if (path)
		return dc_write_atomic(path, data, len);
	return fwrite(data, 1, len, stdout) == len && !fflush(stdout) ? 0
								      : -EIO;
}

/* Whether no function kept has a prototype to take roles from. */
static bool no_roles(const struct xp_target *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		for (size_t f = 0; f < t[i].nfuncs; f++)
			if (t[i].funcs[f].proto)
				return false;
	return n > 0;
}

/* Headers are C++ when named so, or when a target's functions are C++
 * (H5Cpp.h for libhdf5_cpp). */
static bool headers_cxx(const struct opts *o, const struct xp_target *t,
			size_t n)
{
	static const char *const ext[] = { ".hpp", ".hh", ".hxx", ".h++",
					   ".H" };

	for (int h = 0; h < o->nheaders; h++) {
		const char *dot = strrchr(o->headers[h], '.');

		for (size_t e = 0; dot && e < sizeof(ext) / sizeof(ext[0]); e++)
			if (!strcmp(dot, ext[e]))
				return true;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t f = 0; f < t[i].nfuncs; f++)
			if (t[i].funcs[f].display)
				return true;
	return false;
}

int main(int argc, char **argv)
{
	struct opts o = {};
	struct xp_protos protos = {};
	struct xp_target *targets = NULL;
	size_t ntargets = 0, len = 0;
	char *text = NULL;
	FILE *mem = NULL;
	int err, ret = 1;

	dc_log_init(argv[0]);
	elf_version(EV_CURRENT);
	if (parse_args(argc, argv, &o))
		return 2;
	targets = calloc(argc - optind, sizeof(*targets));
	if (!targets)
		goto cleanup;
	for (int i = optind; i < argc; i++) {
		struct xp_target *t = &targets[ntargets++];

		t->arg = argv[i];
		if (xp_load(t, &o.filter))
			goto cleanup;
		if (o.usdt &&
		    (err = dc_usdt_notes(t->path, &t->notes, &t->nnotes))) {
			dc_err("%s: cannot read USDT notes: %s", t->path,
			       strerror(-err));
			goto cleanup;
		}
		if (!t->nfuncs && !t->nnotes) {
			dc_err("%s: no function matched (%zu found); try "
			       "--all or --match",
			       t->path, t->found);
			goto cleanup;
		}
	}
	if (o.nheaders &&
	    xp_parse_headers(o.headers, o.nheaders, o.cargs, o.ncargs,
			     headers_cxx(&o, targets, ntargets), &protos))
		goto cleanup;
	for (size_t i = 0; i < ntargets; i++) {
		struct xp_target *t = &targets[i];

		for (size_t f = 0; f < t->nfuncs; f++) {
			struct xp_func *fn = &t->funcs[f];

			fn->proto = xp_proto_find(&protos, fn->name);
			for (int a = 0; !fn->proto && a < fn->naliases; a++)
				fn->proto =
				    xp_proto_find(&protos, fn->aliases[a]);
			xp_infer(fn);
		}
		if (o.check && t->nfuncs) {
			size_t refused = 0;

			err = xp_check(t, &refused);
			if (err) {
				dc_err(
				    "--check: %s (needs root and uprobe.multi)",
				    strerror(-err));
				goto cleanup;
			}
			dc_info("%s: %zu found, %zu kept, %zu refused by the "
				"kernel",
				t->path, t->found, t->nfuncs - refused,
				refused);
		}
	}
	if (!o.nheaders && !o.kernel && no_roles(targets, ntargets))
		dc_info("without -H, arguments have no roles (fd, path, count, "
			"handle...), so calls will name no files and carry no "
			"sizes: give the library's headers, e.g. -H "
			"/usr/include/hdf5/serial/hdf5.h");
	mem = open_memstream(&text, &len);
	if (!mem)
		goto cleanup;
	if (o.kernel)
		err = xp_kernel(mem, &o.filter);
	else if ((err = xp_emit(mem, targets, ntargets, o.check)))
		dc_err("cannot write the specs: %s",
		       err == -EILSEQ ? "a name is not valid UTF-8"
				      : strerror(-err));
	if (err)
		goto cleanup;
	fclose(mem);
	mem = NULL;
	err = write_out(o.output, text, len);
	if (err) {
		dc_err("%s: %s", o.output ? o.output : "stdout",
		       strerror(-err));
		goto cleanup;
	}
	ret = 0;
cleanup:
	if (mem)
		fclose(mem);
	free(text);
	for (size_t i = 0; i < ntargets; i++)
		xp_target_free(&targets[i]);
	free(targets);
	xp_protos_free(&protos);
	for (int i = 0; i < o.ncargs; i++)
		free((char *)o.cargs[i]);
	free(o.cargs);
	free(o.headers);
	return ret;
}
