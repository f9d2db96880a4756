// SPDX-License-Identifier: MIT
/*
 * --kernel: the kernel's syscalls and I/O tracepoints as specs, read from
 * tracefs: each event with its first scalar fields captured and every
 * field listed in its proto, ready to trim.
 */
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "explore.h"
#include "kbtf.h"
#include "log.h"
#include "syscalls.h"
#include "tpformat.h"

static const char *const groups[] = { "block", "filemap", "writeback",
				      "ext4",  "xfs",	  "nfs",
				      "nfs4",  "iomap",	  "jbd2" };

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of a tracefs directory's events, optionally by prefix. */
static char **list_events(const char *dir, const char *prefix, size_t *n)
{
	struct dirent *de;
	char **v = NULL;
	DIR *d = opendir(dir);

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char **nv;

		if (de->d_name[0] == '.' || de->d_type != DT_DIR ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		nv = realloc(v, (*n + 1) * sizeof(*v));
		if (!nv)
			break;
		v = nv;
		v[(*n)++] = strdup(de->d_name);
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

static void free_list(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static bool wanted(const char *name, const regex_t *m, const regex_t *x)
{
	return (!m || !regexec(m, name, 0, NULL, 0)) &&
	       (!x || regexec(x, name, 0, NULL, 0));
}

static int emit_syscalls(yaml_emitter_t *e, const char *events,
			 const regex_t *m, const regex_t *x)
{
	char dir[512], **ev;
	size_t n;
	int err;

	snprintf(dir, sizeof(dir), "%s/syscalls", events);
	ev = list_events(dir, "sys_enter_", &n);
	err = xp_doc_begin(e, "sys", "syscall", NULL);
	for (size_t i = 0; i < n && !err; i++) {
		const char *name = ev[i] + strlen("sys_enter_");
		const char *kv[] = { "name", name, NULL };

		/* Only what this architecture numbers can be traced. */
		if (dc_syscall_nr(name) < 0 || !wanted(name, m, x))
			continue;
		err = xp_probe(e, kv, NULL, NULL, 0);
	}
	free_list(ev, n);
	return err ?: xp_doc_end(e);
}

static int emit_group(yaml_emitter_t *e, const char *events, const char *group,
		      const regex_t *m, const regex_t *x)
{
	char dir[512], **ev;
	size_t n;
	int err;

	snprintf(dir, sizeof(dir), "%s/%s", events, group);
	ev = list_events(dir, "", &n);
	if (!n)
		return 0;
	err = xp_doc_begin(e, "kernel", "tracepoint", NULL);
	for (size_t i = 0; i < n && !err; i++) {
		struct dc_tp_format fmt;
		char event[256], proto[1024] = "";
		char *fields[DC_CAPTURE];
		int nf = 0;
		size_t pl = 0;

		snprintf(event, sizeof(event), "%s/%s", group, ev[i]);
		if (!wanted(event, m, x) || dc_tp_format_read(event, &fmt))
			continue;
		for (int f = 0; f < fmt.n; f++) {
			const struct dc_tp_fmt_field *fl = &fmt.f[f];

			if (!strncmp(fl->name, "common_", 7))
				continue;
			pl += snprintf(proto + pl,
				       pl < sizeof(proto) ? sizeof(proto) - pl
							  : 0,
				       "%s%s", pl ? " " : "", fl->name);
			if (nf < DC_CAPTURE &&
			    (fl->size == 1 || fl->size == 2 || fl->size == 4 ||
			     fl->size == 8))
				fields[nf++] = (char *)fl->name;
		}
		const char *kv[] = { "name",  ev[i], "event", event,
				     "proto", proto, NULL };

		err = xp_probe(e, kv, "fields", fields, nf);
	}
	free_list(ev, n);
	return err ?: xp_doc_end(e);
}

/* Kernel functions from BTF matching --match: only where kprobes work. */
static int emit_kfuncs(yaml_emitter_t *e, const regex_t *m, const regex_t *x)
{
	struct dc_kbtf btf;
	int err;

	if (dc_kbtf_open(&btf, DC_KBTF_PATH))
		return 0;
	err = xp_doc_begin(e, "kfunc", "kfunc", NULL);
	for (__u32 id = 1; id < btf.n && !err; id++) {
		const struct btf_type *t = dc_kbtf_type(&btf, id);
		const char *name;

		if (!btf_is_func(t))
			continue;
		name = dc_kbtf_name(&btf, t->name_off);
		if (!name || !wanted(name, m, x))
			continue;
		const char *kv[] = { "name", name, NULL };

		err = xp_probe(e, kv, NULL, NULL, 0);
	}
	dc_kbtf_close(&btf);
	return err ?: xp_doc_end(e);
}

int xp_kernel(FILE *out, const struct xp_filter *f)
{
	const char *events = dc_tracefs_events();
	regex_t m, x;
	bool have_m = false, have_x = false;
	yaml_emitter_t e;
	char kp[512];
	bool kprobes;
	int err;

	if (!events) {
		/* Mounted but closed to this user is the usual case: tell it
		 * from a tracefs that is not there. */
		if (geteuid() && !access("/sys/kernel/tracing", F_OK))
			dc_err("--kernel reads tracefs, which only root can "
			       "read here: run it with sudo");
		else
			dc_err("--kernel reads tracefs, which is not mounted: "
			       "as root, 'mount -t tracefs tracefs "
			       "/sys/kernel/tracing'");
		return -ENODEV;
	}
	if (f->match) {
		if (regcomp(&m, f->match, REG_EXTENDED | REG_NOSUB)) {
			dc_err("--match: invalid regular expression '%s'",
			       f->match);
			return -EINVAL;
		}
		have_m = true;
	}
	if (f->exclude && !regcomp(&x, f->exclude, REG_EXTENDED | REG_NOSUB))
		have_x = true;
	fprintf(
	    out,
	    "# Kernel probe specs written by datacrumbs-explore %s from %s.\n",
	    DC_VERSION, events);
	fprintf(out,
		"# Tracepoints capture at most %d fields; 'proto' lists them "
		"all.\n",
		DC_CAPTURE);
	/* CONFIG_KPROBES gives tracefs a kprobe_events file. */
	snprintf(kp, sizeof(kp), "%s/../kprobe_events", events);
	kprobes = !access(kp, F_OK);
	fprintf(out, "# Kernel functions (mechanism kfunc): %s\n",
		!kprobes ? "this kernel cannot probe them (no kprobes)"
		: have_m ? "the ones matching --match are listed"
			 : "probeable; give --match to list them");
	err = xp_out_begin(&e, out);
	if (!err)
		err = emit_syscalls(&e, events, have_m ? &m : NULL,
				    have_x ? &x : NULL);
	for (size_t i = 0; i < sizeof(groups) / sizeof(groups[0]) && !err; i++)
		err = emit_group(&e, events, groups[i], have_m ? &m : NULL,
				 have_x ? &x : NULL);
	if (!err && kprobes && have_m)
		err = emit_kfuncs(&e, &m, have_x ? &x : NULL);
	err = xp_out_end(&e, err);
	if (have_m)
		regfree(&m);
	if (have_x)
		regfree(&x);
	return err;
}
