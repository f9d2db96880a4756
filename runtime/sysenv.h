/* SPDX-License-Identifier: MIT */
#ifndef DC_SYSENV_H
#define DC_SYSENV_H

/*
 * Check what loading and attaching needs: privileges, kernel BTF, tracefs
 * (mounted here when running as root). Prints what is missing and how to
 * fix it. Returns 0 or -errno.
 */
int dc_sysenv_check(void);

/* Raise the open-files limit for runs that hold a descriptor per job or
 * per probe: with the privilege to, soft and hard to the kernel's
 * ceiling (fs.nr_open), else the soft one to the hard one; a refusal is
 * said, not fatal. */
void dc_raise_nofile(void);
/* In a command's child before exec: the limit the runtime started with,
 * so that tracing does not change what the command sees. */
void dc_restore_nofile(void);

#endif
