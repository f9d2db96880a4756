/* SPDX-License-Identifier: MIT */
#ifndef DC_EXPLORE_H
#define DC_EXPLORE_H

#include <stdbool.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include <datacrumbs/abi.h>
#include <yaml.h>

#include "usdt.h"

/* A function's prototype, from the library's headers. */
struct xp_param {
	char *name;
	char *type;  /* as written: "const char *" */
	char *canon; /* canonical: typedefs resolved */
	int reg;     /* its argument position, -1 for none (see placed) */
};

struct xp_proto {
	char *name; /* as declared: "write", "H5File" */
	char *key;  /* the symbol it declares: C++'s mangled name; or NULL,
		       and the name is the symbol */
	char *ret_type;
	char *ret_canon;
	struct xp_param *params;
	int nparams;
	bool variadic;
	bool placed; /* params[].reg is known; else position = index */
	bool cxx;
	bool ctor; /* a C++ constructor: name is its class's */
};

/* One probe: a function and every name it has at its address. */
struct xp_func {
	char *name;	/* attached and shown */
	char *display;	/* demangled C++ name, or NULL */
	char **aliases; /* other names at the same address */
	int naliases;
	uint64_t offset;
	char *version;
	bool ifunc;
	bool weak;
	const struct xp_proto *proto;
	int nargs;
	int role[DC_MAX_ARGS];
	int ret;
	int effect; /* enum dc_effect, written as the spec's 'effect' */
	const char *layer;
	bool refused; /* --check: the kernel would not attach it */
	int refused_err;
};

struct xp_target {
	const char *arg;   /* as the user named it */
	char path[4096];   /* resolved */
	char build_id[41]; /* hex, or "" */
	struct xp_func *funcs;
	size_t nfuncs;
	size_t found;		    /* functions before filtering */
	size_t ifuncs;		    /* IFUNC resolvers left out */
	size_t twice;		    /* setjmp-like functions left out */
	size_t noreturn;	    /* functions that never return, left out */
	const char *layer;	    /* default layer */
	char soname[256];	    /* DT_SONAME, or "" */
	struct dc_usdt_note *notes; /* --usdt */
	size_t nnotes;
};

struct xp_filter {
	const char *match;   /* regex, or NULL: the curated default */
	const char *exclude; /* regex or NULL */
	const char *layer;   /* forced layer, or NULL */
	bool all;	     /* no curated default */
};

/* funcs.c */
int xp_load(struct xp_target *t, const struct xp_filter *f);
void xp_target_free(struct xp_target *t);

/* demangle.c: a C++ symbol's name as c++filt prints it, constructor and
 * destructor variants told apart; NULL if not C++ or too long a name. */
char *xp_demangle(const char *sym);

/* headers.c: parse @headers with libclang, as C++ if @cxx (functions are
 * then found by their mangled names); @cargs go to clang. */
struct xp_protos {
	struct xp_proto *v;
	size_t n;
};
int xp_parse_headers(const char *const *headers, int nheaders,
		     const char *const *cargs, int ncargs, bool cxx,
		     struct xp_protos *out);
const struct xp_proto *xp_proto_find(const struct xp_protos *p,
				     const char *name);
void xp_protos_free(struct xp_protos *p);

/* infer.c: argument and return roles from a prototype. */
void xp_infer(struct xp_func *fn);

/* check.c: attach every function of @t for real; mark the refused. */
int xp_check(struct xp_target *t, size_t *refused);

/* emit.c: specs through libyaml's emitter. */
int xp_emit(FILE *out, struct xp_target *targets, size_t n, bool checked);
int xp_out_begin(yaml_emitter_t *e, FILE *out);
int xp_out_end(yaml_emitter_t *e, int err);
int xp_doc_begin(yaml_emitter_t *e, const char *layer, const char *mech,
		 const char *target);
int xp_doc_end(yaml_emitter_t *e);
int xp_probe(yaml_emitter_t *e, const char *const *kv, const char *list_key,
	     char *const *list, int nlist);

/* kernel.c: --kernel */
int xp_kernel(FILE *out, const struct xp_filter *f);

#endif
