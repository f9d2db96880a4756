// SPDX-License-Identifier: MIT
/* datacrumbs-gen: probe specs (YAML) -> BPF C -> one self-describing object. */
#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "compile.h"
#include "fileio.h"
#include "config.h"
#include "log.h"
#include "place.h"
#include "placement_report.h"
#include "tmpldir.h"
#include "render.h"
#include "spec.h"

static const char usage[] =
    "Usage: %s [OPTIONS] SPEC.yaml...\n"
    "\n"
    "Validate probe specs, render BPF C from the templates and compile it\n"
    "with clang into one object that datacrumbs-runtime loads.\n"
    "\n"
    "  -o, --output OBJECT   object to write (default: generated.bpf.o)\n"
    "  -E, --emit-c FILE     also write the generated C to FILE\n"
    "  -n, --no-compile      only validate (and --emit-c); write no object\n"
    "  -s, --skip-missing    leave out specs whose target is not installed\n"
    "  -T, --templates DIR   template directory (default: built in)\n"
    "  -v, --verbose         name every uprobe left single-stepped\n"
    "  -P, --placement FILE  write each uprobe's placement here, as JSON\n"
    "  -h, --help            show this help; --version\n"
    "\n"
    "Errors name FILE:LINE:COLUMN; nothing is written unless all specs are\n"
    "valid. clang is $CLANG or the newest clang >= 16 on PATH.\n";

static const char *include_dir(const char *tmpl)
{
	/* Installed, the ABI header sits beside the templates. */
	static char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s/datacrumbs/abi.h", tmpl);
	if (!access(p, R_OK))
		return tmpl;
	return DC_SOURCE_INCLUDE_DIR;
}

/* The object's directory exists and takes files: said before clang runs,
 * which would blame its own output otherwise. */
static int out_dir_ok(const char *obj)
{
	char *copy = strdup(obj);
	const char *dir;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	dir = dirname(copy);
	if (access(dir, W_OK | X_OK)) {
		err = -errno;
		dc_err("-o %s: cannot write in %s: %s", obj, dir,
		       strerror(errno));
	}
	free(copy);
	return err;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "emit-c", required_argument, NULL, 'E' },
		{ "no-compile", no_argument, NULL, 'n' },
		{ "skip-missing", no_argument, NULL, 's' },
		{ "templates", required_argument, NULL, 'T' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "placement", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{},
	};
	const char *obj = "generated.bpf.o", *emit = NULL, *tmpl_opt = NULL;
	const char *placement = NULL;
	char tmp_c[PATH_MAX] = "";
	struct dc_buf c = {}, sources = {};
	struct dc_spec spec = {};
	struct dc_clang clang = {};
	const char *tmpl;
	bool compile = true, verbose = false;
	int opt, err = 0;

	dc_log_init(argv[0]);
	while ((opt = getopt_long(argc, argv, "o:E:nsT:vP:h", opts, NULL)) !=
	       -1) {
		switch (opt) {
		case 'o': obj = optarg; break;
		case 'E': emit = optarg; break;
		case 'n': compile = false; break;
		case 's': spec.skip_missing = true; break;
		case 'T': tmpl_opt = optarg; break;
		case 'v': verbose = true; break;
		case 'P': placement = optarg; break;
		case 'h': printf(usage, dc_prog()); return 0;
		case 'V': dc_version(); return 0;
		default: fprintf(stderr, usage, dc_prog()); return 2;
		}
	}
	if (optind == argc) {
		fprintf(stderr, usage, dc_prog());
		return 2;
	}
	for (int i = optind; i < argc; i++) {
		char *copy = strdup(argv[i]);

		if (!copy)
			return 1;
		err = dc_spec_load(&spec, argv[i]);
		if (err == -ENOMEM)
			goto cleanup;
		/* A file name cannot end the comment it is written into. */
		for (char *s = basename(copy); *s; s++)
			if (*s == '*' || *s == '/')
				*s = '_';
		dc_buf_addf(&sources, "%s%s", i > optind ? " " : "",
			    basename(copy));
		free(copy);
	}
	err = spec.nerrors ? -EINVAL : dc_spec_check(&spec);
	if (err == -EINVAL)
		dc_err("%d error%s in the specs; nothing written%s",
		       spec.nerrors, spec.nerrors == 1 ? "" : "s",
		       spec.nerrors > DC_SPEC_MAX_ERRORS
			   ? " (the first ones are shown above)"
			   : "");
	err = err ?: dc_spec_place(&spec);
	if (err)
		goto cleanup;
	if (compile && (err = out_dir_ok(obj)))
		goto cleanup;
	if (compile && (err = dc_find_clang(&clang)))
		goto cleanup;
	tmpl = dc_template_dir(tmpl_opt, "datacrumbs.bpf.h");
	dc_buf_add(&sources, "", 1);
	err = dc_render(&spec, tmpl, sources.p, &c);
	if (err)
		goto cleanup;
	if (emit) {
		err = dc_write_atomic(emit, c.p, c.len);
		if (err) {
			dc_err("cannot write %s: %s", emit, strerror(-err));
			goto cleanup;
		}
	}
	if (!compile) {
		/* Where the probes go does not need the object. */
		if (placement)
			err = dc_report_placement(&spec, verbose, placement);
		goto cleanup;
	}
	if (!emit) {
		const char *td = getenv("TMPDIR");
		int fd;

		snprintf(tmp_c, sizeof(tmp_c), "%s/datacrumbs-gen-XXXXXX.bpf.c",
			 td && *td ? td : "/tmp");
		fd = mkstemps(tmp_c, 6);
		if (fd < 0 || write(fd, c.p, c.len) != (ssize_t)c.len) {
			err = -errno;
			dc_err("cannot write %s: %s", tmp_c, strerror(errno));
			if (fd >= 0)
				close(fd);
			goto cleanup;
		}
		close(fd);
	}
	err = dc_compile(&clang, emit ? emit : tmp_c, obj, tmpl,
			 include_dir(tmpl));
	if (!err) {
		size_t n = 0, aliases = 0;

		for (size_t i = 0; i < spec.nprobes; i++) {
			if (spec.groups[spec.probes[i].group].skipped ||
			    spec.probes[i].pattern)
				continue;
			spec.probes[i].alias_of >= 0 ? aliases++ : n++;
		}
		dc_info("%zu probes (%zu aliases merged) -> %s", n, aliases,
			obj);
		err = dc_report_placement(&spec, verbose, placement);
	}
cleanup:
	if (tmp_c[0])
		unlink(tmp_c);
	dc_buf_free(&c);
	dc_buf_free(&sources);
	dc_spec_free(&spec);
	return err ? 1 : 0;
}
