// SPDX-License-Identifier: MIT
/*
 * USDT probes: libbpf decodes each site's argument specs; the cookie is
 * the probe's id. Attached at start to the file each target names, and
 * to each copy of it a traced process maps later (latelib.c). Without
 * BPF cookies libbpf finds a probe by its address, which in a PIE or a
 * shared library differs by process: such a file is attached to each
 * traced process that execs or maps it, stopped until then (libmap.bpf.h,
 * dc_usdt_procs), and its links go when the process does.
 */
#include <bpf/bpf.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "log.h"
#include "session.h"

bool dc_usdt_probe(const struct dc_session *sess, size_t i)
{
	const struct dc_probe_info *d = sess->probes[i].d;

	return d->mech == DC_MECH_USDT && !sess->probes[i].disabled &&
	       strchr(d->symbol, ':');
}

bool dc_usdt_per_process(const struct dc_session *sess, const char *path)
{
	Elf64_Ehdr h;
	ssize_t n = -1;
	int fd;

	if (!(sess->o.cfg->fallbacks & DC_FB_COOKIES))
		return false;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = pread(fd, &h, sizeof(h), 0);
		close(fd);
	}
	return n == sizeof(h) && h.e_type == ET_DYN;
}

int dc_usdt_attach(struct dc_session *sess, size_t i, const char *path,
		   const char *name, __u32 pid)
{
	const struct dc_probe_info *d = sess->probes[i].d;
	LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = d->id);
	const char *colon = strchr(d->symbol, ':');
	char provider[DC_NAME_MAX];
	struct bpf_link *l;

	snprintf(provider, sizeof(provider), "%.*s", (int)(colon - d->symbol),
		 d->symbol);
	l = bpf_program__attach_usdt(sess->o.progs.usdt, pid ? (int)pid : -1,
				     path, provider, colon + 1, &opts);
	if (!l) {
		if (pid)
			dc_warn("%s %s: cannot attach USDT %s in %s to pid "
				"%u: %s; not traced there",
				d->layer, d->name, d->symbol, name, pid,
				strerror(errno));
		else
			dc_warn("%s %s: cannot attach USDT %s in %s: %s; not "
				"traced",
				d->layer, d->name, d->symbol, name,
				strerror(errno));
		return 0;
	}
	if (dc_links_add_usdt(&sess->links, l, pid))
		return -ENOMEM;
	sess->probes[i].attached = true;
	return 0;
}

/* Attach @path's USDT probes to each process that runs or maps it. */
static int per_process(struct dc_session *sess, size_t i, const char *path)
{
	const struct dc_probe_info *d = sess->probes[i].d;
	struct dc_usdt_exe k = { 0 };
	char real[PATH_MAX];
	const char *base;
	__u8 one = 1;

	/* As the kernel names the file it execs: past a symlink. */
	if (!realpath(path, real))
		return 0;
	base = strrchr(real, '/') ? strrchr(real, '/') + 1 : real;
	/* Cut as the program reads it: 31 bytes and a NUL. */
	memcpy(k.name, base, strnlen(base, sizeof(k.name) - 1));
	if (!bpf_map_update_elem(bpf_map__fd(sess->o.maps.usdt_procs), &k, &one,
				 BPF_NOEXIST))
		dc_info("USDT probes in %s attach to each process that runs "
			"or maps it (this kernel has no BPF cookies)",
			path);
	else if (errno != EEXIST) {
		dc_warn("%s %s: USDT %s in %s: cannot watch for processes "
			"running it: %s; not traced",
			d->layer, d->name, d->symbol, path, strerror(errno));
		return 0;
	}
	/* Waits for its processes, as a spec's library not loaded yet;
	 * each is stopped at its exec until then. */
	sess->probes[i].attached = true;
	sess->libs_stopping = true;
	return 0;
}

int dc_usdts_attach(struct dc_session *sess)
{
	char path[DC_TARGET_MAX];
	int err = 0;

	for (size_t i = 0; i < sess->nprobes && !err; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		if (!dc_usdt_probe(sess, i))
			continue;
		if (dc_probe_binary(d, path, sizeof(path))) {
			dc_warn("%s %s: target %s not found; not traced",
				d->layer, d->name, d->target);
			continue;
		}
		err = dc_usdt_per_process(sess, path)
			  ? per_process(sess, i, path)
			  : dc_usdt_attach(sess, i, path, path, 0);
	}
	return err;
}

bool dc_usdt_target_is(const struct dc_session *sess, size_t i,
		       const struct stat *st)
{
	char path[DC_TARGET_MAX];
	struct stat t;

	return !dc_probe_binary(sess->probes[i].d, path, sizeof(path)) &&
	       !stat(path, &t) && t.st_dev == st->st_dev &&
	       t.st_ino == st->st_ino;
}

int dc_usdts_file(const struct dc_session *sess, size_t k, struct stat *st)
{
	char path[DC_TARGET_MAX];

	for (size_t i = 0; i < sess->nprobes; i++) {
		if (!dc_usdt_probe(sess, i) || k--)
			continue;
		if (dc_probe_binary(sess->probes[i].d, path, sizeof(path)) ||
		    stat(path, st))
			return -EINVAL;
		/* Stops each process that maps it. */
		return dc_usdt_per_process(sess, path) ? -EAGAIN : 0;
	}
	return -ENOENT;
}

int dc_usdts_seen(struct dc_session *sess, const struct stat *st)
{
	struct dc_usdt_file *f;

	for (size_t i = 0; i < sess->usdt_files.n; i++)
		if (sess->usdt_files.v[i].dev == st->st_dev &&
		    sess->usdt_files.v[i].ino == st->st_ino)
			return 1;
	f = realloc(sess->usdt_files.v, (sess->usdt_files.n + 1) * sizeof(*f));
	if (!f)
		return -ENOMEM;
	sess->usdt_files.v = f;
	f[sess->usdt_files.n++] =
	    (struct dc_usdt_file){ st->st_dev, st->st_ino };
	return 0;
}

void dc_usdts_free(struct dc_session *sess)
{
	free(sess->usdt_files.v);
	sess->usdt_files.v = NULL;
	sess->usdt_files.n = 0;
}
