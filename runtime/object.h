/* SPDX-License-Identifier: MIT */
#ifndef DC_OBJECT_H
#define DC_OBJECT_H

#include <bpf/libbpf.h>
#include <stddef.h>

#include <datacrumbs/abi.h>

/* The programs that follow Linux AIO requests, in the order they attach:
 * completions before submissions, so no request is missed half-way. */
#define DC_AIO_PROGS 5

/*
 * A generated object reached through one typed handle, as a bpftool
 * skeleton gives: its programs, maps and tables by what they are for.
 * object.c is the only code that knows their names; every generated
 * object has all of them (templates/programs.bpf.h), so a missing one
 * means the object was not made by this datacrumbs-gen.
 */
struct dc_obj {
	struct bpf_object *obj;
	struct dc_obj_progs {
		struct bpf_program *sys_enter, *sys_exit;
		struct bpf_program *uprobe_entry, *uprobe_exit, *uprobe_session;
		struct bpf_program *kprobe_entry, *kprobe_exit;
		struct bpf_program *tracepoint, *usdt;
		struct bpf_program *uring_submit, *uring_complete,
		    *uring_complete_res;
		struct bpf_program *aio[DC_AIO_PROGS];
		struct bpf_program *paio, *paio_exit; /* POSIX AIO, in libc */
		struct bpf_program *paio_sweep; /* ... and its unreturned */
		struct bpf_program *fork, *exec, *exit_task, *cgroup_attach;
		struct bpf_program *client_join, *set_traced, *agg_iter;
		/* Libraries mapped later: an mmap's return and entry. */
		struct bpf_program *lib_mapped, *lib_mapping;
		/* The same for kernels without bpf_find_vma (Linux 5.17)
		 * and global functions taking pointers (5.12): the loader
		 * swaps them in above and loads only the ones there. */
		struct bpf_program *sys_enter_compat, *sys_exit_compat,
		    *uprobe_entry_compat, *uprobe_exit_compat,
		    *kprobe_exit_compat;
	} progs;
	struct dc_obj_maps {
		struct bpf_map *events; /* the ring buffer */
		struct bpf_map *pids,
		    *traced_bits;	       /* who is traced, in which job */
		struct bpf_map *cgroups;       /* followed cgroups */
		struct bpf_map *limits, *lost; /* what was not traced */
		struct bpf_map *agg[2], *epoch, *inflight, *fdgen, *fdpat,
		    *hdl;			    /* profile */
		struct bpf_map *tpcfg, *tp_pending; /* tracepoints */
		struct bpf_map *uring_pending, *aio_pending, *aio_reaping;
		struct bpf_map *paio_pending;
		struct bpf_map *wrap_sites, *wrap_byoff; /* syscall wrappers */
		struct bpf_map *threads, *threads_tid,
		    *thread_zero; /* per-thread state, one of two ways */
		struct bpf_map *uprobe_ids, *uprobe_ips; /* no cookies */
		struct bpf_map *kprobe_ids; /* nor kprobe.multi links */
		struct bpf_map *libs;	    /* files checked for libraries */
		struct bpf_map *usdt_procs; /* USDT by process (no cookies) */
		struct bpf_map *close_ts;   /* descriptors freed, and when */
	} maps;
	/* dc_close_ts as the runtime reads it, once loaded; or NULL. */
	const volatile __u64 *closes;
	/* .rodata tables, written before load: what the programs see. */
	struct dc_config *cfg;
	struct dc_capture *caps; /* by probe id */
	size_t ncaps;
	__u32 *sysnr; /* syscall number, io_uring opcode, AIO command -> */
	size_t nsysnr;
	__u32 *uring_ops; /* ... probe id + 1, or 0 */
	size_t nuring_ops;
	__u32 *aio_ops;
	size_t naio_ops;
	__u32 *paio_ops;
	size_t npaio_ops;
};

/* Open @path and find every part of it: 0, or -errno after one line
 * naming the file and what it lacks. */
int dc_obj_open(struct dc_obj *o, const char *path);
/* Loaded objects only: the epoch profile mode's iterator drains. */
int dc_obj_set_drain_epoch(struct dc_obj *o, __u32 epoch);
/* Loaded objects only: the libraries whose syscall wrappers are traced. */
int dc_obj_set_wraps(struct dc_obj *o, const struct dc_wrap_libs *libs);
/* The syscalls the sys_enter and sys_exit programs act on, a bit each
 * (DC_SYSNR_MAX of them): the others leave at once. */
int dc_obj_set_sys_want(struct dc_obj *o, const __u64 *bits);
int dc_obj_set_libs_at_exit(struct dc_obj *o, bool on);
/* Each copy's offsets of the fields probes read by name. */
int dc_obj_set_layouts(struct dc_obj *o, const struct dc_layouts *lay);
/* Loaded objects only: map dc_close_ts for reading, as o->closes. */
int dc_obj_map_closes(struct dc_obj *o);
void dc_obj_close(struct dc_obj *o);

#endif
