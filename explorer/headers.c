// SPDX-License-Identifier: MIT
#include <clang-c/Index.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

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

static int add_proto(struct xp_protos *out, CXCursor c)
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
	p->ret_type = type_str(clang_getResultType(fty));
	p->ret_canon =
	    type_str(clang_getCanonicalType(clang_getResultType(fty)));
	p->variadic = clang_isFunctionTypeVariadic(fty);
	p->params = calloc(n ? n : 1, sizeof(*p->params));
	if (!p->name || !p->ret_type || !p->ret_canon || !p->params)
		return -ENOMEM;
	for (int i = 0; i < n; i++) {
		CXCursor a = clang_Cursor_getArgument(c, i);
		CXType t = clang_getCursorType(a);

		p->params[i].name = str(clang_getCursorSpelling(a));
		p->params[i].type = type_str(t);
		p->params[i].canon = type_str(clang_getCanonicalType(t));
		if (!p->params[i].name || !p->params[i].type ||
		    !p->params[i].canon)
			return -ENOMEM;
	}
	p->nparams = n;
	out->n++;
	return 0;
}

struct visit {
	struct xp_protos *out;
	int err;
};

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent, void *data)
{
	struct visit *v = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (k == CXCursor_FunctionDecl) {
		v->err = add_proto(v->out, c);
		return v->err ? CXChildVisit_Break : CXChildVisit_Continue;
	}
	/* extern "C" { ... } blocks and namespaces hold declarations too. */
	if (k == CXCursor_LinkageSpec || k == CXCursor_Namespace)
		return CXChildVisit_Recurse;
	return CXChildVisit_Continue;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct xp_proto *)a)->name,
		      ((const struct xp_proto *)b)->name);
}

int xp_parse_headers(const char *const *headers, int nheaders,
		     const char *const *cargs, int ncargs,
		     struct xp_protos *out)
{
	CXIndex index = clang_createIndex(0, 0);
	int err = 0;

	for (int h = 0; h < nheaders && !err; h++) {
		CXTranslationUnit tu;
		enum CXErrorCode rc;
		struct visit v = { out, 0 };
		unsigned nerr = 0;

		rc = clang_parseTranslationUnit2(
		    index, headers[h], cargs, ncargs, NULL, 0,
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
	if (!err)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	return err;
}

const struct xp_proto *xp_proto_find(const struct xp_protos *p,
				     const char *name)
{
	struct xp_proto key = { .name = (char *)name };

	return p->n ? bsearch(&key, p->v, p->n, sizeof(*p->v), by_name) : NULL;
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
		free(p->v[i].ret_type);
		free(p->v[i].ret_canon);
	}
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
