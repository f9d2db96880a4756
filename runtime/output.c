// SPDX-License-Identifier: MIT
/* Where the trace goes, and creating it safely. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "output.h"

static bool has_suffix(const char *s, const char *suf)
{
	size_t n = strlen(s), m = strlen(suf);

	return n >= m && !strcmp(s + n - m, suf);
}

/* Trace path: -o as a file, or NAME-HOST-RUNID.pfw.gz in -o's directory. */
int dc_output_path(const char *opt, const char *name, char *out, size_t size)
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

/* A new file only: whatever is at @path is someone's. */
int dc_output_touch(const char *path)
{
	int fd = open(
	    path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
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
int dc_output_open(const char *path, const struct dc_opts *o)
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
