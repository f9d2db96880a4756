/* SPDX-License-Identifier: MIT */
#ifndef DC_ELFSYM_H
#define DC_ELFSYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A defined function symbol of an ELF file. */
struct dc_elf_sym {
	char *name;	 /* without version */
	char *version;	 /* default version ("GLIBC_2.2.5"), or NULL */
	uint64_t addr;	 /* st_value */
	uint64_t offset; /* file offset, what uprobes attach to */
	uint64_t size;
	bool weak;
	bool dynamic; /* from .dynsym: exported */
	bool local;   /* file-local (static): dc_elf_syms_load_locals() */
	bool ifunc;   /* STT_GNU_IFUNC: addr is the resolver */
};

struct dc_elf_syms {
	struct dc_elf_sym *v;
	size_t n;
	struct dc_elf_sym **by_name; /* v sorted by name, exported first */
};

#include <libelf.h>

/*
 * Open @path with libelf as a 64-bit ELF file: the handle, with *@fd to
 * close after elf_end(); or NULL with *@err set (-ENOEXEC: not 64-bit
 * ELF, else -errno).
 */
Elf *dc_elf_open(const char *path, int *fd, int *err);

/*
 * Read the defined functions (STT_FUNC and STT_GNU_IFUNC, global or weak,
 * of non-zero size) of @path from .dynsym and .symtab. Of several versions
 * of one name only the default one is kept. Returns 0 or -errno: -ENOEXEC
 * for a file that is not a 64-bit ELF, -EBADMSG for a damaged one.
 */
int dc_elf_syms_load(const char *path, struct dc_elf_syms *out);
/* ... and, after those, .symtab's file-local functions: what a library
 * keeps static (HDF5 1.14's H5D__chunk_write), which a uprobe reaches
 * as well. Of several of one name, the first in the file is found. */
int dc_elf_syms_load_locals(const char *path, struct dc_elf_syms *out);
/* Exported (dynamic) symbols first, then local symbol table entries;
 * a binary search, as callers look up thousands of names. */
const struct dc_elf_sym *dc_elf_syms_find(const struct dc_elf_syms *s,
					  const char *name);
void dc_elf_syms_free(struct dc_elf_syms *s);
/* 1 if the ELF executable at @path is statically linked (no program
 * interpreter), 0 if it is not, or a negative errno. */
int dc_elf_is_static(const char *path);
/* Read @n bytes at @at past dynamic symbol @name's place in the file at
 * @path (initialized data as the library ships it): 0 or -errno. */
int dc_elf_read_sym(const char *path, const char *name, size_t at, void *buf,
		    size_t n);

/* The shared library @path's DT_SONAME, into @out: 0, -ENOENT if it has
 * none, or another -errno. */
int dc_elf_soname(const char *path, char *out, size_t size);

/* Bytes of a GNU build id the kernel reports (BPF_BUILD_ID_SIZE). */
#define DC_BUILD_ID_SIZE 20
/* @path's GNU build id, zero padded: 0, -ENOENT if it has none, or
 * another -errno. */
int dc_elf_build_id(const char *path, uint8_t id[DC_BUILD_ID_SIZE]);
/* Bytes of a build id in hex, with its NUL. */
#define DC_BUILD_HEX (2 * DC_BUILD_ID_SIZE + 1)
void dc_build_id_hex(const uint8_t id[DC_BUILD_ID_SIZE],
		     char hex[DC_BUILD_HEX]);

#endif
