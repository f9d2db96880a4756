// SPDX-License-Identifier: MIT
/* Whole files read (a regular file, one that grows past its first guess,
 * a /proc file that says it is empty) and the template language. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "fileio.h"
#include "template.h"

static char dir[] = "/tmp/dc-test-template-XXXXXX";

static void put(const char *name, const char *data, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	CHECK(f && fwrite(data, 1, len, f) == len);
	if (f)
		fclose(f);
}

static void read_files(int argc, char **argv)
{
	char path[256], *data = NULL, big[100003], want[4096];
	size_t len = 0, n = 0;

	put("small", "a\0b", 3);
	snprintf(path, sizeof(path), "%s/small", dir);
	CHECK(!dc_read_file(path, &data, &len));
	CHECK(len == 3 && !memcmp(data, "a\0b", 4));
	free(data);

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = 'a' + i % 26;
	put("big", big, sizeof(big));
	snprintf(path, sizeof(path), "%s/big", dir);
	CHECK(!dc_read_file(path, &data, &len));
	CHECK(len == sizeof(big) && !memcmp(data, big, len) && !data[len]);
	free(data);

	put("empty", "", 0);
	snprintf(path, sizeof(path), "%s/empty", dir);
	CHECK(!dc_read_file(path, &data, NULL) && !*data);
	free(data);

	/* st_size 0: the arguments this test was started with. */
	for (int i = 0; i < argc; i++) {
		size_t l = strlen(argv[i]) + 1;

		if (n + l <= sizeof(want))
			memcpy(want + n, argv[i], l);
		n += l;
	}
	CHECK(!dc_read_file("/proc/self/cmdline", &data, &len));
	CHECK(len == n && n <= sizeof(want) && !memcmp(data, want, n));
	free(data);

	data = NULL;
	CHECK(dc_read_file(dir, &data, &len) == -EISDIR && !data);
	snprintf(path, sizeof(path), "%s/missing", dir);
	CHECK(dc_read_file(path, &data, &len) == -ENOENT && !data);
}

static int fill(void *ctx, const char *name, size_t len, struct dc_buf *out)
{
	(void)ctx;
	if (len == 4 && !memcmp(name, "FAIL", 4))
		return -E2BIG;
	return len == 3 && !memcmp(name, "CB_", 3) ? dc_buf_adds(out, "cb") : 1;
}

static void expand(const char *text, const char *want, int want_err)
{
	const char *kv[] = { "A", "1", "B_2", "@A@", NULL };
	struct dc_tmpl t = {};
	struct dc_buf out = {};
	int err;

	put("t.in", text, strlen(text));
	CHECK(!dc_tmpl_read(&t, dir, "t.in"));
	err = dc_tmpl_expand(&out, &t, kv);
	CHECK(err == want_err);
	if (!err) {
		CHECK(!dc_buf_add(&out, "", 1));
		CHECK_STR(out.p, want);
	}
	dc_buf_free(&out);
	dc_tmpl_free(&t);
}

static void templates(void)
{
	struct dc_tmpl t = {};
	struct dc_buf out = {};

	expand("", "", 0);
	expand("x@A@y", "x1y", 0);
	/* A value is not read again. */
	expand("@B_2@@A@", "@A@1", 0);
	/* Not placeholders: text. */
	expand("@media (x) { a@b.c @a@ @@A@ @1A@ @A",
	       "@media (x) { a@b.c @a@ @1 "
	       "@1A@ @A",
	       0);
	expand("line\n@NOPE@", NULL, -EINVAL);

	put("cb.in", "<@CB_@>", 7);
	CHECK(!dc_tmpl_read(&t, dir, "cb.in"));
	CHECK(!dc_tmpl_fill(&out, &t, fill, NULL));
	CHECK(!dc_buf_add(&out, "", 1));
	CHECK_STR(out.p, "<cb>");
	dc_buf_free(&out);
	dc_tmpl_free(&t);

	put("fail.in", "@FAIL@", 6);
	CHECK(!dc_tmpl_read(&t, dir, "fail.in"));
	CHECK(dc_tmpl_fill(&out, &t, fill, NULL) == -E2BIG);
	dc_buf_free(&out);
	dc_tmpl_free(&t);

	CHECK(dc_tmpl_read(&t, dir, "missing.in") == -ENOENT && !t.text);
}

int main(int argc, char **argv)
{
	static const char *const files[] = { "small", "big",   "empty",
					     "t.in",  "cb.in", "fail.in" };
	char path[256];

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	read_files(argc, argv);
	templates();
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	CHECK(!rmdir(dir));
	return CHECK_DONE();
}
