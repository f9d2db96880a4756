// SPDX-License-Identifier: MIT
/* Where the trace goes, and creating it safely. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "output.h"
#include "safeopen.h"

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

/* Why @path could not be created (@e, from the walk as @me). */
static void say_refused(const char *path, int e, uid_t me)
{
	struct stat st;

	if (e == EACCES && !lstat(path, &st) && st.st_uid != me)
		dc_err("%s: belongs to uid %u, not to you (uid %u); not "
		       "replacing it",
		       path, (unsigned)st.st_uid, (unsigned)me);
	else if ((e == EEXIST || e == ELOOP) && !lstat(path, &st) &&
		 S_ISLNK(st.st_mode))
		dc_err("cannot create %s: it is a symbolic link", path);
	else if (e == ELOOP)
		dc_err("cannot create %s: a directory on its way is a symbolic "
		       "link of another user than root",
		       path);
	else if (e == EEXIST && !lstat(path, &st) && S_ISREG(st.st_mode) &&
		 st.st_nlink == 1)
		dc_err("%s: exists; --force replaces a file of your own", path);
	else if (e == EEXIST)
		dc_err("%s: not a plain file of one link; not writing over it",
		       path);
	else
		dc_err("cannot create %s: %s", path, strerror(e));
}

/* @path's directory, walked as @me, into *@dirfd; its last name in
 * @base. 0 or -errno. */
static int open_dir(const struct dc_ids *me, const char *path, int *dirfd,
		    char *base, size_t size)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(base, size, "%s", slash ? slash + 1 : path) >= (int)size)
		return -ENAMETOOLONG;
	if (!*base)
		return -EISDIR;
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		dir[slash - path + (slash == path)] = '\0';
	*dirfd = dc_open_as(me, AT_FDCWD, dir, O_PATH | O_DIRECTORY, 0);
	return *dirfd < 0 ? *dirfd : 0;
}

/*
 * The trace file. Root may write where users can (their directories),
 * so a trace is a new file (O_EXCL), created by the user who asked (as
 * they could create it themselves), reached through no symbolic link
 * but root's; --force replaces only a plain file of that user. A trace
 * has one writer: the flock is held for the runtime's life. It belongs
 * to whom it traces: --user, the user behind sudo, or the owner of the
 * first -p process.
 */
int dc_output_open(const char *path, const struct dc_opts *o, int *dirfd)
{
	int flags = O_WRONLY | O_CLOEXEC, fd, err;
	uid_t uid = o->user.uid;
	gid_t gid = o->user.gid;
	char base[NAME_MAX + 1];
	struct dc_ids me;
	bool existed = false;
	char proc[32];
	struct stat st;

	asker(&me.uid, &me.gid);
	err = open_dir(&me, path, dirfd, base, sizeof(base));
	if (err) {
		dc_err("cannot create %s: %s", path,
		       err == -ELOOP ? "a directory on its way is a symbolic "
				       "link of another user than root"
				     : strerror(-err));
		return err;
	}
	fd = dc_open_as(&me, *dirfd, base, flags | O_CREAT | O_EXCL, 0640);
	if (fd == -EEXIST && o->force &&
	    !fstatat(*dirfd, base, &st, AT_SYMLINK_NOFOLLOW) &&
	    S_ISREG(st.st_mode)) {
		fd = dc_open_as(&me, *dirfd, base, flags, 0);
		existed = fd >= 0;
	}
	if (fd < 0) {
		err = fd;
		say_refused(path, -fd, me.uid);
		goto fail;
	}
	if (existed &&
	    (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_nlink != 1)) {
		err = -EPERM;
		dc_err("%s: not a plain file of one link; not writing over it",
		       path);
		goto fail;
	}
	if (existed && st.st_uid != me.uid) {
		err = -EPERM;
		dc_err("%s: belongs to uid %u, not to you (uid %u); not "
		       "replacing it",
		       path, (unsigned)st.st_uid, (unsigned)me.uid);
		goto fail;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		err = -errno;
		dc_err("%s: another datacrumbs-runtime is writing it", path);
		goto fail;
	}
	if (existed && (ftruncate(fd, 0) || fchmod(fd, 0640))) {
		err = -errno;
		dc_err("cannot replace %s: %s", path, strerror(errno));
		goto fail;
	}
	if (!o->user.set) {
		uid = me.uid;
		gid = me.gid;
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
fail:
	if (fd >= 0)
		close(fd);
	close(*dirfd);
	*dirfd = -1;
	return err;
}
