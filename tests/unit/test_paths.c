// SPDX-License-Identifier: MIT
/* dc_path_join against known answers, and against realpath(3) on a real
 * tree without links, where lexical and physical cleaning agree. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "paths.h"

static struct dc_buf out;

static void expect(const char *base, const char *path, const char *want)
{
	CHECK(!dc_path_join(&out, base, path));
	CHECK_STR(out.p, want);
	CHECK(out.len == strlen(want));
}

static void known(void)
{
	char deep[2 * 5000 + 1];

	expect("", "/a/b", "/a/b");
	expect("", "/", "/");
	expect("", "//a//b//", "/a/b");
	expect("", "/a/./b/.", "/a/b");
	expect("", "/a/../b", "/b");
	expect("", "/..", "/");
	expect("", "/../../a", "/a");
	expect("/w/x", "y", "/w/x/y");
	expect("/w/x", "../y", "/w/y");
	expect("/w/x", "../../../y", "/y");
	expect("/w/x", ".", "/w/x");
	expect("/w/x", "..", "/w");
	expect("/", "y", "/y");
	expect("/w/x/", "./y/", "/w/x/y");
	expect("/w", "...", "/w/...");
	expect("/w", "..a/.b", "/w/..a/.b");
	expect("w", "y", "/w/y"); /* a relative base is read from the root */
	/* A directory opened deeper than PATH_MAX (openat from an fd, one
	 * step at a time) and a path under it: no length limit. */
	for (int i = 0; i < 5000; i++)
		memcpy(deep + 2 * i, "/d", 2);
	deep[2 * 5000] = '\0';
	CHECK(!dc_path_join(&out, deep, "e/../f"));
	CHECK(out.len == strlen(deep) + 2 &&
	      !strcmp(out.p + strlen(deep), "/f"));
}

/* Random relative paths of "d0".."d2", ".", ".." and doubled slashes,
 * from a directory three deep: each joined path is realpath's. */
static void against_realpath(void)
{
	static const char *parts[] = { "d0", "d1", "d2", ".", ".." };
	char tmpl[] = "/tmp/dc-paths-XXXXXX", dir[PATH_MAX], cwd[PATH_MAX];
	char rel[256], want[PATH_MAX];
	char *root = mkdtemp(tmpl) ? realpath(tmpl, NULL) : NULL;
	int tried = 0;

	if (!root) {
		CHECK(!"a temporary tree");
		return;
	}
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++)
			for (int c = 0; c < 3; c++) {
				snprintf(dir, sizeof(dir), "%s/d%d", root, a);
				CHECK(!mkdir(dir, 0700) || errno == EEXIST);
				snprintf(dir, sizeof(dir), "%s/d%d/d%d", root,
					 a, b);
				CHECK(!mkdir(dir, 0700) || errno == EEXIST);
				snprintf(dir, sizeof(dir), "%s/d%d/d%d/d%d",
					 root, a, b, c);
				CHECK(!mkdir(dir, 0700) || errno == EEXIST);
			}
	snprintf(cwd, sizeof(cwd), "%s/d1/d2/d0", root);
	CHECK(!chdir(cwd));
	srand(26);
	for (int t = 0; t < 5000; t++) {
		int len = 0, n = 1 + rand() % 6;

		for (int j = 0; j < n; j++)
			len += snprintf(rel + len, sizeof(rel) - len, "%s%s%s",
					j ? "/" : "",
					j && !(rand() % 4) ? "/" : "",
					parts[rand() % 5]);
		if (!realpath(rel, want))
			continue; /* a component below the tree's depth */
		tried++;
		CHECK(!dc_path_join(&out, cwd, rel));
		if (strcmp(out.p, want)) {
			fprintf(stderr, "%s + %s: got %s, want %s\n", cwd, rel,
				out.p, want);
			check_failures++;
		}
	}
	CHECK(tried > 500);
	CHECK(!chdir("/"));
	snprintf(dir, sizeof(dir), "rm -rf -- '%s'", root);
	CHECK(!system(dir));
	free(root);
}

int main(void)
{
	known();
	against_realpath();
	dc_buf_free(&out);
	return CHECK_DONE();
}
