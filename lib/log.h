/* SPDX-License-Identifier: MIT */
#ifndef DC_LOG_H
#define DC_LOG_H

/* Every message is prefixed with the program's name, set once in main(). */
void dc_log_init(const char *prog);
const char *dc_prog(void);
/* --version: "PROGRAM VERSION" on stdout. */
void dc_version(void);
void dc_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dc_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dc_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
