/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "pinglist.h"

#define LINE_MAX_BYTES 512

static bool
is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

/* Label values: what a Prometheus label and a JSON string carry plainly. */
static bool
label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || strchr("_.:/-+@", c) != NULL;
}

static bool
proto_char(char c)
{
	return (c >= 'a' && c <= 'z') || c == '-';
}

bool
pinglist_same(const struct pinglist_entry *a, const struct pinglist_entry *b)
{
	return a->addr == b->addr && a->port == b->port &&
	       a->has_port == b->has_port && strcmp(a->proto, b->proto) == 0;
}

/* A token [p, p + n) as key=value into e; NULL or why not. */
static const char *
take_option(const char *p, size_t n, struct pinglist_entry *e)
{
	const char *eq = memchr(p, '=', n);
	size_t kn, vn;
	char *dst;
	size_t cap;
	bool (*ok)(char);

	if (eq == NULL)
		return "expected proto=NAME or label=VALUE after the address";
	kn = (size_t)(eq - p);
	vn = n - kn - 1;
	if (kn == 5 && strncmp(p, "proto", 5) == 0) {
		if (e->proto[0] != '\0')
			return "proto= given twice";
		dst = e->proto;
		cap = sizeof(e->proto);
		ok = proto_char;
	} else if (kn == 5 && strncmp(p, "label", 5) == 0) {
		if (e->label[0] != '\0')
			return "label= given twice";
		dst = e->label;
		cap = sizeof(e->label);
		ok = label_char;
	} else {
		return "unknown key (proto= and label= are known)";
	}
	if (vn == 0)
		return "empty value";
	if (vn >= cap)
		return dst == e->proto ? "proto name too long"
				       : "label longer than 63 bytes";
	for (size_t i = 0; i < vn; i++)
		if (!ok(eq[1 + i]))
			return dst == e->proto
				       ? "proto names are lower-case letters "
					 "and '-'"
				       : "label characters are letters, "
					 "digits and _.:/-+@";
	memcpy(dst, eq + 1, vn);
	dst[vn] = '\0';
	return NULL;
}

/* One line (no newline, no comment) into e; NULL, "" when blank, or why. */
static const char *
take_line(const char *p, size_t n, struct pinglist_entry *e)
{
	char addr[32];
	size_t i = 0, t0;

	while (i < n && is_space(p[i]))
		i++;
	if (i == n)
		return "";
	t0 = i;
	while (i < n && !is_space(p[i]))
		i++;
	if (i - t0 >= sizeof(addr))
		return "not an address A.B.C.D[:PORT]";
	memcpy(addr, p + t0, i - t0);
	addr[i - t0] = '\0';
	if (cli_parse_target(addr, &e->addr, &e->port, &e->has_port) != 0)
		return "not an address A.B.C.D[:PORT]";
	if (e->has_port && e->port == 0)
		return "port 0";
	for (;;) {
		const char *why;

		while (i < n && is_space(p[i]))
			i++;
		if (i == n)
			return NULL;
		t0 = i;
		while (i < n && !is_space(p[i]))
			i++;
		why = take_option(p + t0, i - t0, e);
		if (why != NULL)
			return why;
	}
}

unsigned
pinglist_parse(const char *text, size_t len, struct pinglist_entry *out,
	       unsigned cap,
	       void (*bad)(void *arg, unsigned line, const char *why),
	       void *arg, unsigned *n_bad)
{
	unsigned n = 0, line = 0;
	size_t pos = 0;

	*n_bad = 0;
	while (pos < len) {
		const char *p = text + pos, *nl, *hash;
		size_t ln, body;
		struct pinglist_entry e;
		const char *why;

		line++;
		nl = memchr(p, '\n', len - pos);
		ln = nl != NULL ? (size_t)(nl - p) : len - pos;
		pos += ln + (nl != NULL);
		hash = memchr(p, '#', ln);
		body = hash != NULL ? (size_t)(hash - p) : ln;
		memset(&e, 0, sizeof(e));
		e.line = line;
		if (memchr(p, '\0', body) != NULL)
			why = "a NUL byte";
		else if (body > LINE_MAX_BYTES)
			why = "line longer than 512 bytes";
		else
			why = take_line(p, body, &e);
		if (why != NULL && why[0] == '\0')
			continue; /* blank or comment */
		if (why == NULL) {
			for (unsigned k = 0; k < n; k++) {
				if (pinglist_same(&out[k], &e)) {
					why = "a duplicate of an earlier line";
					break;
				}
			}
		}
		if (why == NULL && n >= cap)
			why = "too many targets";
		if (why != NULL) {
			(*n_bad)++;
			if (bad != NULL)
				bad(arg, line, why);
			continue;
		}
		out[n++] = e;
	}
	return n;
}

bool
pinglist_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (text[i] != ' ' && text[i] != '\t' && text[i] != '\n' &&
		    text[i] != '\r')
			return false;
	return true;
}
