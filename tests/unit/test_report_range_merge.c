// SPDX-License-Identifier: MIT
/* Partial reports of consecutive byte ranges of one trace, merged in
 * order, equal the trace reported whole in every output, for each way of
 * cutting it at its gzip members; a range that starts inside a tree of
 * nested calls, or holds a record on the trace's host, is refused. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "datacrumbs/report.h"

#define NTREE 12
#define NMEM  6
#define CAP   8192

static const enum dcr_format formats[] = { DCR_JSON, DCR_TEXT, DCR_FOLDED,
					   DCR_DARSHAN, DCR_SUMMARY };
#define NFMT (int)(sizeof(formats) / sizeof(formats[0]))

static void add(char *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void add(char *b, const char *fmt, ...)
{
	size_t n = strlen(b);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b + n, CAP - n, fmt, ap);
	va_end(ap);
}

static void call(char *b, int id, int tid, const char *name, const char *cat,
		 int ts, int dur, int file, int level, int p_idx)
{
	add(b,
	    "{\"id\":%d,\"name\":\"%s\",\"cat\":\"%s\",\"pid\":10,\"tid\":%d,"
	    "\"ts\":%d,\"dur\":%d,\"ph\":\"X\",\"args\":{\"hhash\":"
	    "\"00000000000000bb\",\"fhash\":\"00000000000000f%d\",\"ret\":100,"
	    "\"size\":100,\"offset\":%d,\"level\":%d,\"p_idx\":%d}}\n",
	    id, name, cat, tid, ts, dur, file, ts, level, p_idx);
}

/* Tree j on thread 10 + j % 3: fwrite over j % 3 POSIX writes, each over
 * a syscall, on file 1 or 2; two trees a member, file 2 named in the
 * third. With @cut, tree 4's children start the fourth member. */
static void trace_text(char mem[NMEM][CAP], bool cut, bool hostless)
{
	int id = 1;

	memset(mem, 0, NMEM * CAP);
	add(mem[0],
	    "{\"id\":%d,\"name\":\"HH\",\"cat\":\"dftracer\",\"pid\":10,"
	    "\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"node\",\"value\":"
	    "\"00000000000000bb\"}}\n",
	    id++);
	add(mem[0],
	    "{\"id\":%d,\"name\":\"FH\",\"cat\":\"dftracer\",\"pid\":10,"
	    "\"tid\":10,\"ph\":\"M\",\"args\":{\"name\":\"/data/f1\","
	    "\"value\":\"00000000000000f1\"}}\n",
	    id++);
	for (int j = 0; j < NTREE; j++) {
		char *b = mem[j / 2];
		int tid = 10 + j % 3, ts = 1000 * (j + 1), file = 1 + j % 2;
		int root = id;

		if (j == 4) {
			add(b,
			    "{\"id\":%d,\"name\":\"FH\",\"cat\":\"dftracer\","
			    "\"pid\":10,\"tid\":10,\"ph\":\"M\",\"args\":{"
			    "\"name\":\"/data/f2\",\"value\":"
			    "\"00000000000000f2\"}}\n",
			    id++);
			root = id;
		}
		if (j == 6 && hostless) {
			add(b,
			    "{\"id\":%d,\"name\":\"process_name\",\"cat\":"
			    "\"dftracer\",\"pid\":10,\"tid\":10,\"ph\":\"M\","
			    "\"args\":{\"name\":\"app\"}}\n",
			    id++);
			root = id;
		}
		call(b, id++, tid, "fwrite", "STDIO", ts, 90, file, 1, -1);
		if (cut && j == 4)
			b = mem[3];
		for (int k = 0; k < j % 3; k++) {
			int p = id;

			call(b, id++, tid, "write", "POSIX", ts + 10 * k + 1, 8,
			     file, 2, root);
			call(b, id++, tid, "write", "sys", ts + 10 * k + 2, 5,
			     file, 3, p);
		}
	}
}

static int write_gz(const char *path, char mem[NMEM][CAP],
		    uint64_t off[NMEM + 1])
{
	static unsigned char buf[CAP * 2];
	FILE *f = fopen(path, "w");
	int err = 0;

	if (!f)
		return -errno;
	off[0] = 0;
	for (int i = 0; i < NMEM && !err; i++) {
		z_stream zs = { 0 };
		size_t n = 0;

		if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
				 Z_DEFAULT_STRATEGY)) {
			err = -ENOMEM;
			break;
		}
		zs.next_in = (unsigned char *)mem[i];
		zs.avail_in = strlen(mem[i]);
		zs.next_out = buf;
		zs.avail_out = sizeof(buf);
		if (deflate(&zs, Z_FINISH) == Z_STREAM_END)
			n = zs.total_out;
		deflateEnd(&zs);
		if (!n || fwrite(buf, 1, n, f) != n)
			err = -EIO;
		off[i + 1] = off[i] + n;
	}
	return fclose(f) || err ? -EIO : 0;
}

/* A partial report of [@begin, @end) through its saved bytes, as a
 * Dask task hands it back. */
static struct dcr_report *part(const char *path, uint64_t begin, uint64_t end)
{
	struct dcr_report *r, *back = NULL;
	void *buf = NULL;
	size_t len;

	if (dcr_report_new(&r))
		return NULL;
	if (!dcr_report_set_darshan(r, 1) &&
	    !dcr_report_add_range(r, path, begin, end) &&
	    !dcr_report_save(r, &buf, &len))
		dcr_report_load(buf, len, &back);
	dcr_free(buf);
	dcr_report_free(r);
	return back;
}

/* The ranges cut at the members in the bits of @cuts, merged in order:
 * 0 with every output equal to @whole's, or the merge's error. */
static int check_cuts(const char *path, const uint64_t off[NMEM + 1],
		      unsigned cuts, char *whole[NFMT])
{
	struct dcr_report *m = NULL, *p;
	int begin = 0, err = 0;

	for (int i = 1; i <= NMEM && !err; i++) {
		if (i < NMEM && !(cuts >> (i - 1) & 1))
			continue;
		p = part(path, off[begin], off[i]);
		begin = i;
		if (!p) {
			err = -ENOMEM;
		} else if (!m) {
			m = p;
		} else {
			err = dcr_report_merge(m, p);
			dcr_report_free(p);
		}
	}
	if (!err)
		err = dcr_report_finish(m);
	for (int f = 0; f < NFMT && !err; f++) {
		char *out = NULL;
		size_t len;

		err = dcr_report_render(m, formats[f], 10, &out, &len);
		if (!err && strcmp(out, whole[f]))
			err = -EDOM;
		dcr_free(out);
	}
	dcr_report_free(m);
	return err;
}

/* Every output of @path reported whole into @out. */
static int render_whole(const char *path, char *out[NFMT])
{
	struct dcr_report *r;
	size_t len;
	int err = dcr_report_new(&r);

	if (err)
		return err;
	err = dcr_report_set_darshan(r, 1);
	if (!err)
		err = dcr_report_add(r, path);
	if (!err)
		err = dcr_report_finish(r);
	for (int f = 0; f < NFMT && !err; f++)
		err = dcr_report_render(r, formats[f], 10, &out[f], &len);
	dcr_report_free(r);
	return err;
}

static void quiet(void *ctx, const char *msg)
{
	(void)ctx;
	(void)msg;
}

int main(void)
{
	static char mem[NMEM][CAP];
	char path[] = "/tmp/test_report_range_merge-XXXXXX";
	char *whole[NFMT] = { 0 };
	uint64_t off[NMEM + 1];
	int fd = mkstemp(path);

	CHECK(fd >= 0);
	close(fd);
	dcr_set_log(quiet, NULL);

	/* Whole trees in each member: every cut merges exactly. */
	trace_text(mem, false, false);
	CHECK(write_gz(path, mem, off) == 0);
	CHECK(render_whole(path, whole) == 0);
	CHECK(strstr(whole[0], "\"traces\":1") != NULL);
	for (unsigned cuts = 0; cuts < 1u << (NMEM - 1); cuts++) {
		int err = check_cuts(path, off, cuts, whole);

		if (err)
			fprintf(stderr, "cuts %#x: %d\n", cuts, err);
		CHECK(err == 0);
	}
	for (int f = 0; f < NFMT; f++)
		dcr_free(whole[f]);

	/* Tree 4 straddles members 3 and 4: a range starting at member 4
	 * is refused, and only it. */
	trace_text(mem, true, false);
	CHECK(write_gz(path, mem, off) == 0);
	CHECK(render_whole(path, whole) == 0);
	for (unsigned cuts = 0; cuts < 1u << (NMEM - 1); cuts++)
		CHECK(check_cuts(path, off, cuts, whole) ==
		      (cuts & 1u << 2 ? -EOPNOTSUPP : 0));
	for (int f = 0; f < NFMT; f++)
		dcr_free(whole[f]);

	/* A process_name in member 4 is on the host named in member 1. */
	trace_text(mem, false, true);
	CHECK(write_gz(path, mem, off) == 0);
	CHECK(render_whole(path, whole) == 0);
	for (unsigned cuts = 0; cuts < 1u << (NMEM - 1); cuts++)
		CHECK(check_cuts(path, off, cuts, whole) ==
		      (cuts & 0x7 ? -EOPNOTSUPP : 0));
	for (int f = 0; f < NFMT; f++)
		dcr_free(whole[f]);
	unlink(path);
	return CHECK_DONE();
}
