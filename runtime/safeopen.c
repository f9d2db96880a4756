// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "safeopen.h"

#define DC_MAX_LINKS  40 /* as the kernel's own walk */
#define DC_MAX_GROUPS 1024

/* Where a walk starts: the root, @dirfd, or the working directory. */
static int walk_start(int dirfd, const char *path)
{
	int fd;

	if (*path == '/')
		fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else if (dirfd == AT_FDCWD)
		fd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	else
		fd = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	return fd < 0 ? -errno : fd;
}

/* @fd, an O_PATH descriptor of a symbolic link: put its target in front
 * of @rest in @buf. Only a link of root's is taken. */
static int splice_link(int fd, const struct stat *st, const char *rest,
		       char *buf, size_t size)
{
	char target[PATH_MAX];
	ssize_t n;

	if (st->st_uid != 0)
		return -ELOOP;
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if (snprintf(buf, size, "%s/%s", target, rest) >= (int)size)
		return -ENAMETOOLONG;
	return 0;
}

int dc_open_walk(int dirfd, const char *path, int flags, mode_t mode)
{
	char bufs[2][PATH_MAX], name[NAME_MAX + 1], *rest;
	int cur, fd = -1, links = 0, b = 0, err;
	bool exclusive = (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL);
	struct stat st;
	size_t n;

	if (snprintf(bufs[0], PATH_MAX, "%s", path) >= PATH_MAX)
		return -ENAMETOOLONG;
	cur = walk_start(dirfd, path);
	if (cur < 0)
		return cur;
	rest = bufs[0];
	for (;;) {
		rest += strspn(rest, "/");
		if (!*rest) { /* "/", "dir/": the directory itself */
			fd = openat(cur, ".", flags | O_CLOEXEC, mode);
			err = fd < 0 ? -errno : 0;
			goto cleanup;
		}
		n = strcspn(rest, "/");
		if (n > NAME_MAX) {
			err = -ENAMETOOLONG;
			goto cleanup;
		}
		memcpy(name, rest, n);
		name[n] = '\0';
		rest += n;
		rest += strspn(rest, "/");
		if (!*rest && (exclusive || !(flags & O_PATH))) {
			/* The file itself: O_EXCL never follows a link, and
			 * O_NOFOLLOW refuses one (ELOOP) without following. */
			fd = openat(cur, name, flags | O_NOFOLLOW | O_CLOEXEC,
				    mode);
			if (fd < 0 && errno == ELOOP && !exclusive) {
				fd = openat(cur, name,
					    O_PATH | O_NOFOLLOW | O_CLOEXEC);
				if (fd >= 0 && !fstat(fd, &st) &&
				    S_ISLNK(st.st_mode) &&
				    !splice_link(fd, &st, "", bufs[!b],
						 PATH_MAX)) {
					goto follow;
				}
				if (fd >= 0)
					close(fd);
				fd = -1;
				errno = ELOOP;
			}
			err = fd < 0 ? -errno : 0;
			goto cleanup;
		}
		fd = openat(cur, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st)) {
			err = -errno;
			goto cleanup;
		}
		if (S_ISLNK(st.st_mode)) {
			err = splice_link(fd, &st, rest, bufs[!b], PATH_MAX);
			if (err)
				goto cleanup;
			goto follow;
		}
		if (!*rest) { /* the O_PATH walk's end */
			if ((flags & O_DIRECTORY) && !S_ISDIR(st.st_mode)) {
				err = -ENOTDIR;
				goto cleanup;
			}
			close(cur);
			return fd;
		}
		if (!S_ISDIR(st.st_mode)) {
			err = -ENOTDIR;
			goto cleanup;
		}
		close(cur);
		cur = fd;
		fd = -1;
		continue;
	follow:
		close(fd);
		fd = -1;
		if (++links > DC_MAX_LINKS) {
			err = -ELOOP;
			goto cleanup;
		}
		b = !b;
		rest = bufs[b];
		if (*rest == '/') {
			close(cur);
			cur = walk_start(AT_FDCWD, rest);
			if (cur < 0)
				return cur;
		}
	}
cleanup:
	close(cur);
	if (err && fd >= 0)
		close(fd);
	return err ?: fd;
}

/* Both ends: one int (0 or -errno), and the descriptor when it is 0. */
static int send_fd(int sock, int fd, int err)
{
	char ctl[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (!err) {
		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, 0) < 0 ? -errno : 0;
}

static int recv_fd(int sock)
{
	char ctl[CMSG_SPACE(sizeof(int))] = {};
	int err = -EIO, fd = -1;
	struct iovec iov = { &err, sizeof(err) };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = ctl,
			    .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c;

	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != sizeof(err))
		return -EIO;
	c = CMSG_FIRSTHDR(&m);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (err)
		return err;
	return fd >= 0 ? fd : -EIO;
}

int dc_open_as(const struct dc_ids *who, int dirfd, const char *path, int flags,
	       mode_t mode)
{
	gid_t groups[DC_MAX_GROUPS] = { who->gid };
	int ngroups = 1, sv[2], fd, status;
	struct passwd *pw;
	pid_t pid;

	if (who->uid == geteuid() && who->gid == getegid())
		return dc_open_walk(dirfd, path, flags, mode);
	/* Looked up before the fork: the child makes system calls only. */
	pw = getpwuid(who->uid);
	if (pw) {
		ngroups = DC_MAX_GROUPS;
		if (getgrouplist(pw->pw_name, who->gid, groups, &ngroups) < 0)
			ngroups = DC_MAX_GROUPS;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid < 0) {
		fd = -errno;
		close(sv[0]);
		close(sv[1]);
		return fd;
	}
	if (!pid) {
		/* Raw system calls: they change this thread's ids alone, and
		 * the child has no other. */
		if (syscall(SYS_setgroups, ngroups, groups) ||
		    syscall(SYS_setresgid, who->gid, who->gid, who->gid) ||
		    syscall(SYS_setresuid, who->uid, who->uid, who->uid))
			fd = -errno;
		else
			fd = dc_open_walk(dirfd, path, flags, mode);
		send_fd(sv[1], fd, fd < 0 ? fd : 0);
		_exit(0);
	}
	close(sv[1]);
	fd = recv_fd(sv[0]);
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return fd;
}
