/* SPDX-License-Identifier: MIT */
#ifndef DC_SYSCALLS_H
#define DC_SYSCALLS_H

/* The directory holding tracepoint events ("/sys/kernel/tracing/events"),
 * or NULL when no tracefs is mounted. */
const char *dc_tracefs_events(void);
/*
 * The x86_64 number of syscall @name, or -1. Names as the kernel's
 * tracepoints spell them are accepted too: "newfstat" is fstat,
 * "sendfile64" is sendfile.
 */
int dc_syscall_nr(const char *name);

#endif
