/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Golden test of lib/report's output: a fixed set of recorded runs (probe
 * single target, STAMP over IPv4 with network RTT and turnaround, each
 * in the full (--details) and the brief (default) view; a
 * multi-target run with intervals; an open-loop run; a --flows run; an
 * empty run; stall attribution; reflector reports with one and with
 * several workers) rendered through the public functions
 * (report_probe_text/_json, report_reflect_text/_json, report_live_line,
 * report_live_path, report_iv_line, report_fmt_ns, the samples CSV) and
 * compared byte for byte with the files in tests/unit/report/golden/. Every
 * input is fixed: histograms filled from a fixed sequence, counters, times,
 * host name and command set by hand (report_meta_init() is not called: it reads
 * the clock, the host name and /proc/cpuinfo).
 *
 * The files are what the code printed when they were made; a change of the
 * output on purpose regenerates them:
 *
 *   LP_GOLDEN_UPDATE=1 build/tests/unit/report/test_golden \
 *       tests/unit/report/golden
 *
 * then review `git diff tests/unit/report/golden/` and commit it with the
 * change. Without LP_GOLDEN_UPDATE a difference fails the case and prints
 * the first differing line. Text is compared byte for byte everywhere; a
 * .json file that differs in its bytes still passes when it is the same
 * JSON to the letter once json-c lays both out plainly (keys in order,
 * every value's text): json-c 0.16 (Debian 12) pretty-prints an empty
 * object or array over two lines, 0.18 (Debian 13) as {} and [].
 *
 * Not covered here: how app/ fills struct report_probe/report_reflect from
 * a run (cmd_probe.c, cmd_reflect.c), what it prints itself (the live and
 * interval lines go through report_live_line()/report_iv_line(), covered,
 * but their timing and the stream are app/'s), report_meta_init()'s clock,
 * host and /proc reads, and the error returns (test_report.c has those).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json.h>

#include "latprobe/report.h"

static const char *golden_dir;

/* ------------------------------------------------------------ fixtures */

/* A fixed pseudo-random sequence (64-bit LCG, Knuth's MMIX constants). */
static uint64_t
lcg(uint64_t *st)
{
	*st = *st * 6364136223846793005ull + 1442695040888963407ull;
	return *st >> 33;
}

/* n values base + (0 .. spread) and a tail of every 100th * 10. */
static struct histogram *
hist_fill(uint64_t seed, unsigned n, uint64_t base, uint64_t spread)
{
	struct histogram *h = histogram_create();
	uint64_t st = seed;

	assert_non_null(h);
	for (unsigned i = 0; i < n; i++) {
		uint64_t v = base + lcg(&st) % (spread + 1);

		if (i % 100 == 99)
			v *= 10;
		histogram_record(h, v);
	}
	return h;
}

#define N_HIST 16
static struct histogram *hists[N_HIST];
static unsigned n_hists;

static struct histogram *
H(uint64_t seed, unsigned n, uint64_t base, uint64_t spread)
{
	struct histogram *h = hist_fill(seed, n, base, spread);

	assert_true(n_hists < N_HIST);
	hists[n_hists++] = h;
	return h;
}

static int
teardown(void **state)
{
	(void)state;
	for (unsigned i = 0; i < n_hists; i++)
		histogram_destroy(hists[i]);
	n_hists = 0;
	return 0;
}

static struct report_meta
meta_fixed(void)
{
	static char command[] = "latprobe probe --proto stamp -c 10000 -- "
				"'198.18.0.2:862'";
	struct report_meta m = {
		.start_utc = "2026-11-30T15:04:21Z",
		.host = "golden-host",
		.command = command,
		.source = "198.18.0.1",
		.interface = "net_af_packet0 (net_af_packet)",
		.cpu_model = "Golden CPU @ 2.00GHz",
		.kernel = "Linux 6.1.0-golden",
		.cpus_online = 2,
		.dpdk_version = "DPDK 22.11.0",
		.nic_driver = "net_af_packet",
		.cores_used = 1,
		.csum_rx = "ipv4,udp",
		.csum_tx = "",
	};

	return m;
}

static const struct report_tsc tsc_fixed = {
	.hz = 2000000000,
	.dpdk_hz = 1999999000,
	.calib_ppm = 0.5,
	.invariant = true,
	.read_cost_cycles = 24.5,
};

static const struct report_counter xstats_delta[] = {
	{"rx_missed_errors", 3},
	{"tx_errors", 1},
};

static const struct report_counter path_driver[] = {
	{"vf_rx_good_packets", 9990},
	{"rx_vport_packets", 10},
};

static const struct report_port_path path_netvsc = {
	.kind = "netvsc",
	.vf_driver = "mlx5_pci",
	.includes = "the VF's hardware queues and the host's vswitch",
	.split = true,
	.vf_rx = 9990,
	.vf_tx = 9995,
	.synthetic_rx = 10,
	.synthetic_tx = 5,
	.vf_share = 0.99925,
	.driver = path_driver,
	.n_driver = 2,
};

static const struct report_counter many_driver[] = {
	{"rx_vport_unicast_packets", 100},
	{"tx_vport_unicast_packets", 101},
	{"rx_vport_bytes", 6400},
	{"tx_vport_bytes", 6464},
	{"rx_wqe_err", 1},
	{"tx_pp_missed", 2},
};

static const struct report_port_path path_mlx = {
	.kind = "mlx",
	.vf_driver = NULL,
	.includes = NULL,
	.split = false,
	.vf_share = -1,
	.driver = many_driver,
	.n_driver = 6,
};

static const struct report_port_path path_none_moved = {
	.kind = "failsafe",
	.vf_driver = "net_mana",
	.split = true,
	.vf_share = -1,
};

/* ------------------------------------------------------------- compare */

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long sz;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (sz = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)sz + 1);
		if (buf != NULL && fread(buf, 1, (size_t)sz, f) != (size_t)sz) {
			free(buf);
			buf = NULL;
		} else if (buf != NULL) {
			buf[sz] = '\0';
			*len = (size_t)sz;
		}
	}
	fclose(f);
	return buf;
}

/* The first line where got and want differ, for the failure message. */
static void
print_first_diff(const char *name, const char *got, const char *want)
{
	unsigned line = 1;
	const char *g = got, *w = want;

	while (*g != '\0' && *g == *w) {
		if (*g == '\n')
			line++;
		g++;
		w++;
	}
	while (g > got && g[-1] != '\n')
		g--;
	while (w > want && w[-1] != '\n')
		w--;
	print_error("%s differs at line %u\n  got:  %.*s\n  want: %.*s\n", name,
		    line, (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

static bool
is_json(const char *name)
{
	size_t n = strlen(name);

	return n > 5 && strcmp(name + n - 5, ".json") == 0;
}

/* The same JSON but for json-c's layout (see the header). */
static bool
same_json(const char *got, const char *want)
{
	struct json_object *g = json_tokener_parse(got);
	struct json_object *w = json_tokener_parse(want);
	bool same = g != NULL && w != NULL &&
		    strcmp(json_object_to_json_string_ext(
				   g, JSON_C_TO_STRING_PLAIN),
			   json_object_to_json_string_ext(
				   w, JSON_C_TO_STRING_PLAIN)) == 0;

	json_object_put(g);
	json_object_put(w);
	return same;
}

/* Compare what was written into buf with golden/<name> (or write it). */
static void
check_golden(const char *name, char *buf, size_t len)
{
	char path[4096];
	size_t want_len = 0;
	char *want;

	snprintf(path, sizeof(path), "%s/%s", golden_dir, name);
	if (getenv("LP_GOLDEN_UPDATE") != NULL) {
		FILE *f = fopen(path, "wb");

		assert_non_null(f);
		assert_int_equal(fwrite(buf, 1, len, f), len);
		assert_int_equal(fclose(f), 0);
		return;
	}
	want = slurp(path, &want_len);
	if (want == NULL)
		fail_msg("%s: cannot read (LP_GOLDEN_UPDATE=1 makes it)", path);
	if ((want_len != len || memcmp(want, buf, len) != 0) &&
	    !(is_json(name) && same_json(buf, want))) {
		print_first_diff(name, buf, want);
		free(want);
		fail_msg("%s differs from the golden file (%zu vs %zu bytes)",
			 name, len, want_len);
	}
	free(want);
}

/* A memory stream for one rendering. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static void
mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
}

static void
mem_check(struct mem *m, const char *name)
{
	assert_int_equal(fclose(m->f), 0);
	check_golden(name, m->buf, m->len);
	free(m->buf);
}

/*
 * <stem>.txt is the full report (probe --details: every section),
 * <stem>_brief.txt is the default view of the same run.
 */
static void
golden_probe(const struct report_probe *r, const char *stem)
{
	struct report_probe brief = *r;
	struct mem m;
	char name[128];

	assert_false(r->brief);
	mem_open(&m);
	assert_int_equal(report_probe_text(r, m.f), 0);
	snprintf(name, sizeof(name), "%s.txt", stem);
	mem_check(&m, name);
	brief.brief = true;
	mem_open(&m);
	assert_int_equal(report_probe_text(&brief, m.f), 0);
	snprintf(name, sizeof(name), "%s_brief.txt", stem);
	mem_check(&m, name);
	mem_open(&m);
	assert_int_equal(report_probe_json(r, m.f), 0);
	snprintf(name, sizeof(name), "%s.json", stem);
	mem_check(&m, name);
}

static void
golden_reflect(const struct report_reflect *r, const char *stem)
{
	struct mem m;
	char name[128];

	mem_open(&m);
	assert_int_equal(report_reflect_text(r, m.f), 0);
	snprintf(name, sizeof(name), "%s.txt", stem);
	mem_check(&m, name);
	mem_open(&m);
	assert_int_equal(report_reflect_json(r, m.f), 0);
	snprintf(name, sizeof(name), "%s.json", stem);
	mem_check(&m, name);
}

/* --------------------------------------------------------------- cases */

/*
 * One target, STAMP over IPv4: network RTT, turnaround, meta with checksum
 * offloads, the sections that appear on a DPDK port (xstats, a netvsc
 * path with synthetic packets), NIC timestamps, linear buckets (-h 10), and
 * every probe counter line (stretched interval, ignored reasons with the
 * hint, ICMP unreachable, error estimate, authentication, partial L4
 * checksums, reassembly, no mbuf, late and RST answers).
 */
static void
test_probe_single(void **state)
{
	struct report_meta meta = meta_fixed();
	static const uint16_t sports[] = {40000};
	struct report_hw hw = {
		.stamped = 9990,
		.unstamped = 2,
		.outside = 1,
		.clock_samples = 20,
		.clock_sample_failures = 1,
		.nic_hz = 1000000000.0,
		.pair_gap_ns = 1200,
	};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "dpdk",
		.target = "198.18.0.2:862",
		.port_driver = "net_af_packet",
		.sports = sports,
		.n_sports = 1,
		.size = 44,
		.lcores = 1,
		.duration_s = 10.0,
		.sent = 10000,
		.received = 9990,
		.lost = 10,
		.duplicated = 2,
		.reordered = 3,
		.timeouts = 10,
		.rx_ignored = 27,
		.warmup = 100,
		.late = 4,
		.resets = 0,
		.reasm_failed = 1,
		.interval_ns = 1000000,
		.timeout_ns = 5000000,
		.interval_stretched = 1234,
		.meta = &meta,
		.authenticated = true,
		.auth_failed = 2,
		.l4_partial = 7,
		.nombuf = 5,
		.reflector_ee =
			{
				.present = true,
				.raw = 0x8101,
				.sync = true,
				.ptp = false,
				.scale = 1,
				.multiplier = 1,
				.seconds = 4.656612873077393e-10,
				.answers = 9990,
				.changes = 2,
			},
		.buckets = {.n_buckets = 10},
		.tsc = tsc_fixed,
		.port =
			{
				.present = true,
				.delta = xstats_delta,
				.n_delta = 2,
				.path = &path_netvsc,
			},
		.hw = &hw,
	};

	(void)state;
	r.ignored[REPORT_IGN_CHECKSUM] = 12;
	r.ignored[REPORT_IGN_OTHER_FLOW] = 3;
	r.ignored[REPORT_IGN_LATE] = 4;
	r.ignored[REPORT_IGN_DUPLICATE] = 2;
	r.ignored[REPORT_IGN_UNREACHABLE] = 4;
	r.ignored[REPORT_IGN_AUTH] = 2;
	r.unreachable[REPORT_UNREACH_PORT] = 3;
	r.unreachable[REPORT_UNREACH_ADMIN] = 1;
	r.rtt = H(1, 9990, 20000, 8000);
	r.network_rtt = H(2, 9990, 15000, 6000);
	r.turnaround = H(3, 9990, 4000, 1500);
	hw.rtt = H(4, 9990, 19000, 7000);
	hw.rx_delay = H(5, 9990, 800, 300);
	golden_probe(&r, "probe_single");
}

/*
 * Several targets (one removed on SIGHUP, one that never answered, labels
 * and none), --interval-report intervals with some dropped, edge buckets
 * with the open-ended last row, a port whose path is one path with more
 * than four driver counters, xstats present with none moved, and
 * --new-flow-every's first packets.
 */
static void
test_probe_multi(void **state)
{
	struct report_meta meta = meta_fixed();
	static const uint16_t sports[] = {40000, 40001};
	static const uint64_t edges[] = {10000, 20000, 50000, 100000};
	struct report_target t[3] = {
		{
			.target = "198.18.0.2:862",
			.proto = "stamp",
			.label = "rack-a",
			.sent = 5000,
			.received = 4990,
			.lost = 10,
			.sport = 40000,
		},
		{
			.target = "198.18.0.3:862",
			.proto = "stamp",
			.label = "",
			.sent = 5000,
			.received = 5000,
			.lost = 0,
			.removed = true,
			.sport = 40001,
		},
		{
			.target = "198.18.0.4:7",
			.proto = "udp-echo",
			.label = NULL,
			.sent = 100,
			.received = 0,
			.lost = 100,
		},
	};
	struct report_iv_row iv0[2] = {
		{.target = "198.18.0.2:862",
		 .sent = 500,
		 .received = 499,
		 .lost = 1,
		 .rtt = {499, 21000, 30000, 250000}},
		{.target = "198.18.0.3:862",
		 .sent = 500,
		 .received = 500,
		 .rtt = {500, 31000, 45000, 61000}},
	};
	struct report_iv_row iv1[1] = {
		{.target = "198.18.0.4:7", .sent = 10, .lost = 10},
	};
	struct report_interval ivs[2] = {
		{.t_s = 9.0, .len_s = 1.0, .rows = iv0, .n_rows = 2},
		{.t_s = 10.0, .len_s = 1.0, .rows = iv1, .n_rows = 1},
	};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "dpdk",
		.target = "3 targets",
		.port_driver = "net_memif",
		.sports = sports,
		.n_sports = 2,
		.size = 44,
		.lcores = 2,
		.duration_s = 10.25,
		.interrupted = true,
		.sent = 10100,
		.received = 9990,
		.lost = 110,
		.timeouts = 110,
		.interval_ns = 1000000,
		.timeout_ns = 500000,
		.meta = &meta,
		.buckets = {.edges_ns = edges, .n_edges = 4},
		.tsc = tsc_fixed,
		.port = {.present = true, .path = &path_mlx},
		.targets = t,
		.n_targets = 3,
		.intervals = ivs,
		.n_intervals = 2,
		.intervals_dropped = 8,
		.new_flow_every = 100,
		.new_flows = 99,
		.fresh_ports = 64,
		.fresh_reused = 35,
		.first_lost = 1,
	};

	(void)state;
	meta.cores_used = 2;
	meta.csum_rx = NULL;
	meta.csum_tx = NULL;
	t[0].rtt = H(10, 4990, 20000, 10000);
	t[0].network_rtt = H(11, 4990, 15000, 9000);
	t[1].rtt = H(12, 5000, 30000, 15000);
	r.rtt = H(13, 9990, 20000, 25000);
	r.network_rtt = H(14, 9990, 15000, 20000);
	r.first_packet = H(15, 98, 60000, 20000);
	golden_probe(&r, "probe_multi");
}

/* Open loop (--rate, poisson): the intended latency, the sender's lag
 * (more than 1 % late: the warning line), intervals with the intended
 * series, the kernel backend (no port), the default (auto) buckets. */
static void
test_probe_open(void **state)
{
	struct report_meta meta = meta_fixed();
	struct report_open o = {
		.rate_pps = 50000,
		.spacing = "poisson",
		.seed = 42,
		.window_slots = 4096,
		.late_sends = 300,
		.behind_max_ns = 120000,
		.bound_ns = 20000,
	};
	struct report_iv_row row = {
		.target = "198.18.0.2:7",
		.sent = 50000,
		.received = 50000,
		.rtt = {50000, 12000, 19000, 80000},
		.has_intended = true,
		.intended = {50000, 14000, 40000, 190000},
	};
	struct report_interval iv = {
		.t_s = 1.0, .len_s = 1.0, .rows = &row, .n_rows = 1};
	struct report_probe r = {
		.proto = "udp-echo",
		.backend = "kernel",
		.target = "198.18.0.2:7",
		.size = 64,
		.lcores = 1,
		.duration_s = 1.0,
		.sent = 10000,
		.received = 10000,
		.meta = &meta,
		.tsc = {.hz = 2500000000, .invariant = false},
		.intervals = &iv,
		.n_intervals = 1,
		.open = &o,
	};

	(void)state;
	meta.interface = NULL;
	meta.dpdk_version = NULL;
	meta.nic_driver = NULL;
	meta.csum_rx = NULL;
	meta.csum_tx = NULL;
	r.rtt = H(20, 10000, 10000, 9000);
	o.intended = H(21, 10000, 11000, 30000);
	o.behind = H(22, 10000, 100, 25000);
	golden_probe(&r, "probe_open");
}

/* --flows 6 on two lcores: 12 flows, more than the table's top ten, one
 * without answers, a slow flow (the spread line says they differ). */
static void
test_probe_flows(void **state)
{
	struct report_flow f[12];
	static const uint16_t sports[] = {50000, 50006};
	struct report_probe r = {
		.proto = "sockperf",
		.backend = "dpdk",
		.target = "198.18.0.2:11111",
		.port_driver = "net_af_xdp",
		.sports = sports,
		.n_sports = 2,
		.size = 64,
		.lcores = 2,
		.duration_s = 5.0,
		.sent = 12000,
		.received = 11000,
		.lost = 1000,
		.timeouts = 1000,
		.tsc = tsc_fixed,
		.port = {.present = true},
		.flows = f,
		.n_flows = 12,
	};

	(void)state;
	for (unsigned i = 0; i < 12; i++) {
		f[i] = (struct report_flow){
			.flow = i,
			.lcore = i / 6,
			.sport = (uint16_t)(50000 + i),
			.count = 1000,
			.lost = 0,
			.p50 = 10000 + 37 * i,
			.p99 = 14000 + 101 * i,
			.max = 30000 + 1000 * i,
		};
	}
	f[4].p50 = 25000;
	f[4].p99 = 32000;
	f[7] = (struct report_flow){
		.flow = 7, .lcore = 1, .sport = 50007, .lost = 1000};
	r.rtt = H(30, 11000, 10000, 4000);
	golden_probe(&r, "probe_flows");
}

/* Nothing came back usable: no rtt histogram, too-short answers (the
 * "not usable" line), no meta, no port; a proto without T2/T3. */
static void
test_probe_empty(void **state)
{
	struct report_probe r = {
		.proto = "stamp",
		.backend = "kernel",
		.target = "198.18.0.2:862",
		.size = 44,
		.lcores = 1,
		.duration_s = 1.5,
		.sent = 10,
		.lost = 10,
		.timeouts = 10,
		.rx_ignored = 10,
		.resets = 1,
		.tsc = {.hz = 3000000000, .invariant = true},
	};

	(void)state;
	r.ignored[REPORT_IGN_TOO_SHORT] = 10;
	golden_probe(&r, "probe_empty");
}

static const struct report_counter refl_counters[] = {
	{"rx.frames", 20010},	  {"answered.stamp", 20000},
	{"answered.sockperf", 0}, {"dropped.checksum", 7},
	{"dropped.other", 3},	  {"rx.l4_partial", 11},
};

/* A reflector with three workers (one answered nothing), a queue without
 * per-queue stats, turnaround, NIC timestamps, a failsafe path with no
 * driver counter moved. */
static void
test_reflect_workers(void **state)
{
	struct report_meta meta = meta_fixed();
	static const struct report_counter by0[] = {{"stamp", 12000},
						    {"sockperf", 0}};
	static const struct report_counter by1[] = {{"stamp", 8000}};
	struct report_reflect_worker w[3] = {
		{.lcore = 1,
		 .queue = 0,
		 .rx = 12005,
		 .tx = 12000,
		 .answered = 12000,
		 .answered_by = by0,
		 .n_answered_by = 2,
		 .ignored = 5,
		 .have_queue_stats = true,
		 .queue_rx_packets = 12005,
		 .queue_rx_errors = 0},
		{.lcore = 2,
		 .queue = 1,
		 .rx = 8005,
		 .tx = 7999,
		 .answered = 8000,
		 .answered_by = by1,
		 .n_answered_by = 1,
		 .ignored = 5,
		 .tx_dropped = 1,
		 .have_queue_stats = false},
		{.lcore = 3,
		 .queue = 2,
		 .have_queue_stats = true,
		 .queue_rx_packets = 0,
		 .queue_rx_errors = 2},
	};
	struct report_hw hw = {
		.stamped = 20000,
		.clock_samples = 0,
		.nic_hz = 0,
		.pair_gap_ns = 0,
	};
	struct report_reflect r = {
		.backend = "dpdk",
		.addr = "198.18.0.2",
		.duration_s = 12.5,
		.counters = refl_counters,
		.n_counters = 6,
		.tsc = tsc_fixed,
		.meta = &meta,
		.port =
			{
				.present = true,
				.delta = xstats_delta,
				.n_delta = 1,
				.path = &path_none_moved,
			},
		.hw = &hw,
		.workers = w,
		.n_workers = 3,
	};

	(void)state;
	meta.command = NULL;
	r.turnaround = H(40, 20000, 3000, 2000);
	hw.rx_delay = H(41, 20000, 700, 200);
	golden_reflect(&r, "reflect_workers");
}

/*
 * STAMP one-way delays: a valid run (both clocks synchronised,
 * chrony here, the bound well below both medians, forward clearly the
 * slower), and a refused one (S clear, this host unsynchronised, reverse
 * delays below zero, the bound above the figures).
 */
static struct report_probe
oneway_probe(struct report_meta *meta)
{
	static const uint16_t sports[] = {40000};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "dpdk",
		.target = "198.18.0.2:862",
		.port_driver = "net_af_xdp",
		.sports = sports,
		.n_sports = 1,
		.size = 44,
		.lcores = 1,
		.duration_s = 5.0,
		.sent = 5000,
		.received = 5000,
		.warmup = 10,
		.timeout_ns = 1000000000,
		.meta = meta,
		.tsc = tsc_fixed,
	};

	return r;
}

static void
test_probe_one_way(void **state)
{
	struct report_meta meta = meta_fixed();
	struct report_probe r = oneway_probe(&meta);
	struct report_one_way ow = {
		.answers = 5000,
		.fwd_min_ns = 2100000,
		.rev_min_ns = 4100,
		.refl_ee_max_ns = 1200,
		.map_err_max_ns = 310,
		.map_resamples = 50,
		.map_residual_max_ns = 240,
		.map_slew_max_ppm = 3.25,
		.local_synced = true,
		.local_source = "chrony",
		.local_sync_err_ns = 2121,
		.local_reads = 3,
		.kernel_read = true,
		.kernel_synced = true,
		.kernel_status = 0x2001,
		.kernel_esterror_ns = 1000,
		.kernel_maxerror_ns = 1500000,
		.chrony = true,
		.chrony_ref = "PHC0",
		.chrony_stratum = 1,
		.chrony_synced = true,
		.chrony_phc = true,
		.chrony_offset_s = -1.2e-7,
		.chrony_root_delay_s = 1e-9,
		.chrony_root_dispersion_s = 2e-6,
		.chrony_bound_ns = 2121,
	};

	(void)state;
	r.rtt = H(50, 5000, 2110000, 3000);
	r.network_rtt = H(51, 5000, 2106000, 3000);
	r.turnaround = H(52, 5000, 3000, 1000);
	ow.forward = H(53, 5000, 2100000, 2000);
	ow.reverse = H(54, 5000, 4100, 2000);
	report_one_way_judge(&ow);
	assert_true(ow.valid);
	assert_int_equal(ow.bound_ns, 1200 + 310 + 2121);
	r.one_way = &ow;
	golden_probe(&r, "probe_oneway");

	/* The same run with this host on systemd-timesyncd: synchronised,
	 * adjtimex esterror 0, no chrony. Not a zero error: unknown. */
	ow.chrony = false;
	ow.local_source = "kernel";
	ow.local_sync_unknown = true;
	ow.local_sync_err_ns = 0;
	ow.kernel_esterror_ns = 0;
	report_one_way_judge(&ow);
	assert_false(ow.valid);
	assert_false(ow.bound_known);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_LOCAL_ERR_UNKNOWN);
	golden_probe(&r, "probe_oneway_unknown");
	ow.chrony = true;
	ow.local_source = "chrony";
	ow.local_sync_unknown = false;
	ow.local_sync_err_ns = 2121;
	ow.kernel_esterror_ns = 1000;

	/* Refused: S clear, STA_UNSYNC at 2 of the 3 reads, no chrony,
	 * reverse down to -12 us: the bound is unknown (not +-16 ms, which
	 * leaves out this host's sync error). */
	ow.refl_s_clear = 5000;
	ow.local_synced = false;
	ow.local_unsynced_reads = 2;
	ow.local_source = "none";
	ow.local_sync_err_ns = 0;
	ow.kernel_synced = false;
	ow.kernel_status = 0x40;
	ow.kernel_esterror_ns = 16000000000ull;
	ow.kernel_maxerror_ns = 16000000000ull;
	ow.chrony = false;
	ow.rev_nonpos = 1234;
	ow.rev_min_ns = -12000;
	ow.refl_ee_max_ns = 16000000;
	report_one_way_judge(&ow);
	assert_false(ow.valid);
	assert_int_equal(ow.disagree_ns, 12000);
	assert_int_equal(ow.reasons, 1u << REPORT_OW_REFLECTOR_UNSYNC |
					     1u << REPORT_OW_LOCAL_UNSYNC |
					     1u << REPORT_OW_NEGATIVE);
	assert_false(ow.bound_known);
	assert_int_equal(ow.bound_why, REPORT_OW_LOCAL_UNSYNC);
	golden_probe(&r, "probe_oneway_refused");
}

/* The reflector's report with its STAMP clock. */
static void
test_reflect_clock(void **state)
{
	struct report_meta meta = meta_fixed();
	struct report_clock clk = {
		.mapping_error_max_ns = 43,
		.residual_max_ns = 21,
		.resamples = 120,
		.steps = 1,
		.step_max_ns = -250000,
		.slew_max_ppm = 0.75,
		.synchronised = true,
		.source = "chrony",
		.sync_error_ns = 2121,
		.sync_reads = 2,
		.error_estimate = 0x8000 | 5 << 8 | 139,
		.error_estimate_ns = 1035.6,
	};
	struct report_reflect r = {
		.backend = "dpdk",
		.addr = "198.18.0.2/24",
		.duration_s = 12.0,
		.counters = refl_counters,
		.n_counters = 6,
		.tsc = tsc_fixed,
		.meta = &meta,
		.clock = &clk,
	};

	(void)state;
	r.turnaround = H(60, 1000, 3000, 1000);
	golden_reflect(&r, "reflect_clock");
}

/* A kernel reflector, one worker without lcore or queue, every counter
 * zero, interrupted, no turnaround. */
static void
test_reflect_idle(void **state)
{
	static const struct report_counter zero[] = {{"rx.frames", 0},
						     {"answered.stamp", 0}};
	struct report_reflect_worker w = {.lcore = -1, .queue = -1};
	struct report_reflect r = {
		.backend = "kernel",
		.addr = "[2001:2::2]:862",
		.duration_s = 0.25,
		.interrupted = true,
		.counters = zero,
		.n_counters = 2,
		.tsc = {.hz = 2000000000, .invariant = true},
		.workers = &w,
		.n_workers = 1,
	};

	(void)state;
	golden_reflect(&r, "reflect_idle");
}

/* Upper edges of a stall's length, as lib/timing's. */
static const uint64_t stall_upper[REPORT_STALL_BUCKETS] = {
	2000,	   5000,      10000,	  20000,      50000,
	100000,	   200000,    500000,	  1000000,    2000000,
	5000000,   10000000,  20000000,	  50000000,   100000000,
	200000000, 500000000, 1000000000, UINT64_MAX,
};

/*
 * Stalls: both sides known (the stall TLV), host-affected
 * probes on either side and both, the tail above p99/p99.9, the verdict,
 * the percentiles without them; rtt is the four series merged, as app/
 * makes it.
 */
static void
test_probe_stalls(void **state)
{
	struct report_meta meta = meta_fixed();
	struct histogram *rtt = histogram_create();
	struct report_stalls st = {
		.threshold_ns = 5000,
		.prober = {.known = true,
			   .count = 1398,
			   .total_ns = 5331000000ull,
			   .longest_ns = 201013000,
			   .have_hist = true,
			   .hist = {0, 0, 698, 330, 121, 14, 7, 7, 4, 8, 21, 35,
				    65, 74, 4, 9, 1, 0, 0},
			   .hist_upper_ns = stall_upper,
			   .have_host = true,
			   .steal_ns = 10000000,
			   .other_runnable = 14,
			   .host_scans = 4},
		.reflector = {.known = true,
			      .count = 2363,
			      .total_ns = 5702000000ull,
			      .longest_ns = 152066000},
		.tlv = true,
		.tlv_answers = 10045,
		.tlv_unknown = 0,
	};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "kernel",
		.target = "198.18.0.2:862",
		.size = 64,
		.lcores = 1,
		.duration_s = 6.0,
		.sent = 10045,
		.received = 10045,
		.meta = &meta,
		.tsc = {.hz = 2100000000, .invariant = true},
		.stalls = &st,
	};

	(void)state;
	meta.interface = NULL;
	meta.dpdk_version = NULL;
	meta.nic_driver = NULL;
	meta.csum_rx = NULL;
	meta.csum_tx = NULL;
	assert_non_null(rtt);
	hists[n_hists++] = rtt;
	st.unaffected = H(40, 10000, 5000, 3000);
	st.host_prober = H(41, 30, 100000, 900000);
	st.host_reflector = H(42, 10, 50000, 200000);
	st.host_both = H(43, 5, 20000000, 100000000);
	histogram_merge(rtt, st.unaffected);
	histogram_merge(rtt, st.host_prober);
	histogram_merge(rtt, st.host_reflector);
	histogram_merge(rtt, st.host_both);
	r.rtt = rtt;
	golden_probe(&r, "probe_stalls");
	/* Against a peer that is not latprobe: only this host's side. */
	st.reflector = (struct report_stall_side){.known = false};
	st.tlv_answers = 0;
	st.tlv_unknown = 10045;
	golden_probe(&r, "probe_stalls_peer");
}

/*
 * The verdict withheld: 500 probes of which 6 are not host-affected (too
 * few for p99.9 in either series), then 12,000 whose host-affected ones
 * are spread like the others (the tail's share is no higher than all
 * probes'). Percentiles without enough samples show "-".
 */
static void
test_probe_stalls_no_verdict(void **state)
{
	struct report_meta meta = meta_fixed();
	struct histogram *rtt = histogram_create();
	struct report_stalls st = {
		.threshold_ns = 5000,
		.prober = {.known = true,
			   .count = 494,
			   .total_ns = 2000000000ull,
			   .longest_ns = 20000000},
		.reflector = {.known = false},
	};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "kernel",
		.target = "198.18.0.2:862",
		.size = 64,
		.lcores = 1,
		.duration_s = 5.0,
		.sent = 500,
		.received = 500,
		.meta = &meta,
		.tsc = {.hz = 2100000000, .invariant = true},
		.stalls = &st,
	};

	(void)state;
	meta.interface = NULL;
	meta.dpdk_version = NULL;
	meta.nic_driver = NULL;
	meta.csum_rx = NULL;
	meta.csum_tx = NULL;
	assert_non_null(rtt);
	hists[n_hists++] = rtt;
	st.unaffected = H(50, 6, 5000, 3000);
	st.host_prober = H(51, 494, 100000, 900000);
	st.host_reflector = H(52, 0, 5000, 3000);
	st.host_both = H(53, 0, 5000, 3000);
	histogram_merge(rtt, st.unaffected);
	histogram_merge(rtt, st.host_prober);
	r.rtt = rtt;
	golden_probe(&r, "probe_stalls_few");

	rtt = histogram_create();
	assert_non_null(rtt);
	hists[n_hists++] = rtt;
	st.unaffected = H(54, 10000, 5000, 3000);
	st.host_prober = H(55, 2000, 5000, 3000);
	st.prober.count = 2000;
	histogram_merge(rtt, st.unaffected);
	histogram_merge(rtt, st.host_prober);
	r.rtt = rtt;
	r.sent = r.received = 12000;
	golden_probe(&r, "probe_stalls_even");
}

static void
test_reflect_stalls(void **state)
{
	static const struct report_counter c[] = {{"rx.frames", 10045},
						  {"answered.stamp", 10045}};
	struct report_reflect_stalls st = {
		.threshold_ns = 5000,
		.reflector = {.known = true,
			      .count = 3446,
			      .total_ns = 4272000000ull,
			      .longest_ns = 167152000,
			      .have_hist = true,
			      .hist = {0, 0, 1189, 1034, 252, 50, 7, 14, 11, 35,
				       149, 128, 82, 12, 0, 8, 0, 0, 0},
			      .hist_upper_ns = stall_upper,
			      .have_host = true,
			      .steal_ns = 160000000,
			      .other_runnable = 9,
			      .host_scans = 4},
	};
	struct report_reflect r = {
		.backend = "kernel",
		.addr = "198.18.0.2:862",
		.duration_s = 6.0,
		.counters = c,
		.n_counters = 2,
		.tsc = {.hz = 2100000000, .invariant = true},
		.stalls = &st,
	};

	(void)state;
	golden_reflect(&r, "reflect_stalls");
}

/*
 * A run over a link that went down for 5.5 s and came back, then
 * a removal of the device: port.link_events, link_down_s, removed_at_s,
 * probes.lost_link_down and lost_path, intervals marked with the link.
 */
static void
test_probe_link(void **state)
{
	static const struct report_port_event ev[] = {
		{.t_s = 10.25, .kind = "link_down"},
		{.t_s = 15.75, .kind = "link_up", .speed_mbps = 10000},
		{.t_s = 30.5, .kind = "removed"},
	};
	const struct report_port_events pe = {
		.ev = ev,
		.n = 3,
		.downs = 1,
		.ups = 1,
		.down_s = 5.5,
		.link_up_at_end = true,
		.detection = "interrupt",
		.removed = true,
		.removed_at_s = 30.5,
	};
	struct report_iv_row iv0[1] = {
		{.target = "198.18.0.2:862",
		 .sent = 1000,
		 .received = 250,
		 .lost = 750,
		 .rtt = {250, 21000, 30000, 250000}},
	};
	struct report_iv_row iv1[1] = {
		{.target = "198.18.0.2:862",
		 .sent = 1000,
		 .received = 1000,
		 .rtt = {1000, 20000, 29000, 40000}},
	};
	struct report_interval ivs[4] = {
		{.t_s = 11.0,
		 .len_s = 1.0,
		 .rows = iv0,
		 .n_rows = 1,
		 .link_downs = 1,
		 .link_down_s = 0.75,
		 .link_down_at_end = true},
		{.t_s = 12.0, .len_s = 1.0, .rows = iv1, .n_rows = 1},
		{.t_s = 31.0,
		 .len_s = 1.0,
		 .rows = iv1,
		 .n_rows = 1,
		 .removed = true},
		{.t_s = 40.0,
		 .len_s = 1.0,
		 .rows = iv1,
		 .n_rows = 1,
		 .removed = true,
		 .attached = true},
	};
	struct report_probe r = {
		.proto = "stamp",
		.backend = "dpdk",
		.target = "198.18.0.2:862",
		.port_driver = "net_virtio",
		.size = 44,
		.lcores = 1,
		.duration_s = 30.5,
		.interrupted = true,
		.sent = 30000,
		.received = 24400,
		.lost = 5600,
		.timeouts = 5600,
		.lost_link_down = 5500,
		.interval_ns = 1000000,
		.timeout_ns = 200000000,
		.tsc = tsc_fixed,
		.port = {.present = true, .events = &pe},
		.intervals = ivs,
		.n_intervals = 2,
	};

	char line[512];
	struct mem m;

	(void)state;
	r.rtt = H(60, 24400, 20000, 5000);
	golden_probe(&r, "probe_link");
	/* The interval lines with and without the link's mark. */
	mem_open(&m);
	for (unsigned i = 0; i < 4; i++) {
		assert_true(report_iv_line(line, sizeof(line), &ivs[i],
					   ivs[i].rows) > 0);
		fprintf(m.f, "%s\n", line);
	}
	mem_check(&m, "lines_link.txt");
}

/* The reflector's side of a link flap: its port events (polled). */
static void
test_reflect_link(void **state)
{
	static const struct report_counter c[] = {{"rx.frames", 100},
						  {"answered.stamp", 100}};
	static const struct report_port_event ev[] = {
		{.t_s = 2.0, .kind = "link_down"},
		{.t_s = 3.0, .kind = "link_up"},
	};
	const struct report_port_events pe = {
		.ev = ev,
		.n = 2,
		.downs = 1,
		.ups = 1,
		.down_s = 1.0,
		.link_up_at_end = true,
		.detection = "polled",
	};
	struct report_reflect_worker w = {.lcore = 0, .queue = 0};
	struct report_reflect r = {
		.backend = "dpdk",
		.addr = "198.18.0.2/24",
		.duration_s = 5.0,
		.counters = c,
		.n_counters = 2,
		.tsc = {.hz = 2000000000, .invariant = true},
		.port = {.present = true, .events = &pe},
		.workers = &w,
		.n_workers = 1,
	};

	(void)state;
	golden_reflect(&r, "reflect_link");
}

/* The one-line writers: live progress, live path, interval lines, the
 * ns formatter at its unit edges, the samples CSV. */
static void
test_lines(void **state)
{
	static const uint64_t ns[] = {0,
				      999,
				      1000,
				      999994,
				      999995,
				      999999499,
				      999999500,
				      1234567890,
				      999999499999ull,
				      999999500000ull,
				      UINT64_MAX};
	struct report_iv_row rows[2] = {
		{.target = "198.18.0.2:862",
		 .sent = 100,
		 .received = 99,
		 .lost = 1,
		 .rtt = {99, 20000, 31000, 900000}},
		{.target = NULL,
		 .sent = 5,
		 .lost = 5,
		 .has_intended = true,
		 .intended = {0, 0, 0, 0}},
	};
	struct report_interval iv = {
		.t_s = 3.5, .len_s = 0.5, .rows = rows, .n_rows = 2};
	static const struct report_sample samples[] = {
		{1, 0, 1000, 21000, 16000, true, 9000, 7000},
		{2, 1, 2000, 22000, -1, false, 0, 0},
		{3, 0, 3000, 23000, 18000, true, -2500, 20500},
	};
	char line[512], small[24];
	struct mem m;

	(void)state;
	mem_open(&m);
	for (unsigned i = 0; i < sizeof(ns) / sizeof(ns[0]); i++)
		fprintf(m.f, "fmt_ns %s\n", report_fmt_ns(ns[i], line, 32));
	assert_true(report_live_line(line, sizeof(line), 12.0, 1000, 999, 1,
				     H(50, 999, 3000, 1000)) > 0);
	fprintf(m.f, "%s\n", line);
	assert_true(report_live_line(line, sizeof(line), 13.0, 0, 0, 0, NULL) >
		    0);
	fprintf(m.f, "%s\n", line);
	assert_true(report_live_line(small, sizeof(small), 14.0, 1000, 999, 1,
				     hists[n_hists - 1]) > 0);
	fprintf(m.f, "%s\n", small);
	assert_true(report_live_path(line, sizeof(line), &path_netvsc) > 0);
	fprintf(m.f, "%s\n", line);
	assert_true(report_live_path(line, sizeof(line), &path_mlx) > 0);
	fprintf(m.f, "%s\n", line);
	assert_true(report_live_path(line, sizeof(line), &path_none_moved) > 0);
	fprintf(m.f, "%s\n", line);
	assert_true(report_live_path(small, sizeof(small), &path_mlx) > 0);
	fprintf(m.f, "%s\n", small);
	for (unsigned i = 0; i < 2; i++) {
		assert_true(report_iv_line(line, sizeof(line), &iv, &rows[i]) >
			    0);
		fprintf(m.f, "%s\n", line);
	}
	assert_int_equal(report_samples_header(m.f), 0);
	assert_int_equal(report_samples_write(m.f, samples, 3), 0);
	mem_check(&m, "lines.txt");
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_probe_single, teardown),
		cmocka_unit_test_teardown(test_probe_multi, teardown),
		cmocka_unit_test_teardown(test_probe_open, teardown),
		cmocka_unit_test_teardown(test_probe_flows, teardown),
		cmocka_unit_test_teardown(test_probe_empty, teardown),
		cmocka_unit_test_teardown(test_probe_one_way, teardown),
		cmocka_unit_test_teardown(test_reflect_workers, teardown),
		cmocka_unit_test_teardown(test_reflect_clock, teardown),
		cmocka_unit_test_teardown(test_reflect_idle, teardown),
		cmocka_unit_test_teardown(test_probe_stalls, teardown),
		cmocka_unit_test_teardown(test_probe_stalls_no_verdict,
					  teardown),
		cmocka_unit_test_teardown(test_reflect_stalls, teardown),
		cmocka_unit_test_teardown(test_lines, teardown),
		cmocka_unit_test_teardown(test_probe_link, teardown),
		cmocka_unit_test_teardown(test_reflect_link, teardown),
	};

	if (argc != 2) {
		fprintf(stderr, "usage: %s GOLDEN_DIR\n", argv[0]);
		return 2;
	}
	golden_dir = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
