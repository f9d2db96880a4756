// SPDX-License-Identifier: MIT
/*
 * The runtime's user-space ceiling: feed raw ring-buffer records saved by
 * `datacrumbs-runtime --save-records` through the same decode, JSON and
 * compression code, with no kernel and no traced program competing for
 * the CPUs. Prints events per second (wall) and CPU ns per event.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "runtime.h"

static const char usage[] =
    "Usage: replay [-n PASSES] [-o OUTPUT] OBJECT RECORDS\n"
    "Replay RECORDS (from datacrumbs-runtime --save-records) through the\n"
    "runtime's writer for OBJECT, PASSES times (1); write OUTPUT\n"
    "(/dev/null; .pfw for plain text).\n";

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int replay(struct dc_rt *rt, const char *p, size_t len)
{
	size_t off = 0;
	int err;

	while (off + 8 <= len) {
		uint32_t n;

		memcpy(&n, p + off, sizeof(n));
		if (off + 8 + n > len)
			return -EINVAL;
		err = dc_enrich_record(rt, p + off + 8, n);
		if (err)
			return err;
		off += 8 + ((n + 7) & ~7u);
	}
	return off == len ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	const char *out = "/dev/null";
	struct dc_rt rt = {};
	struct dc_pfw_opts wo;
	uint64_t wall, cpu;
	struct stat st;
	int opt, passes = 1, fd = -1, in = -1, ret = 1, err;
	void *map = MAP_FAILED;

	dc_log_init(argv[0]);
	while ((opt = getopt(argc, argv, "n:o:h")) != -1) {
		switch (opt) {
		case 'n': passes = atoi(optarg); break;
		case 'o': out = optarg; break;
		case 'h': fputs(usage, stdout); return 0;
		default: fputs(usage, stderr); return 2;
		}
	}
	if (argc - optind != 2 || passes < 1) {
		fputs(usage, stderr);
		return 2;
	}
	if (dc_probes_read(&rt.sess, argv[optind]))
		goto cleanup;
	in = open(argv[optind + 1], O_RDONLY | O_CLOEXEC);
	if (in < 0 || fstat(in, &st) ||
	    (map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE,
			in, 0)) == MAP_FAILED) {
		dc_err("%s: %s", argv[optind + 1], strerror(errno));
		goto cleanup;
	}
	fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		dc_err("cannot create %s: %s", out, strerror(errno));
		goto cleanup;
	}
	wo = (struct dc_pfw_opts){ .compress = dc_pfw_compressed(out),
				   .level = 1,
				   .member_size = 1 << 20,
				   .interval_ns = 1000000000ull };
	if (dc_pfw_open(&rt.out.w, fd, &wo))
		goto cleanup;
	rt.out.wo = wo;
	wall = clock_ns(CLOCK_MONOTONIC);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 0; i < passes; i++) {
		err = replay(&rt, map, st.st_size);
		if (err) {
			dc_err("%s: %s", argv[optind + 1], strerror(-err));
			goto cleanup;
		}
	}
	dc_enrich_flush(&rt);
	err = dc_pfw_close(&rt.out.w);
	wall = clock_ns(CLOCK_MONOTONIC) - wall;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	if (err) {
		dc_err("writing %s: %s", out, strerror(-err));
		goto cleanup;
	}
	printf("replay: %llu events in %.3f s: %.0f events/s, %llu ns CPU "
	       "per event, %llu bytes in, %llu out, %llu bad records\n",
	       (unsigned long long)rt.out.w.calls, wall / 1e9,
	       rt.out.w.calls / (wall / 1e9),
	       (unsigned long long)(rt.out.w.calls ? cpu / rt.out.w.calls : 0),
	       (unsigned long long)rt.out.w.gz.bytes_in,
	       (unsigned long long)rt.out.w.gz.bytes_out,
	       (unsigned long long)rt.bad_records);
	ret = 0;
cleanup:
	if (map != MAP_FAILED)
		munmap(map, st.st_size);
	if (in >= 0)
		close(in);
	if (fd >= 0)
		close(fd);
	dc_procs_free(&rt.ps);
	dc_ringbuf_close(&rt);
	dc_unload(&rt.sess);
	return ret;
}
