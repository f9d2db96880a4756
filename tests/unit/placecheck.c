// SPDX-License-Identifier: MIT
/*
 * placecheck OBJECT: the placement the generator stored for each uprobe
 * of OBJECT's probe table is what dc_place() finds now in the library
 * file it names, looked up as the runtime looks functions up, with the
 * inputs the runtime takes the stored result for (wrappers at sys_enter,
 * BPF cookies); and the build-id stored is that file's. Every uprobe of
 * a library whose code can be read must have been placed. Prints one
 * line a difference and a summary; exits 1 on any difference.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elfsym.h"
#include "placement.h"
#include "probetab.h"

/* The library the probes of one target are looked up in. */
struct lib {
	const char *path;
	struct dc_elf_syms syms;
	struct dc_code code;
	char build[DC_BUILD_HEX];
	bool ok; /* its symbols and x86-64 code could be read */
};

static int failures;

static void fail(const struct dc_probe_info *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void fail(const struct dc_probe_info *d, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "DIFF %s %s (%s): ", d->layer, d->name, d->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures++;
}

static void lib_close(struct lib *l)
{
	if (l->ok) {
		dc_code_close(&l->code);
		dc_elf_syms_free(&l->syms);
	}
	memset(l, 0, sizeof(*l));
}

static void lib_open(struct lib *l, const char *path)
{
	uint8_t id[DC_BUILD_ID_SIZE];

	lib_close(l);
	l->path = path;
	if (dc_elf_syms_load_locals(path, &l->syms))
		return;
	if (dc_code_open(path, &l->code)) {
		dc_elf_syms_free(&l->syms);
		return;
	}
	if (!dc_elf_build_id(path, id))
		dc_build_id_hex(id, l->build);
	l->ok = true;
}

static const char *how(bool sys, bool tail)
{
	return sys    ? "at the syscall"
	       : tail ? "a uprobe jumping into a syscall"
		      : "a plain uprobe";
}

/* Returns whether @d's stored placement is a plain probe point. */
static bool check(const struct lib *l, const struct dc_probe_info *d)
{
	struct dc_place_probe pp = { d->nslots,	   d->slot_arg,
				     d->slot_role, d->ret,
				     true,	   d->flags & DC_PROBE_READS };
	const struct dc_elf_sym *s = dc_elf_syms_find(&l->syms, d->symbol);
	bool sys = d->place & DC_PLACE_SYS, tail = d->place & DC_PLACE_TAIL;
	struct dc_placement pl;

	if (!s && !(d->place & DC_PLACE_KNOWN))
		return false; /* an optional function this build lacks */
	if (!s) {
		fail(d, "placed, but %s has no %s", l->path, d->symbol);
		return false;
	}
	if (!(d->place & DC_PLACE_KNOWN)) {
		fail(d, "not placed by the generator");
		return false;
	}
	if (strcmp(d->build, l->build))
		fail(d, "build-id '%s' stored, the file's is '%s'", d->build,
		     l->build);
	dc_place(&l->code, s->offset, s->size, &pp, true, &pl);
	if (pl.via_sys != sys || (!pl.via_sys && pl.stub.tail) != tail)
		fail(d, "stored %s, found %s", how(sys, tail),
		     how(pl.via_sys, !pl.via_sys && pl.stub.tail));
	if (sys)
		return false;
	if (pl.pp.skip != d->skip || pl.pp.ret_at != d->ret_at ||
	    pl.pp.moved != d->moved ||
	    pl.pp.slow != !!(d->place & DC_PLACE_SLOW))
		fail(d,
		     "stored +%u, return at +%u, moved %#x, %s; found +%u, "
		     "return at +%u, moved %#x, %s",
		     d->skip, d->ret_at, d->moved,
		     d->place & DC_PLACE_SLOW ? "slow" : "fast", pl.pp.skip,
		     pl.pp.ret_at, pl.pp.moved, pl.pp.slow ? "slow" : "fast");
	return !tail;
}

int main(int argc, char **argv)
{
	size_t n = 0, uprobes = 0, placed = 0, plain = 0, libs = 0;
	struct dc_probe_info *v = NULL;
	struct lib l = { 0 };
	int err;

	if (argc != 2) {
		fprintf(stderr, "usage: %s OBJECT\n", argv[0]);
		return 2;
	}
	err = dc_probe_table_read(argv[1], &v, &n);
	if (err) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-err));
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		const struct dc_probe_info *d = &v[i];

		if (d->mech != DC_MECH_UPROBE)
			continue;
		uprobes++;
		if (!l.path || strcmp(l.path, d->path)) {
			lib_open(&l, d->path);
			libs++;
		}
		if (!l.ok) {
			if (d->place)
				fail(d, "placed, but its code cannot be read");
			continue;
		}
		placed += !!(d->place & DC_PLACE_KNOWN);
		plain += check(&l, d);
	}
	lib_close(&l);
	free(v);
	printf("%zu uprobes in %zu libraries: %zu placed by the generator, "
	       "%zu of them plain probe points; %d differences\n",
	       uprobes, libs, placed, plain, failures);
	return failures ? 1 : 0;
}
