// SPDX-License-Identifier: MIT
/*
 * Decoding a binary's code with Capstone (BSD-licensed, packaged by every
 * distribution, and with per-instruction register and operand access
 * details, which an objdump-style text disassembler does not give).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "disasm.h"
#include "usdt.h"

const x86_reg dc_x86_call_args[6] = { X86_REG_RDI, X86_REG_RSI, X86_REG_RDX,
				      X86_REG_RCX, X86_REG_R8,	X86_REG_R9 };
const x86_reg dc_x86_sys_args[6] = { X86_REG_RDI, X86_REG_RSI, X86_REG_RDX,
				     X86_REG_R10, X86_REG_R8,  X86_REG_R9 };

/* The file offset of virtual address @addr, through the PT_LOAD
 * segments; false when none holds it. */
static bool file_offset(const struct dc_code *c, uint64_t addr, uint64_t *off)
{
	const Elf64_Ehdr *eh = (const void *)c->map;
	const Elf64_Phdr *ph;

	if (eh->e_phoff > c->len ||
	    (uint64_t)eh->e_phnum * sizeof(*ph) > c->len - eh->e_phoff)
		return false;
	ph = (const void *)(c->map + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && addr >= ph[i].p_vaddr &&
		    addr < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = addr - ph[i].p_vaddr + ph[i].p_offset;
			return true;
		}
	return false;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* USDT sites are where other probes fire: a function's probe must not
 * move onto or past one, or the two would swap places. */
static int read_usdt(const char *path, struct dc_code *c)
{
	struct dc_usdt_note *notes;
	size_t n;
	int err = dc_usdt_notes(path, &notes, &n);

	if (err)
		return err == -ENOEXEC ? 0 : err;
	c->usdt = calloc(n ? n : 1, sizeof(*c->usdt));
	if (!c->usdt) {
		free(notes);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (file_offset(c, notes[i].pc, &c->usdt[c->nusdt]))
			c->nusdt++;
	free(notes);
	qsort(c->usdt, c->nusdt, sizeof(*c->usdt), cmp_u64);
	return 0;
}

bool dc_code_usdt_at(const struct dc_code *c, uint64_t off)
{
	return c->nusdt &&
	       bsearch(&off, c->usdt, c->nusdt, sizeof(*c->usdt), cmp_u64);
}

int dc_code_open(const char *path, struct dc_code *c)
{
	const Elf64_Ehdr *eh;
	struct stat st;
	void *map;
	int fd, err;

	memset(c, 0, sizeof(*c));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st)) {
		err = -errno;
		close(fd);
		return err;
	}
	if ((size_t)st.st_size < sizeof(*eh)) {
		close(fd);
		return -ENOEXEC;
	}
	/* Shared: the kernel writes a uprobe's breakpoint into every
	 * private mapping of the file, so another tracer's probes would be
	 * read as int3 there; it leaves shared mappings alone. */
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	err = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	c->map = map;
	c->len = st.st_size;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_machine != EM_X86_64) {
		err = -ENOTSUP;
		goto cleanup;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &c->cs) != CS_ERR_OK) {
		err = -ENOMEM;
		goto cleanup;
	}
	cs_option(c->cs, CS_OPT_DETAIL, CS_OPT_ON);
	/* Messages show instructions as objdump does. */
	cs_option(c->cs, CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
	err = read_usdt(path, c);
	if (err)
		goto cleanup;
	return 0;
cleanup:
	dc_code_close(c);
	return err;
}

void dc_code_close(struct dc_code *c)
{
	free(c->usdt);
	if (c->cs)
		cs_close(&c->cs);
	if (c->map)
		munmap((void *)c->map, c->len);
	memset(c, 0, sizeof(*c));
}

long dc_code_decode(const struct dc_code *c, uint64_t off, uint64_t size,
		    size_t max, cs_insn **insn)
{
	if (off > c->len || size > c->len - off)
		return -EFAULT;
	return cs_disasm(c->cs, c->map + off, size, off, max, insn);
}

x86_reg dc_x86_gpr(x86_reg r)
{
	switch (r) {
	case X86_REG_AL:
	case X86_REG_AH:
	case X86_REG_AX:
	case X86_REG_EAX:
	case X86_REG_RAX: return X86_REG_RAX;
	case X86_REG_BL:
	case X86_REG_BH:
	case X86_REG_BX:
	case X86_REG_EBX:
	case X86_REG_RBX: return X86_REG_RBX;
	case X86_REG_CL:
	case X86_REG_CH:
	case X86_REG_CX:
	case X86_REG_ECX:
	case X86_REG_RCX: return X86_REG_RCX;
	case X86_REG_DL:
	case X86_REG_DH:
	case X86_REG_DX:
	case X86_REG_EDX:
	case X86_REG_RDX: return X86_REG_RDX;
	case X86_REG_SIL:
	case X86_REG_SI:
	case X86_REG_ESI:
	case X86_REG_RSI: return X86_REG_RSI;
	case X86_REG_DIL:
	case X86_REG_DI:
	case X86_REG_EDI:
	case X86_REG_RDI: return X86_REG_RDI;
	case X86_REG_BPL:
	case X86_REG_BP:
	case X86_REG_EBP:
	case X86_REG_RBP: return X86_REG_RBP;
	case X86_REG_SPL:
	case X86_REG_SP:
	case X86_REG_ESP:
	case X86_REG_RSP: return X86_REG_RSP;
	case X86_REG_R8B:
	case X86_REG_R8W:
	case X86_REG_R8D:
	case X86_REG_R8: return X86_REG_R8;
	case X86_REG_R9B:
	case X86_REG_R9W:
	case X86_REG_R9D:
	case X86_REG_R9: return X86_REG_R9;
	case X86_REG_R10B:
	case X86_REG_R10W:
	case X86_REG_R10D:
	case X86_REG_R10: return X86_REG_R10;
	case X86_REG_R11B:
	case X86_REG_R11W:
	case X86_REG_R11D:
	case X86_REG_R11: return X86_REG_R11;
	case X86_REG_R12B:
	case X86_REG_R12W:
	case X86_REG_R12D:
	case X86_REG_R12: return X86_REG_R12;
	case X86_REG_R13B:
	case X86_REG_R13W:
	case X86_REG_R13D:
	case X86_REG_R13: return X86_REG_R13;
	case X86_REG_R14B:
	case X86_REG_R14W:
	case X86_REG_R14D:
	case X86_REG_R14: return X86_REG_R14;
	case X86_REG_R15B:
	case X86_REG_R15W:
	case X86_REG_R15D:
	case X86_REG_R15: return X86_REG_R15;
	default: return X86_REG_INVALID;
	}
}

void dc_insn_text(const cs_insn *i, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s%s", i->mnemonic, i->op_str[0] ? " " : "",
		 i->op_str);
}
