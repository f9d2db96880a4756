/* SPDX-License-Identifier: MIT */
#ifndef DC_LOG_H
#define DC_LOG_H

/* Every message is prefixed with the program's name, set once in main(). */
void dc_log_init(const char *prog);
const char *dc_prog(void);
/* Messages to @fn (without the name and level) instead of stderr: a
 * library's caller shows them its own way. NULL: stderr again. */
void dc_log_sink(void (*fn)(void *ctx, const char *msg), void *ctx);
/* --version: "PROGRAM VERSION" on stdout. */
void dc_version(void);
void dc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
