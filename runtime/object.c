// SPDX-License-Identifier: MIT
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "log.h"
#include "object.h"

#define PROG(field, name)                                                      \
	{                                                                      \
		name, offsetof(struct dc_obj, progs.field)                     \
	}
#define MAP(field, name)                                                       \
	{                                                                      \
		name, offsetof(struct dc_obj, maps.field)                      \
	}

static const struct part {
	const char *name;
	size_t off;
} progs[] = {
	PROG(sys_enter, "dc_sys_enter"),
	PROG(sys_exit, "dc_sys_exit"),
	PROG(uprobe_entry, "dc_uprobe_entry"),
	PROG(sys_enter_compat, "dc_sys_enter_compat"),
	PROG(sys_exit_compat, "dc_sys_exit_compat"),
	PROG(uprobe_entry_compat, "dc_uprobe_entry_compat"),
	PROG(uprobe_exit_compat, "dc_uprobe_exit_compat"),
	PROG(uprobe_exit, "dc_uprobe_exit"),
	PROG(uprobe_session, "dc_uprobe_session"),
	PROG(kprobe_entry, "dc_kprobe_entry"),
	PROG(kprobe_exit, "dc_kprobe_exit"),
	PROG(kprobe_exit_compat, "dc_kprobe_exit_compat"),
	PROG(tracepoint, "dc_tracepoint"),
	PROG(usdt, "dc_usdt"),
	PROG(uring_submit, "dc_uring_submit"),
	PROG(uring_complete, "dc_uring_complete"),
	PROG(uring_complete_res, "dc_uring_complete_res"),
	PROG(aio[0], "dc_aio_getevents_exit"),
	PROG(aio[1], "dc_aio_pgetevents_exit"),
	PROG(aio[2], "dc_aio_getevents"),
	PROG(aio[3], "dc_aio_pgetevents"),
	PROG(aio[4], "dc_aio_submit"),
	PROG(paio, "dc_paio"),
	PROG(paio_exit, "dc_paio_exit"),
	PROG(paio_sweep, "dc_paio_sweep"),
	PROG(fork, "dc_fork"),
	PROG(exec, "dc_exec"),
	PROG(exit_task, "dc_exit_task"),
	PROG(cgroup_attach, "dc_cgroup_attach"),
	PROG(client_join, "dc_client_join"),
	PROG(set_traced, "dc_set_traced"),
	PROG(agg_iter, "dc_agg_iter"),
	PROG(lib_mapped, "dc_lib_mapped"),
	PROG(lib_mapping, "dc_lib_mapping"),
}, maps[] = {
	MAP(events, "dc_events"),
	MAP(pids, "dc_pids"),
	MAP(traced_bits, "dc_traced_bits"),
	MAP(close_ts, "dc_close_ts"),
	MAP(cgroups, "dc_cgroups"),
	MAP(limits, "dc_limits"),
	MAP(lost, "dc_lost"),
	MAP(agg[0], "dc_agg0"),
	MAP(agg[1], "dc_agg1"),
	MAP(epoch, "dc_epoch"),
	MAP(inflight, "dc_inflight"),
	MAP(fdgen, "dc_fdgen"),
	MAP(fdpat, "dc_fdpat"),
	MAP(hdl, "dc_hdl"),
	MAP(tpcfg, "dc_tpcfg"),
	MAP(tp_pending, "dc_tp_pending"),
	MAP(uring_pending, "dc_uring_pending"),
	MAP(aio_pending, "dc_aio_pending"),
	MAP(aio_reaping, "dc_aio_reaping"),
	MAP(paio_pending, "dc_paio_pending"),
	MAP(wrap_sites, "dc_wrap_sites"),
	MAP(wrap_byoff, "dc_wrap_byoff"),
	MAP(threads, "dc_threads"),
	MAP(threads_tid, "dc_threads_tid"),
	MAP(thread_zero, "dc_thread_zero"),
	MAP(uprobe_ids, "dc_uprobe_ids"),
	MAP(uprobe_ips, "dc_uprobe_ips"),
	MAP(kprobe_ids, "dc_kprobe_ids"),
	MAP(libs, "dc_libs"),
	MAP(usdt_procs, "dc_usdt_procs"),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* The internal map holding section @section (".rodata", ".bss"). */
static struct bpf_map *section_map(struct bpf_object *obj, const char *section)
{
	struct bpf_map *map;

	bpf_object__for_each_map (map, obj)
		if (bpf_map__is_internal(map) &&
		    strstr(bpf_map__name(map), section))
			return map;
	return NULL;
}

/*
 * The initial value of global variable @name in @section, located
 * through the BTF datasec as a skeleton would: what is written there
 * before load is what the programs see. NULL if there is none.
 */
static void *global(struct bpf_object *obj, const char *section,
		    const char *name, size_t *size)
{
	struct btf *btf = bpf_object__btf(obj);
	struct bpf_map *map = section_map(obj, section);
	const struct btf_var_secinfo *vs;
	const struct btf_type *sec;
	size_t msize;
	char *data;
	int id;

	if (!map || !btf)
		return NULL;
	id = btf__find_by_name_kind(btf, section, BTF_KIND_DATASEC);
	if (id < 0)
		return NULL;
	sec = btf__type_by_id(btf, id);
	data = bpf_map__initial_value(map, &msize);
	vs = btf_var_secinfos(sec);
	for (int i = 0; data && i < btf_vlen(sec); i++, vs++) {
		const struct btf_type *var = btf__type_by_id(btf, vs->type);

		if (strcmp(btf__name_by_offset(btf, var->name_off), name) ||
		    vs->offset + vs->size > msize)
			continue;
		*size = vs->size;
		return data + vs->offset;
	}
	return NULL;
}

/* A global of a loaded object: libbpf 1.4 maps its memory privately
 * unless a skeleton loads it, so the value goes through bpf(). */
static int global_set(struct bpf_object *obj, const char *section,
		      const char *name, const void *val, size_t size)
{
	struct bpf_map *map = section_map(obj, section);
	size_t vsize, msize;
	char *var, *base, *cur;
	__u32 zero = 0;
	int err = 0;

	var = global(obj, section, name, &vsize);
	if (!var || !map || vsize != size)
		return -ENOENT;
	base = bpf_map__initial_value(map, &msize);
	cur = malloc(msize);
	if (!cur)
		return -ENOMEM;
	if (bpf_map_lookup_elem(bpf_map__fd(map), &zero, cur)) {
		err = -errno;
		goto cleanup;
	}
	memcpy(cur + (var - base), val, size);
	if (bpf_map_update_elem(bpf_map__fd(map), &zero, cur, BPF_ANY))
		err = -errno;
cleanup:
	free(cur);
	return err;
}

/* A table of __u32 in .rodata, or NULL and 0 entries. */
static __u32 *table(struct bpf_object *obj, const char *name, size_t *n)
{
	size_t size = 0;
	__u32 *t = global(obj, ".rodata", name, &size);

	*n = t ? size / sizeof(*t) : 0;
	return t;
}

int dc_obj_open(struct dc_obj *o, const char *path)
{
	const char *missing = NULL;
	size_t size = 0;
	int err;

	memset(o, 0, sizeof(*o));
	o->obj = bpf_object__open_file(path, NULL);
	if (!o->obj) {
		err = -errno;
		dc_err("%s: cannot open BPF object: %s", path, strerror(-err));
		return err;
	}
	for (size_t i = 0; i < N(progs) && !missing; i++) {
		struct bpf_program **p = (void *)((char *)o + progs[i].off);

		*p = bpf_object__find_program_by_name(o->obj, progs[i].name);
		if (!*p)
			missing = progs[i].name;
	}
	for (size_t i = 0; i < N(maps) && !missing; i++) {
		struct bpf_map **m = (void *)((char *)o + maps[i].off);

		*m = bpf_object__find_map_by_name(o->obj, maps[i].name);
		if (!*m)
			missing = maps[i].name;
	}
	o->cfg = global(o->obj, ".rodata", "dc_cfg", &size);
	if (!missing && (!o->cfg || size != sizeof(*o->cfg)))
		missing = "dc_cfg";
	o->caps = global(o->obj, ".rodata", "dc_caps", &size);
	o->ncaps = o->caps ? size / sizeof(*o->caps) : 0;
	if (!missing && !o->caps)
		missing = "dc_caps";
	o->sysnr = table(o->obj, "dc_sysnr", &o->nsysnr);
	o->uring_ops = table(o->obj, "dc_uring_ops", &o->nuring_ops);
	o->aio_ops = table(o->obj, "dc_libaio_ops", &o->naio_ops);
	o->paio_ops = table(o->obj, "dc_paio_ops", &o->npaio_ops);
	if (missing) {
		dc_err("%s: has no %s: not made by this datacrumbs-gen", path,
		       missing);
		dc_obj_close(o);
		return -ENOENT;
	}
	return 0;
}

int dc_obj_set_drain_epoch(struct dc_obj *o, __u32 epoch)
{
	return global_set(o->obj, ".bss", "dc_drain_epoch", &epoch,
			  sizeof(epoch));
}

int dc_obj_set_wraps(struct dc_obj *o, const struct dc_wrap_libs *libs)
{
	return global_set(o->obj, ".bss", "dc_wraps", libs, sizeof(*libs));
}

int dc_obj_set_sys_want(struct dc_obj *o, const __u64 *bits)
{
	return global_set(o->obj, ".bss", "dc_sys_want", bits,
			  DC_SYSNR_MAX / 8);
}

int dc_obj_set_libs_at_exit(struct dc_obj *o, bool on)
{
	return global_set(o->obj, ".bss", "dc_libs_at_exit", &on, sizeof(on));
}

int dc_obj_set_layouts(struct dc_obj *o, const struct dc_layouts *lay)
{
	return global_set(o->obj, ".bss", "dc_layouts", lay, sizeof(*lay));
}

int dc_obj_map_closes(struct dc_obj *o)
{
	void *m = mmap(NULL, DC_CLOSE_SLOTS * sizeof(__u64), PROT_READ,
		       MAP_SHARED, bpf_map__fd(o->maps.close_ts), 0);

	if (m == MAP_FAILED)
		return -errno;
	o->closes = m;
	return 0;
}

void dc_obj_close(struct dc_obj *o)
{
	if (o->closes)
		munmap((void *)o->closes, DC_CLOSE_SLOTS * sizeof(__u64));
	bpf_object__close(o->obj);
	memset(o, 0, sizeof(*o));
}
