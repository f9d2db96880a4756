// SPDX-License-Identifier: MIT
#include <clang-c/Index.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "argregs.h"
#include "buf.h"
#include "explore.h"
#include "log.h"

static char *str(CXString s)
{
	char *d = strdup(clang_getCString(s));

	clang_disposeString(s);
	return d;
}

/* A type's spelling without "restrict", which says nothing of a role. */
static char *type_str(CXType t)
{
	char *s = str(clang_getTypeSpelling(t)), *r;

	while (s && (r = strstr(s, "restrict"))) {
		size_t n = strlen("restrict");

		if (r > s && r[-1] == ' ')
			r--, n++;
		memmove(r, r + n, strlen(r + n) + 1);
	}
	return s;
}

/* One prototype of @c, found by @key (NULL: its name). */
static int add_proto(struct xp_protos *out, CXCursor c, const char *key,
		     bool cxx)
{
	CXType fty = clang_getCursorType(c);
	struct xp_proto *p;
	int n = clang_Cursor_getNumArguments(c);

	if (n < 0)
		return 0;
	if (dc_grow((void **)&out->v, out->n, sizeof(*out->v), 256))
		return -ENOMEM;
	p = &out->v[out->n];
	memset(p, 0, sizeof(*p));
	p->name = str(clang_getCursorSpelling(c));
	p->key = key ? strdup(key) : NULL;
	p->ret_type = type_str(clang_getResultType(fty));
	p->ret_canon =
	    type_str(clang_getCanonicalType(clang_getResultType(fty)));
	p->variadic = clang_isFunctionTypeVariadic(fty);
	p->params = calloc(n ? n : 1, sizeof(*p->params));
	if (!p->name || (key && !p->key) || !p->ret_type || !p->ret_canon ||
	    !p->params) {
		out->n++; /* freed with the others */
		return -ENOMEM;
	}
	p->cxx = cxx;
	p->ctor = clang_getCursorKind(c) == CXCursor_Constructor;
	p->placed = true;
	out->n++;
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, i);
		CXType t = clang_getCursorType(a);

		p->params[i].name = str(clang_getCursorSpelling(a));
		p->params[i].type = type_str(t);
		p->params[i].canon = type_str(clang_getCanonicalType(t));
		p->nparams++;
		if (!p->params[i].name || !p->params[i].type ||
		    !p->params[i].canon)
			return -ENOMEM;
	}
	if (n) {
		int *reg = calloc(n, sizeof(*reg));

		if (!reg)
			return -ENOMEM;
		xp_arg_regs(c, reg, n);
		for (int i = 0; i < n; i++)
			p->params[i].reg = reg[i];
		free(reg);
	}
	return 0;
}

/* A C++ function under each of its symbols: a constructor or destructor
 * has several (complete, base, deleting), one code or not. */
static int add_cxx(struct xp_protos *out, CXCursor c)
{
	CXStringSet *set = clang_Cursor_getCXXManglings(c);
	int err = 0;

	if (set && set->Count) {
		for (unsigned i = 0; i < set->Count && !err; i++)
			err = add_proto(
			    out, c, clang_getCString(set->Strings[i]), true);
	} else {
		CXString m = clang_Cursor_getMangling(c);
		CXString name = clang_getCursorSpelling(c);
		const char *ms = clang_getCString(m);

		/* extern "C": its symbol is its name, and C's rules apply. */
		if (ms[0])
			err = add_proto(out, c, ms,
					strcmp(ms, clang_getCString(name)));
		/* A C header read as C++ (the targets hold C++ and C) declares
		 * without extern "C": a global function whose symbol is its
		 * bare name can only be this one, with C linkage. */
		if (!err && clang_getCursorKind(c) == CXCursor_FunctionDecl &&
		    clang_getCursorKind(clang_getCursorSemanticParent(c)) ==
			CXCursor_TranslationUnit &&
		    strcmp(ms, clang_getCString(name)))
			err = add_proto(out, c, NULL, false);
		clang_disposeString(name);
		clang_disposeString(m);
	}
	if (set)
		clang_disposeStringSet(set);
	return err;
}

struct visit {
	struct xp_protos *out;
	bool cxx;
	int err;
};

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, void *data)
{
	struct visit *v = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (k == CXCursor_FunctionDecl && !v->cxx) {
		v->err = add_proto(v->out, c, NULL, false);
		return v->err ? CXChildVisit_Break : CXChildVisit_Continue;
	}
	if ((k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
	     k == CXCursor_Constructor || k == CXCursor_Destructor ||
	     k == CXCursor_ConversionFunction) &&
	    v->cxx) {
		if (!clang_CXXMethod_isDeleted(c))
			v->err = add_cxx(v->out, c);
		return v->err ? CXChildVisit_Break : CXChildVisit_Continue;
	}
	/* extern "C" { ... } blocks and namespaces hold declarations too,
	 * and classes their members (templates have no symbols until
	 * instantiated: not these). */
	if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace)
		return CXChildVisit_Recurse;
	if (v->cxx && (k == CXCursor_ClassDecl || k == CXCursor_StructDecl) &&
	    clang_isCursorDefinition(c))
		return CXChildVisit_Recurse;
	return CXChildVisit_Continue;
}

static const char *key_of(const struct xp_proto *p)
{
	return p->key ? p->key : p->name;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(key_of(a), key_of(b));
}

int xp_parse_headers(const char *const *headers, int nheaders,
		     const char *const *cargs, int ncargs, bool cxx,
		     struct xp_protos *out)
{
	static const char *const cxx_args[] = { "-x", "c++", "-std=c++17" };
	const int ncxx = sizeof(cxx_args) / sizeof(cxx_args[0]);
	CXIndex index = clang_createIndex(0, 0);
	const char **args = calloc(ncargs + ncxx + 1, sizeof(*args));
	int nargs = 0, err = 0;

	if (!args) {
		clang_disposeIndex(index);
		return -ENOMEM;
	}
	for (int i = 0; cxx && i < ncxx; i++)
		args[nargs++] = cxx_args[i];
	for (int i = 0; i < ncargs; i++)
		args[nargs++] = cargs[i];

	for (int h = 0; h < nheaders && !err; h++) {
		CXTranslationUnit tu;
		enum CXErrorCode rc;
		struct visit v = { out, cxx, 0 };
		unsigned nerr = 0;

		rc = clang_parseTranslationUnit2(
		    index, headers[h], args, nargs, NULL, 0,
		    CXTranslationUnit_SkipFunctionBodies |
			CXTranslationUnit_Incomplete,
		    &tu);
		if (rc != CXError_Success) {
			dc_err("%s: libclang could not parse it (error %d)",
			       headers[h], rc);
			err = -EINVAL;
			break;
		}
		for (unsigned i = 0; i < clang_getNumDiagnostics(tu); i++) {
			CXDiagnostic d = clang_getDiagnostic(tu, i);

			if (clang_getDiagnosticSeverity(d) >=
			    CXDiagnostic_Error) {
				CXString s = clang_formatDiagnostic(
				    d, clang_defaultDiagnosticDisplayOptions());

				fprintf(stderr, "%s\n", clang_getCString(s));
				clang_disposeString(s);
				nerr++;
			}
			clang_disposeDiagnostic(d);
		}
		if (nerr) {
			dc_err("%s: %u error%s parsing the header (give -I/-D "
			       "as the library's users would)",
			       headers[h], nerr, nerr == 1 ? "" : "s");
			err = -EINVAL;
		} else {
			clang_visitChildren(clang_getTranslationUnitCursor(tu),
					    visit, &v);
			err = v.err;
		}
		clang_disposeTranslationUnit(tu);
	}
	clang_disposeIndex(index);
	free(args);
	if (!err)
		qsort(out->v, out->n, sizeof(*out->v), by_key);
	return err;
}

const struct xp_proto *xp_proto_find(const struct xp_protos *p,
				     const char *name)
{
	struct xp_proto key = { .name = (char *)name };

	return p->n ? bsearch(&key, p->v, p->n, sizeof(*p->v), by_key) : NULL;
}

void xp_protos_free(struct xp_protos *p)
{
	for (size_t i = 0; i < p->n; i++) {
		for (int k = 0; k < p->v[i].nparams; k++) {
			free(p->v[i].params[k].name);
			free(p->v[i].params[k].type);
			free(p->v[i].params[k].canon);
		}
		free(p->v[i].params);
		free(p->v[i].name);
		free(p->v[i].key);
		free(p->v[i].ret_type);
		free(p->v[i].ret_canon);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
