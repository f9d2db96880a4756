// SPDX-License-Identifier: MIT
/*
 * Libraries mapped after start (templates/libmap.bpf.h): a child's own,
 * found through its RPATH, or one dlopen()ed. The traced process is
 * stopped at the mmap of a file the runtime has not checked. The file is
 * opened through /proc/PID/map_files, the mapping itself, never by a
 * path the process could change meanwhile, and read only if it is a
 * regular file; if it is a copy of a spec's library (as copies.c tells
 * one: its soname or file name) not yet probed, that spec's probes are
 * attached to it (uprobes.c, usdts.c). Then the process goes on.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "elfsym.h"
#include "kchoose.h"
#include "latelib.h"
#include "libpath.h"
#include "log.h"

/* Whether the object watches for libraries mapped later. */
static bool watching(const struct dc_session *sess)
{
	return bpf_program__autoload(sess->o.progs.lib_mapped);
}

/* @kdev: the kernel's encoding of a device, as the program reads it. */
static void mark(struct dc_session *sess, __u64 ino, __u32 kdev)
{
	struct dc_file_id k = { .ino = ino, .dev = kdev };
	__u8 one = 1;

	bpf_map_update_elem(bpf_map__fd(sess->o.maps.libs), &k, &one, BPF_ANY);
}

/* ... a file as stat() gives it. */
static void mark_file(struct dc_session *sess, const struct stat *st)
{
	mark(sess, st->st_ino, dc_kdev(major(st->st_dev), minor(st->st_dev)));
}

int dc_latelib_attach(struct dc_session *sess, bool at_sys_exit)
{
	struct bpf_link *l;
	struct stat st;
	int err;

	if (!watching(sess))
		return 0;
	/* A process mapping one of those is not stopped to check it. */
	for (size_t k = 0; (err = dc_uprobes_checked(sess, k, &st)) != -ENOENT;
	     k++)
		if (!err)
			mark_file(sess, &st);
	for (size_t k = 0; (err = dc_usdts_file(sess, k, &st)) != -ENOENT; k++)
		if (!err)
			mark_file(sess, &st);
	/* The sys_exit program, when it runs anyway, sees each mmap: a
	 * second function on the kernel's sys_exit tracepoint would cost
	 * every syscall on the machine (libmap.bpf.h). */
	if (at_sys_exit) {
		err = dc_obj_set_libs_at_exit(&sess->o, true);
		if (err) {
			dc_err("%s: cannot watch for libraries mapped later: "
			       "%s",
			       sess->path, strerror(-err));
			return err;
		}
		sess->libs_watched = sess->libs_at_exit = true;
		sess->libs_stopping = true;
		return 0;
	}
	/* Its return first: an mmap between the two is not watched, never
	 * half watched. */
	for (int i = 0; i < 2; i++) {
		struct bpf_program *p =
		    i ? sess->o.progs.lib_mapping : sess->o.progs.lib_mapped;

		l = bpf_program__attach(p);
		if (!l) {
			dc_warn("cannot watch for libraries mapped later "
				"(%s): %s; only those found at start are "
				"probed",
				bpf_program__section_name(p), strerror(errno));
			return 0;
		}
		err = dc_links_add(&sess->links, l);
		if (err)
			return err;
	}
	sess->libs_watched = sess->libs_stopping = true;
	return 0;
}

/* The path a process's file was mapped from, for messages only: its
 * control characters are not written to a terminal. */
static void mapped_name(const char *link, char *name, size_t size)
{
	ssize_t n = readlink(link, name, size - 1);

	if (n < 0)
		n = snprintf(name, size, "%s", link);
	name[n] = '\0';
	for (char *c = name; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
}

/* The bounds of @pid's mapping that holds @addr, from its maps: 0 or
 * -ENOENT. */
static int mapping_at(__u32 pid, unsigned long long addr,
		      unsigned long long *lo, unsigned long long *hi)
{
	char path[32], line[512];
	int err = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return -ENOENT;
	while (err && fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx-%llx", lo, hi) == 2 && *lo <= addr &&
		    addr < *hi)
			err = 0;
	fclose(f);
	return err;
}

/* The regular file @e names, opened for reading through the mapping, its
 * status in @st and its path in @name: a descriptor or -errno. */
static int open_mapped(const struct dc_lib_event *e, struct stat *st,
		       char *name, size_t size)
{
	unsigned long long lo = e->start, hi = e->end;
	char link[96];
	int fd, rfd;

	/* No mapping: the executable it has just exec'd. */
	if (!hi)
		snprintf(link, sizeof(link), "/proc/%u/exe", e->pid);
	else
		snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx",
			 e->pid, lo, hi);
	/* O_PATH opens nothing: a device or FIFO is never opened. */
	fd = open(link, O_PATH | O_CLOEXEC);
	/* The program knows the mapping as mmap made it; the kernel may
	 * have merged it with a neighbour of the same file. */
	if (fd < 0 && errno == ENOENT && e->end &&
	    !mapping_at(e->pid, e->start, &lo, &hi) &&
	    (lo != e->start || hi != e->end)) {
		snprintf(link, sizeof(link), "/proc/%u/map_files/%llx-%llx",
			 e->pid, lo, hi);
		fd = open(link, O_PATH | O_CLOEXEC);
	}
	if (fd < 0)
		return -errno;
	if (fstat(fd, st)) {
		rfd = -errno;
		goto cleanup;
	}
	if (!S_ISREG(st->st_mode)) {
		rfd = -EBADF;
		goto cleanup;
	}
	mapped_name(link, name, size);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	rfd = open(link, O_RDONLY | O_CLOEXEC);
	if (rfd < 0)
		rfd = -errno;
cleanup:
	close(fd);
	return rfd;
}

/* Whether @base (a file name, its soname @soname or "") is a copy of
 * @d's library: as dc_find_copies() takes one. */
static bool is_copy(const struct dc_probe_info *d, const char *base,
		    const char *soname)
{
	const char *t = strrchr(d->target, '/'), *f = strrchr(d->path, '/');

	t = t ? t + 1 : d->target;
	return (soname[0] && dc_lib_matches(t, soname)) ||
	       dc_lib_matches(t, base) || (f && !strcmp(f + 1, base));
}

/* Whether probe @i is a USDT probe in the file mapped (@base, @soname)
 * or, for an @exec, run (@st). */
static bool usdt_in(const struct dc_session *sess, size_t i, bool exec,
		    const struct stat *st, const char *base, const char *soname)
{
	return dc_usdt_probe(sess, i) &&
	       (exec ? dc_usdt_target_is(sess, i, st)
		     : is_copy(sess->probes[i].d, base, soname));
}

/* Attach the specs whose library @e's file is. 0, or -ENOMEM. */
static int check(struct dc_session *sess, const struct dc_lib_event *e)
{
	char name[PATH_MAX], soname[DC_TARGET_MAX] = "", path[32];
	const char *base, *last = NULL;
	bool exec = !e->end, per_process = false;
	struct stat st;
	int fd, err = 0;

	fd = open_mapped(e, &st, name, sizeof(name));
	/* Gone meanwhile (killed, or unmapped by another thread): checked
	 * when it is mapped again. */
	if (fd == -ENOENT || fd == -ESRCH)
		return 0;
	if (fd < 0) {
		dc_warn("pid %u mapped a file that cannot be checked for the "
			"specs' libraries: %s; if it is one, its calls are not "
			"traced",
			e->pid, strerror(-fd));
		mark(sess, e->ino, e->dev);
		return 0;
	}
	base = strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (dc_elf_soname(path, soname, sizeof(soname)))
		soname[0] = '\0';
	/* Only a file that holds USDT probes is checked again in each
	 * process; any other is checked once. */
	for (size_t i = 0; i < sess->nprobes && !per_process; i++)
		if (usdt_in(sess, i, exec, &st, base, soname))
			per_process = dc_usdt_per_process(sess, path);
	/* A target's probes are listed together: each run of them once (a
	 * target that comes back is probed by then). An executable stops
	 * only for its USDT probes. */
	for (size_t i = 0; i < sess->nprobes && err != -ENOMEM && !exec; i++) {
		const struct dc_probe_info *d = sess->probes[i].d;

		if (d->mech != DC_MECH_UPROBE || sess->probes[i].disabled ||
		    (last && !strcmp(last, d->target)))
			continue;
		last = d->target;
		if (is_copy(d, base, soname) &&
		    !dc_uprobes_probed(sess, d->target, &st))
			err = dc_uprobes_late(sess, i, fd, name, &st, e->pid);
	}
	/* USDT probes go into each file once, whoever maps it, or into each
	 * process that runs or maps it. */
	for (size_t i = 0, first = 1; i < sess->nprobes && err != -ENOMEM;
	     i++) {
		if (!usdt_in(sess, i, exec, &st, base, soname))
			continue;
		if (!per_process && first && (err = dc_usdts_seen(sess, &st)))
			break;
		first = 0;
		err = dc_usdt_attach(sess, i, path, name,
				     per_process ? e->pid : 0);
	}
	close(fd);
	/* Such a file stops each process that maps it. */
	if (!per_process)
		mark(sess, e->ino, e->dev);
	return err == -ENOMEM ? err : 0;
}

int dc_latelib_running(struct dc_session *sess, __u32 pid)
{
	struct dc_lib_event e = { .kind = DC_EV_LIB, .pid = pid };
	unsigned long long lo, hi, ino;
	char path[32], line[PATH_MAX + 128], perms[5];
	unsigned maj, min;
	struct stat st;
	FILE *f = NULL;
	int err;

	if (!sess->libs_stopping || !sess->probes_attached)
		return 0;
	/* Its executable (end 0), then each mapping of code. */
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	if (stat(path, &st))
		return 0;
	e.ino = st.st_ino;
	e.dev = dc_kdev(major(st.st_dev), minor(st.st_dev));
	err = check(sess, &e);
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	if (!err)
		f = fopen(path, "re");
	while (f && !err && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx %4s %*x %x:%x %llu", &lo, &hi,
			   perms, &maj, &min, &ino) != 6 ||
		    perms[2] != 'x' || !ino)
			continue;
		e.start = lo;
		e.end = hi;
		e.ino = ino;
		e.dev = dc_kdev(maj, min);
		err = check(sess, &e);
	}
	if (f)
		fclose(f);
	return err;
}

static int running(struct dc_session *sess, __u32 pid, void *ctx)
{
	(void)ctx;
	return dc_latelib_running(sess, pid);
}

int dc_latelib_traced(struct dc_session *sess)
{
	return dc_traced_each(sess, running, NULL);
}

int dc_latelib_mapped(struct dc_session *sess, const void *data, size_t size)
{
	const struct dc_lib_event *e = data;
	int err = 0;

	if (size < sizeof(*e))
		return -EBADMSG;
	/* A replay (bench/replay): no process waits on it. */
	if (!sess->libs_stopping)
		return 0;
	/* Between jobs, or draining: the process only goes on. */
	if (sess->probes_attached)
		err = check(sess, e);
	kill(e->pid, SIGCONT);
	return err;
}
