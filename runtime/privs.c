// SPDX-License-Identifier: MIT
/*
 * Whether a traced process has rights its trace's owner lacks: a setuid
 * or setgid program, one given capabilities, groups or ids by a
 * privileged parent. Its calls (the files it reads, what it writes) are
 * then none of the owner's business.
 */
#include <ctype.h>
#include <elf.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fileio.h"
#include "privs.h"
#include "procs.h"

/* The numbers after "@key:" in a /proc/PID/status text, the first @max
 * into @out; how many there are, or -1 if the line is missing. */
static int status_ids(const char *st, const char *key, uint32_t *out, int max)
{
	size_t k = strlen(key);
	const char *s;
	char *end;
	int n = 0;

	for (s = st; s; s = strchr(s, '\n'), s = s ? s + 1 : NULL)
		if (!strncmp(s, key, k) && s[k] == ':')
			break;
	if (!s)
		return -1;
	for (s += k + 1;; s = end, n++) {
		unsigned long v;

		s += strspn(s, " \t");
		if (!isdigit((unsigned char)*s))
			break;
		v = strtoul(s, &end, 10);
		if (n < max)
			out[n] = v;
	}
	return n;
}

/* Whether /proc/@pid/auxv holds AT_SECURE set: 1, 0, or -1 unread (a
 * zombie's is empty). */
static int auxv_secure(uint32_t pid)
{
	char path[64], *data;
	size_t len, i;
	int ret = -1;

	snprintf(path, sizeof(path), "/proc/%u/auxv", pid);
	if (dc_read_file(path, &data, &len))
		return -1;
	for (i = 0; i + sizeof(Elf64_auxv_t) <= len;
	     i += sizeof(Elf64_auxv_t)) {
		Elf64_auxv_t a;

		memcpy(&a, data + i, sizeof(a));
		if (a.a_type == AT_NULL)
			break;
		if (ret < 0 || a.a_type == AT_SECURE)
			ret = a.a_type == AT_SECURE && a.a_un.a_val;
	}
	free(data);
	return ret;
}

/* Whether @pid is in the runtime's user namespace (the initial one). */
static bool same_userns(uint32_t pid)
{
	char path[64], ns[64] = "", mine[64] = "";

	snprintf(path, sizeof(path), "/proc/%u/ns/user", pid);
	if (readlink(path, ns, sizeof(ns) - 1) <= 0 ||
	    readlink("/proc/self/ns/user", mine, sizeof(mine) - 1) <= 0)
		return true;
	return !strcmp(ns, mine);
}

void dc_privs_read(struct dc_proc *p)
{
	struct dc_privs *v = &p->priv;
	uint32_t uid[4], gid[4], cap[2];
	char path[64], *st = NULL;
	int secure, n;

	snprintf(path, sizeof(path), "/proc/%u/status", p->pid);
	if (dc_read_file(path, &st, NULL))
		return;
	secure = auxv_secure(p->pid);
	n = status_ids(st, "Groups", v->groups, DC_PROC_GROUPS);
	if (secure < 0 || n < 0 || status_ids(st, "Uid", uid, 4) != 4 ||
	    status_ids(st, "Gid", gid, 4) != 4)
		goto cleanup;
	/* Capability sets are hex: any digit but 0 is a capability. */
	cap[0] = strstr(st, "CapPrm:\t") &&
		 strspn(strstr(st, "CapPrm:\t") + 8, "0") != 16;
	cap[1] = strstr(st, "CapEff:\t") &&
		 strspn(strstr(st, "CapEff:\t") + 8, "0") != 16;
	/* ... but those of a user namespace of its own give it nothing. */
	if ((cap[0] || cap[1]) && !same_userns(p->pid))
		cap[0] = cap[1] = 0;
	p->owner_known = true;
	p->uid = uid[0];
	p->euid = uid[1];
	v->suid = uid[2];
	v->fsuid = uid[3];
	p->gid = gid[0];
	p->egid = gid[1];
	v->sgid = gid[2];
	v->fsgid = gid[3];
	v->ngroups = n;
	v->caps = cap[0] || cap[1];
	v->secure = secure;
	v->checked = false;
cleanup:
	free(st);
}

void dc_privs_record(struct dc_proc *p, const struct dc_proc_event *pe)
{
	struct dc_privs *v = &p->priv;

	p->owner_known = true;
	p->uid = pe->uid;
	p->gid = pe->gid;
	p->euid = pe->euid;
	p->egid = pe->egid;
	v->suid = pe->suid;
	v->sgid = pe->sgid;
	v->fsuid = pe->fsuid;
	v->fsgid = pe->fsgid;
	v->caps = pe->flags & DC_PROC_CAPS;
	v->ngroups = pe->ngroups;
	memcpy(v->groups, pe->groups, sizeof(v->groups));
	/* An exec says whether the kernel gave the new image AT_SECURE, a
	 * join what its auxiliary vector holds; a fork's child runs its
	 * parent's image (dc_proc_fork copied it). */
	if (pe->kind == DC_EV_EXEC || pe->kind == DC_EV_JOIN)
		v->secure = pe->flags & DC_PROC_SECURE;
	v->checked = false;
}

/* @owner's groups, looked up once for each owner in turn. */
static struct {
	bool set;
	uint32_t uid;
	gid_t *g;
	int n;
} owner_cache;

static const gid_t *owner_groups(uint32_t uid, int *n)
{
	const struct passwd *pw;
	int k = 0;

	if (owner_cache.set && owner_cache.uid == uid) {
		*n = owner_cache.n;
		return owner_cache.g;
	}
	free(owner_cache.g);
	owner_cache.set = false;
	owner_cache.n = 0;
	pw = getpwuid(uid);
	if (pw)
		getgrouplist(pw->pw_name, pw->pw_gid, NULL, &k);
	/* As --user gives one without a name: its own number. */
	owner_cache.g = calloc(k > 0 ? k : 1, sizeof(gid_t));
	if (!owner_cache.g)
		return NULL;
	if (!pw)
		owner_cache.g[k++] = uid;
	else if (k > 0 &&
		 getgrouplist(pw->pw_name, pw->pw_gid, owner_cache.g, &k) < 0)
		k = 0;
	owner_cache.set = true;
	owner_cache.uid = uid;
	owner_cache.n = k;
	*n = k;
	return owner_cache.g;
}

static bool in(const gid_t *set, int n, uint32_t id)
{
	for (int i = 0; i < n; i++)
		if (set[i] == id)
			return true;
	return false;
}

/* Whether every group of @p is one of the @n in @set. */
static bool groups_within(struct dc_proc *p, const gid_t *set, int n)
{
	const struct dc_privs *v = &p->priv;
	uint32_t ids[4] = { p->gid, p->egid, v->sgid, v->fsgid }, *all;
	char path[64], *st;
	bool ok = true;
	int k;

	for (int i = 0; i < 4; i++)
		if (!in(set, n, ids[i]))
			return false;
	for (uint32_t i = 0; i < v->ngroups && i < DC_PROC_GROUPS; i++)
		if (!in(set, n, v->groups[i]))
			return false;
	if (v->ngroups <= DC_PROC_GROUPS)
		return true;
	/* More than a record carries: the rest from /proc, if it runs. */
	snprintf(path, sizeof(path), "/proc/%u/status", p->pid);
	if (dc_read_file(path, &st, NULL))
		return false;
	k = status_ids(st, "Groups", NULL, 0);
	all = k > 0 ? calloc(k, sizeof(*all)) : NULL;
	if (!all || status_ids(st, "Groups", all, k) != k)
		ok = false;
	for (int i = 0; ok && i < k; i++)
		ok = in(set, n, all[i]);
	free(all);
	free(st);
	return ok;
}

bool dc_privs_gained(struct dc_proc *p, uint32_t owner)
{
	struct dc_privs *v = &p->priv;
	const gid_t *set;
	int n = 0;

	if (!owner)
		return false;
	if (v->checked && v->checked_for == owner)
		return v->gained;
	if (!p->owner_known)
		dc_privs_read(p);
	set = owner_groups(owner, &n);
	v->gained = !p->owner_known || !set || v->secure || v->caps ||
		    p->uid != owner || p->euid != owner || v->suid != owner ||
		    v->fsuid != owner || !groups_within(p, set, n);
	v->checked = true; /* until a record brings other rights */
	v->checked_for = owner;
	return v->gained;
}
