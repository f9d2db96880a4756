/* SPDX-License-Identifier: MIT */
#ifndef DC_SYSENV_H
#define DC_SYSENV_H

/*
 * Check what loading and attaching needs: privileges, kernel BTF, tracefs
 * (mounted here when running as root). Prints what is missing and how to
 * fix it. Returns 0 or -errno.
 */
int dc_sysenv_check(void);

/* Raise the open-files soft limit to the hard one (often 1,024 against
 * a million), for runs that hold a descriptor per job or per probe; a
 * refusal is said, not fatal. */
void dc_raise_nofile(void);

#endif
