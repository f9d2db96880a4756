/* SPDX-License-Identifier: MIT */
#ifndef DC_PRIVS_H
#define DC_PRIVS_H

#include <stdbool.h>
#include <stdint.h>

#include <datacrumbs/abi.h>

struct dc_proc;

/* A process's rights beyond its real and effective ids (struct dc_proc),
 * and whether they exceed a trace owner's. */
struct dc_privs {
	uint32_t suid, sgid, fsuid, fsgid;
	bool secure;	  /* its image was exec'd with AT_SECURE */
	bool caps;	  /* it holds capabilities, permitted or effective */
	uint32_t ngroups; /* supplementary groups: the first DC_PROC_GROUPS */
	uint32_t groups[DC_PROC_GROUPS];
	/* dc_privs_gained()'s answer, for owner checked_for, until the
	 * rights change (cleared then). */
	bool checked, gained;
	uint32_t checked_for;
};

/* @p's rights, from its fork, exec or join record. */
void dc_privs_record(struct dc_proc *p, const struct dc_proc_event *pe);
/* ... or from /proc, for a process first met running (-p, --track, a
 * cgroup's): sets p->owner_known when they could be read. */
void dc_privs_read(struct dc_proc *p);
/*
 * Whether @p may do what @owner (a uid) may not: its image was exec'd
 * with AT_SECURE (the kernel's word: setuid or setgid bits, file
 * capabilities, an LSM transition), it holds capabilities (outside a
 * user namespace of its own), one of its
 * uids is not @owner, or one of its gids or supplementary groups is not
 * one of @owner's (from the group database; a uid without a name has
 * its own number as its only group). Rights unknown count as gained.
 * Root (@owner 0) may do everything.
 */
bool dc_privs_gained(struct dc_proc *p, uint32_t owner);

#endif
