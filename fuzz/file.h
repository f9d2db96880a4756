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
/* Every target's libFuzzer entry points. Initialize is shared: library
 * names not found otherwise are looked up with pkg-config, a process per
 * input; the search stays, the subprocess goes (no PATH). */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
