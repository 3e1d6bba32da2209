/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_REPORT_JSON_H
#define LATPROBE_REPORT_JSON_H

/*
 * Reading a saved report back: the JSON document and its typed members.
 * One reader for `latprobe compare` and `latprobe plot`. Input is
 * untrusted; nothing here prints.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "latprobe/histogram.h"

/* A one-line reason, printf-style, into why (when it has room); -EINVAL. */
int report_why(char *why, size_t why_cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * One JSON value in text (len bytes, need not be NUL-terminated), followed
 * by nothing but white space. 0 with *root (json_object_put() frees),
 * -ENOMEM, or -EINVAL with a one-line reason in why ("not JSON (...)").
 */
int report_json_parse(const char *text, size_t len, struct json_object **root,
		      char *why, size_t why_cap);

/* Member key as an integer >= 0; false when absent or of another type. */
bool report_json_u64(struct json_object *o, const char *key, uint64_t *v);

/* Member key as a finite number (integer or real); false otherwise. */
bool report_json_double(struct json_object *o, const char *key, double *v);

/* Member key as a string into out (truncated to cap); "" otherwise. */
void report_json_str(struct json_object *o, const char *key, char *out,
		     size_t cap);

/*
 * The histogram of a series object o ("rtt_ns", ...: name) into h: o's "hdr"
 * (HdrHistogram V2, base64) decoded, then o's exact "min" and "max" (each
 * must lie in the lowest/highest counter) and "sum" in place of the
 * decoder's estimates; a "count" must equal the histogram's. Members that
 * are absent leave the decoded figures. 0, or -EINVAL with a one-line
 * reason in why.
 */
int report_json_hdr(struct json_object *o, const char *name,
		    struct histogram *h, char *why, size_t why_cap);

#endif /* LATPROBE_REPORT_JSON_H */
