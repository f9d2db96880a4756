// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "elfsym.h"

#define VERSYM_HIDDEN 0x8000

/* Map a virtual address to its file offset through the PT_LOAD segments. */
static int vaddr_to_offset(Elf *elf, uint64_t addr, uint64_t *off)
{
	size_t n;
	GElf_Phdr ph;

	if (elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (addr >= ph.p_vaddr && addr < ph.p_vaddr + ph.p_memsz) {
			*off = addr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

/* Version index -> name, from .gnu.version_d. */
struct verdefs {
	const char *name[256];
};

static void read_verdefs(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh,
			 struct verdefs *vd)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0;

	for (int i = 0; data && i < (int)sh->sh_info; i++) {
		GElf_Verdef def;
		GElf_Verdaux aux;

		if (!gelf_getverdef(data, off, &def) ||
		    !gelf_getverdaux(data, off + def.vd_aux, &aux))
			return;
		if (def.vd_ndx < 256 && !(def.vd_flags & VER_FLG_BASE))
			vd->name[def.vd_ndx] =
			    elf_strptr(elf, sh->sh_link, aux.vda_name);
		if (!def.vd_next)
			return;
		off += def.vd_next;
	}
}

/* @locals: the file-local functions (static) only, else the others. */
static int add_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *versym,
		       const struct verdefs *vd, bool dynamic, bool locals,
		       struct dc_elf_syms *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count, i;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		struct dc_elf_sym *s;
		GElf_Versym ver = 0;
		const char *name, *at;
		GElf_Sym sym;
		uint64_t off;
		int type, bind;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_size ||
		    (locals ? bind != STB_LOCAL
			    : bind != STB_GLOBAL && bind != STB_WEAK) ||
		    !sym.st_value)
			continue;
		if (versym && gelf_getversym(versym, i, &ver) &&
		    (ver & VERSYM_HIDDEN))
			continue; /* a non-default version of the name */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || vaddr_to_offset(elf, sym.st_value, &off))
			continue;
		/* .symtab spells versions into names: keep "f@@V" as f, drop
		 * the non-default "f@V". */
		at = strchr(name, '@');
		if (at && at[1] != '@')
			continue;
		if (dc_grow((void **)&out->v, out->n, sizeof(*out->v), 256))
			return -ENOMEM;
		s = &out->v[out->n];
		s->name = at ? strndup(name, at - name) : strdup(name);
		if (!s->name)
			return -ENOMEM;
		s->version = NULL;
		if (vd && (ver & 0x7fff) < 256 && vd->name[ver & 0x7fff]) {
			s->version = strdup(vd->name[ver & 0x7fff]);
			if (!s->version) {
				free(s->name);
				return -ENOMEM;
			}
		}
		s->ifunc = type == STT_GNU_IFUNC;
		s->addr = sym.st_value;
		s->offset = off;
		s->size = sym.st_size;
		s->weak = bind == STB_WEAK;
		s->dynamic = dynamic;
		s->local = locals;
		out->n++;
	}
	return 0;
}

Elf *dc_elf_open(const char *path, int *fd, int *err)
{
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		*err = -EINVAL;
		return NULL;
	}
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		*err = -errno;
		return NULL;
	}
	elf_errno(); /* clear an error left by earlier libelf calls */
	elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF ||
	    gelf_getclass(elf) != ELFCLASS64) {
		if (elf)
			elf_end(elf);
		close(*fd);
		*err = -ENOEXEC;
		return NULL;
	}
	return elf;
}

static int by_name(const void *a, const void *b)
{
	const struct dc_elf_sym *x = *(const struct dc_elf_sym **)a;
	const struct dc_elf_sym *y = *(const struct dc_elf_sym **)b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->dynamic != y->dynamic)
		return x->dynamic ? -1 : 1;
	if (x->local != y->local)
		return x->local ? 1 : -1;
	return x < y ? -1 : x > y; /* first in the file first */
}

static int index_names(struct dc_elf_syms *s)
{
	s->by_name = malloc((s->n ? s->n : 1) * sizeof(*s->by_name));
	if (!s->by_name)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		s->by_name[i] = &s->v[i];
	qsort(s->by_name, s->n, sizeof(*s->by_name), by_name);
	return 0;
}

static int load(const char *path, bool locals, struct dc_elf_syms *out)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *symtab = NULL;
	GElf_Shdr dsh, ssh, sh;
	struct verdefs vd = {};
	struct stat st;
	GElf_Ehdr eh;
	Elf_Data *versym = NULL;
	Elf *elf = NULL;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	if (!gelf_getehdr(elf, &eh) || fstat(fd, &st) ||
	    eh.e_shoff + (uint64_t)eh.e_shnum * eh.e_shentsize >
		(uint64_t)st.st_size ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize >
		(uint64_t)st.st_size) {
		err = -EBADMSG; /* tables past the end: truncated */
		goto cleanup;
	}
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dsh = sh;
		} else if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			ssh = sh;
		} else if (sh.sh_type == SHT_GNU_versym) {
			versym = elf_getdata(scn, NULL);
		} else if (sh.sh_type == SHT_GNU_verdef) {
			read_verdefs(elf, scn, &sh, &vd);
		}
	}
	if (elf_errno()) {
		err = -EBADMSG; /* truncated or damaged */
		goto cleanup;
	}
	if (dynsym)
		err = add_symbols(elf, dynsym, &dsh, versym, &vd, true, false,
				  out);
	if (!err && symtab)
		err = add_symbols(elf, symtab, &ssh, NULL, NULL, false, false,
				  out);
	if (!err && symtab && locals)
		err = add_symbols(elf, symtab, &ssh, NULL, NULL, false, true,
				  out);
	if (!err)
		err = index_names(out);
cleanup:
	elf_end(elf);
	close(fd);
	if (err)
		dc_elf_syms_free(out);
	return err;
}

int dc_elf_syms_load(const char *path, struct dc_elf_syms *out)
{
	return load(path, false, out);
}

int dc_elf_syms_load_locals(const char *path, struct dc_elf_syms *out)
{
	return load(path, true, out);
}

const struct dc_elf_sym *dc_elf_syms_find(const struct dc_elf_syms *s,
					  const char *name)
{
	size_t lo = 0, hi = s->n;

	/* The first entry of that name: the sort put exported ones first. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(s->by_name[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < s->n && !strcmp(s->by_name[lo]->name, name) ? s->by_name[lo]
								: NULL;
}

void dc_elf_syms_free(struct dc_elf_syms *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].version);
	}
	free(s->v);
	free(s->by_name);
	s->v = NULL;
	s->by_name = NULL;
	s->n = 0;
}

int dc_elf_is_static(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 1;
	size_t n = 0;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n)) {
		ret = -ENOEXEC;
		goto cleanup;
	}
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_INTERP)
			ret = 0;
	}
cleanup:
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

/* The file offset of dynamic symbol @name in @elf, or a negative errno. */
static int64_t dynsym_offset(Elf *elf, const char *name)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize || !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;
			uint64_t off;

			if (!gelf_getsym(data, (int)i, &sym) || !sym.st_value ||
			    !(n = elf_strptr(elf, sh.sh_link, sym.st_name)) ||
			    strcmp(n, name))
				continue;
			return vaddr_to_offset(elf, sym.st_value, &off)
				   ? -ENOENT
				   : (int64_t)off;
		}
	}
	return -ENOENT;
}

int dc_elf_read_sym(const char *path, const char *name, size_t at, void *buf,
		    size_t n)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;
	int64_t off;
	Elf *e;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e) {
		err = -ENOEXEC;
		goto cleanup;
	}
	off = dynsym_offset(e, name);
	if (off < 0)
		err = (int)off;
	else if (pread(fd, buf, n, off + (int64_t)at) != (ssize_t)n)
		err = -EIO;
cleanup:
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

/* The data of the next section of @type after *@scn (NULL: the first),
 * its header in @sh; NULL when there is no more. */
static Elf_Data *next_of_type(Elf *e, Elf_Scn **scn, GElf_Word type,
			      GElf_Shdr *sh)
{
	Elf_Data *d;

	while ((*scn = elf_nextscn(e, *scn)))
		if (gelf_getshdr(*scn, sh) && sh->sh_type == type &&
		    (d = elf_getdata(*scn, NULL)))
			return d;
	return NULL;
}

int dc_elf_build_id(const char *path, uint8_t id[DC_BUILD_ID_SIZE])
{
	int fd = -1, err = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	Elf *e;

	e = dc_elf_open(path, &fd, &err);
	if (!e)
		return err;
	err = -ENOENT;
	while ((d = next_of_type(e, &scn, SHT_NOTE, &sh))) {
		size_t off = 0, name, desc;
		GElf_Nhdr nh;

		while ((off = gelf_getnote(d, off, &nh, &name, &desc)) > 0) {
			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((char *)d->d_buf + name, "GNU", 4))
				continue;
			/* The kernel compares the first 20 bytes, zero
			 * padded: shorter ids are padded alike. */
			memset(id, 0, DC_BUILD_ID_SIZE);
			memcpy(id, (char *)d->d_buf + desc,
			       nh.n_descsz < DC_BUILD_ID_SIZE
				   ? nh.n_descsz
				   : DC_BUILD_ID_SIZE);
			err = 0;
			goto cleanup;
		}
	}
cleanup:
	elf_end(e);
	close(fd);
	return err;
}

int dc_elf_soname(const char *path, char *out, size_t size)
{
	int fd = -1, err = -ENOENT;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	Elf_Data *d;
	Elf *e;

	e = dc_elf_open(path, &fd, &err);
	if (!e)
		return err;
	err = -ENOENT;
	while (err && (d = next_of_type(e, &scn, SHT_DYNAMIC, &sh))) {
		const char *str;
		GElf_Dyn dy;

		for (int i = 0; err && gelf_getdyn(d, i, &dy); i++)
			if (dy.d_tag == DT_SONAME &&
			    (str = elf_strptr(e, sh.sh_link, dy.d_un.d_val)))
				err = snprintf(out, size, "%s", str) < (int)size
					  ? 0
					  : -ENAMETOOLONG;
	}
	elf_end(e);
	close(fd);
	return err;
}

void dc_build_id_hex(const uint8_t id[DC_BUILD_ID_SIZE], char hex[DC_BUILD_HEX])
{
	static const char digit[] = "0123456789abcdef";

	for (int i = 0; i < DC_BUILD_ID_SIZE; i++) {
		hex[2 * i] = digit[id[i] >> 4];
		hex[2 * i + 1] = digit[id[i] & 15];
	}
	hex[2 * DC_BUILD_ID_SIZE] = '\0';
}
