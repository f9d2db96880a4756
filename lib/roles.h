/* SPDX-License-Identifier: MIT */
#ifndef DC_ROLES_H
#define DC_ROLES_H

#include <stdbool.h>
#include <stddef.h>

/* Names of argument roles, return roles and mechanisms as specs spell them;
 * lookups return -1 for an unknown name. */
const char *dc_role_name(int role);
int dc_role_parse(const char *name);
const char *dc_ret_name(int ret);
int dc_ret_parse(const char *name);
const char *dc_effect_name(int effect);
int dc_effect_parse(const char *name);
const char *dc_mech_name(int mech);
int dc_mech_parse(const char *name);
const char *dc_loss_name(int reason);
/* Whether events counted under @reason were lost (end.dropped, --strict):
 * not calls left out on purpose, nor returns of calls begun before
 * tracing could see them. */
bool dc_loss_is_lost(int reason);
/* The roles a spec may give, as "_, fd, path, ...", into @buf: 0, or
 * -ENOSPC. */
int dc_role_list(char *buf, size_t size);
int dc_ret_list(char *buf, size_t size);
int dc_effect_list(char *buf, size_t size);
int dc_mech_list(char *buf, size_t size);
/* The quantity roles, as "count, items@LAST..." with @last before the
 * final one (", " or " and "): 0, or -ENOSPC. */
int dc_quantity_list(const char *last, char *buf, size_t size);
/* Mechanisms whose probes are numbers (a syscall's, an io_uring opcode, an
 * AIO command) looked up in a table, not places attached one by one. */
bool dc_mech_numbered(int mech);
/* Roles whose value is a C int, sign-extended from the low 32 bits. */
bool dc_role_is_int(int role);
/* Roles that are quantities: factors of a feeder's bytes, and the ones
 * whose value may be read from memory (ROLE@N). */
bool dc_role_is_quantity(int role);
/* Roles whose argument points to user memory the programs read: not for
 * kernel functions. */
bool dc_role_reads_user(int role);
/* Roles whose string travels in the event's path buffer: one a probe. */
bool dc_role_is_path(int role);
/* Roles a feeder passes, as a pointer, to the call it feeds, which reads
 * through it (ROLE@A@B) when it returns. */
bool dc_role_is_late(int role);
/* Roles a feeder reads through pointers (ROLE@A@B) as it enters and
 * gives the call it feeds. */
bool dc_role_is_given(int role);

#endif
