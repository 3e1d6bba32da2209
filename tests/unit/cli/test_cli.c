/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/cli.c: the value parsers give the right values (not only errors),
 * and options on the wrong side of "--" are caught before EAL sees them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_config.h>
#include <rte_version.h>

#include "cli.h"

static void
test_u64(void **state)
{
	uint64_t v = 0;

	(void)state;
	assert_int_equal(cli_parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(cli_parse_u64("10000", 1, UINT64_MAX, &v), 0);
	assert_int_equal(v, 10000);
	assert_int_equal(
		cli_parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	v = 7;
	assert_int_equal(cli_parse_u64("11", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("0", 1, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("-1", 0, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64(" 1", 0, 10, &v), -EINVAL);
	assert_int_equal(cli_parse_u64("1x", 0, 10, &v), -EINVAL);
	assert_int_equal(
		cli_parse_u64("18446744073709551616", 0, UINT64_MAX, &v),
		-EINVAL);
	assert_int_equal(v, 7); /* untouched on error */
}

static void
test_size(void **state)
{
	static const struct {
		const char *s;
		uint64_t v;
	} ok[] = {
		{"0", 0},      {"64", 64},	 {"1k", 1024},
		{"8k", 8192},  {"8K", 8192},	 {"8kb", 8192},
		{"8KB", 8192}, {"1m", 1048576},	 {"2M", 2097152},
		{"100b", 100}, {"65507", 65507},
	};
	static const char *const bad[] = {
		"", "k", "-1", "1g", "1kk", "1.5k", " 8k", "8k ", "4294967296"};
	uint64_t v;

	(void)state;
	for (unsigned k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		v = 12345;
		assert_int_equal(cli_parse_size(ok[k].s, &v), 0);
		assert_true(v == ok[k].v);
	}
	for (unsigned k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_int_equal(cli_parse_size(bad[k], &v), -EINVAL);
}

static void
test_duration(void **state)
{
	static const struct {
		const char *s;
		uint64_t ns;
	} ok[] = {
		{"0", 0},
		{"1", 1000000000ull},
		{"1.5", 1500000000ull},
		{"1.5s", 1500000000ull},
		{".25", 250000000ull},
		{"500ms", 500000000ull},
		{"100us", 100000ull},
		{"250ns", 250},
		{"0.001", 1000000ull},
		{"10ms", 10000000ull},
		{"60", 60000000000ull},
	};
	static const char *const bad[] = {"",	   "s",	 "-1",	"1h",  "1 s",
					  "1e400", "ms", "nan", "inf", "1e9"};
	uint64_t v;

	(void)state;
	for (unsigned k = 0; k < sizeof(ok) / sizeof(ok[0]); k++) {
		v = 12345;
		assert_int_equal(cli_parse_duration_ns(ok[k].s, &v), 0);
		assert_true(v == ok[k].ns);
	}
	for (unsigned k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
		assert_int_equal(cli_parse_duration_ns(bad[k], &v), -EINVAL);
}

/* IPv6 and IPv4 through the family-tagged parsers. */
static void
test_addresses_ip(void **state)
{
	static const uint8_t v6[16] = {0x20, 0x01, 0x00, 0x02, [15] = 2};
	struct codec_ip ip;
	unsigned len = 0;
	uint16_t port = 0;
	bool has = true;
	char buf[CLI_IP_STRLEN];

	(void)state;
	assert_int_equal(cli_parse_ip_prefix("2001:2::2/64", &ip, &len), 0);
	assert_int_equal(ip.family, 6);
	assert_memory_equal(ip.a, v6, 16);
	assert_int_equal(len, 64);
	assert_int_equal(cli_parse_ip_prefix("2001:2::2", &ip, &len), 0);
	assert_int_equal(len, 128);
	assert_int_equal(cli_parse_ip_prefix("198.18.0.1/24", &ip, &len), 0);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.a[0], 198);
	assert_int_equal(ip.a[3], 1);
	assert_int_equal(ip.a[4], 0);
	assert_int_equal(len, 24);
	assert_int_equal(cli_parse_ip_prefix("2001:2::2/129", &ip, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ip_prefix("2001:2::2/0", &ip, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ip_prefix("2001:2:::2/64", &ip, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ip_prefix("[2001:2::2]/64", &ip, &len),
			 -EINVAL);

	assert_int_equal(
		cli_parse_target_ip("[2001:2::2]:862", &ip, &port, &has), 0);
	assert_int_equal(ip.family, 6);
	assert_memory_equal(ip.a, v6, 16);
	assert_true(has);
	assert_int_equal(port, 862);
	assert_int_equal(cli_parse_target_ip("2001:2::2", &ip, &port, &has), 0);
	assert_int_equal(ip.family, 6);
	assert_memory_equal(ip.a, v6, 16);
	assert_false(has);
	assert_int_equal(cli_parse_target_ip("[2001:2::2]", &ip, &port, &has),
			 0);
	assert_false(has);
	assert_int_equal(
		cli_parse_target_ip("198.18.0.2:443", &ip, &port, &has), 0);
	assert_int_equal(ip.family, 4);
	assert_int_equal(ip.a[3], 2);
	assert_true(has);
	assert_int_equal(port, 443);
	assert_int_equal(cli_parse_target_ip("[2001:2::2]:0", &ip, &port, &has),
			 -EINVAL);
	assert_int_equal(
		cli_parse_target_ip("[2001:2::2]:65536", &ip, &port, &has),
		-EINVAL);
	assert_int_equal(cli_parse_target_ip("[2001:2::2]x", &ip, &port, &has),
			 -EINVAL);
	assert_int_equal(cli_parse_target_ip("[2001:2::2", &ip, &port, &has),
			 -EINVAL);
	assert_int_equal(cli_parse_target_ip("[]:862", &ip, &port, &has),
			 -EINVAL);
	assert_int_equal(
		cli_parse_target_ip("[198.18.0.2]:862", &ip, &port, &has),
		-EINVAL);
	/* A bare IPv6 address cannot carry a port: 2001:2::2:862 is an
	 * address. */
	assert_int_equal(cli_parse_target_ip("2001:2::2:862", &ip, &port, &has),
			 0);
	assert_false(has);

	assert_int_equal(cli_parse_ip_prefix("2001:2:0:0:0:0:0:1", &ip, &len),
			 0);
	cli_format_ip(&ip, buf);
	assert_string_equal(buf, "2001:2::1");
	assert_int_equal(cli_parse_ip_prefix("198.18.0.1", &ip, &len), 0);
	cli_format_ip(&ip, buf);
	assert_string_equal(buf, "198.18.0.1");
}

static void
test_addresses(void **state)
{
	uint32_t a = 0;
	unsigned len = 0;
	uint16_t port = 0;
	bool has = true;
	char buf[16];

	(void)state;
	assert_int_equal(cli_parse_ipv4_prefix("198.18.0.1/24", &a, &len), 0);
	assert_true(a == 0xc6120001u);
	assert_int_equal(len, 24);
	assert_int_equal(cli_parse_ipv4_prefix("198.19.255.254", &a, &len), 0);
	assert_true(a == 0xc613fffeu);
	assert_int_equal(len, 32);
	assert_int_equal(cli_parse_ipv4_prefix("127.0.0.1/1", &a, &len), 0);
	assert_int_equal(len, 1);
	assert_int_equal(cli_parse_ipv4_prefix("198.18.0.1/0", &a, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ipv4_prefix("198.18.0.1/33", &a, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ipv4_prefix("198.18.0/24", &a, &len),
			 -EINVAL);
	assert_int_equal(cli_parse_ipv4_prefix("/24", &a, &len), -EINVAL);

	assert_int_equal(cli_parse_target("198.18.0.2", &a, &port, &has), 0);
	assert_true(a == 0xc6120002u);
	assert_false(has);
	assert_int_equal(cli_parse_target("198.18.0.2:443", &a, &port, &has),
			 0);
	assert_true(has);
	assert_int_equal(port, 443);
	assert_int_equal(cli_parse_target("198.18.0.2:65535", &a, &port, &has),
			 0);
	assert_int_equal(port, 65535);
	assert_int_equal(cli_parse_target("198.18.0.2:0", &a, &port, &has),
			 -EINVAL);
	assert_int_equal(cli_parse_target("198.18.0.2:65536", &a, &port, &has),
			 -EINVAL);
	assert_int_equal(cli_parse_target("198.18.0.300", &a, &port, &has),
			 -EINVAL);
	assert_int_equal(cli_parse_target("[::1]:862", &a, &port, &has),
			 -EINVAL);

	cli_format_ipv4(0xc6120002u, buf);
	assert_string_equal(buf, "198.18.0.2");
	cli_format_ipv4(0xffffffffu, buf);
	assert_string_equal(buf, "255.255.255.255");
}

/* cli_check_eal_part() on a command line given as one string. */
static int
check(const char *sub, const char *line, char *err, unsigned err_len)
{
	char buf[512], *argv[64], *save = NULL;
	int argc = 0;

	snprintf(buf, sizeof(buf), "%s", line);
	for (char *t = strtok_r(buf, " ", &save); t != NULL && argc < 63;
	     t = strtok_r(NULL, " ", &save))
		argv[argc++] = t;
	argv[argc] = NULL;
	err[0] = '\0';
	return cli_check_eal_part(sub, argc, argv, 2, err, err_len);
}

static void
expect_ok(const char *sub, const char *line)
{
	char err[512];

	if (check(sub, line, err, sizeof(err)) != 0)
		fail_msg("latprobe %s %s: refused: %s", sub, line, err);
}

static void
expect_refused(const char *sub, const char *line, const char *want)
{
	char err[512];

	if (check(sub, line, err, sizeof(err)) != -EINVAL)
		fail_msg("latprobe %s %s: accepted", sub, line);
	if (strstr(err, want) == NULL)
		fail_msg("latprobe %s %s: '%s' lacks '%s'", sub, line, err,
			 want);
	assert_null(strchr(err, '\n'));
}

static void
test_sides_ok(void **state)
{
	(void)state;
	expect_ok("probe", "--profile veth-afxdp-probe -- --addr "
			   "198.18.0.1/24 -n 100 -l 8k -h 20 198.18.0.2");
	expect_ok("probe", "-l 0-1 -n 4 --in-memory --no-pci --vdev "
			   "net_af_xdp0,iface=lp-p0 --log-level=lib.eal:error "
			   "--log-level pmd:error -m 64 -- -q 198.18.0.2");
	expect_ok("probe", "-l0 -n4 --vdev=net_null0 -- 198.18.0.2");
	expect_ok("probe", "--profile=ring --in-mem -- 198.18.0.2");
	expect_ok("reflect", "-l 1 --file-prefix x --proc-type auto -- "
			     "--addr 198.18.0.2/24");
	expect_ok("info", "");
	expect_ok("info", "--profile ring --");
	/* No "--": all of it is latprobe's. */
	expect_ok("probe", "--backend kernel -n 5 -l 64 --proto sockperf "
			   "198.18.0.2");
	expect_ok("reflect", "--addr 198.18.0.2/24 --backend kernel -t 5");
	/* A value that looks like an EAL option is still a value. */
	expect_ok("probe", "--vdev --no-pci --");
}

/*
 * The EAL option table follows the DPDK built against (eal_long_options[]
 * in DPDK's lib/eal/common/eal_common_options.c of 22.11, 23.11, 24.11).
 */
static void
test_sides_eal_version(void **state)
{
	(void)state;
	/* In every version. */
	expect_ok("info", "--syslog=local0 --log-level=lib.eal:error --");
#if RTE_VERSION >= RTE_VERSION_NUM(24, 11, 0, 0)
	/* 24.11: --log-color[=when], --log-timestamp[=format], and
	 * --syslog[=facility] with its facility optional. */
	expect_ok("info", "--log-timestamp --log-color --no-huge --");
	expect_ok("info", "--log-timestamp=iso --log-color=never --");
	expect_ok("info", "--syslog --no-huge -m 64 --");
	/* An optional value only as --opt=value: the next word is not it. */
	expect_refused("info", "--syslog local0 --",
		       "'local0' before '--' is not an EAL option");
#else
	/* 22.11 and 23.11: no such options; --syslog needs its facility,
	 * which may be the next word. */
	expect_refused("info", "--log-timestamp --",
		       "--log-timestamp before '--' is not an EAL option");
	expect_refused("info", "--log-color=never --",
		       "--log-color before '--' is not an EAL option");
	expect_ok("info", "--syslog local0 --no-huge --");
#endif
}

static void
test_sides_refused(void **state)
{
	(void)state;
	/* The two cases. */
	expect_refused("probe",
		       "--profile veth-afxdp-probe -n 100 -- --addr "
		       "198.18.0.1/24 198.18.0.2",
		       "-n 100 before '--' would set DPDK's memory channels");
	expect_refused("probe", "--profile veth-afxdp-probe -n 100 -- x",
		       "the probe count goes after '--'");
	expect_refused("probe", "--profile veth-afxdp-probe -l 8k -- x",
		       "the probe size goes after '--'");
	expect_refused("probe", "-l 64 -- x", "the probe size goes after");
	expect_refused("probe", "-l8k -- x", "-l 8k before '--'");
	expect_refused("reflect", "-l 5 -- x", "give cores 0..1");
	expect_refused("reflect", "-n 0 -- x", "must be 1..32");
	expect_refused("probe", "-n 33 -- x", "memory channels");
	/* Every probe option EAL does not have. */
	static const char *const longs[] = {
		"addr",	       "proto",	       "timeout",   "peer-mac",
		"arp-timeout", "sport",	       "port-id",   "json",
		"samples",     "pcap",	       "calibrate", "backend",
		"quiet",       "busy-poll-us", "loopback"};
	for (unsigned k = 0; k < sizeof(longs) / sizeof(longs[0]); k++) {
		char line[64], want[96];

		snprintf(line, sizeof(line), "--%s x -- y", longs[k]);
		snprintf(want, sizeof(want), "latprobe probe's --%s goes after",
			 longs[k]);
		expect_refused("probe", line, want);
	}
	expect_refused("probe", "-t 5 -- x", "latprobe probe's -t goes after");
	expect_refused("probe", "-w 5 -- x", "latprobe probe's -w goes after");
	expect_refused("probe", "-i 1ms -- x", "latprobe probe's -i goes");
	expect_refused("probe", "-q -- x", "latprobe probe's -q goes");
	expect_refused("probe", "-h 100 -- x", "the bucket option -h goes");
	expect_refused("reflect", "--udp-port 862 -- x",
		       "latprobe reflect's --udp-port goes after");
	expect_refused("reflect", "--stateful -- x", "--stateful goes after");
	expect_refused("info", "--calibrate 2s --", "--calibrate goes after");
	/* reflect's --allow PREFIX is also EAL's --allow PCI-ADDRESS. */
	expect_refused("reflect", "--allow 198.18.0.0/24 -- --addr x",
		       "latprobe reflect's --allow PREFIX goes after");
	expect_refused("reflect", "--allow=198.18.0.0/24 --",
		       "would be DPDK's PCI allow-list");
	expect_ok("reflect", "--allow 0000:00:08.0 -- --addr 198.18.0.2/24");
	expect_ok("probe", "-a 0000:00:08.0 --allow 0000:00:09.0 -- x");
	expect_ok("reflect", "--addr 198.18.0.2/24 --allow 198.18.0.0/24");
	expect_refused("probe", "198.18.0.2 --", "'198.18.0.2' before '--'");
	expect_refused("probe", "--bogus --", "--bogus before '--' is not");
	expect_refused("probe", "-x --", "-x before '--' is not an EAL");
	/* A forgotten "--". */
	expect_refused("probe",
		       "--profile veth-afxdp-probe --addr 198.18.0.1/24 "
		       "198.18.0.2",
		       "--profile is an EAL option but no '--' follows");
	expect_refused("info", "--profile ring", "no '--' follows");
	expect_refused("reflect", "--in-memory --addr 198.18.0.2/24",
		       "--in-memory is an EAL option");
	expect_refused("reflect", "-l 0 --addr 198.18.0.2/24",
		       "-l is an EAL option");
}

/* Found by fuzz_cli: a lone "-" and a value holding a newline. */
static void
test_sides_odd_argv(void **state)
{
	char *dash[] = {"-", NULL};
	char *nl[] = {"-n", "1\n-l", "--", NULL};
	char err[512] = "";

	(void)state;
	assert_int_equal(
		cli_check_eal_part("probe", 1, dash, 2, err, sizeof(err)), 0);
	assert_int_equal(
		cli_check_eal_part("probe", 3, nl, 2, err, sizeof(err)),
		-EINVAL);
	assert_null(strchr(err, '\n'));
	assert_non_null(strstr(err, "-n 1?-l before '--'"));
}

static void
test_profile_not_found_lists(void **state)
{
	char *argv[] = {"--profile", "no-such-profile", "--", NULL};
	char **eal = NULL, **app = NULL, err[512] = "";
	int ne, na;
	bool sep;

	(void)state;
	/* Find the repository's profiles through $LATPROBE_PROFILE_DIR. */
	setenv("LATPROBE_PROFILE_DIR", LATPROBE_TEST_PROFILES, 1);
	assert_int_equal(cli_split_args(3, argv, "latprobe", &ne, &eal, &na,
					&app, &sep, err, sizeof(err)),
			 -ENOENT);
	assert_non_null(strstr(err, "'no-such-profile' not found"));
	assert_non_null(strstr(err, " ring"));
	assert_non_null(strstr(err, " veth-afxdp-probe"));
	assert_null(strstr(err, "README"));
	unsetenv("LATPROBE_PROFILE_DIR");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_addresses),
		cmocka_unit_test(test_addresses_ip),
		cmocka_unit_test(test_sides_ok),
		cmocka_unit_test(test_sides_refused),
		cmocka_unit_test(test_sides_eal_version),
		cmocka_unit_test(test_sides_odd_argv),
		cmocka_unit_test(test_profile_not_found_lists),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
