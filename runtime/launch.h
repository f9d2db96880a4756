/* SPDX-License-Identifier: MIT */
#ifndef DC_LAUNCH_H
#define DC_LAUNCH_H

#include <sys/types.h>

/* Fork @argv stopped before exec; returns its pid or -errno. */
pid_t dc_launch_stopped(char *const argv[]);
/* Let a child from dc_launch_stopped() exec. Returns 0 or -errno. */
int dc_launch_release(pid_t pid);
/* Exit status of a finished child in the shell's convention. */
int dc_exit_code(int wstatus);

#endif
