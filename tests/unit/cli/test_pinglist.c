/* SPDX-License-Identifier: BSD-3-Clause */
/* The --targets pinglist parser (app/pinglist.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pinglist.h"

struct bads {
	unsigned lines[16];
	char why[16][96];
	unsigned n;
};

static void
on_bad(void *arg, unsigned line, const char *why)
{
	struct bads *b = arg;

	if (b->n < 16) {
		b->lines[b->n] = line;
		snprintf(b->why[b->n], sizeof(b->why[0]), "%s", why);
	}
	b->n++;
}

static unsigned
parse(const char *s, struct pinglist_entry *e, unsigned cap, struct bads *b)
{
	unsigned n_bad;
	unsigned n;

	memset(b, 0, sizeof(*b));
	n = pinglist_parse(s, strlen(s), e, cap, on_bad, b, &n_bad);
	assert_int_equal(n_bad, b->n);
	return n;
}

static void
test_good(void **state)
{
	struct pinglist_entry e[8];
	struct bads b;
	const char *s = "# the mesh\n"
			"198.18.0.2\n"
			"\n"
			"   198.18.0.3:8620  proto=sockperf label=rack-2  # x\n"
			"198.18.0.4 label=a/b:c.d_e+f@g-h\tproto=udp-echo\r\n"
			"198.18.0.2 proto=stamp"; /* no final newline */

	(void)state;
	assert_int_equal(parse(s, e, 8, &b), 4);
	assert_int_equal(b.n, 0);
	assert_int_equal(e[0].addr, 0xc6120002u);
	assert_false(e[0].has_port);
	assert_string_equal(e[0].proto, "");
	assert_string_equal(e[0].label, "");
	assert_int_equal(e[0].line, 2);
	assert_int_equal(e[1].addr, 0xc6120003u);
	assert_true(e[1].has_port);
	assert_int_equal(e[1].port, 8620);
	assert_string_equal(e[1].proto, "sockperf");
	assert_string_equal(e[1].label, "rack-2");
	assert_int_equal(e[1].line, 4);
	assert_string_equal(e[2].proto, "udp-echo");
	assert_string_equal(e[2].label, "a/b:c.d_e+f@g-h");
	/* Same address, proto given: another target than line 2's. */
	assert_string_equal(e[3].proto, "stamp");
	assert_int_equal(e[3].line, 6);
}

static void
test_bad_lines_skipped(void **state)
{
	struct pinglist_entry e[8];
	struct bads b;
	const char *s = "198.18.0.2\n"
			"198.18.0.300\n"
			"198.18.0.3 proto=\n"
			"198.18.0.4 colour=red\n"
			"198.18.0.5 label=\"x\"\n"
			"198.18.0.2\n"
			"198.18.0.6:0\n"
			"198.18.0.7 proto=stamp proto=icmp\n"
			"198.18.0.8 PROTO=stamp\n"
			"198.18.0.9\n";

	(void)state;
	assert_int_equal(parse(s, e, 8, &b), 2);
	assert_int_equal(e[0].addr, 0xc6120002u);
	assert_int_equal(e[1].addr, 0xc6120009u);
	assert_int_equal(b.n, 8);
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(b.lines[i], i + 2);
	assert_non_null(strstr(b.why[0], "not an address"));
	assert_non_null(strstr(b.why[1], "empty value"));
	assert_non_null(strstr(b.why[2], "unknown key"));
	assert_non_null(strstr(b.why[3], "label characters"));
	assert_non_null(strstr(b.why[4], "duplicate"));
	assert_true(strstr(b.why[5], "port 0") != NULL ||
		    strstr(b.why[5], "not an address") != NULL);
	assert_non_null(strstr(b.why[6], "twice"));
	assert_non_null(strstr(b.why[7], "unknown key"));
}

static void
test_limits(void **state)
{
	struct pinglist_entry e[2];
	struct bads b;
	char line[700];
	const char nul[] = "198.18.0.2\0x\n198.18.0.3\n";
	unsigned n_bad;

	(void)state;
	assert_int_equal(
		parse("198.18.0.2\n198.18.0.3\n198.18.0.4\n", e, 2, &b), 2);
	assert_int_equal(b.n, 1);
	assert_non_null(strstr(b.why[0], "too many"));
	memset(line, 'a', sizeof(line));
	memcpy(line, "198.18.0.2 label=", 17);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(parse(line, e, 2, &b), 0);
	assert_non_null(strstr(b.why[0], "longer than 512"));
	assert_int_equal(
		pinglist_parse(nul, sizeof(nul) - 1, e, 2, NULL, NULL, &n_bad),
		1);
	assert_int_equal(n_bad, 1);
	assert_int_equal(e[0].addr, 0xc6120003u);
	assert_int_equal(parse("", e, 2, &b), 0);
	assert_int_equal(parse("# only\n\n  \t\n", e, 2, &b), 0);
	assert_int_equal(b.n, 0);
}

/* A file being rewritten in place reads empty: blank, unlike a list of
 * comments only (a list of none). */
static void
test_blank(void **state)
{
	(void)state;
	assert_true(pinglist_blank("", 0));
	assert_true(pinglist_blank(" \t\r\n\n", 5));
	assert_false(pinglist_blank("# none\n", 7));
	assert_false(pinglist_blank("198.18.0.2", 10));
	/* len bounds it: what follows is not looked at. */
	assert_true(pinglist_blank("  x", 2));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad_lines_skipped),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_blank),
	};

	return cmocka_run_group_tests_name("pinglist", tests, NULL, NULL);
}
