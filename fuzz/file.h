/* SPDX-License-Identifier: MIT */
#ifndef DC_FUZZ_FILE_H
#define DC_FUZZ_FILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The fuzzed code reads files by name, as the programs do; this gives it
 * one: a temporary regular file rewritten with each input (removed at
 * exit). Returns its path, or NULL.
 */
const char *fuzz_file(const uint8_t *data, size_t size);
/* Library names not found otherwise are looked up with pkg-config, a
 * process per input: the search stays, the subprocess goes (no PATH). */
void fuzz_no_subprocesses(void);

#endif
