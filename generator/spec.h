/* SPDX-License-Identifier: MIT */
#ifndef DC_SPEC_H
#define DC_SPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <datacrumbs/abi.h>

#include "elfsym.h"
#include "probepoint.h"

/* A tracepoint's stand-ins: each at most DC_NAME_MAX - 1 characters,
 * so the table's comma-separated list fits DC_TARGET_MAX. */
#define DC_TP_ALTS 4

/* Where a node stands in its file, for messages: 1-based. */
struct dc_loc {
	const char *file;
	int line;
	int col;
};

/* ROLE@A@B: the argument is read through a pointer, the word at byte A
 * of what it points to, then at byte B of what that points to. */
struct dc_spec_read {
	int hops; /* 0: the argument itself */
	int off[DC_HOPS];
	/* ROLE@TYPE.member...: a quantity at that field, its offset found
	 * per copy of the library in its DWARF (off[0] unused); or "". */
	char field[DC_FIELD_PATH_MAX];
	/* ROLE@A...|N@C...: where the argument is NULL, argument N read
	 * through null_hops pointers at null_off takes its place. */
	bool if_null;
	int null_arg;
	int null_hops;
	int null_off[DC_HOPS];
};

/* A captured value beyond one role an argument. */
struct dc_spec_slot {
	int role;
	int arg;
	struct dc_spec_read read;
};

/* Where the runtime will trace a uprobe's function, as dc_place() finds
 * it in the target's file with wrappers at sys_enter and BPF cookies. */
struct dc_spec_place {
	bool known; /* placed: the file has the function, x86-64 code */
	bool via_sys;
	bool tail; /* not via_sys, but jumps into a syscall made there */
	const char *not_sys;	  /* why it is not via_sys */
	struct dc_probe_point pp; /* not via_sys: its probe point */
};

struct dc_spec_probe {
	char *name;	/* as shown in the trace */
	char *symbol;	/* what is attached; defaults to name */
	char **aliases; /* other names of the function: checked, not attached */
	int naliases;
	char *proto; /* the prototype, for readers */
	int nargs;
	int arg_role[DC_MAX_ARGS];
	struct dc_spec_read arg_read[DC_MAX_ARGS];
	/* Further roles of an argument named by a list ([A, B]): slots of
	 * their own, after the arguments'. */
	struct dc_spec_slot more[DC_CAPTURE];
	int nmore;
	int ret;
	int effect;    /* enum dc_effect */
	char *feeds;   /* the enclosing call this one adds bytes to */
	int feeds_idx; /* ... its index, set by dc_spec_check(), or -1 */
	bool fed;      /* other probes feed this one bytes: it has a fed slot */
	/* Values its feeders pass it (late roles), set by dc_spec_check(). */
	struct dc_spec_slot pass[DC_CAPTURE];
	int npass;
	struct dc_loc loc;
	struct dc_loc symbol_loc;
	struct dc_loc aliases_loc;
	struct dc_loc feeds_loc;
	struct dc_loc effect_loc;
	size_t group;	 /* index into dc_spec.groups */
	uint64_t offset; /* uprobes: file offset, set by dc_spec_check() */
	int nr;		 /* syscalls: number, set by dc_spec_check() */
	int alias_of;	 /* index of the probe at the same address, or -1 */
	bool pattern;	 /* a glob standing for the probes it was expanded to */
	bool optional;	 /* "optional": a function some builds lack */
	struct dc_spec_place place; /* uprobes: set by dc_spec_place() */
	/* mechanism tracepoint */
	char *event;		  /* "group/name" */
	char *end;		  /* completing event, or NULL */
	char *fields[DC_CAPTURE]; /* record fields captured */
	int nfields;
	char *keys[DC_TP_KEYS]; /* fields matching event to end */
	int nkeys;
	char *size_field; /* the field holding bytes moved, or NULL */
	/* Events that stand in for 'event' on kernels without it (an older
	 * name), tried in order by the runtime. */
	char *alts[DC_TP_ALTS];
	int nalts;
	struct dc_loc event_loc, end_loc, fields_loc, keys_loc, size_loc;
	struct dc_loc alt_loc;
};

struct dc_spec_group {
	char *layer;
	int mech;
	char *target;
	char path[DC_TARGET_MAX]; /* resolved target */
	char *builds; /* "builds": build-ids in hex, comma-separated */
	char build[DC_BUILD_HEX]; /* path's GNU build-id in hex, or "" */
	struct dc_loc loc;
	struct dc_loc target_loc, builds_loc;
	bool skipped; /* target not installed, and skip_missing was set */
};

/* Errors printed per run; the rest are counted. */
#define DC_SPEC_MAX_ERRORS 20

struct dc_spec {
	struct dc_spec_group *groups;
	size_t ngroups;
	struct dc_spec_probe *probes;
	size_t nprobes, cap;
	char **files; /* owned copies of the file names in dc_loc */
	size_t nfiles;
	int nerrors;
	bool skip_missing; /* leave out groups whose target is not installed */
};

/*
 * Parse one spec file (one or more YAML documents) into @spec and check
 * everything that file alone can tell. Each problem is printed as
 * "FILE:LINE:COL: error: ..." and counted in spec->nerrors. Returns 0, or
 * -EINVAL when this file had errors, or another -errno.
 */
int dc_spec_load(struct dc_spec *spec, const char *file);
/*
 * Check what needs the whole set and the machine, one pass after another
 * (passes.c): that every target library resolves and exports each
 * function, the kernel's events, syscall and request numbers, duplicates
 * and aliases, feeders. Returns 0, -EINVAL after printing each problem, or
 * another negative errno after a message.
 */
int dc_spec_check(struct dc_spec *spec);
void dc_spec_free(struct dc_spec *spec);

#endif
