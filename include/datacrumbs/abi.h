/* SPDX-License-Identifier: MIT */
/*
 * The ABI shared by the generated BPF programs and user space: event records
 * sent through the ring buffer, the loss counters, the run-time configuration
 * and the probe table a generated object carries in its ".dc_probes" section.
 * Nothing else crosses the kernel/user boundary.
 */
#ifndef DATACRUMBS_ABI_H
#define DATACRUMBS_ABI_H

#include <linux/types.h>

#define DC_ABI_VERSION	     27 /* bumped when maps, records or table change */
#define DC_PROBE_TABLE_MAGIC 0x44435054u /* "DCPT" */
#define DC_PROBE_SECTION     ".dc_probes"

#define DC_CAPTURE   4	  /* argument slots captured per call */
#define DC_MAX_ARGS  6	  /* argument positions a spec may name */
#define DC_HOPS	     4	  /* pointers a slot may be read through (ROLE@A@B) */
#define DC_MAX_DEPTH 32	  /* nesting depth of traced calls per thread */
#define DC_PATH_MAX  4096 /* longest path copied from user memory */

#define DC_SYSNR_MAX 512 /* syscall numbers below this can be traced */

/*
 * dc_close_ts: when a traced process last closed a descriptor, by slot
 * dc_close_slot(tgid, fd), fd -1 for close_range. The runtime names a
 * descriptor it never saw made from /proc only if no close since the
 * call can have freed its number: slots shared by two (process,
 * descriptor) pairs only make it more careful.
 */
#define DC_CLOSE_SLOTS 16384

static inline __u32 dc_close_slot(__u32 tgid, __s32 fd)
{
	return (tgid * 0x9e3779b1u ^ (__u32)fd * 0x85ebca77u) >> 18;
}

#define DC_FIELD_MAX 24 /* a tracepoint field name */
/* A uprobe's field path, TYPE.member..., found in the library's DWARF */
#define DC_FIELD_PATH_MAX 96
#define DC_TP_KEYS	  2 /* fields matching a begin event to its end */
#define DC_NAME_MAX	  64
/* A function's symbol or name: C++ mangled names run to hundreds of
 * characters (libLLVM's longest: 537). */
#define DC_SYMBOL_MAX 4096
#define DC_LAYER_MAX  16
#define DC_TARGET_MAX 256
#define DC_BUILDS_MAX 1024 /* a group's "builds", as the table holds it */

/* A uprobe's cookie: its probe id in the low bits; for a probe reading
 * fields by name (DC_PROBE_FIELDS), the index into dc_layouts of their
 * offsets in this copy of the library; and DC_COOKIE_UNFED on a call
 * whose feeders are not attached on this copy (a build whose structure
 * offsets are unknown): its fed slot then starts as DC_SIZE_UNKNOWN
 * instead of 0, and no feeder adds to it. */
#define DC_COOKIE_PROBE	       0xffffffu
#define DC_COOKIE_LAYOUT_SHIFT 24
#define DC_COOKIE_UNFED	       (1u << 31)
#define DC_SIZE_UNKNOWN	       (~0ULL) /* a fed slot's bytes cannot be told */

/* In .bss, set by the runtime after load: the offsets, in one copy of a
 * library, of each slot's fields (what DWARF said), one a hop (the
 * slot's deref_hops); entry 0 unused. */
#define DC_LAYOUTS 64
struct dc_layouts {
	__u16 off[DC_LAYOUTS][DC_CAPTURE][DC_HOPS];
};

/* How a probe is attached. */
enum dc_mech {
	DC_MECH_SYSCALL = 1, /* raw sys_enter / sys_exit, by syscall number */
	DC_MECH_UPROBE = 2,  /* uprobe.multi + uretprobe.multi on a library */
	DC_MECH_TRACEPOINT = 3, /* a kernel tracepoint, or a begin/end pair */
	DC_MECH_KFUNC = 4,	/* kprobe.multi + kretprobe.multi */
	DC_MECH_USDT = 5,	/* a USDT probe (an instant) */
	DC_MECH_IO_URING = 6,	/* io_uring requests, submission to completion,
				   by opcode */
	DC_MECH_LIBAIO = 7,	/* Linux AIO requests (io_submit), submission to
				   reaping (io_getevents), by command */
	DC_MECH_POSIXAIO = 8,	/* POSIX AIO requests (glibc's aio_write),
				   submission to aio_return, by command */
	DC_MECH_MAX = DC_MECH_POSIXAIO,
};

#define DC_URING_OPS  64 /* io_uring opcodes a table covers */
#define DC_LIBAIO_OPS 16 /* Linux AIO commands a table covers */

/* POSIX AIO requests by command; read and write are <aio.h>'s LIO_READ
 * and LIO_WRITE, as lio_listio's aio_lio_opcode gives them. */
enum dc_paio_op {
	DC_PAIO_READ = 0,
	DC_PAIO_WRITE = 1,
	DC_PAIO_FSYNC = 2,  /* aio_fsync(O_SYNC) */
	DC_PAIO_FDSYNC = 3, /* aio_fsync(O_DSYNC) */
	DC_PAIO_OPS = 4,    /* a table's size */
};

/* The C library's functions a POSIX AIO program is attached to, as its
 * cookie says. */
enum dc_paio_at {
	DC_PAIO_AT_READ = 0, /* aio_read(aiocb) */
	DC_PAIO_AT_WRITE,    /* aio_write(aiocb) */
	DC_PAIO_AT_FSYNC,    /* aio_fsync(op, aiocb) */
	DC_PAIO_AT_LISTIO,   /* lio_listio(mode, list, n, sevp) */
	DC_PAIO_AT_RETURN,   /* aio_return(aiocb) */
	DC_PAIO_AT_NR,
};

/* glibc's struct aiocb on x86-64, as far as it is read (checked against
 * <aio.h> by generator/aioops.c). __return_value is what aio_return
 * returns; __error_code is EINPROGRESS until the request is done. */
#define DC_AIOCB_FILDES	    0
#define DC_AIOCB_LIO_OPCODE 4
#define DC_AIOCB_NBYTES	    24
#define DC_AIOCB_ERROR	    112
#define DC_AIOCB_RETURN	    120
#define DC_AIOCB_OFFSET	    128
#define DC_AIOCB_SIZE	    136 /* up to the end of aio_offset */

/* What an argument slot holds. */
enum dc_role {
	DC_ROLE_NONE = 0,
	DC_ROLE_FD,	/* file descriptor the call works on */
	DC_ROLE_PATH,	/* const char * file name */
	DC_ROLE_COUNT,	/* bytes requested */
	DC_ROLE_OFFSET, /* file offset */
	DC_ROLE_FLAGS,
	DC_ROLE_MODE,
	DC_ROLE_WHENCE,
	DC_ROLE_NEWFD,	    /* second descriptor: dup2/dup3 target */
	DC_ROLE_DIRFD,	    /* directory descriptor of a *at() call */
	DC_ROLE_STREAM,	    /* FILE * */
	DC_ROLE_HANDLE,	    /* library handle: hid_t, MPI_File */
	DC_ROLE_BUF,	    /* data buffer address */
	DC_ROLE_HANDLE_OUT, /* where the call stores a new handle */
	DC_ROLE_HANDLE_REF, /* pointer to a handle the call takes */
	DC_ROLE_ITEMS,	    /* element count (MPI count, fgets n) */
	DC_ROLE_ITEMSIZE,   /* bytes per item (fread size): size = it * ret */
	DC_ROLE_DATATYPE,   /* an MPI_Datatype: captured as its size */
	DC_ROLE_STR,	    /* a string the call takes (fputs): its length */
	DC_ROLE_STR_OUT,    /* a buffer it fills with one (fgets): its length
			       at return */
	DC_ROLE_ELEMENTS,   /* a 64-bit element count (hsize_t) */
	DC_ROLE_NAME,	    /* const char * name of an object in the file of
			       the call's handle (an HDF5 dataset or group),
			       relative to that handle's object */
	DC_ROLE_FED,	    /* bytes the call moved, added by the inner
			       functions that feed it; given by the
			       generator, never by a spec */
	DC_ROLE_FUNC,	    /* const char * naming the call (a Python
			       function): the event's name */
	DC_ROLE_SRCFILE,    /* const char * source file of that function */
	DC_ROLE_LINE,	    /* a source line number, a C int */
	DC_ROLE_SELECTION,  /* the kind of an HDF5 dataspace selection, read
			       through a pointer when the fed call returns */
	DC_ROLE_REGULAR,    /* whether HDF5 found that hyperslab selection
			       regular, read likewise */
	DC_ROLE_NDIMS,	    /* a dataspace's rank, read through pointers as
			       a feeder enters and given to the fed call */
	DC_ROLE_NPOINTS,    /* its elements, read likewise */
	DC_ROLE_TYPESIZE,   /* a datatype's size, read likewise */
	DC_ROLE_NR,
};

/* What the return value means. */
enum dc_ret {
	DC_RET_STATUS = 0, /* 0 or -1 / -errno */
	DC_RET_FD,	   /* a new file descriptor */
	DC_RET_SIZE,	   /* bytes moved */
	DC_RET_OFFSET,	   /* resulting file offset */
	DC_RET_ADDR,	   /* an address (mmap) */
	DC_RET_STREAM,	   /* a FILE * */
	DC_RET_HANDLE,	   /* a library handle (hid_t) */
	DC_RET_ITEMS,	   /* items moved; bytes with an itemsize argument */
	DC_RET_ISIZE,	   /* bytes moved, as a C int (fprintf) */
	DC_RET_CHAR,	   /* a character moved (fgetc), or EOF: 1 byte */
	DC_RET_NR,
};

/* What a successful call does to what its arguments refer to, beyond
 * what its return says (a new fd, stream or handle). */
enum dc_effect {
	DC_EFFECT_NONE = 0,
	DC_EFFECT_CLOSE, /* ends its fd (to newfd: a range), stream or handle */
	DC_EFFECT_DUP, /* returns a copy of fd if flags is F_DUPFD(_CLOEXEC) */
	DC_EFFECT_NR,
};

/* Why an event was lost; counted per probe. */
enum dc_loss {
	DC_LOSS_RINGBUF = 0, /* ring buffer full */
	DC_LOSS_STATE,	     /* per-thread state could not be allocated */
	DC_LOSS_DEPTH,	     /* nesting deeper than DC_MAX_DEPTH */
	DC_LOSS_NORETURN,    /* entry seen, its return never came */
	DC_LOSS_AGG_FULL,    /* profile mode: aggregation map full */
	DC_LOSS_NOENTRY,     /* the end of a USDT pair matched no open call */
	DC_SKIP_SHORT,	     /* not a loss: shorter than --min-duration */
	DC_END_EXEC,	     /* not a loss: open when its thread exec'd */
	DC_LOSS_NR,
};

/* Limits hit outside any probe, counted in the dc_limits array. */
enum dc_limit {
	DC_LIMIT_PROCS = 0, /* processes left untraced: --max-procs */
	DC_LIMIT_VMA,	    /* syscalls not matched to their wrapper: the
			       process's memory map was busy */
	DC_LIMIT_LIBS,	    /* executable mappings of traced processes not
			       checked for a spec's library: the memory
			       map was busy, or the ring buffer full */
	DC_LIMIT_NR,
};

enum dc_kind {
	DC_EV_CALL = 1, /* struct dc_event */
	DC_EV_FORK,	/* struct dc_proc_event: pid forked ppid's child */
	DC_EV_EXEC,	/* struct dc_proc_event: pid exec'd, comm is new */
	DC_EV_EXIT,	/* struct dc_proc_event: thread tid of pid exited */
	DC_EV_JOIN,	/* struct dc_proc_event: pid joined (client library) */
	DC_EV_CHDIR,	/* struct dc_cwd_event: pid changed directory */
	DC_EV_LIB,	/* struct dc_lib_event: pid mapped a file to run */
};

/* dc_event.flags: made by a C library's POSIX AIO helper thread, doing
 * a request's I/O; in profile mode, inside a call Darshan sees (fopen's
 * open), as struct dc_agg_key's inner. */
#define DC_CALL_AIO_HELPER 1
#define DC_CALL_INNER	   2

/* One traced call, sent at its return. */

struct dc_event {
	__u16 kind;
	__u16 level; /* 1 = outermost traced call on the thread */
	__u32 probe; /* index into the probe table */
	__u32 pid;   /* tgid */
	__u32 tid;
	__u64 ts;	  /* entry, CLOCK_MONOTONIC ns */
	__u64 dur;	  /* ns */
	__u64 seq;	  /* per-thread entry sequence number, from 1 */
	__u64 parent_seq; /* seq of the enclosing traced call, 0 if none */
	__s64 ret;
	__u64 val[DC_CAPTURE]; /* captured slots, roles in the probe table */
	__u16 path_len;	       /* bytes of path that follow, NUL included, or of
				  the text_mask strings, each NUL-terminated;
				  0: none */
	__u16 flags;	       /* DC_CALL_* */
	__s32 sfd;	       /* descriptor behind the call's FILE *, or -1 */
	__u32 gen; /* profile mode: the generation given to a new fd or
		      handle */
	__u32 job; /* the job (server mode: trace file) of the process */
};

/* dc_proc_event.flags. SECURE: an exec the kernel gave AT_SECURE (setuid
 * or setgid bits, file capabilities, an LSM transition), or a join by
 * an image exec'd so. CAPS: it holds
 * capabilities, permitted or effective, in the initial user namespace. */
#define DC_PROC_SECURE 1
#define DC_PROC_CAPS   2
#define DC_PROC_GROUPS 32

struct dc_proc_event {
	__u16 kind;
	__u16 pad;
	__u32 pid;
	__u32 tid;
	__u32 ppid;
	__u64 ts;
	char comm[16];
	__u32 uid; /* whom the process runs as: its traces are theirs */
	__u32 gid;
	__u32 euid; /* with whose rights: a setuid program's owner */
	__u32 egid;
	/* Fork, exec and join only: the rest of its rights, for the runtime
	 * to tell whether it has more than its trace's owner. */
	__u32 suid; /* saved */
	__u32 sgid;
	__u32 fsuid;
	__u32 fsgid;
	__u32 flags;		      /* DC_PROC_* */
	__u32 ngroups;		      /* supplementary groups, the first ... */
	__u32 groups[DC_PROC_GROUPS]; /* ... DC_PROC_GROUPS of them here */
};

/* A traced process's chdir() or fchdir() that succeeded, whatever the
 * probes: relative paths are named against the directory it is in. */
struct dc_cwd_event {
	__u16 kind;
	__u16 path_len; /* bytes of path, NUL included; 0: an fchdir */
	__u32 pid;
	__s32 fd; /* fchdir's, or -1 */
	__u32 pad;
	__u64 ts;
	char path[DC_PATH_MAX]; /* chdir's, as given; path_len of it sent */
};

/* A traced process mapped a regular file executable (a library being
 * loaded) whose inode is not in dc_libs: it is stopped (SIGSTOP) until
 * the runtime has checked the file and continues it. */
struct dc_lib_event {
	__u16 kind;
	__u16 pad;
	__u32 pid;
	__u64 start, end; /* the mapping as mmap made it */
	__u64 ino;
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u32 pad2;
};

/* A file as the BPF side names it: its inode. dc_libs' key (a file the
 * runtime has checked for a spec's library) and dc_wraps' entries. */
struct dc_file_id {
	__u64 ino;
	__u32 dev; /* the kernel's encoding: major << 20 | minor */
	__u32 pad;
};

/* dc_file_id's dev from a device's major and minor numbers. */
static inline __u32 dc_kdev(__u32 major, __u32 minor)
{
	return major << 20 | minor;
}

/* dc_usdt_procs' key: the file name (past its last '/', cut to 31
 * bytes) of an executable whose USDT probes attach to each process that
 * runs it. By name, not inode: a stacking filesystem (overlayfs) shows
 * user space another inode number than the one the exec opens. */
struct dc_usdt_exe {
	char name[32];
};

/* How the programs capture one probe's arguments; an array of these,
 * indexed by probe id, is generated into the object's .rodata. */
struct dc_capture {
	__u8 nslots;
	__u8 slot_arg[DC_CAPTURE]; /* argument position of each slot */
	__u8 int_mask;		   /* slots holding a C int: sign-extend */
	__u8 deref_entry_mask; /* slots holding a pointer to read at entry */
	__u8 deref_exit_mask;  /* ... and at return (out parameters) */
	__s8 path_slot;	       /* slot holding a user path pointer, or -1 */
	__s8 stream_slot;      /* slot holding a FILE *, or -1 */
	__u8 ret_int;	       /* return value is a C int */
	__u8 ret_stream;       /* return value is a FILE * */
	/* Profile mode, set by the runtime before load: */
	__u8 track;	 /* always sent as an event (opens, closes, paths) */
	__s8 obj_slot;	 /* slot naming the file: fd, stream or handle; -1 */
	__u8 obj_kind;	 /* enum dc_obj_kind of obj_slot */
	__s8 gen_slot;	 /* fd given a new file by this call: a slot, */
	__u8 gen_what;	 /* ... or enum dc_gen_what */
	__s8 size_slot;	 /* itemsize slot for items returns, or -1 */
	__u8 size_kind;	 /* enum dc_ret of the return, for bytes moved */
	__u8 dtype_mask; /* slots holding an MPI datatype: its size instead */
	__u8 dtype_kind; /* enum dc_dtype_kind: how to read the size */
	__u8 str_mask;	 /* slots holding a string: its length, at entry */
	__u8 str_exit_mask; /* ... at return (a buffer the call filled) */
	__s8 fed_slot;	    /* slot the functions feeding this one add their
			       bytes to, or -1 */
	__u32 feeds;	    /* probe id + 1 of the call this one feeds its bytes
			       to (no event of its own); 0: none */
	/* Byte offsets of the reads through a pointer (deref_entry_mask,
	 * deref_exit_mask), one a hop: deref_hops of them, or one at 0.
	 * A feeder's slot in deref_exit_mask too is passed on as the
	 * address of its last read, which the fed call makes at return. */
	__u16 deref_off[DC_CAPTURE][DC_HOPS];
	__u8 deref_hops[DC_CAPTURE];
	/* A feeder: slots it passes to the call it feeds, into slot pass_to
	 * (the first feeder's value stays); that call: slots its feeders
	 * fill. */
	__u8 pass_mask;
	__s8 pass_to[DC_CAPTURE];
	__u8 text_mask;	  /* slots holding a string copied into the event at
			     return (func, srcfile), in slot order */
	__u8 opens;	  /* the begin of a USDT pair: pushes a call */
	__u8 pat;	  /* profile mode: enum dc_pat */
	__u8 dmod;	  /* profile mode: enum dc_dmod of its layer */
	__u32 ends;	  /* the end of a USDT pair: probe id + 1 of the call
			     it completes; 0: none */
	__s8 off_slot;	  /* profile mode: the offset a dc_pat call takes */
	__s8 whence_slot; /* ... and its whence (fseek), or -1 */
	/* Slot null_slot - 1 (0: none), where its argument is NULL, reads
	 * argument null_arg through null_hops pointers at null_off in its
	 * place (ROLE@A|N@B: HDF5's H5S_ALL is NULL). */
	__u8 null_slot;
	__u8 null_arg;
	__u8 null_hops;
	__u8 pad;
	__u16 null_off[DC_HOPS];
};

/* Profile mode: what a call does to its fd's or stream's offset, for
 * Darshan's pattern counters (sequential, consecutive, switches, max
 * byte) and access size histograms; on a handle (MPI-IO, H5D), only
 * READ and WRITE, for the histograms and switches. */
enum dc_pat {
	DC_PAT_NONE = 0,
	DC_PAT_READ,   /* moves its bytes from the offset (off_slot's, or
			  the fd's own) */
	DC_PAT_WRITE,  /* ... to it */
	DC_PAT_SEEK,   /* the fd's offset becomes what it returns (lseek) */
	DC_PAT_SSEEK,  /* ... becomes off_slot's if whence is SEEK_SET */
	DC_PAT_REWIND, /* ... becomes 0 */
};

/* In the fd of a dc_fdpat key (pid, fd): a stream's pattern, apart from
 * its fd's. */
#define DC_PAT_STREAM (1 << 30)

/* The Darshan module a layer's calls count in (profile mode): a call
 * inside one of POSIX or STDIO, or of its own module, is one Darshan
 * never sees. */
enum dc_dmod {
	DC_DMOD_NONE = 0,
	DC_DMOD_POSIX,
	DC_DMOD_STDIO,
	DC_DMOD_MPIIO,
	DC_DMOD_HDF5,
};

/* How an MPI library's datatypes give their size. */
enum dc_dtype_kind {
	DC_DTYPE_NONE = 0,
	DC_DTYPE_OMPI,	/* a pointer; the size is a size_t in the object, at
			   dc_config.ompi_size_off */
	DC_DTYPE_MPICH, /* a handle; built-in ones hold their size, others
			   index dc_config.mpich_* */
};

/* How an aggregated call names its file (profile mode). */
enum dc_obj_kind {
	DC_OBJ_NONE = 0,
	DC_OBJ_FD,     /* an fd, with its generation */
	DC_OBJ_STREAM, /* the fd behind a FILE *, with its generation */
	DC_OBJ_HANDLE, /* a library handle */
};

/* Which fd a tracked call gives a new file (its generation is bumped). */
enum dc_gen_what {
	DC_GEN_NONE = 0,
	DC_GEN_RET,	    /* the returned fd (open, dup) */
	DC_GEN_SLOT,	    /* the fd in gen_slot (dup2's newfd) */
	DC_GEN_SFD,	    /* the fd behind the returned stream (fopen) */
	DC_GEN_RET_IF_DUP,  /* the returned fd, if gen_slot holds F_DUPFD */
	DC_GEN_HANDLE_RET,  /* the returned library handle */
	DC_GEN_HANDLE_SLOT, /* the handle in gen_slot (an out parameter) */
};

/* Profile mode: one aggregate per process, thread, probe, file, epoch. */
struct dc_agg_key {
	__u32 pid;
	__u32 tid;
	__u32 probe;
	__u8 kind;  /* enum dc_obj_kind */
	__u8 inner; /* inside a call Darshan sees (fopen's open): Darshan
		       does not see these */
	__u16 hgen; /* the handle's generation: a handle value the library
		       gives again (a freed MPI_File) is another file; 0: it
		       was open before tracing began */
	__u64 obj;  /* fd | generation << 32, or the handle */
};

/*
 * Darshan's access size buckets, for the programs and the report alike:
 * X(a, bound, name) for each, a passed through. A size of n bytes is in
 * the first bucket whose bound is n or more; the last has none (0).
 * Darshan names them SIZE_READ_0_100 ... SIZE_READ_1G_PLUS.
 */
#define DC_DBUCKETS(X, a)                                                      \
	X(a, 100, "0_100")                                                     \
	X(a, 1024, "100_1K")                                                   \
	X(a, 10240, "1K_10K")                                                  \
	X(a, 102400, "10K_100K")                                               \
	X(a, 1048576, "100K_1M")                                               \
	X(a, 4194304, "1M_4M")                                                 \
	X(a, 10485760, "4M_10M")                                               \
	X(a, 104857600, "10M_100M")                                            \
	X(a, 1073741824, "100M_1G")                                            \
	X(a, 0, "1G_PLUS")
#define DC_DBUCKET_BOUND(a, bound, name) bound,
#define DC_HIST_N			 10 /* how many */

struct dc_agg_val {
	__u64 count;
	__u64 dur_sum;
	__u64 dur_min;
	__u64 dur_max;
	__u64 size_sum;
	/* Calls with a dc_pat direction, as Darshan counts them: */
	__s64 max_byte;	       /* highest byte moved, offset + size - 1 */
	__u32 hist[DC_HIST_N]; /* calls by bytes moved, Darshan's buckets */
	__u32 seq;	       /* began past the fd's previous end this way */
	__u32 consec;	       /* ... right after it */
	__u32 switches;	       /* the fd's previous call went the other way */
	__u32 errs;	       /* calls that failed (any probe): Darshan
				  counts none of them */
	__u32 unsized;	       /* calls whose bytes could not be told
				  (DC_SIZE_UNKNOWN): none in size_sum */
	__u32 pad;
};

/*
 * Thin system call wrappers (read, pwrite64, ...) traced with no uprobe:
 * a call is recognised at sys_enter because the user instruction pointer
 * lies just past one of the wrapper's own syscall instructions. The
 * runtime finds those sites in the library's code (lib/sysstub.c).
 */
#define DC_WRAP_LIBS 4 /* libraries holding traced wrappers */

/* In .bss, set by the runtime after load. */
struct dc_wrap_libs {
	__u32 n;
	__u32 pad;
	struct dc_file_id lib[DC_WRAP_LIBS];
};

#define DC_WRAP_CODE  16 /* code bytes that identify a site */
#define DC_WRAP_CANDS 4	 /* functions reaching one syscall instruction */
#define DC_WRAP_CONDS 2	 /* syscall arguments that tell them apart */
#define DC_WRAP_NONE  0xfffffffeu /* dc_wrap_cand.probe: an unused one */
/* cand[0].probe: two sites share a key of dc_wrap_byoff. */
#define DC_WRAP_AMBIGUOUS 0xffffffffu

/* A syscall argument's value that tells one function's calls from the
 * others' at a shared site (glibc's stat passes AT_FDCWD and flags 0
 * into fstatat's syscall, lstat AT_SYMLINK_NOFOLLOW). */
struct dc_wrap_cond {
	__u64 val;
	__u8 arg;    /* syscall argument, 0-5 */
	__u8 narrow; /* compare its low 32 bits only: an int */
	__u8 pad[6];
};

/* A function whose call makes its syscall at a site: the call is its
 * when each of its nconds conditions holds. */
struct dc_wrap_cand {
	__u32 probe;		   /* DC_WRAP_NONE: no more candidates */
	__u8 slot_arg[DC_CAPTURE]; /* system call argument of each slot */
	__u8 nconds;
	/* A function traced by its uprobe that jumps here (glibc's fstat
	 * into fstatat): while its call is the thread's innermost, the
	 * syscall is part of it and no other call begins. */
	__u8 inside;
	__u8 pad[6];
	struct dc_wrap_cond cond[DC_WRAP_CONDS];
};

/* A wrapper's syscall instruction. Keyed in dc_wrap_sites by library
 * index << 32 | file offset just past the instruction, and in
 * dc_wrap_byoff by syscall number << 12 | that offset's page offset,
 * which needs no mapping to be resolved: there the code bytes before
 * the user instruction pointer confirm the match. The first candidate
 * whose conditions hold is the call's: inside ones first, then the most
 * specific. */
struct dc_wrap_site {
	struct dc_wrap_cand cand[DC_WRAP_CANDS];
	__u8 code[DC_WRAP_CODE]; /* the bytes ending at the site */
};

/* Profile mode: an aggregate a thread keeps in its own state, and the
 * record the dc_agg_iter task iterator gives the runtime for it. */
struct dc_agg_slot {
	struct dc_agg_key k;
	struct dc_agg_val v; /* count 0: a free slot */
};

/* Set by the runtime in .rodata before the object is loaded. */
struct dc_config {
	__u32 trace_all;     /* trace every process, not only dc_pids */
	__u32 self_pid;	     /* the runtime itself, never traced */
	__u32 fileno_off;    /* offsetof(FILE, _fileno) in the C library */
	__u32 profile;	     /* aggregate untracked calls instead of sending */
	__u32 cgroups;	     /* also trace tasks in the cgroups of dc_cgroups */
	__u64 min_dur_ns;    /* drop calls shorter than this (counted) */
	__u32 wrap_by_code;  /* tests: match wrapper sites by their code
				only, as when a mapping cannot be resolved */
	__u32 ompi_size_off; /* offset of an OpenMPI datatype's size, 0:
				unknown (found by the runtime) */
	/* MPICH's datatype objects, found by the runtime in libmpich: file
	 * offsets (where the library's code maps them), 0: unknown. */
	__u32 mpich_objsize;  /* bytes of one object */
	__u32 mpich_ndirect;  /* objects preallocated in the library */
	__u64 mpich_direct;   /* ... where they are */
	__u64 mpich_indirect; /* the pointer to the blocks allocated later */
	__u64 ring_size;      /* bytes of dc_events */
	__u32 fallbacks;      /* DC_FB_*: what the kernel lacks, as probed */
	__u32 pad;
};

/*
 * dc_config.fallbacks: features the running kernel lacks (or that the
 * user asked to treat as absent), each replaced by other means. Read-only
 * data, so the verifier knows each bit and drops the branch not taken.
 */
#define DC_FB_THREADS	   (1u << 0) /* no task storage (5.11): by tid */
#define DC_FB_SYSCALL_PROG (1u << 1) /* no syscall programs (5.14) */
#define DC_FB_COOKIES	   (1u << 2) /* no BPF cookies (5.15): by place */
#define DC_FB_FIND_VMA	   (1u << 3) /* no bpf_find_vma (5.17) */
#define DC_FB_KPROBE_MULTI (1u << 4) /* no kprobe.multi links: perf events */
#define DC_FB_PREALLOC	   (1u << 5) /* no BPF allocator (6.1): preallocate */

/* Kernels without BPF cookies: a uprobe's probe id is found by the place
 * it fired, the build id of its file and the offset in it (dc_uprobe_ids,
 * filled by the runtime as it attaches). */
struct dc_uprobe_key {
	__u8 build_id[20]; /* zero padded */
	__u32 pad;
	__u64 offset;
};

/* A uprobe's BPF cookie: the probe id, and in its upper half how the
 * uprobe serves the call. A function whose entry probe is past a frame's
 * set-up (the stack pointer moved: no uretprobe can be set there) is seen
 * returning by a plain uprobe at a site every return passes. */
#define DC_UCOOKIE_NORET (1ull << 32) /* an entry with such a site */
#define DC_UCOOKIE_RET	 (1ull << 33) /* that site: the call returns */
/* From this bit on: 3 bits, a + 1 for the argument a that is read from
 * another argument register (an instruction before the probe copied it
 * there, as getline's mov %rdx,%rcx), 0 for none; then 3 bits, that
 * register. */
#define DC_UCOOKIE_MOVED 40

/* Cgroups a server follows at most (dc_cgroups' size). */
#define DC_CGROUPS_MAX 1024

/* Jobs of followed cgroups are numbered from here, apart from pids. */
#define DC_CGROUP_JOBS 0x80000000u

/* dc_cgroups' value: a followed cgroup's job, and whom it was followed
 * for; a task that moves in is traced only if it runs as them (any
 * task when it is root). */
struct dc_cgroup_follow {
	__u32 job;
	__u32 uid;
};

/* The context of the dc_set_traced program, which the runtime runs to
 * start or stop tracing a process: the BPF side updates the same words
 * of its bitmap atomically at fork and exit. */
struct dc_mark_args {
	__u32 tgid;
	__u32 job;    /* 0: stop tracing it */
	__s32 ret;    /* out: 0, or -1 when --max-procs are traced already */
	__u32 if_new; /* leave a process traced already in its job */
};

/* One entry of the probe table, fixed size so the section needs no
 * relocations. Strings are offsets into the pool that follows the entries;
 * each is NUL-terminated, and offset 0 is the empty string. */
struct dc_probe_desc {
	__u32 id;
	__u8 mech;	/* enum dc_mech */
	__u8 ret;	/* enum dc_ret */
	__u8 nslots;	/* captured slots used */
	__s8 size_slot; /* slot holding the bytes moved, or -1 */
	__s32 nr;	/* syscall number, io_uring opcode, AIO command */
	__u8 slot_role[DC_CAPTURE]; /* enum dc_role of each slot */
	__u8 slot_arg[DC_CAPTURE];  /* argument position of each slot */
	__u8 effect;		    /* enum dc_effect */
	__u8 flags;		    /* DC_PROBE_* */
	__u8 place;		    /* DC_PLACE_*: see build */
	__u8 moved;
	__u32 name;   /* as the user knows it */
	__u32 symbol; /* what is attached: syscall or ELF symbol */
	__u32 layer;  /* becomes "cat" */
	__u32 target; /* library as the spec named it */
	__u32 path;   /* library as the generator resolved it */
	__u32 builds; /* other builds of it laid out as that one: GNU
			 build-ids in hex, comma-separated, or "" */
	/* DC_MECH_TRACEPOINT: target is "group/event"; end, if set, the event
	 * that completes it, matched on the key fields; alt, events that
	 * stand in for target on kernels without it, comma-separated, tried
	 * in order. */
	__u32 end;
	__u32 alt;
	__u32 field[DC_CAPTURE]; /* captured field of each slot */
	__u32 key[DC_TP_KEYS];
	/* DC_MECH_UPROBE: where the generator placed it (lib/placement.c)
	 * on path, whose GNU build-id (in hex, zero padded, or "") is
	 * build: the runtime takes it on a copy of that build instead of
	 * decoding the function again. With DC_PLACE_KNOWN and neither
	 * DC_PLACE_SYS nor DC_PLACE_TAIL, skip, ret_at and moved are
	 * struct dc_probe_point's. */
	__u32 build;
	__u32 skip;
	__u32 ret_at;
};

/* struct dc_probe_desc's place. */
#define DC_PLACE_KNOWN 1 /* placed: path has the function, x86-64 code */
#define DC_PLACE_SYS   2 /* traced at sys_enter, by its syscall sites */
#define DC_PLACE_TAIL  4 /* a uprobe, jumping into a syscall made there */
#define DC_PLACE_SLOW  8 /* its probe point is single-stepped */

/* struct dc_probe_desc's flags. */
#define DC_PROBE_OPTIONAL 1 /* a function some builds of the target lack */
/* It reads quantities at fields named TYPE.member (field[] of each such
 * slot): attached only on copies whose DWARF places them all. */
#define DC_PROBE_FIELDS 2
/* It reads a value through a pointer at byte offsets (ROLE@N...): never
 * recognised at its system call, where only the arguments are read. */
#define DC_PROBE_READS 4

/* Where a tracepoint's fields are in its record, filled by the runtime
 * from tracefs for each probe and side (index probe * 2 + side). */
enum dc_tp_kind {
	DC_TP_INSTANT = 1, /* one event, no duration */
	DC_TP_BEGIN,	   /* remember the fields under the key */
	DC_TP_END,	   /* emit begin..end as one call */
};

struct dc_tp_field {
	__u16 off;
	__u8 size; /* 1, 2, 4 or 8 */
	__u8 sign;
};

struct dc_tp_cfg {
	__u8 kind;
	__u8 nfields;
	__u8 nkeys;
	__u8 pad;
	struct dc_tp_field field[DC_CAPTURE];
	struct dc_tp_field key[DC_TP_KEYS];
};

struct dc_probe_table {
	__u32 magic;
	__u16 abi_version;
	__u16 desc_size;
	__u32 count;
	__u32 strings; /* bytes of the string pool */
	/* followed by count struct dc_probe_desc, then the string pool */
};

#endif /* DATACRUMBS_ABI_H */
