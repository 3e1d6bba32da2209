/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_MSG_H
#define LATPROBE_APP_MSG_H

/* "latprobe: error: <msg>" / "latprobe: warning: <msg>" on stderr, one line
 * (app/msg.c). */
void app_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void app_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* LATPROBE_APP_MSG_H */
