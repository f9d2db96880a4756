// SPDX-License-Identifier: MIT
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static int add_symbols(Elf *elf, Elf_Scn *scn, GElf_Shdr *sh, Elf_Data *versym,
		       bool dynamic, struct dc_elf_syms *out)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t count, i;

	if (!data || !sh->sh_entsize)
		return 0;
	count = sh->sh_size / sh->sh_entsize;
	for (i = 0; i < count; i++) {
		struct dc_elf_sym *s, *v;
		GElf_Versym ver = 0;
		const char *name;
		GElf_Sym sym;
		uint64_t off;
		int type, bind;

		if (!gelf_getsym(data, i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		bind = GELF_ST_BIND(sym.st_info);
		if (type != STT_FUNC || sym.st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK) || !sym.st_value)
			continue;
		if (versym && gelf_getversym(versym, i, &ver) &&
		    (ver & VERSYM_HIDDEN))
			continue; /* a non-default version of the name */
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || !*name || vaddr_to_offset(elf, sym.st_value, &off))
			continue;
		if (out->n % 256 == 0) {
			v = realloc(out->v, (out->n + 256) * sizeof(*v));
			if (!v)
				return -ENOMEM;
			out->v = v;
		}
		s = &out->v[out->n];
		s->name = strdup(name);
		if (!s->name)
			return -ENOMEM;
		s->addr = sym.st_value;
		s->offset = off;
		s->size = sym.st_size;
		s->weak = bind == STB_WEAK;
		s->dynamic = dynamic;
		out->n++;
	}
	return 0;
}

int dc_elf_syms_load(const char *path, struct dc_elf_syms *out)
{
	Elf_Scn *scn = NULL, *dynsym = NULL, *symtab = NULL;
	GElf_Shdr dsh, ssh, sh;
	Elf_Data *versym = NULL;
	Elf *elf = NULL;
	int fd, err = 0;

	memset(out, 0, sizeof(*out));
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
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
		}
	}
	if (dynsym)
		err = add_symbols(elf, dynsym, &dsh, versym, true, out);
	if (!err && symtab)
		err = add_symbols(elf, symtab, &ssh, NULL, false, out);
cleanup:
	if (elf)
		elf_end(elf);
	close(fd);
	if (err)
		dc_elf_syms_free(out);
	return err;
}

const struct dc_elf_sym *dc_elf_syms_find(const struct dc_elf_syms *s,
					  const char *name)
{
	const struct dc_elf_sym *local = NULL;

	for (size_t i = 0; i < s->n; i++) {
		if (strcmp(s->v[i].name, name))
			continue;
		if (s->v[i].dynamic)
			return &s->v[i];
		if (!local)
			local = &s->v[i];
	}
	return local;
}

void dc_elf_syms_free(struct dc_elf_syms *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].name);
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
