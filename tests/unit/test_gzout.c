// SPDX-License-Identifier: MIT
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <zlib.h>

#include "check.h"
#include "gzout.h"

/* Inflate every gzip member of @in on its own; check each one ends right
 * after a newline and that none compressed worse than @min_ratio.
 * Returns the concatenated text and the member count. */
static char *read_members(const unsigned char *in, size_t n, size_t *out_len,
			  int *members, double min_ratio)
{
	size_t cap = 1 << 20, len = 0, pos = 0;
	char *out = malloc(cap);

	*members = 0;
	while (pos < n) {
		z_stream zs = {};
		size_t start = len;
		int ret;

		CHECK(inflateInit2(&zs, 31) == Z_OK);
		zs.next_in = (Bytef *)in + pos;
		zs.avail_in = n - pos;
		do {
			if (cap - len < 65536)
				out = realloc(out, cap *= 2);
			zs.next_out = (Bytef *)out + len;
			zs.avail_out = cap - len;
			ret = inflate(&zs, Z_NO_FLUSH);
			len = cap - zs.avail_out;
		} while (ret == Z_OK);
		CHECK(ret == Z_STREAM_END);
		if (ret != Z_STREAM_END) {
			inflateEnd(&zs);
			break;
		}
		CHECK(len > start && out[len - 1] == '\n');
		/* Short members (the interval's, the last) carry headers. */
		if (len - start >= 65536)
			CHECK((double)(len - start) / (n - zs.avail_in - pos) >=
			      min_ratio);
		pos = n - zs.avail_in;
		inflateEnd(&zs);
		(*members)++;
	}
	*out_len = len;
	return out;
}

/* Write @nlines trace-like lines in members of @member_size; read them
 * back member by member. */
static void roundtrip(int nlines, size_t member_size, int min_members,
		      double min_ratio)
{
	char path[] = "/tmp/dc-test-gzout-XXXXXX";
	int fd = mkstemp(path), members;
	struct dc_buf want = {};
	struct dc_gz gz;
	unsigned char *file;
	size_t flen, tlen;
	char *text;
	FILE *f;

	CHECK(fd >= 0);
	CHECK(!dc_gz_open(&gz, fd, true, 1, member_size, 1000));
	for (int i = 0; i < nlines; i++) {
		struct dc_buf *b = dc_gz_buf(&gz);
		size_t before = b->len;

		dc_buf_addf(b,
			    "{\"id\":%d,\"name\":\"%s\",\"ts\":%llu,\"dur\":%d,"
			    "\"args\":{\"fd\":%d,\"ret\":1}}\n",
			    i, i % 2 ? "read" : "write",
			    1795345149276208ull + i * 3, i % 7, i % 2);
		dc_buf_add(&want, b->p + before, b->len - before);
		CHECK(!dc_gz_line_done(&gz, 10 + i));
		/* The interval closes a member too. */
		if (i == 10)
			CHECK(!dc_gz_tick(&gz, 10 + i + 1000));
	}
	CHECK(!dc_gz_close(&gz));
	close(fd);

	f = fopen(path, "rb");
	fseek(f, 0, SEEK_END);
	flen = ftell(f);
	rewind(f);
	file = malloc(flen);
	CHECK(fread(file, 1, flen, f) == flen);
	fclose(f);
	unlink(path);

	text = read_members(file, flen, &tlen, &members, min_ratio);
	CHECK(tlen == want.len && !memcmp(text, want.p, tlen));
	CHECK(members == (int)gz.members);
	if (members < min_members)
		fprintf(stderr, "%d members, want %d or more\n", members,
			min_members);
	CHECK(members >= min_members);
	free(text);
	free(file);
	dc_buf_free(&want);
}

int main(void)
{
	/* Small members so one run spans many. */
	roundtrip(5000, 4096, 20, 1);
	/* Hundreds of real-sized members, and every one compressed (igzip
	 * with a half-initialised stream once wrote some as bare literals,
	 * at a ratio under 2). */
	roundtrip(600000, 128 << 10, 300, 8);
	return CHECK_DONE();
}
