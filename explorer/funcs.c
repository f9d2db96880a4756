// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "elfsym.h"
#include "explore.h"
#include "libpath.h"
#include "log.h"
#include "returns.h"

/*
 * What a user of a known library cares about. Public HDF5 calls are
 * H5<class><lowercase...>; internal ones have an underscore after the
 * class letter (H5F_open, H5F__close).
 */
static const struct curated {
	const char *soname_prefix;
	const char *layer;
	const char *match;
	const char *stdio; /* the functions of these that are STDIO */
} curated[] = {
	{ "libhdf5", "HDF5",
	  "^H5[FDGAO][a-z][A-Za-z0-9_]*$|"
	  "^H5Pset_(fapl_[a-z0-9_]+|dxpl_mpio[a-z_]*|chunk|alignment|"
	  "meta_block_size|sieve_buf_size|cache|mdc_config|fclose_degree|"
	  "libver_bounds|file_space_strategy|small_data_block_size|"
	  "all_coll_metadata_ops|coll_metadata_write)$",
	  NULL },
	{ "libmpi", "MPIIO", "^MPI_File_", NULL },
	{ "libc.so", "POSIX",
	  "^(open|open64|openat|openat64|creat|creat64|close|read|pread|"
	  "pread64|readv|preadv|preadv64|preadv2|write|pwrite|pwrite64|writev|"
	  "pwritev|pwritev64|pwritev2|lseek|lseek64|fsync|fdatasync|sync|"
	  "syncfs|sync_file_range|truncate|truncate64|ftruncate|ftruncate64|"
	  "fallocate|fallocate64|posix_fallocate|posix_fadvise|stat|stat64|"
	  "lstat|lstat64|fstat|fstat64|fstatat|fstatat64|statx|access|"
	  "faccessat|unlink|unlinkat|rename|renameat|renameat2|mkdir|mkdirat|"
	  "rmdir|opendir|fdopendir|readdir|readdir64|closedir|dup|dup2|dup3|"
	  "fcntl|fcntl64|mmap|mmap64|munmap|msync|copy_file_range|sendfile|"
	  "sendfile64|"
	  "fopen|fopen64|fdopen|freopen|freopen64|fclose|fread|fwrite|fgets|"
	  "fputs|fprintf|vfprintf|fscanf|fgetc|fputc|getline|getdelim|fseek|"
	  "fseeko|fseeko64|ftell|ftello|ftello64|rewind|fflush|setvbuf|fileno)"
	  "$",
	  "^(fopen|fopen64|fdopen|freopen|freopen64|fclose|fread|fwrite|fgets|"
	  "fputs|fprintf|vfprintf|fscanf|fgetc|fputc|getline|getdelim|fseek|"
	  "fseeko|fseeko64|ftell|ftello|ftello64|rewind|fflush|setvbuf|fileno)"
	  "$" },
};

/* The GNU build-id note as hex, and DT_SONAME. */
static int read_ids(const char *path, char *out, char *soname, size_t size)
{
	Elf_Scn *scn = NULL;
	int fd, err;
	Elf *elf;

	out[0] = '\0';
	soname[0] = '\0';
	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNAMIC && (d = elf_getdata(scn, NULL))) {
			GElf_Dyn dyn;

			for (int i = 0; gelf_getdyn(d, i, &dyn); i++)
				if (dyn.d_tag == DT_SONAME)
					snprintf(soname, size, "%s",
						 elf_strptr(elf, sh.sh_link,
							    dyn.d_un.d_val)
						     ?: "");
			continue;
		}
		if (sh.sh_type != SHT_NOTE || out[0])
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff))) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz > 20 ||
			    nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + noff, "GNU", 4))
				continue;
			for (size_t i = 0; i < nh.n_descsz; i++)
				sprintf(out + 2 * i, "%02x",
					((unsigned char *)d->d_buf)[doff + i]);
			break;
		}
	}
	elf_end(elf);
	close(fd);
	return 0;
}

static const char *base_name(const struct xp_target *t)
{
	const char *b = strrchr(t->path, '/');

	return t->soname[0] ? t->soname : b ? b + 1 : t->path;
}

/* Whether any name of the function at one offset passes @test: aliases
 * share its code. */
static bool any_name(const struct dc_elf_sym *v, size_t n,
		     bool (*test)(const char *name))
{
	for (size_t i = 0; i < n; i++)
		if (test(v[i].name))
			return true;
	return false;
}

static int by_offset(const void *a, const void *b)
{
	const struct dc_elf_sym *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return strcmp(x->name, y->name);
}

static int underscores(const char *s)
{
	int n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

/* Which of two names at one address to show: one the filter wants, then
 * exported, fewer leading underscores, shorter, alphabetical. */
static bool better(const struct dc_elf_sym *a, bool a_match,
		   const struct dc_elf_sym *b, bool b_match)
{
	if (a_match != b_match)
		return a_match;
	if (a->dynamic != b->dynamic)
		return a->dynamic;
	if (underscores(a->name) != underscores(b->name))
		return underscores(a->name) < underscores(b->name);
	if (strlen(a->name) != strlen(b->name))
		return strlen(a->name) < strlen(b->name);
	return strcmp(a->name, b->name) < 0;
}

static int add_func(struct xp_target *t, struct dc_elf_sym *syms, size_t n,
		    size_t best, const char *layer)
{
	struct xp_func *fn;
	int k = 0;

	if (dc_grow((void **)&t->funcs, t->nfuncs, sizeof(*t->funcs), 256))
		return -ENOMEM;
	fn = &t->funcs[t->nfuncs];
	memset(fn, 0, sizeof(*fn));
	fn->name = strdup(syms[best].name);
	fn->display = xp_demangle(syms[best].name);
	fn->offset = syms[best].offset;
	fn->version = syms[best].version ? strdup(syms[best].version) : NULL;
	fn->weak = syms[best].weak;
	fn->layer = layer;
	fn->ret = DC_RET_STATUS;
	fn->aliases = calloc(n, sizeof(*fn->aliases));
	if (!fn->name || !fn->aliases)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (i != best && strcmp(syms[i].name, fn->name) &&
		    (!k || strcmp(syms[i].name, fn->aliases[k - 1])))
			fn->aliases[k++] = strdup(syms[i].name);
	fn->naliases = k;
	t->nfuncs++;
	return 0;
}

/* Symbol names are ASCII (C++ ones are mangled): others come from a
 * damaged file, and no spec could name them. Leave them out, and say so. */
static void drop_damaged(const struct xp_target *t, struct dc_elf_syms *s)
{
	size_t kept = 0;

	for (size_t i = 0; i < s->n; i++) {
		const unsigned char *c = (const unsigned char *)s->v[i].name;

		while (*c && *c < 0x80)
			c++;
		if (!*c) {
			s->v[kept++] = s->v[i];
			continue;
		}
		free(s->v[i].name);
		free(s->v[i].version);
	}
	if (kept < s->n)
		dc_warn("%s: %zu symbols with names that are not ASCII left "
			"out (a damaged file?)",
			t->path, s->n - kept);
	s->n = kept;
}

int xp_load(struct xp_target *t, const struct xp_filter *f)
{
	const struct curated *cur = NULL;
	struct dc_elf_syms syms = {};
	regex_t match, exclude, stdio;
	bool have_match = false, have_exclude = false, have_stdio = false;
	const char *pattern = f->match;
	struct stat st;
	int err;

	if (strchr(t->arg, '/') && !stat(t->arg, &st) && S_ISDIR(st.st_mode)) {
		dc_err("%s: a directory; give a library or a program in it",
		       t->arg);
		return -EISDIR;
	}
	err = dc_resolve_target(t->arg, t->path, sizeof(t->path));
	if (err == -ENOTUNIQ)
		return err;
	if (err) {
		dc_err("%s: not found (searched as the dynamic loader does, "
		       "then pkg-config and PATH)",
		       t->arg);
		return err;
	}
	read_ids(t->path, t->build_id, t->soname, sizeof(t->soname));
	for (size_t i = 0; i < sizeof(curated) / sizeof(curated[0]); i++)
		if (!strncmp(base_name(t), curated[i].soname_prefix,
			     strlen(curated[i].soname_prefix)))
			cur = &curated[i];
	t->layer = f->layer ? f->layer : cur ? cur->layer : "app";
	if (!pattern && cur && !f->all)
		pattern = cur->match;
	if (pattern) {
		if (regcomp(&match, pattern, REG_EXTENDED | REG_NOSUB)) {
			dc_err("--match: invalid regular expression '%s'",
			       pattern);
			return -EINVAL;
		}
		have_match = true;
	}
	if (cur && cur->stdio && !f->layer &&
	    !regcomp(&stdio, cur->stdio, REG_EXTENDED | REG_NOSUB))
		have_stdio = true;
	if (f->exclude) {
		if (regcomp(&exclude, f->exclude, REG_EXTENDED | REG_NOSUB)) {
			dc_err("--exclude: invalid regular expression '%s'",
			       f->exclude);
			err = -EINVAL;
			goto cleanup;
		}
		have_exclude = true;
	}
	err = dc_elf_syms_load(t->path, &syms);
	if (err) {
		dc_err("%s: %s", t->path,
		       err == -ENOEXEC	 ? "not a 64-bit ELF file"
		       : err == -EBADMSG ? "damaged or truncated ELF file"
					 : strerror(-err));
		goto cleanup;
	}
	drop_damaged(t, &syms);
	if (syms.n) /* qsort(NULL, 0) is undefined */
		qsort(syms.v, syms.n, sizeof(*syms.v), by_offset);
	for (size_t i = 0, j; i < syms.n && !err; i = j) {
		size_t best = i;
		bool best_match = false, any_match = !have_match;

		for (j = i; j < syms.n && syms.v[j].offset == syms.v[i].offset;
		     j++) {
			bool m = have_match &&
				 !regexec(&match, syms.v[j].name, 0, NULL, 0);

			any_match |= m;
			if (j == i ||
			    better(&syms.v[j], m, &syms.v[best], best_match)) {
				best = j;
				best_match = m;
			}
		}
		t->found++;
		if (!any_match ||
		    (have_exclude &&
		     !regexec(&exclude, syms.v[best].name, 0, NULL, 0)))
			continue;
		if (syms.v[best].ifunc) {
			t->ifuncs++;
			continue;
		}
		if (any_name(syms.v + i, j - i, dc_returns_twice)) {
			t->twice++;
			continue;
		}
		if (any_name(syms.v + i, j - i, dc_never_returns)) {
			t->noreturn++;
			continue;
		}
		err = add_func(t, syms.v + i, j - i, best - i,
			       have_stdio && !regexec(&stdio, syms.v[best].name,
						      0, NULL, 0)
				   ? "STDIO"
				   : t->layer);
	}
cleanup:
	dc_elf_syms_free(&syms);
	if (have_match)
		regfree(&match);
	if (have_exclude)
		regfree(&exclude);
	if (have_stdio)
		regfree(&stdio);
	/* The curated set names C functions; a C++ library of a known
	 * family (libhdf5_cpp) has none of them, only mangled names. */
	if (!err && !t->nfuncs && t->found && pattern && !f->match) {
		struct xp_filter every = *f;

		dc_info("%s: none of its %zu functions is in the curated %s "
			"set (a C++ library?); keeping them all (--match to "
			"choose)",
			t->path, t->found, t->layer);
		every.all = true;
		t->found = t->ifuncs = t->twice = t->noreturn = 0;
		return xp_load(t, &every);
	}
	return err;
}

void xp_target_free(struct xp_target *t)
{
	for (size_t i = 0; i < t->nfuncs; i++) {
		struct xp_func *fn = &t->funcs[i];

		free(fn->name);
		free(fn->display);
		free(fn->version);
		for (int k = 0; k < fn->naliases; k++)
			free(fn->aliases[k]);
		free(fn->aliases);
	}
	free(t->funcs);
	free(t->notes);
	t->funcs = NULL;
	t->notes = NULL;
	t->nfuncs = t->nnotes = 0;
}
