/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_HOST_PRIV_H
#define LATPROBE_HOST_PRIV_H

/* Shared by lib/host's files (host.c has them): not an API. */

#include "latprobe/host.h"

/* root/rel in out (len bytes; one '/' between, whatever root ends with
 * and rel starts with); "" when it does not fit. */
void host_path_at(char *out, size_t len, const char *root, const char *rel);
void host_result_init(struct host_result *r, const char *name);
/* Append to a result field (value or fix), truncating quietly. */
void host_field_add(char *field, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#define HVAL(r, ...) host_field_add((r)->value, sizeof((r)->value), __VA_ARGS__)
#define HFIX(r, ...) host_field_add((r)->fix, sizeof((r)->fix), __VA_ARGS__)

#endif /* LATPROBE_HOST_PRIV_H */
