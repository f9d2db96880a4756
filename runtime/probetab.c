// SPDX-License-Identifier: MIT
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfsym.h"
#include "probetab.h"

/* The string at offset @off of the pool, if it fits in @max bytes with
 * its NUL; else NULL. The pool ends with a NUL (checked by the caller). */
static const char *pool_str(const char *pool, size_t size, __u32 off,
			    size_t max)
{
	if (off >= size || strnlen(pool + off, max) >= max)
		return NULL;
	return pool + off;
}

/* Decode entry @d into @v, pointing into @pool: 0 or -EBADMSG. */
static int decode(const struct dc_probe_desc *d, size_t i, const char *pool,
		  size_t size, struct dc_probe_info *v)
{
	bool ok = true;

	*v = (struct dc_probe_info){ .id = d->id,
				     .mech = d->mech,
				     .ret = d->ret,
				     .nslots = d->nslots,
				     .size_slot = d->size_slot,
				     .effect = d->effect,
				     .flags = d->flags,
				     .nr = d->nr,
				     .place = d->place,
				     .moved = d->moved,
				     .skip = d->skip,
				     .ret_at = d->ret_at };
	ok &= d->effect < DC_EFFECT_NR;
	memcpy(v->slot_role, d->slot_role, sizeof(v->slot_role));
	memcpy(v->slot_arg, d->slot_arg, sizeof(v->slot_arg));
	/* The runtime copies these into buffers of the spec's limits. */
	ok &= !!(v->name = pool_str(pool, size, d->name, DC_SYMBOL_MAX));
	ok &= !!(v->symbol = pool_str(pool, size, d->symbol, DC_SYMBOL_MAX));
	ok &= !!(v->layer = pool_str(pool, size, d->layer, DC_LAYER_MAX));
	ok &= !!(v->target = pool_str(pool, size, d->target, DC_TARGET_MAX));
	ok &= !!(v->path = pool_str(pool, size, d->path, DC_TARGET_MAX));
	ok &= !!(v->builds = pool_str(pool, size, d->builds, DC_BUILDS_MAX));
	ok &= !!(v->build = pool_str(pool, size, d->build, DC_BUILD_HEX));
	ok &= !!(v->end = pool_str(pool, size, d->end, DC_NAME_MAX));
	ok &= !!(v->alt = pool_str(pool, size, d->alt, DC_TARGET_MAX));
	/* A tracepoint's record fields; a uprobe's fields by DWARF. */
	for (int k = 0; k < DC_CAPTURE; k++)
		ok &= !!(v->field[k] = pool_str(pool, size, d->field[k],
						d->mech == DC_MECH_UPROBE
						    ? DC_FIELD_PATH_MAX
						    : DC_FIELD_MAX));
	for (int k = 0; k < DC_TP_KEYS; k++)
		ok &= !!(v->key[k] =
			     pool_str(pool, size, d->key[k], DC_FIELD_MAX));
	if (!ok || d->id != i || d->nslots > DC_CAPTURE)
		return -EBADMSG;
	return 0;
}

static Elf_Data *probe_section(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, DC_PROBE_SECTION))
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

int dc_probe_table_read(const char *path, struct dc_probe_info **out, size_t *n)
{
	const struct dc_probe_table *t;
	const struct dc_probe_desc *d;
	struct dc_probe_info *v = NULL;
	const char *src;
	Elf_Data *data;
	Elf *elf;
	size_t room;
	char *pool;
	int fd, err;

	elf = dc_elf_open(path, &fd, &err);
	if (!elf)
		return err;
	err = -ENOEXEC;
	data = probe_section(elf);
	if (!data || data->d_size < sizeof(*t))
		goto cleanup;
	t = data->d_buf;
	if (t->magic != DC_PROBE_TABLE_MAGIC)
		goto cleanup;
	if (t->abi_version != DC_ABI_VERSION || t->desc_size != sizeof(*d)) {
		err = -EPROTO;
		goto cleanup;
	}
	err = -EBADMSG;
	room = data->d_size - sizeof(*t);
	if (!t->count || t->count > room / sizeof(*d) || !t->strings ||
	    t->strings > room - t->count * sizeof(*d))
		goto cleanup;
	d = (const void *)(t + 1);
	src = (const char *)(d + t->count);
	if (src[t->strings - 1])
		goto cleanup;
	v = malloc(t->count * sizeof(*v) + t->strings);
	if (!v) {
		err = -ENOMEM;
		goto cleanup;
	}
	pool = memcpy((char *)(v + t->count), src, t->strings);
	for (size_t i = 0; i < t->count; i++)
		if (decode(&d[i], i, pool, t->strings, &v[i]))
			goto cleanup;
	*out = v;
	*n = t->count;
	v = NULL;
	err = 0;
cleanup:
	free(v);
	elf_end(elf);
	close(fd);
	return err;
}
