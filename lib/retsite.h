/* SPDX-License-Identifier: MIT */
#ifndef DC_RETSITE_H
#define DC_RETSITE_H

#include <stdint.h>

#include "disasm.h"

/*
 * A return site of the function at file offset @off, @size bytes long,
 * whose entry probe sits @entry bytes in: an instruction the kernel
 * emulates that every path from the entry probe to a return passes
 * once, after which the return value stays in rax up to the ret. A plain
 * uprobe there sees the call return where a uretprobe cannot be set (the
 * entry probe is past a change of the stack pointer, so the return
 * address is no longer at its top). *@at: bytes from the function's
 * start. Returns 0, or -ENOENT with *@why.
 */
int dc_ret_site(const struct dc_code *c, uint64_t off, uint64_t size,
		uint32_t entry, uint32_t *at, const char **why);

#endif
