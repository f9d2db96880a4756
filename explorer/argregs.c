// SPDX-License-Identifier: MIT
/*
 * Which integer argument register each parameter of a prototype arrives
 * in: a spec's argument N is the Nth of them (PT_REGS_PARMn). Floating
 * point goes in vector registers and, on x86-64, large aggregates on the
 * stack, taking none; a C++ member function takes `this` first, and on
 * x86-64 a class returned in memory takes the address to build it at
 * before that. Where
 * the ABI's choice depends on what libclang cannot say (a small struct
 * passed by value), that parameter and every later one get -1: no role.
 */
#include <stdbool.h>

#include "argregs.h"

/* A class whose copy or destruction is not trivial travels by invisible
 * reference, as one pointer; the ABI says so of any class with a
 * user-provided destructor or copy constructor, or anything virtual, or
 * a base of such. */
struct nontrivial {
	bool yes;
	int depth;
};

static bool nontrivial(CXType t, int depth);

static enum CXChildVisitResult scan(CXCursor c, CXCursor parent, void *data)
{
	struct nontrivial *n = data;
	enum CXCursorKind k = clang_getCursorKind(c);

	(void)parent;
	if (k == CXCursor_Destructor ||
	    (k == CXCursor_Constructor &&
	     (clang_CXXConstructor_isCopyConstructor(c) ||
	      clang_CXXConstructor_isMoveConstructor(c))))
		n->yes |= !clang_CXXMethod_isDefaulted(c) &&
			  !clang_CXXMethod_isDeleted(c);
	if (k == CXCursor_CXXMethod || k == CXCursor_Destructor)
		n->yes |= clang_CXXMethod_isVirtual(c);
	if (k == CXCursor_CXXBaseSpecifier)
		n->yes |= clang_isVirtualBase(c) ||
			  (n->depth < 16 &&
			   nontrivial(clang_getCursorType(c), n->depth + 1));
	return n->yes ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* The definition, where the members are, not a forward declaration. */
static CXCursor defined(CXCursor c)
{
	CXCursor d = clang_getCursorDefinition(c);

	return clang_Cursor_isNull(d) ? c : d;
}

static bool nontrivial(CXType t, int depth)
{
	struct nontrivial n = { .depth = depth };
	CXCursor decl = defined(clang_getTypeDeclaration(t));
	CXCursor tmpl = defined(clang_getSpecializedCursorTemplate(decl));

	clang_visitChildren(decl, scan, &n);
	/* An implicit instantiation (std::string) shows no members of its
	 * own: its template's are its. */
	if (!n.yes && !clang_Cursor_isNull(tmpl))
		clang_visitChildren(tmpl, scan, &n);
	return n.yes;
}

/* Registers a parameter of type @t takes: 0, 1, or -1 if not knowable. */
static int regs_of(CXType t)
{
	t = clang_getCanonicalType(t);
	switch (t.kind) {
	case CXType_Bool:
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_Char16:
	case CXType_Char32:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_WChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
	case CXType_Pointer:
	case CXType_LValueReference:
	case CXType_RValueReference:
	case CXType_Enum:
	case CXType_NullPtr:
	case CXType_BlockPointer: return 1;
	case CXType_Float:
	case CXType_Double: return 0;
	case CXType_Record:
		/* Past 16 bytes a trivial aggregate goes on the stack on
		 * x86-64, by reference on AArch64. */
		if (nontrivial(t, 0))
			return 1;
		if (!clang_isPODType(t) || clang_Type_getSizeOf(t) <= 16)
			return -1;
#if defined(__x86_64__)
		return 0;
#elif defined(__aarch64__)
		return 1;
#else
		return -1;
#endif
	default: return -1;
	}
}

/* Whether the result takes a register for its address before `this`
 * and the parameters: 1, 0, or -1 if not knowable. */
static int hidden_result(CXType r)
{
	r = clang_getCanonicalType(r);
	if (r.kind != CXType_Record)
		return 0;
#if defined(__x86_64__)
	if (nontrivial(r, 0))
		return 1;
	if (clang_isPODType(r) && clang_Type_getSizeOf(r) >= 0)
		return clang_Type_getSizeOf(r) > 16;
	return -1;
#elif defined(__aarch64__)
	return 0; /* x8 holds it */
#else
	return -1;
#endif
}

void xp_arg_regs(CXCursor fn, int *reg, int n)
{
	enum CXCursorKind k = clang_getCursorKind(fn);
	int next = hidden_result(clang_getCursorResultType(fn));

	if (k == CXCursor_Constructor || k == CXCursor_Destructor ||
	    (k == CXCursor_CXXMethod && !clang_CXXMethod_isStatic(fn)))
		next += next >= 0; /* this */
	for (int i = 0; i < n; i++) {
		int r =
		    next < 0
			? -1
			: regs_of(clang_getArgType(clang_getCursorType(fn), i));

		if (r < 0)
			next = -1;
		reg[i] = r == 1 ? next : -1;
		if (r > 0)
			next += r;
	}
}
