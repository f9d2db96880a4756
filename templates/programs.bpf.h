/* SPDX-License-Identifier: MIT */
/*
 * Every program of the generated object, a header per mechanism.
 * Included after the generated tables dc_caps[] (per probe: which
 * arguments to capture) and the syscall, io_uring and AIO maps from an
 * operation to its probe.
 */
#ifndef DATACRUMBS_PROGRAMS_BPF_H
#define DATACRUMBS_PROGRAMS_BPF_H

#include "syswrap.bpf.h"
#include "uring.bpf.h"
#include "libaio.bpf.h"
#include "posixaio.bpf.h"
#include "uprobe.bpf.h"
#include "syscall.bpf.h"
#include "tracepoint.bpf.h"
#include "usdt.bpf.h"
#include "lifecycle.bpf.h"
#include "libmap.bpf.h"

#endif /* DATACRUMBS_PROGRAMS_BPF_H */
