// SPDX-License-Identifier: MIT
/* Reading a trace by byte ranges: dcr_trace_split() cuts at the gzip
 * members written here (line starts, for plain text), and the ranges
 * read every member, every call and every damaged place exactly once. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "datacrumbs/report.h"

#define CALL(id, ts, pidx)                                                     \
	"{\"id\":" #id ",\"name\":\"write\",\"cat\":\"POSIX\",\"pid\":10,"     \
	"\"tid\":10,\"ts\":" #ts ",\"dur\":5,\"ph\":\"X\",\"args\":{"          \
	"\"hhash\":\"00000000000000bb\",\"fhash\":\"00000000000000aa\","       \
	"\"size\":100,\"ret\":100,\"p_idx\":" #pidx "}}\n"

/* Three members of 2, 2 and 1 calls; the names are in the first. */
static const char *const members[] = {
	"[\n"
	"{\"id\":1,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
	"\"ph\":\"M\",\"args\":{\"name\":\"node\",\"value\":"
	"\"00000000000000bb\"}}\n"
	"{\"id\":2,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,\"tid\":10,"
	"\"ph\":\"M\",\"args\":{\"name\":\"/data/f\",\"value\":"
	"\"00000000000000aa\"}}\n" CALL(3, 1000, -1) CALL(4, 1001, 3),
	CALL(5, 2000, -1) CALL(6, 3000, -1),
	CALL(7, 4000, -1) "]\n",
};
static const uint64_t calls[] = { 2, 2, 1 };
#define NMEM 3

static size_t gzip_member(const char *text, unsigned char *out, size_t cap)
{
	z_stream zs = {};
	size_t n;

	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY))
		return 0;
	zs.next_in = (Bytef *)text;
	zs.avail_in = strlen(text);
	zs.next_out = out;
	zs.avail_out = cap;
	n = deflate(&zs, Z_FINISH) == Z_STREAM_END ? zs.total_out : 0;
	deflateEnd(&zs);
	return n;
}

/* The trace's members, with @junk bytes that are not gzip after the
 * second: their offsets in @off[0..NMEM] (the last: the file's size). */
static int write_gz(const char *path, const char *junk, uint64_t *off)
{
	unsigned char buf[4096];
	FILE *f = fopen(path, "w");
	size_t n;

	if (!f)
		return -errno;
	off[0] = 0;
	for (int i = 0; i < NMEM; i++) {
		n = gzip_member(members[i], buf, sizeof(buf));
		if (!n || fwrite(buf, 1, n, f) != n)
			break;
		off[i + 1] = off[i] + n;
		if (i == 1 && junk) {
			fputs(junk, f);
			off[i + 1] += strlen(junk);
		}
	}
	return fclose(f) ? -EIO : 0;
}

/* Events and damaged places of [@begin, @end) of @path, as read: not
 * finished, which would name the hashes defined in another range. */
static int range(const char *path, uint64_t begin, uint64_t end,
		 uint64_t *events, uint64_t *problems)
{
	struct dcr_report *r;
	int err = dcr_report_new(&r);

	if (err)
		return err;
	err = dcr_report_add_range(r, path, begin, end);
	*events += dcr_report_events(r);
	*problems += dcr_report_problems(r);
	dcr_report_free(r);
	return err;
}

static char *json_of(const char *path, uint64_t begin, uint64_t end)
{
	struct dcr_report *r;
	char *out = NULL;
	size_t len;
	int err;

	if (dcr_report_new(&r))
		return NULL;
	err = end ? dcr_report_add_range(r, path, begin, end)
		  : dcr_report_add(r, path);
	if (!err && !dcr_report_finish(r))
		dcr_report_render(r, DCR_JSON, 0, &out, &len);
	dcr_report_free(r);
	return out;
}

static void quiet(void *ctx, const char *msg)
{
	(*(int *)ctx)++;
	(void)msg;
}

int main(void)
{
	char path[] = "/tmp/test_report_range-XXXXXX";
	uint64_t off[NMEM + 1], cut[11], ev, pr;
	char *whole, *all;
	int fd, msgs = 0;

	fd = mkstemp(path);
	CHECK(fd >= 0);
	close(fd);
	dcr_set_log(quiet, &msgs);

	/* Cut at the members: one per range, or empty ranges past them. */
	CHECK(write_gz(path, NULL, off) == 0);
	CHECK(dcr_trace_split(path, NMEM, cut) == 0);
	for (int i = 0; i <= NMEM; i++)
		CHECK(cut[i] == off[i]);
	for (int i = 0; i < NMEM; i++) {
		ev = pr = 0;
		CHECK(range(path, cut[i], cut[i + 1], &ev, &pr) == 0);
		CHECK(ev == calls[i] && pr == 0);
	}
	CHECK(dcr_trace_split(path, 10, cut) == 0);
	ev = pr = 0;
	for (int i = 0; i < 10; i++) {
		CHECK(cut[i] <= cut[i + 1]);
		CHECK(range(path, cut[i], cut[i + 1], &ev, &pr) == 0);
	}
	CHECK(ev == 5 && pr == 0 && cut[10] == off[NMEM]);

	/* Inside the first member: the second is the range's first. */
	ev = pr = 0;
	CHECK(range(path, 1, off[2], &ev, &pr) == 0);
	CHECK(ev == calls[1] && pr == 0);
	ev = pr = 0;
	CHECK(range(path, 1, 2, &ev, &pr) == 0 && ev == 0 && pr == 0);

	/* The whole file as one range is the whole trace, byte for byte. */
	whole = json_of(path, 0, 0);
	all = json_of(path, 0, off[NMEM]);
	CHECK(whole && all && !strcmp(whole, all));
	free(whole);
	free(all);

	/* Junk after the second member is named once: by the range that
	 * read that member, however the file is cut. */
	CHECK(write_gz(path, "not gzip", off) == 0);
	for (int n = 1; n <= 4; n++) {
		CHECK(dcr_trace_split(path, n, cut) == 0);
		ev = pr = 0;
		for (int i = 0; i < n; i++)
			CHECK(range(path, cut[i], cut[i + 1], &ev, &pr) == 0);
		CHECK(ev == 5 && pr == 1);
	}

	/* Plain text: lines starting in the range. */
	fd = open(path, O_WRONLY | O_TRUNC);
	for (int i = 0; i < NMEM; i++)
		CHECK(write(fd, members[i], strlen(members[i])) ==
		      (ssize_t)strlen(members[i]));
	close(fd);
	for (int n = 1; n <= 7; n++) {
		CHECK(dcr_trace_split(path, n, cut) == 0);
		ev = pr = 0;
		for (int i = 0; i < n; i++)
			CHECK(range(path, cut[i], cut[i + 1], &ev, &pr) == 0);
		CHECK(ev == 5 && pr == 0);
	}
	ev = pr = 0;
	CHECK(range(path, 1, strlen(members[0]), &ev, &pr) == 0);
	CHECK(ev == 2 && pr == 0); /* past "[": the lines after it */

	CHECK(dcr_trace_split(path, 0, cut) == -EINVAL);
	CHECK(dcr_report_add_range(NULL, path, 2, 1) == -EINVAL);
	CHECK(dcr_trace_split("/nonexistent/trace.pfw.gz", 2, cut) == -ENOENT);
	CHECK(msgs == 4); /* the junk, once for each way of cutting */
	unlink(path);
	return CHECK_DONE();
}
