/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_PINGLIST_H
#define LATPROBE_APP_PINGLIST_H

/*
 * --targets FILE: a pinglist, one target a line:
 *
 *     ADDR[:PORT] [proto=NAME] [label=VALUE]    # comment
 *
 * Blank lines and everything from a '#' are ignored. Pure (no I/O): the
 * caller reads the file, the parser hands each bad line to a callback and
 * goes on with the next, so one typo does not stop a fleet's prober.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PINGLIST_MAX	   128	      /* targets of one prober */
#define PINGLIST_FILE_MAX  (1u << 20) /* bytes of a --targets file */
#define PINGLIST_LABEL_MAX 64	      /* bytes of a label, NUL included */
#define PINGLIST_PROTO_MAX 16

struct pinglist_entry {
	uint32_t addr; /* host order */
	uint16_t port;
	bool has_port;
	char proto[PINGLIST_PROTO_MAX]; /* "" = the command line's --proto */
	char label[PINGLIST_LABEL_MAX]; /* "" = none */
	unsigned line;			/* 1-based, for messages */
};

/*
 * Parse len bytes of text (not NUL-terminated). Good lines go into out (at
 * most cap; the rest are bad lines "too many targets"); bad(arg, line,
 * why) is called for each bad line, which is skipped. A line that names the
 * same ADDR, PORT and proto as an earlier one is a bad line too (a
 * duplicate). Returns the number of entries; *n_bad the bad lines.
 */
unsigned pinglist_parse(const char *text, size_t len,
			struct pinglist_entry *out, unsigned cap,
			void (*bad)(void *arg, unsigned line, const char *why),
			void *arg, unsigned *n_bad);

/* Does text (len bytes) hold nothing but blanks (spaces, tabs, newlines)?
 * An empty file is one. */
bool pinglist_blank(const char *text, size_t len);

/* Two entries name the same target (address, port, proto as given). */
bool pinglist_same(const struct pinglist_entry *a,
		   const struct pinglist_entry *b);

#endif /* LATPROBE_APP_PINGLIST_H */
