// SPDX-License-Identifier: MIT
/*
 * Where an MPI library keeps a datatype's size, for the programs'
 * `datatype` role (docs/design.md, "Bytes of MPI-IO calls"): found in the
 * library the probes are on, never assumed. Without it MPI-IO calls carry
 * no bytes, and the runtime says so.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "dtypes.h"
#include "elfsym.h"
#include "log.h"

/*
 * OpenMPI: a datatype is a pointer to an object with a size_t size. The
 * predefined MPI_DOUBLE, MPI_INT and MPI_CHAR objects are initialized
 * data in the file, and the one offset where they hold 8, 4 and 1 is the
 * field. 0 if there is none.
 */
static __u32 ompi_size_off(const char *lib)
{
	static const struct {
		const char *sym;
		uint64_t size;
	} known[] = { { "ompi_mpi_double", 8 },
		      { "ompi_mpi_int", 4 },
		      { "ompi_mpi_char", 1 } };

	for (__u32 off = 8; off <= 128; off += 8) {
		bool all = true;

		for (size_t k = 0; k < sizeof(known) / sizeof(known[0]); k++) {
			uint64_t v = 0;

			all &= !dc_elf_read_sym(lib, known[k].sym, off, &v,
						sizeof(v)) &&
			       v == known[k].size;
		}
		if (all)
			return off;
	}
	return 0;
}

/*
 * MPICH: a datatype is a handle. A derived type's object is in the
 * library's datatype allocator (an MPIR_Object_alloc_t), which is
 * initialized data of libmpich but not exported. It is found in .data as
 * the one such allocator of datatypes in the state the file gives it:
 * nothing handed out yet, MPICH's handle kind of datatypes, the size of
 * an object, and a pointer (relocated) to the objects preallocated in
 * the library with their number.
 */
enum {
	ALLOC_INDIRECT = 0x10, /* blocks of objects allocated later */
	ALLOC_KIND = 0x24,
	ALLOC_OBJSIZE = 0x28,
	ALLOC_DIRECT = 0x30, /* the preallocated objects */
	ALLOC_NDIRECT = 0x38,
	ALLOC_END = 0x3c,
	MPICH_KIND_DATATYPE = 3,
};

struct rel {
	uint64_t at, to;
};

static int by_at(const void *a, const void *b)
{
	const struct rel *x = a, *y = b;

	return x->at < y->at ? -1 : x->at > y->at;
}

/* Where the library's code segment maps: file offset = address - delta. */
static int text_delta(Elf *e, int64_t *delta)
{
	GElf_Phdr ph;
	size_t n;

	if (elf_getphdrnum(e, &n))
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++)
		if (gelf_getphdr(e, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X)) {
			*delta = (int64_t)(ph.p_vaddr - ph.p_offset);
			return 0;
		}
	return -ENOENT;
}

/* The R_X86_64_RELATIVE relocations of [lo, hi), sorted. */
static int relative_relocs(Elf *e, uint64_t lo, uint64_t hi, struct rel **out,
			   size_t *nout)
{
	struct rel *r = NULL;
	size_t n = 0, cap = 0;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    !sh.sh_entsize || !(d = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela ra;

			if (!gelf_getrela(d, (int)i, &ra) ||
			    GELF_R_TYPE(ra.r_info) != R_X86_64_RELATIVE ||
			    ra.r_offset < lo || ra.r_offset >= hi)
				continue;
			if (dc_grow_cap((void **)&r, &cap, n, sizeof(*r),
					256)) {
				free(r);
				return -ENOMEM;
			}
			r[n++] =
			    (struct rel){ ra.r_offset, (uint64_t)ra.r_addend };
		}
	}
	if (n)
		qsort(r, n, sizeof(*r), by_at);
	*out = r;
	*nout = n;
	return 0;
}

static uint64_t get(const unsigned char *p, size_t size)
{
	uint64_t v = 0;

	memcpy(&v, p, size);
	return v;
}

/* Whether @p, at address @at, holds a datatype allocator; its direct
 * objects' address in @direct. */
static bool is_allocator(const unsigned char *p, uint64_t at,
			 const struct rel *r, size_t nr, uint64_t *direct)
{
	struct rel key = { at + ALLOC_DIRECT, 0 }, *found;
	uint32_t objsize = get(p + ALLOC_OBJSIZE, 4);
	uint32_t ndirect = get(p + ALLOC_NDIRECT, 4);

	if (get(p, 8) || get(p + 8, 8) || get(p + ALLOC_INDIRECT, 8) ||
	    get(p + ALLOC_INDIRECT + 8, 8) ||
	    get(p + ALLOC_KIND, 4) != MPICH_KIND_DATATYPE || objsize < 16 ||
	    objsize > 65536 || !ndirect || ndirect > 65536)
		return false;
	found = bsearch(&key, r, nr, sizeof(*r), by_at);
	if (!found)
		return false;
	*direct = found->to;
	return true;
}

static int mpich_tables(const char *lib, struct dc_config *cfg)
{
	int fd = open(lib, O_RDONLY | O_CLOEXEC), err = -ENOENT, found = 0;
	struct rel *rels = NULL;
	Elf_Scn *scn = NULL;
	Elf *e = NULL;
	int64_t delta;
	size_t nrels, shstr;

	if (fd < 0)
		return -errno;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_getshdrstrndx(e, &shstr) || text_delta(e, &delta)) {
		err = -ENOEXEC;
		goto cleanup;
	}
	while ((scn = elf_nextscn(e, scn))) {
		const unsigned char *p;
		const char *name;
		uint64_t direct;
		Elf_Data *d;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(e, shstr, sh.sh_name)) ||
		    strcmp(name, ".data") || !(d = elf_getdata(scn, NULL)) ||
		    d->d_size < ALLOC_END)
			continue;
		err = relative_relocs(e, sh.sh_addr, sh.sh_addr + sh.sh_size,
				      &rels, &nrels);
		if (err)
			goto cleanup;
		p = d->d_buf;
		for (size_t at = 0; at + ALLOC_END <= d->d_size; at += 8) {
			if (!is_allocator(p + at, sh.sh_addr + at, rels, nrels,
					  &direct))
				continue;
			found++;
			cfg->mpich_objsize = get(p + at + ALLOC_OBJSIZE, 4);
			cfg->mpich_ndirect = get(p + at + ALLOC_NDIRECT, 4);
			cfg->mpich_direct = direct - delta;
			cfg->mpich_indirect =
			    sh.sh_addr + at + ALLOC_INDIRECT - delta;
		}
		break;
	}
	err = found == 1 ? 0 : -ENOENT;
cleanup:
	if (err)
		cfg->mpich_objsize = 0;
	free(rels);
	if (e)
		elf_end(e);
	close(fd);
	return err;
}

void dc_dtypes_find(const struct dc_session *sess,
		    const struct dc_capture *caps, size_t n,
		    struct dc_config *cfg)
{
	bool ompi = false, mpich = false;
	char lib[4096];

	for (size_t i = 0; i < n && i < sess->nprobes; i++) {
		__u8 kind = caps[i].dtype_kind;

		if (!caps[i].dtype_mask || (kind == DC_DTYPE_OMPI && ompi) ||
		    (kind == DC_DTYPE_MPICH && mpich) ||
		    dc_probe_binary(&sess->descs[i], lib, sizeof(lib)))
			continue;
		if (kind == DC_DTYPE_OMPI) {
			ompi = true;
			cfg->ompi_size_off = ompi_size_off(lib);
			if (!cfg->ompi_size_off)
				dc_warn("%s: cannot find where its datatypes "
					"keep their size; MPI-IO calls will "
					"carry no bytes",
					lib);
		} else if (kind == DC_DTYPE_MPICH) {
			mpich = true;
			if (mpich_tables(lib, cfg))
				dc_warn(
				    "%s: cannot find its datatype objects; "
				    "MPI-IO calls on derived datatypes will "
				    "carry no bytes",
				    lib);
		}
	}
}
