// SPDX-License-Identifier: MIT
/* Partial reports: three traces read one by one, saved, loaded and
 * merged give every output of one report that read the three, byte for
 * byte; a truncated, damaged or foreign buffer is refused, never read
 * past; the contract's errors. The traces share a file named in the
 * first only, and have nested calls whose children outlast their parent
 * (shares of a call's time that are not whole microseconds), and a
 * counter record of no calls in the last, and a call of unknown bytes
 * in the second. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "datacrumbs/report.h"

#define HH(id, host, hash)                                                     \
	"{\"id\":" #id ",\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,"     \
	"\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"" host                   \
	"\",\"value\":\"" hash "\"}}\n"
#define FH(id, name, hash)                                                     \
	"{\"id\":" #id ",\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,"     \
	"\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"" name                   \
	"\",\"value\":\"" hash "\"}}\n"
#define CALL(id, name, cat, pid, ts, dur, pidx, fh, size)                      \
	"{\"id\":" #id ",\"name\":\"" name "\",\"cat\":\"" cat                 \
	"\",\"pid\":" #pid ",\"tid\":" #pid ",\"ts\":" #ts ",\"dur\":" #dur    \
	",\"ph\":\"X\","                                                       \
	"\"args\":{\"hhash\":\"00000000000000bb\",\"fhash\":\"" fh "\","       \
	"\"size\":" #size ",\"ret\":" #size ",\"p_idx\":" #pidx "}}\n"

static const char *const traces[] = {
	"[\n" HH(1, "node1", "00000000000000bb") FH(
	    2, "/data/a",
	    "00000000000000aa") "{\"id\":3,\"name\":\"start\",\"cat\":"
				"\"dftracer\",\"pid\":10,"
				"\"tid\":10,\"ts\":900,\"dur\":0,\"ph\":\"X\","
				"\"args\":{\"cmd\":"
				"\"app\",\"mounts\":{\"/"
				"data\":{\"type\":\"ext4\",\"bsize\":"
				"4096}}}}\n" CALL(
				    4, "open64", "POSIX", 10, 1000, 5, -1,
				    "00000000000000aa",
				    3) CALL(5, "write", "POSIX", 10, 1010, 10,
					    -1, "00000000000000aa", 100)
				    CALL(6, "block_rq_issue", "kernel", 10,
					 1011, 7, 5, "00000000000000aa", 100)
					CALL(7, "block_rq_issue", "kernel", 10,
					     1012, 7, 5, "00000000000000aa",
					     100) "not json\n" CALL(8, "close",
								    "POSIX", 10,
								    1030, 2, -1,
								    "0000000000"
								    "0000aa",
								    0) "]\n",
	"[\n" HH(1, "node2", "00000000000000cc") CALL(
	    2, "write", "POSIX", 20, 500, 30, -1, "00000000000000aa",
	    4096) CALL(3, "block_rq_issue", "kernel", 20, 501, 29, 2,
		       "00000000000000aa", 4096)
	    CALL(4, "pwrite64", "sys", 20, 502, 13, 2, "00000000000000aa",
		 4096) FH(5, "/data/b", "00000000000000dd")
		CALL(6, "read", "POSIX", 20, 2000, 30, -1, "00000000000000dd",
		     10) "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":20,"
			 "\"tid\":20,\"ts\":3000,\"dur\":0,\"ph\":\"C\","
			 "\"args\":{\"fhash\":\"00000000000000dd\",\"count\":3,"
			 "\"dur_sum\":30,\"size_sum\":300}}\n"
			 "{\"id\":7,\"name\":\"H5Dwrite\",\"cat\":\"HDF5\","
			 "\"pid\":20,\"tid\":20,\"ts\":3100,\"dur\":4,"
			 "\"ph\":\"X\",\"args\":{\"fhash\":"
			 "\"00000000000000dd\",\"size_unknown\":1}}\n",
	"[\n" HH(1, "node1", "00000000000000bb") CALL(
	    2, "pwrite", "STDIO", 30, 100, 30, -1, "00000000000000ee", 7)
	    CALL(
		3, "write", "POSIX", 30, 101, 30, 2, "00000000000000aa",
		7) "{\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":30,"
		   "\"tid\":30,\"ts\":3500,\"dur\":0,\"ph\":\"C\","
		   "\"args\":{\"fhash\":\"00000000000000dd\",\"count\":0,"
		   "\"dur_sum\":1}}\n"
		   "{\"id\":4,\"name\":\"end\",\"cat\":\"dftracer\",\"pid\":10,"
		   "\"tid\":10,\"ts\":4000,\"dur\":0,\"ph\":\"X\",\"args\":"
		   "{\"lost\":2}}\n",
};
#define NTRACES 3

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

static struct dcr_report *read_traces(char paths[][40], int from, int to)
{
	struct dcr_report *r;

	if (dcr_report_new(&r))
		return NULL;
	CHECK(dcr_report_set_darshan(r, 1) == 0);
	for (int i = from; i < to; i++)
		CHECK(dcr_report_add(r, paths[i]) == 0);
	return r;
}

/* Every output of @a and @b alike. */
static void same(struct dcr_report *a, struct dcr_report *b)
{
	for (int f = DCR_JSON; f <= DCR_FLAME; f++) {
		char *x = NULL, *y = NULL;
		size_t nx = 0, ny = 0;

		CHECK(dcr_report_render(a, f, 10, &x, &nx) == 0);
		CHECK(dcr_report_render(b, f, 10, &y, &ny) == 0);
		CHECK(x && y && nx == ny && !memcmp(x, y, nx));
		if (x && y && (nx != ny || memcmp(x, y, nx)))
			fprintf(stderr, "format %d:\n%s\n---\n%s\n", f, x, y);
		dcr_free(x);
		dcr_free(y);
	}
	CHECK(dcr_report_events(a) == dcr_report_events(b));
	CHECK(dcr_report_problems(a) == dcr_report_problems(b));
}

int main(void)
{
	char paths[NTRACES][40];
	struct dcr_report *whole, *merged = NULL, *part, *x;
	void *buf;
	size_t len;

	dcr_set_log(quiet, NULL);
	for (int i = 0; i < NTRACES; i++) {
		int fd;

		snprintf(paths[i], sizeof(paths[i]),
			 "/tmp/test_report_merge-XXXXXX");
		fd = mkstemp(paths[i]);
		CHECK(fd >= 0 && write(fd, traces[i], strlen(traces[i])) ==
				     (ssize_t)strlen(traces[i]));
		close(fd);
	}
	whole = read_traces(paths, 0, NTRACES);
	for (int i = 0; i < NTRACES; i++) {
		part = read_traces(paths, i, i + 1);
		CHECK(dcr_report_save(part, &buf, &len) == 0);
		dcr_report_free(part);
		/* Every cut is refused; so is a buffer of another kind. */
		for (size_t n = 0; n < len; n++) {
			int err = dcr_report_load(buf, n, &x);

			CHECK(err == -EBADMSG || err == -EINVAL);
		}
		/* A damaged byte: refused, or a report that renders. */
		for (size_t n = 0; n < len; n += 7) {
			unsigned char *p = buf;

			p[n] ^= 0xa5;
			if (!dcr_report_load(buf, len, &x)) {
				char *o;
				size_t ol;

				if (!dcr_report_finish(x) &&
				    !dcr_report_render(x, DCR_TEXT, 5, &o, &ol))
					dcr_free(o);
				dcr_report_free(x);
			}
			p[n] ^= 0xa5;
		}
		CHECK(dcr_report_load(buf, len, &part) == 0);
		dcr_free(buf);
		if (!merged)
			merged = part;
		else {
			CHECK(dcr_report_merge(merged, part) == 0);
			dcr_report_free(part);
		}
	}
	CHECK(dcr_report_load("foreign bytes", 13, &x) == -EINVAL);
	CHECK(dcr_report_finish(whole) == 0 && dcr_report_finish(merged) == 0);
	CHECK(dcr_report_events(whole) == 14);
	same(whole, merged);
	/* 29 and 13 us in a call of 30: 30 * 29 / 42 us in the kernel, and
	 * the 10 us of the first trace's write. */
	CHECK(dcr_report_render(whole, DCR_JSON, 0, (char **)&buf, &len) == 0);
	CHECK(strstr(buf, "\"kernel\":30.714,\"sys\":9.286") != NULL);
	dcr_free(buf);
	CHECK(dcr_report_save(whole, &buf, &len) == -EINVAL);

	/* What does not merge. */
	part = read_traces(paths, 0, 1);
	x = read_traces(paths, 1, 2);
	CHECK(dcr_report_merge(part, part) == -EINVAL);
	CHECK(dcr_report_merge(merged, x) == -EINVAL); /* finished */
	dcr_report_free(x);
	CHECK(dcr_report_new(&x) == 0);
	CHECK(dcr_report_merge(part, x) == -EINVAL); /* no Darshan */
	dcr_report_free(x);
	dcr_report_free(part);

	dcr_report_free(whole);
	dcr_report_free(merged);
	for (int i = 0; i < NTRACES; i++)
		unlink(paths[i]);
	return CHECK_DONE();
}
