// SPDX-License-Identifier: MIT
/*
 * Probe points and syscall wrappers, on functions whose answers are known
 * (entries.S, linked into this program) and on the C library's own.
 */
#include <gnu/libc-version.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>

#include "elfsym.h"
#include "libpath.h"
#include "placement.h"

static int failures;

#define CHECK(cond, ...)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			failures++;                                            \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);   \
			fprintf(stderr, __VA_ARGS__);                          \
			fputc('\n', stderr);                                   \
		}                                                              \
	} while (0)

static const struct dc_elf_sym *sym(const struct dc_elf_syms *s,
				    const char *name)
{
	const struct dc_elf_sym *y = dc_elf_syms_find(s, name);

	if (!y) {
		fprintf(stderr, "FAIL: no symbol %s\n", name);
		failures++;
	}
	return y;
}

static void point(const struct dc_code *c, const struct dc_elf_syms *s,
		  const char *name, unsigned args, unsigned skip, int slow)
{
	const struct dc_elf_sym *y = sym(s, name);
	struct dc_probe_point pp;

	if (!y)
		return;
	dc_probe_point(c, y->offset, y->size, args, false, &pp);
	CHECK(pp.skip == skip && pp.slow == slow,
	      "%s: probe point +%u %s (%s), want +%u %s", name, pp.skip,
	      pp.slow ? "slow" : "fast", pp.why, skip, slow ? "slow" : "fast");
}

/* With return sites: the entry at +@skip, the return at +@ret_at; 0:
 * neither, single-stepped. */
static void split(const struct dc_code *c, const struct dc_elf_syms *s,
		  const char *name, unsigned skip, unsigned ret_at)
{
	const struct dc_elf_sym *y = sym(s, name);
	struct dc_probe_point pp;

	if (!y)
		return;
	dc_probe_point(c, y->offset, y->size, 0x3f, true, &pp);
	CHECK(pp.slow == !ret_at && pp.skip == skip && pp.ret_at == ret_at,
	      "%s: probe point +%u, return site +%u, %s (%s), want +%u, +%u",
	      name, pp.skip, pp.ret_at, pp.slow ? "slow" : "fast", pp.why, skip,
	      ret_at);
}

/* @want: the syscall argument of each function argument, -1 for none;
 * NULL: not a wrapper. */
static void stub(const struct dc_code *c, const struct dc_elf_syms *s,
		 const char *name, int nr, const int *want)
{
	const struct dc_elf_sym *y = sym(s, name);
	struct dc_sysstub st;
	const char *why;
	int err;

	if (!y)
		return;
	err = dc_sysstub(c, y->offset, y->size, &st, &why);
	if (!want) {
		CHECK(err, "%s: taken for a wrapper of syscall %d", name,
		      st.nr);
		return;
	}
	CHECK(!err, "%s: not a wrapper: %s", name, why);
	if (err)
		return;
	CHECK(st.nr == nr, "%s: syscall %d, want %d", name, st.nr, nr);
	for (int a = 0; a < 6; a++)
		CHECK(st.sysarg[a] == want[a],
		      "%s: argument %d travels in syscall argument %d, want %d",
		      name, a, st.sysarg[a], want[a]);
}

/* A function that jumps into a wrapper: its one site is there, with
 * the constant syscall arguments @mask (bit j) it passes, @vals. */
static void tail(const struct dc_code *c, const struct dc_elf_syms *s,
		 const char *name, int nr, const int *want, unsigned mask,
		 const uint64_t *vals)
{
	const struct dc_elf_sym *y = sym(s, name);
	struct dc_sysstub st;
	const char *why;

	if (!y)
		return;
	if (dc_sysstub(c, y->offset, y->size, &st, &why)) {
		CHECK(0, "%s: not a wrapper: %s", name, why);
		return;
	}
	CHECK(st.nr == nr && st.tail && st.nsites == 1,
	      "%s: syscall %d, tail %d, %u sites", name, st.nr, st.tail,
	      st.nsites);
	for (int a = 0; a < 6; a++)
		CHECK(st.sysarg[a] == want[a],
		      "%s: argument %d travels in syscall argument %d, want %d",
		      name, a, st.sysarg[a], want[a]);
	CHECK(st.sysconst[0] == mask, "%s: constant arguments %#x, want %#x",
	      name, st.sysconst[0], mask);
	for (int j = 0; j < 6; j++)
		CHECK(!(mask & 1u << j) || st.sysval[0][j] == vals[j],
		      "%s: syscall argument %d is %#lx, want %#lx", name, j,
		      (unsigned long)st.sysval[0][j], (unsigned long)vals[j]);
}

static void own_functions(void)
{
	static const int thin[6] = { 0, 1, 2, 3, 4, 5 };
	static const int reorder[6] = { 1, 2, -1, -1, 4, 5 };
	static const int spill[6] = { 0, -1, -1, -1, -1, -1 };
	static const int tailed[6] = { 0, 1, -1, 3, 4, 5 };
	const struct dc_elf_sym *y;
	struct dc_probe_point pp = { 0 };
	struct dc_elf_syms s;
	struct dc_code c;

	if (dc_elf_syms_load("/proc/self/exe", &s) ||
	    dc_code_open("/proc/self/exe", &c)) {
		CHECK(0, "cannot read /proc/self/exe");
		return;
	}
	point(&c, &s, "pp_cmp_je", 0x3f, 7, 0);
	point(&c, &s, "pp_push", 0x3f, 0, 0);
	point(&c, &s, "pp_sub_rsp", 0x3f, 0, 1);
	point(&c, &s, "pp_write_arg2", 0x3f, 0, 1);
	point(&c, &s, "pp_write_arg2", 0x3, 3, 0);
	point(&c, &s, "pp_store", 0x3f, 0, 1);
	point(&c, &s, "pp_jump_into", 0x3f, 0, 1);
	point(&c, &s, "pp_jmp66", 0x3f, 0, 1);
	point(&c, &s, "pp_test_mem", 0x3f, 6, 0);
	point(&c, &s, "pp_moved", 0x4, 0, 1);
	y = sym(&s, "pp_moved");
	if (y)
		dc_probe_point(&c, y->offset, y->size, 0x4, true, &pp);
	CHECK(y && !pp.slow && pp.skip == 8 && pp.moved == (3 | 3u << 3),
	      "pp_moved: probe point +%u, arguments moved %#x, %s, want +8, "
	      "%#x",
	      pp.skip, pp.moved, pp.slow ? "slow" : "fast", 3 | 3u << 3);
	point(&c, &s, "rs_frame", 0x3f, 0, 1);
	split(&c, &s, "rs_frame", 9, 22);
	split(&c, &s, "rs_two_rets", 0, 0);
	split(&c, &s, "rs_rax_after", 0, 0);
	split(&c, &s, "rs_loop", 0, 0);
	stub(&c, &s, "w_thin", 18, thin);
	stub(&c, &s, "w_reorder", 257, reorder);
	stub(&c, &s, "w_spill", 3, spill);
	stub(&c, &s, "w_early", 0, NULL);
	stub(&c, &s, "w_two", 0, NULL);
	stub(&c, &s, "w_retry", 0, NULL);
	stub(&c, &s, "w_two_numbers", 0, NULL);
	stub(&c, &s, "w_indirect", 0, NULL);
	tail(&c, &s, "w_tail", 18, tailed, 0, NULL);
	dc_code_close(&c);
	dc_elf_syms_free(&s);
}

/* glibc's: pwrite64 is a wrapper of its syscall, passing its four
 * arguments as they are; open and openat pass their mode only with
 * O_CREAT (0 otherwise); stat and lstat jump into fstatat; mmap returns
 * EINVAL without a syscall for a bad offset. */
static void libc_functions(void)
{
	static const int pwrite[6] = { 0, 1, 2, 3, -1, -1 };
	static const int openat[6] = { 0, 1, 2, 3, -1, -1 };
	static const int open[6] = { 1, 2, 3, -1, -1, -1 };
	static const int statargs[6] = { 1, 2, -1, -1, 4, 5 };
	static const uint64_t stat_vals[6] = { 0xffffff9c, 0, 0, 0 };
	static const uint64_t lstat_vals[6] = { 0xffffff9c, 0, 0, 0x100 };
	const struct dc_elf_sym *y;
	struct dc_probe_point pp;
	char libc[4096];
	struct dc_elf_syms s;
	struct dc_code c;

	if (dc_resolve_library("libc.so.6", libc, sizeof(libc)) ||
	    dc_elf_syms_load(libc, &s) || dc_code_open(libc, &c)) {
		printf("test_placement: no libc.so.6, its functions not "
		       "checked\n");
		return;
	}
	stub(&c, &s, "pwrite64", SYS_pwrite64, pwrite);
	stub(&c, &s, "openat", SYS_openat, openat);
	stub(&c, &s, "open", SYS_openat, open);
	/* stat(path, buf): fstatat(AT_FDCWD, path, buf, 0), lstat with
	 * AT_SYMLINK_NOFOLLOW, both in fstatat's syscall. */
	tail(&c, &s, "stat", SYS_newfstatat, statargs, 0x9, stat_vals);
	tail(&c, &s, "lstat", SYS_newfstatat, statargs, 0x9, lstat_vals);
	stub(&c, &s, "mmap", 0, NULL);
	point(&c, &s, "pwrite64", 0xf, 10, 0);
	/* fprintf sets up a frame for its variadic arguments first; its
	 * stack protector's check follows the call that does the work. */
	y = sym(&s, "fprintf");
	if (y) {
		dc_probe_point(&c, y->offset, y->size, 0x3, true, &pp);
		CHECK(!pp.slow && pp.skip && pp.ret_at > pp.skip,
		      "fprintf: probe point +%u, return site +%u, %s (%s)",
		      pp.skip, pp.ret_at, pp.slow ? "slow" : "fast", pp.why);
	}
	dc_code_close(&c);
	dc_elf_syms_free(&s);
}

int main(void)
{
	own_functions();
	libc_functions();
	printf("test_placement: %s\n", failures ? "FAILED" : "ok");
	return failures ? 1 : 0;
}
