// SPDX-License-Identifier: MIT
/*
 * USDT probes: libbpf decodes each site's argument specs; the cookie is
 * the probe's id. Attached at start to the file each target names, and
 * to each copy of it a traced process maps later (latelib.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "session.h"

bool dc_usdt_probe(const struct dc_session *sess, size_t i)
{
	const struct dc_probe_info *d = sess->probes[i].d;

	return d->mech == DC_MECH_USDT && !sess->probes[i].disabled &&
	       strchr(d->symbol, ':');
}

int dc_usdt_attach(struct dc_session *sess, size_t i, const char *path,
		   const char *name)
{
	const struct dc_probe_info *d = sess->probes[i].d;
	LIBBPF_OPTS(bpf_usdt_opts, opts, .usdt_cookie = d->id);
	const char *colon = strchr(d->symbol, ':');
	char provider[DC_NAME_MAX];
	struct bpf_link *l;

	snprintf(provider, sizeof(provider), "%.*s", (int)(colon - d->symbol),
		 d->symbol);
	l = bpf_program__attach_usdt(sess->o.progs.usdt, -1, path, provider,
				     colon + 1, &opts);
	if (!l) {
		dc_warn("%s %s: cannot attach USDT %s in %s: %s; not traced",
			d->layer, d->name, d->symbol, name, strerror(errno));
		return 0;
	}
	if (dc_links_add(&sess->links, l, true)) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	sess->probes[i].attached = true;
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
		err = dc_usdt_attach(sess, i, path, path);
	}
	return err;
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
		return 0;
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
