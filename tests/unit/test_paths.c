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

static void expect(const char *base, const char *path, const char *want)
{
	char out[64];

	CHECK(!dc_path_join(out, sizeof(out), base, path));
	CHECK_STR(out, want);
}

static void known(void)
{
	char small[8];

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
	/* Exactly full, then one byte over. */
	CHECK(!dc_path_join(small, sizeof(small), "/abc", "de"));
	CHECK_STR(small, "/abc/de");
	CHECK(dc_path_join(small, sizeof(small), "/abc", "def") ==
	      -ENAMETOOLONG);
	CHECK(dc_path_join(small, 1, "", "/") == -ENAMETOOLONG);
}

/* Random relative paths of "d0".."d2", ".", ".." and doubled slashes,
 * from a directory three deep: each joined path is realpath's. */
static void against_realpath(void)
{
	static const char *parts[] = { "d0", "d1", "d2", ".", ".." };
	char tmpl[] = "/tmp/dc-paths-XXXXXX", dir[PATH_MAX], cwd[PATH_MAX];
	char rel[256], want[PATH_MAX], got[PATH_MAX];
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
		CHECK(!dc_path_join(got, sizeof(got), cwd, rel));
		if (strcmp(got, want)) {
			fprintf(stderr, "%s + %s: got %s, want %s\n", cwd, rel,
				got, want);
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
	return CHECK_DONE();
}
