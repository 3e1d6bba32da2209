/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_version.h>

#include "app.h"
#include "capture.h"
#include "cli.h"
#include "hlog_out.h"
#include "oneway.h"
#include "latprobe/loopback.h"
#include "latprobe/port.h"
#include "latprobe/prober.h"
#include "run.h"
#include "latprobe/sockio.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"
#include "metrics_srv.h"
#include "pinglist.h"

/* How long a target that stopped answering rests between tries. */
#define PROBE_REST_NS 1000000000ull

/* Long-only option codes of probe (h6's range: 0x581-0x5bf). */
enum {
	PROBE_OPT_TARGETS = 0x581,
	PROBE_OPT_FOREVER,	   /* 0x582 */
	PROBE_OPT_INTERVAL_REPORT, /* 0x583 */
};

/* Long-only option codes of probe's flows (h2's range: 0x610-0x61f). */
enum {
	PROBE_OPT_FLOWS = 0x610,
	PROBE_OPT_NEW_FLOW_EVERY, /* 0x611 */
	PROBE_OPT_FIRST_PACKET,	  /* 0x612 */
};

/* --flows: at most this many per lcore (about 2 KiB each). */
#define PROBE_MAX_FLOWS		 4096
/* --first-packet: --new-flow-every this. */
#define PROBE_FIRST_PACKET_EVERY 10
/* Open loop (h1's range: 0x600-0x60f). */
enum {
	PROBE_OPT_RATE = 0x600,
	PROBE_OPT_SPACING,    /* 0x601 */
	PROBE_OPT_SEED,	      /* 0x602 */
	PROBE_OPT_MAX_BEHIND, /* 0x603 */
};

/* One-way delays (h28's range: 0x628-0x62f). */
enum {
	PROBE_OPT_SAME_CLOCK = 0x628,
};

/* --max-behind when not given: a send later than this is a late send. */
#define PROBE_MAX_BEHIND_NS 10000ull

/* --interval-report keeps this many intervals for the JSON (the oldest
 * are let go): a run of any length holds bounded memory. */
#define PROBE_IV_KEEP 1000

/* One target of --targets FILE or of several TARGET arguments. */
struct probe_target {
	uint32_t addr;
	uint16_t dport;
	const struct probe_proto *proto;
	unsigned size; /* -l, or the proto's minimum */
	char label[PINGLIST_LABEL_MAX];
	char name[CLI_IP_STRLEN + 8]; /* "A.B.C.D:PORT", "[X:X::X]:PORT" */
	struct codec_mac mac;
	struct sockio *sock; /* kernel backend: its own socket */
	bool skip;	     /* ARP did not resolve it: not probed */
};

struct probe_opts {
	struct app_common_opts co;
	bool same_clock; /* --same-clock: the reflector reads our clock */
	/* Several targets (--targets, or more than one TARGET): each its own
	 * worker, round robin per lcore. Else tg[0] is the target below. */
	bool multi;
	const char *targets_file;
	struct probe_target tg[PINGLIST_MAX];
	unsigned n_tg;
	bool have_l;
	uint64_t iv_report_ns; /* --interval-report; 0 = off */
	char **args;	       /* the TARGET arguments, again on SIGHUP */
	int n_args;
	struct codec_ip target; /* IPv4 or IPv6: the family of the probes */
	bool have_target, have_port, have_peer_mac;
	uint16_t dport, sport;
	bool have_sport; /* --sport given: that port or an error */
	struct codec_mac peer_mac;
	const struct probe_proto *proto;
	uint64_t count; /* 0 = until -t */
	uint64_t size;
	uint64_t warmup;
	uint64_t interval_ns;
	uint64_t timeout_ns;
	uint64_t arp_timeout_ns;
	unsigned n_buckets;
	uint64_t edges_ns[CLI_MAX_EDGES];
	unsigned n_edges;
	const char *samples, *pcap, *target_str;
	bool loopback;
	uint16_t vlan;		 /* 0 = untagged */
	uint32_t flows;		 /* --flows; 0 = one flow per lcore */
	uint64_t new_flow_every; /* --new-flow-every; 0 = off */
	/* Open loop: --rate per lcore (0 = closed loop), --spacing, --seed,
	 * --max-behind; the window's slots per lcore. */
	uint64_t rate_pps;
	enum prober_spacing spacing;
	uint64_t seed;
	uint64_t max_behind_ns;
	size_t window_slots;
};

/* clang-format off: the help text is laid out as it prints. */
static void
probe_usage(FILE *f)
{
	fputs("usage: latprobe probe [EAL options] -- --addr A.B.C.D/LEN "
	      "[options] TARGET[:PORT]...\n"
	      "       (IPv6: --addr X:X::X/LEN ... [X:X::X]:PORT or X:X::X)\n"
	      "       latprobe probe --backend kernel [options] "
	      "TARGET[:PORT]...\n"
	      "       latprobe probe ... --targets FILE [TARGET[:PORT]...]\n"
	      "\n"
	      "Closed-loop ping-pong: one probe in flight per lcore, TSC read "
	      "right before\n"
	      "tx and right after the rx burst that brings the answer, on the "
	      "same lcore.\n"
	      "Every latency goes into a per-lcore histogram; the report "
	      "merges them.\n"
	      "\n"
	      "  --addr A.B.C.D/LEN   our IPv4 address on the DPDK port "
	      "(required; with\n"
	      "                       --backend kernel: the address to bind, "
	      "optional);\n"
	      "                       X:X::X/LEN for an IPv6 TARGET (both may "
	      "be given)\n"
	      "  --proto P            stamp (default, UDP 862), sockperf "
	      "(11111),\n"
	      "                       udp-echo (7), icmp, or tcp-syn (80: SYN "
	      "to\n"
	      "                       SYN-ACK or RST of any listener, then "
	      "RST)\n"
	      "  -n COUNT             probes to measure (default 10000; with "
	      "-t: no limit)\n"
	      "  -t DURATION          stop after this long, warm-up included "
	      "(e.g. 10,\n"
	      "                       1.5s, 500ms); a probe in flight then is "
	      "not counted\n"
	      "  -l SIZE              probe payload bytes, 'k' suffix ok "
	      "(default: the\n"
	      "                       protocol's minimum, 44 for STAMP); above "
	      "the MTU\n"
	      "                       probes go as IPv4 fragments, up to "
	      "65507\n"
	      "  -w COUNT             warm-up probes, sent first and not "
	      "recorded (default 100)\n"
	      "  -i INTERVAL          time between probe starts (default 0 = "
	      "back to back;\n"
	      "                       PsPing's default is 1s); e.g. 0.001, "
	      "100us\n"
	      "  -h N | E1,E2,...     bucket table: N equal buckets between "
	      "min and max, or\n"
	      "                       upper edges in microseconds (default: "
	      "about 20 rows\n"
	      "                       spaced for the data, from p0.1 to max)\n"
	      "  -t 0, --forever      run until SIGINT/SIGTERM (with "
	      "--interval-report,\n"
	      "                       --metrics: memory stays bounded)\n"
	      "  --interval-report T  each T (100ms..1h): one line per target "
	      "on stdout\n"
	      "                       (sent, lost, p50, p99, max of that "
	      "interval); JSON\n"
	      "                       \"intervals\" keeps the last 1000\n",
	      f);
	fputs("  --rate PPS           open loop: PPS probes a second per "
	      "lcore, each sent at\n"
	      "                       its scheduled time whatever the answers "
	      "do (many in\n"
	      "                       flight); adds intended_latency_ns "
	      "(from the scheduled\n"
	      "                       time) and sender.*; not with -i\n"
	      "  --spacing S          open loop: constant (default) or poisson "
	      "(exponential\n"
	      "                       gaps, reproducible by --seed)\n"
	      "  --seed N             poisson spacing's seed (default 1; the "
	      "JSON says it)\n"
	      "  --max-behind T       open loop: a send later than T behind "
	      "its "
	      "schedule\n"
	      "                       counts in sender.late_sends (default "
	      "10us)\n"
	      "  --timeout T          a probe not answered by then is lost "
	      "(default 200ms);\n"
	      "                       a lost probe delays the next -i start "
	      "to its timeout\n"
	      "  --targets FILE       a pinglist, one target a line: "
	      "ADDR[:PORT] [proto=P]\n"
	      "                       [label=L], '#' comments; with TARGETs "
	      "too. Targets take\n"
	      "                       turns on each lcore (spread over "
	      "lcores), -n per target,\n"
	      "                       one row each in the report\n"
	      "  --peer-mac MAC       skip ARP (IPv6: neighbour discovery) and "
	      "send to this MAC\n"
	      "  --arp-timeout T      give up resolving the peer after T "
	      "(default 3s)\n"
	      "  --sport N            first source port (default 40000); each "
	      "lcore gets one\n"
	      "                       from there whose answers RSS brings back "
	      "to its own\n"
	      "                       queue (N + index without RSS); "
	      "--backend kernel\n"
	      "                       without --sport: the first free port "
	      "from 40000 up\n",
	      f);
	fputs("  --flows N            rotate each lcore's probes over N "
	      "5-tuples (source\n"
	      "                       ports RSS brings back to it; 1..4096): "
	      "a row per\n"
	      "                       flow (worst p99 first, JSON \"flows\") "
	      "and whether\n"
	      "                       the flows differ more than their own "
	      "spread\n"
	      "  --new-flow-every K   every K probes a source port never used "
	      "before; the\n"
	      "                       first probe of each new tuple goes to "
	      "JSON\n"
	      "                       first_packet_rtt_ns, not into the RTT "
	      "(steady state)\n"
	      "  --first-packet       --new-flow-every 10\n",
	      f);
	fputs("  --port-id N          DPDK port to use (default 0)\n"
	      "  --promisc            put the port in promiscuous mode "
	      "(default: off)\n"
	      "  --hw-timestamps      NIC rx timestamps too (mlx5): the "
	      "NIC-clock RTT and\n"
	      "                       the TSC - NIC difference next to the "
	      "TSC figures;\n"
	      "                       exit 4 on a port without them\n"
	      "  --live-path          after each live line, the port's path "
	      "that second\n"
	      "                       (VF vs synthetic packets, or the "
	      "driver's counters)\n"
	      "  --vlan ID            802.1Q tag 1..4094 on probes and ARP; "
	      "untagged\n"
	      "                       answers are ignored\n"
	      "  --json FILE          JSON report ('-': stdout, the text "
	      "report to stderr)\n"
	      "  --samples FILE       every probe as CSV: "
	      "seq,lcore,t1_ns,rtt_ns,\n"
	      "                       network_rtt_ns,forward_ns,reverse_ns "
	      "(signed one-way)\n"
	      "  --same-clock         STAMP one-way delays: the reflector "
	      "reads this host's\n"
	      "                       clock (namespaces, processes of one "
	      "host): sync errors\n"
	      "                       cancel, the bound is both mappings' "
	      "errors\n",
	      f);
	fputs("  --hlog FILE          HdrHistogram interval log (Tag=rtt, "
	      "network_rtt,\n"
	      "                       turnaround, intended with --rate, "
	      "forward,\n"
	      "                       reverse; ns) for HdrHistogram's tools\n"
	      "  --hlog-interval T    its interval (default 1s, 10ms..1h)\n"
	      "  --metrics ADDR[:PORT]\n"
	      "                       serve Prometheus metrics on "
	      "http://ADDR:PORT/metrics\n"
	      "                       (counters and RTT histograms per "
	      "target; off by default;\n"
	      "                       no PORT: 9863, or the first free one "
	      "above)\n"
	      "  --pcap FILE          every probe and answer as pcapng (first "
	      "256 bytes),\n"
	      "                       TSC timestamps; copies taken outside "
	      "T1..T4\n"
	      "  --calibrate T        TSC calibration window (default 250ms)\n"
	      "  -q, --quiet          no live line on stderr\n"
	      "  --no-doctor          no one-line host check (latprobe doctor) "
	      "at start\n"
	      "  --loopback           answer our own probes in this process: "
	      "for ports\n"
	      "                       whose tx comes back on rx (net_ring, "
	      "--profile ring)\n"
	      "  --backend kernel     kernel UDP sockets instead of DPDK, "
	      "busy-polling\n"
	      "                       (stamp, sockperf, udp-echo; no EAL "
	      "options)\n"
	      "  --busy-poll-us N     kernel backend: SO_BUSY_POLL on the "
	      "socket (and\n"
	      "                       SO_PREFER_BUSY_POLL where allowed)\n"
	      "  --auth-key FILE      STAMP authenticated mode (RFC 8762 "
	      "4.4): FILE holds\n"
	      "                       the HMAC key as hex digits (1-64 bytes); "
	      "probes are\n"
	      "                       112+ bytes, answers that do not verify "
	      "are not counted\n"
	      "\n"
	      "examples:\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          -n 10000 -h 20 198.18.0.2\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          -l 8k -n 10000 -h 100 198.18.0.2          (PsPing's "
	      "-l 8k -n 10000 -h 100)\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          -t 10 --json out.json 198.18.0.2\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          --proto tcp-syn -i 10ms -t 60 198.18.0.2:443\n"
	      "  latprobe probe --profile veth-afxdp-probe -- --addr "
	      "198.18.0.1/24 \\\n"
	      "          --flows 8 -n 8000 198.18.0.2\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          --rate 20000 -t 2 --json out.json 198.18.0.2\n"
	      "  latprobe probe --profile memif-client -- --addr 198.18.0.1/24 "
	      "\\\n"
	      "          --same-clock -n 2000 198.18.0.2\n"
	      "  latprobe probe --backend kernel --proto sockperf -l 64 -n "
	      "10000 198.18.0.2\n"
	      "\n"
	      "exit codes: 0 ok, 1 runtime error, 2 usage, 3 peer unreachable "
	      "(no ARP),\n"
	      "            4 EAL/port set-up failed, 5 all probes lost, 6 TSC "
	      "unusable\n",
	      f);
}
/* clang-format on */

struct pinglist_bad {
	const char *file;
};

static void
pinglist_warn(void *arg, unsigned line, const char *why)
{
	const struct pinglist_bad *b = arg;

	app_warn("--targets %s:%u: %s; line skipped", b->file, line, why);
}

/* One target into o->tg (a duplicate is skipped); 0, or -1 (printed). */
static int
target_add(struct probe_opts *o, uint32_t addr, bool has_port, uint16_t port,
	   const char *proto, const char *label, const char *where)
{
	struct probe_target *t = &o->tg[o->n_tg];
	char ip[16];

	if (o->n_tg >= PINGLIST_MAX) {
		app_warn("%s: more than %u targets; skipped", where,
			 PINGLIST_MAX);
		return 0;
	}
	memset(t, 0, sizeof(*t));
	t->proto = proto[0] != '\0' ? probe_proto_find(proto) : o->proto;
	if (t->proto == NULL) {
		app_warn("%s: unknown proto '%s'; skipped", where, proto);
		return 0;
	}
	if (o->co.kernel && !t->proto->udp) {
		app_warn("%s: --backend kernel runs stamp, sockperf and "
			 "udp-echo, not %s; skipped",
			 where, t->proto->name);
		return 0;
	}
	if (o->co.auth_key_len != 0 && t->proto != &probe_proto_stamp) {
		app_warn("%s: --auth-key applies to stamp only, not %s; "
			 "skipped",
			 where, t->proto->name);
		return 0;
	}
	t->addr = addr;
	t->dport = has_port ? port : t->proto->default_port;
	t->size = o->have_l		    ? (unsigned)o->size
		  : o->co.auth_key_len != 0 ? STAMP_AUTH_BASE_LEN
					    : t->proto->min_size;
	if (t->size < t->proto->min_size ||
	    (o->have_l && t->proto == &probe_proto_tcp_syn)) {
		app_warn("%s: -l %u does not fit %s; skipped", where, t->size,
			 t->proto->name);
		return 0;
	}
	snprintf(t->label, sizeof(t->label), "%s", label);
	cli_format_ipv4(addr, ip);
	/* ICMP has no port: the address alone names it. */
	if (t->proto == &probe_proto_icmp)
		snprintf(t->name, sizeof(t->name), "%s", ip);
	else
		snprintf(t->name, sizeof(t->name), "%s:%u", ip, t->dport);
	for (unsigned i = 0; i < o->n_tg; i++) {
		if (o->tg[i].addr == t->addr && o->tg[i].dport == t->dport &&
		    o->tg[i].proto == t->proto) {
			app_warn("%s: %s %s given twice; skipped", where,
				 t->name, t->proto->name);
			return 0;
		}
	}
	o->n_tg++;
	return 0;
}

/* The TARGET arguments, then --targets FILE (again on SIGHUP: reload). 0
 * or -1 (printed). */
static int
probe_targets_load(struct probe_opts *o, int n_args, char **args, bool reload)
{
	struct pinglist_entry *e;
	struct pinglist_bad bad;
	unsigned n, n_bad;
	char *text = NULL, where[320];
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < n_args; i++) {
		uint32_t addr;
		uint16_t port;
		bool has_port;

		struct codec_ip ip;

		if (cli_parse_target_ip(args[i], &ip, &port, &has_port))
			return app_opt_bad("TARGET",
					   "A.B.C.D[:PORT] or [X:X::X][:PORT]",
					   args[i]);
		snprintf(where, sizeof(where), "TARGET %s", args[i]);
		if (has_port && port == 0)
			return app_opt_bad("TARGET", "A.B.C.D[:PORT]", args[i]);
		if (ip.family == 6) {
			/* IPv6: one target, the command line's (several
			 * targets and --targets are IPv4 for now). */
			if (n_args != 1 || o->targets_file != NULL || reload) {
				app_err("TARGET %s: an IPv6 target is probed "
					"alone (several targets and --targets "
					"take IPv4 addresses)",
					args[i]);
				return -1;
			}
			addr = 0;
		} else {
			addr = codec_ip_v4(&ip);
		}
		if (target_add(o, addr, has_port, port, "", "", where) == 0 &&
		    ip.family == 6 && o->n_tg == 1) {
			char a6[CLI_IP_STRLEN];

			cli_format_ip(&ip, a6);
			snprintf(o->tg[0].name, sizeof(o->tg[0].name),
				 "[%s]:%u", a6, o->tg[0].dport);
		}
	}
	if (o->targets_file != NULL) {
		const char *why = NULL;

		f = fopen(o->targets_file, "re");
		if (f == NULL)
			why = strerror(errno);
		text = f != NULL ? malloc(PINGLIST_FILE_MAX + 1) : NULL;
		if (text != NULL)
			len = fread(text, 1, PINGLIST_FILE_MAX + 1, f);
		if (why == NULL &&
		    (text == NULL || ferror(f) || len > PINGLIST_FILE_MAX))
			why = text == NULL ? "out of memory"
			      : ferror(f)  ? "cannot read it"
					   : "larger than 1 MiB";
		/* Nothing but blanks: a file being rewritten in place (an
		 * editor's truncate, then write), not a list. */
		if (why == NULL && reload && pinglist_blank(text, len))
			why = "empty (being rewritten? replace it atomically: "
			      "write a temporary file, then rename it)";
		if (f != NULL)
			fclose(f);
		if (why != NULL) {
			/* SIGHUP: one line, and the run goes on as it was. */
			if (reload)
				app_warn("SIGHUP: --targets %s: %s; targets "
					 "unchanged",
					 o->targets_file, why);
			else
				app_err("--targets %s: %s", o->targets_file,
					why);
			free(text);
			return -1;
		}
		e = calloc(PINGLIST_MAX, sizeof(*e));
		if (e == NULL) {
			free(text);
			app_err("out of memory");
			return -1;
		}
		bad.file = o->targets_file;
		n = pinglist_parse(text, len, e, PINGLIST_MAX, pinglist_warn,
				   &bad, &n_bad);
		for (unsigned i = 0; i < n; i++) {
			snprintf(where, sizeof(where), "--targets %s:%u",
				 o->targets_file, e[i].line);
			target_add(o, e[i].addr, e[i].has_port, e[i].port,
				   e[i].proto, e[i].label, where);
		}
		free(e);
		free(text);
	}
	if (reload)
		return 0; /* comments only: a list of none, all stop */
	if (o->n_tg == 0) {
		app_err(n_args == 0 && o->targets_file == NULL
				? "no TARGET given (e.g. 198.18.0.2 or "
				  "198.18.0.2:862, or --targets FILE)"
				: "no target left to probe");
		return -1;
	}
	o->multi = o->targets_file != NULL || o->n_tg > 1;
	/* One target: the command line's proto and size as before. */
	if (!o->multi) {
		o->proto = o->tg[0].proto;
		o->size = o->tg[0].size;
	}
	return 0;
}

/* --flows and --new-flow-every: what they cannot go with. 0 or -1
 * (printed). */
static int
probe_flows_check(struct probe_opts *o)
{
	const char *opt = o->flows > 1 ? "--flows" : "--new-flow-every";

	if (o->flows == 1)
		o->flows = 0; /* one flow per lcore: as without */
	if (o->flows == 0 && o->new_flow_every == 0)
		return 0;
	if (o->flows != 0 && o->new_flow_every != 0) {
		app_err("--flows (fixed flows, one histogram each) and "
			"--new-flow-every (a new flow every K probes) do not "
			"go "
			"together: use one");
		return -1;
	}
	if (o->multi) {
		app_err("%s takes one target", opt);
		return -1;
	}
	if (o->co.kernel) {
		app_err("%s needs the dpdk backend (the kernel backend has one "
			"socket, one source port)",
			opt);
		return -1;
	}
	if (!o->proto->udp && o->proto != &probe_proto_tcp_syn) {
		app_err("%s varies the source port: %s has none (use a UDP "
			"protocol or tcp-syn)",
			opt, o->proto->name);
		return -1;
	}
	return 0;
}

static int
probe_parse(int argc, char **argv, struct probe_opts *o)
{
	static const struct option opts[] = {
		APP_COMMON_LONGOPTS,
		{"proto", required_argument, NULL, 'p'},
		{"timeout", required_argument, NULL, 'T'},
		{"peer-mac", required_argument, NULL, 'M'},
		{"arp-timeout", required_argument, NULL, 'A'},
		{"sport", required_argument, NULL, 's'},
		{"samples", required_argument, NULL, 'S'},
		{"pcap", required_argument, NULL, 'W'},
		{"vlan", required_argument, NULL, 'V'},
		{"loopback", no_argument, NULL, 'L'},
		{"targets", required_argument, NULL, PROBE_OPT_TARGETS},
		{"forever", no_argument, NULL, PROBE_OPT_FOREVER},
		{"interval-report", required_argument, NULL,
		 PROBE_OPT_INTERVAL_REPORT},
		{"flows", required_argument, NULL, PROBE_OPT_FLOWS},
		{"new-flow-every", required_argument, NULL,
		 PROBE_OPT_NEW_FLOW_EVERY},
		{"first-packet", no_argument, NULL, PROBE_OPT_FIRST_PACKET},
		{"rate", required_argument, NULL, PROBE_OPT_RATE},
		{"spacing", required_argument, NULL, PROBE_OPT_SPACING},
		{"seed", required_argument, NULL, PROBE_OPT_SEED},
		{"max-behind", required_argument, NULL, PROBE_OPT_MAX_BEHIND},
		{"same-clock", no_argument, NULL, PROBE_OPT_SAME_CLOCK},
		{"help", no_argument, NULL, 'H'},
		{NULL, 0, NULL, 0},
	};
	bool have_n = false, have_l = false, have_i = false;
	bool have_open_opt = false;
	uint64_t v;
	int c, r;

	memset(o, 0, sizeof(*o));
	app_common_opts_init(&o->co);
	o->proto = &probe_proto_stamp;
	o->count = 10000;
	o->warmup = 100;
	o->timeout_ns = 200000000ull;
	o->arp_timeout_ns = 3000000000ull;
	o->sport = 40000;
	o->n_buckets = 0; /* no -h: the report's default table */
	o->seed = PROBER_DEFAULT_SEED;
	o->max_behind_ns = PROBE_MAX_BEHIND_NS;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:t:l:w:i:h:q", opts, NULL)) !=
	       -1) {
		switch (c) {
		case 'p':
			o->proto = probe_proto_find(optarg);
			if (o->proto == NULL)
				return app_opt_bad(
					"--proto",
					"stamp, sockperf, udp-echo, icmp or "
					"tcp-syn",
					optarg);
			break;
		case 'n':
			if (cli_parse_u64(optarg, 1, UINT64_MAX / 2, &o->count))
				return app_opt_bad("-n", "a count >= 1",
						   optarg);
			have_n = true;
			break;
		case 'l':
			/* 0 parses: the protocol's minimum is said below. */
			if (cli_parse_size(optarg, &o->size))
				return app_opt_bad("-l",
						   "a size in bytes (64, 1k)",
						   optarg);
			have_l = true;
			break;
		case 'w':
			if (cli_parse_u64(optarg, 0, 100000000, &o->warmup))
				return app_opt_bad("-w", "a probe count",
						   optarg);
			break;
		case 'i':
			if (cli_parse_duration_ns(optarg, &o->interval_ns))
				return app_opt_bad(
					"-i", "an interval (0, 0.001, 100us)",
					optarg);
			have_i = true;
			break;
		case 'h':
			r = histogram_parse_spec(optarg, &o->n_buckets,
						 o->edges_ns, CLI_MAX_EDGES,
						 &o->n_edges);
			if (r != 0) {
				app_err("-h wants a bucket count 1..%u or up "
					"to %u ascending edges in us "
					"(10,20,50), not '%s'",
					HISTOGRAM_MAX_LINEAR_BUCKETS,
					CLI_MAX_EDGES, optarg);
				return -1;
			}
			break;
		case 'T':
			if (cli_parse_duration_ns(optarg, &o->timeout_ns) ||
			    o->timeout_ns < 1000 ||
			    o->timeout_ns > 60000000000ull)
				return app_opt_bad("--timeout",
						   "a duration 1us..60s",
						   optarg);
			break;
		case 'M':
			if (codec_mac_parse(optarg, &o->peer_mac))
				return app_opt_bad("--peer-mac",
						   "aa:bb:cc:dd:ee:ff", optarg);
			o->have_peer_mac = true;
			break;
		case 'A':
			if (cli_parse_duration_ns(optarg, &o->arp_timeout_ns) ||
			    o->arp_timeout_ns > 60000000000ull)
				return app_opt_bad("--arp-timeout",
						   "a duration <= 60s", optarg);
			break;
		case 's':
			if (cli_parse_u64(optarg, 1, 65535 - 64, &v))
				return app_opt_bad("--sport", "a port 1..65471",
						   optarg);
			o->sport = (uint16_t)v;
			o->have_sport = true;
			break;
		case 'S':
			o->samples = optarg;
			break;
		case 'W':
			o->pcap = optarg;
			break;
		case 'V':
			if (cli_parse_u64(optarg, 1, 4094, &v))
				return app_opt_bad("--vlan",
						   "a VLAN ID 1..4094", optarg);
			o->vlan = (uint16_t)v;
			break;
		case 'L':
			o->loopback = true;
			break;
		case PROBE_OPT_TARGETS:
			o->targets_file = optarg;
			break;
		case PROBE_OPT_FOREVER:
			o->co.forever = true;
			o->co.duration_ns = 0;
			break;
		case PROBE_OPT_INTERVAL_REPORT:
			if (cli_parse_duration_ns(optarg, &o->iv_report_ns) ||
			    o->iv_report_ns < 100000000ull ||
			    o->iv_report_ns > 3600000000000ull)
				return app_opt_bad(
					"--interval-report",
					"a duration from 100ms to 1h", optarg);
			break;
		case PROBE_OPT_FLOWS:
			if (cli_parse_u64(optarg, 1, PROBE_MAX_FLOWS, &v))
				return app_opt_bad("--flows",
						   "a flow count 1..4096",
						   optarg);
			o->flows = (uint32_t)v;
			break;
		case PROBE_OPT_NEW_FLOW_EVERY:
			if (cli_parse_u64(optarg, 1, UINT32_MAX, &v))
				return app_opt_bad("--new-flow-every",
						   "a probe count >= 1",
						   optarg);
			o->new_flow_every = v;
			break;
		case PROBE_OPT_FIRST_PACKET:
			o->new_flow_every = PROBE_FIRST_PACKET_EVERY;
			break;
		case PROBE_OPT_RATE:
			if (cli_parse_u64(optarg, 1, 100000000, &o->rate_pps))
				return app_opt_bad(
					"--rate",
					"probes per second 1..100000000",
					optarg);
			break;
		case PROBE_OPT_SPACING:
			if (strcmp(optarg, "constant") == 0)
				o->spacing = PROBER_SPACING_CONSTANT;
			else if (strcmp(optarg, "poisson") == 0)
				o->spacing = PROBER_SPACING_POISSON;
			else
				return app_opt_bad("--spacing",
						   "constant or poisson",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_SEED:
			if (cli_parse_u64(optarg, 0, UINT64_MAX, &o->seed))
				return app_opt_bad("--seed", "an integer >= 0",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_MAX_BEHIND:
			if (cli_parse_duration_ns(optarg, &o->max_behind_ns) ||
			    o->max_behind_ns > 1000000000ull)
				return app_opt_bad("--max-behind",
						   "a duration 0..1s (10us)",
						   optarg);
			have_open_opt = true;
			break;
		case PROBE_OPT_SAME_CLOCK:
			o->same_clock = true;
			break;
		case 'H':
			probe_usage(stdout);
			exit(EXIT_OK);
		default:
			if (app_common_opt(c, optarg, &o->co, "probe",
					   argv[optind - 1]) != 0)
				return -1;
			break;
		}
	}
	if (o->co.duration_ns != 0 && !have_n)
		o->count = 0;
	if (o->rate_pps != 0 && have_i) {
		app_err("--rate (open loop) and -i (closed loop) do not go "
			"together");
		return -1;
	}
	if (o->rate_pps == 0 && have_open_opt) {
		app_err("--spacing, --seed and --max-behind need --rate");
		return -1;
	}
	if (o->rate_pps != 0) {
		r = prober_open_window_size(o->rate_pps, o->timeout_ns,
					    &o->window_slots);
		if (r != 0) {
			app_err("--rate %llu x --timeout %.3gs is more than "
				"%u probes in flight per lcore (the sequence "
				"window's cap): lower one of them",
				(unsigned long long)o->rate_pps,
				(double)o->timeout_ns / 1e9,
				PROBER_OPEN_MAX_INFLIGHT);
			return -1;
		}
	}
	if (o->co.forever) {
		if (have_n) {
			app_err("-n COUNT and --forever (-t 0) do not go "
				"together");
			return -1;
		}
		o->count = 0; /* until SIGINT/SIGTERM */
	}
	if (have_l && o->proto == &probe_proto_tcp_syn) {
		app_err("-l does not apply to tcp-syn (a SYN carries no data)");
		return -1;
	}
	if (o->co.auth_key_len != 0 && o->proto != &probe_proto_stamp) {
		app_err("--auth-key applies to --proto stamp only");
		return -1;
	}
	if (!have_l)
		o->size = o->co.auth_key_len != 0 ? STAMP_AUTH_BASE_LEN
						  : o->proto->min_size;
	if (o->co.auth_key_len != 0 && o->size < STAMP_AUTH_BASE_LEN) {
		app_err("-l %llu is too small for authenticated STAMP (at "
			"least %u bytes)",
			(unsigned long long)o->size, STAMP_AUTH_BASE_LEN);
		return -1;
	}
	if (o->size > 65507) {
		app_err("-l %llu is more than a UDP datagram or ICMP echo "
			"carries "
			"(65507 bytes)",
			(unsigned long long)o->size);
		return -1;
	}
	if (o->size < o->proto->min_size) {
		app_err("-l %llu is too small for %s (at least %u bytes)",
			(unsigned long long)o->size, o->proto->name,
			o->proto->min_size);
		return -1;
	}
	o->have_l = have_l;
	o->args = argv + optind;
	o->n_args = argc - optind;
	if (probe_targets_load(o, o->n_args, o->args, false) != 0)
		return -1;
	if (o->multi && (o->loopback || o->pcap != NULL)) {
		app_err("--loopback and --pcap take one target");
		return -1;
	}
	if (o->multi && o->rate_pps != 0) {
		app_err("--rate takes one target (several targets take turns "
			"in closed loop)");
		return -1;
	}
	o->target_str = argv[optind];
	if (!o->multi) {
		/* One TARGET: IPv4 or IPv6 (several targets are IPv4). */
		if (cli_parse_target_ip(o->args[0], &o->target, &o->dport,
					&o->have_port))
			return app_opt_bad("TARGET",
					   "A.B.C.D[:PORT] or [X:X::X][:PORT]",
					   o->args[0]);
	} else {
		o->target = codec_ip_from_v4(o->tg[0].addr);
	}
	o->dport = o->tg[0].dport;
	o->have_port = true;
	if (o->co.kernel) {
		if (!o->proto->udp) {
			app_err("--backend kernel runs stamp, sockperf and "
				"udp-echo, not %s",
				o->proto->name);
			return -1;
		}
		if (o->pcap != NULL || o->loopback || o->have_peer_mac ||
		    o->vlan != 0 || o->co.promisc) {
			app_err("--pcap, --loopback, --peer-mac, --vlan and "
				"--promisc need the dpdk backend");
			return -1;
		}
		if (o->co.hw_timestamps) {
			app_err("--hw-timestamps needs the dpdk backend");
			return -1;
		}
	} else if (o->target.family == 6 && o->co.addr6.family != 6) {
		app_err("--addr X:X::X/LEN is required for an IPv6 target (our "
			"IPv6 address on the port)");
		return -1;
	} else if (o->target.family == 4 && !o->co.have_addr) {
		app_err("--addr A.B.C.D/LEN is required (our address on the "
			"port)");
		return -1;
	}
	if (o->co.have_hlog_interval && o->co.hlog == NULL) {
		app_err("--hlog-interval needs --hlog FILE");
		return -1;
	}
	return probe_flows_check(o);
}

/* One worker per lcore, or (several targets) one per target. */
#if RTE_MAX_LCORE > PINGLIST_MAX
#define PROBE_MAX_WORKERS RTE_MAX_LCORE
#else
#define PROBE_MAX_WORKERS PINGLIST_MAX
#endif

struct probe_run {
	struct prober_worker w[PROBE_MAX_WORKERS];
	struct prober_conf conf[PROBE_MAX_WORKERS];
	struct loopback_io lo[RTE_MAX_LCORE];
	unsigned n_workers;
	/* Several targets: worker i probes o.tg[target[i]] on lcore (run
	 * worker index) lane[i], place slot[i] in that lane's set; retired
	 * when SIGHUP took its target out of the pinglist. */
	unsigned target[PROBE_MAX_WORKERS];
	unsigned lane[PROBE_MAX_WORKERS];
	unsigned slot[PROBE_MAX_WORKERS];
	bool retired[PROBE_MAX_WORKERS];
	struct prober_set *sets; /* one per lane */
	unsigned n_lanes;
	/* Removed targets whose place SIGHUP gave to a new one: their
	 * counters and histograms, in the merged figures (not a row). */
	struct prober_worker gone;
	unsigned gone_rows;
};

/* The metrics thread reads the workers' targets and figures while SIGHUP
 * may give a retired worker's place to a new target: this keeps them
 * apart. */
static pthread_mutex_t probe_mx_lock = PTHREAD_MUTEX_INITIALIZER;

/* The live line's memory: interval snapshots of the per-lcore histograms. */
struct live {
	struct histogram *prev, *snap, *iv, *sum;
	struct histogram *iprev, *isum; /* open loop: intended latency */
	uint64_t sent, recv, lost;
	bool oom;
};

/* --interval-report: per-worker snapshots and the last intervals. */
struct ivrep {
	struct histogram *prev[PROBE_MAX_WORKERS];
	struct histogram *iprev[PROBE_MAX_WORKERS]; /* open loop: intended */
	struct histogram *isum;
	uint64_t sent[PROBE_MAX_WORKERS], recv[PROBE_MAX_WORKERS],
		lost[PROBE_MAX_WORKERS];
	struct histogram *snap, *iv, *sum;
	struct report_interval ring[PROBE_IV_KEEP];
	unsigned head, n; /* ring[head] is the oldest of n */
	unsigned keep;	  /* PROBE_IV_KEEP (tests: LATPROBE_TEST_IV_KEEP) */
	uint64_t dropped;
	double last_el;
	bool oom;
};

/* Everything one probe run sets up, so each step can fail and unwind. */
struct probe_ctx {
	struct probe_opts o;
	struct prober_conf conf;
	struct probe_run *run;
	struct sockio *sock;
	struct capture *cap;
	struct app_out json, samples;
	struct app_hlog hlog;
	int pcap_fd;
	char ip[CLI_IP_STRLEN];
	struct codec_mac peer;
	struct live live;
	struct histogram *mx_snap, *mx_sum; /* the metrics thread's */
	struct ivrep *ivr;		    /* --interval-report */
	/* STAMP one-way delays: our clock thread, the report's part. */
	struct app_oneway ow;
	struct report_one_way ow_rep;
	struct histogram *ow_fwd, *ow_rev;
};

static int
probe_worker(struct app_run *r, unsigned idx)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;

	if (!x->o.multi) {
		run->w[idx].lcore = r->dpdk_ready ? r->worker_lcore[idx] : 0;
		if (x->o.rate_pps != 0)
			return prober_worker_run_open(&run->w[idx],
						      &force_quit);
		return prober_worker_run(&run->w[idx], &force_quit);
	}
	/* This lcore's targets take turns; a silent one rests 1 s. */
	for (unsigned i = 0; i < run->sets[idx].n; i++)
		run->sets[idx].w[i]->lcore =
			r->dpdk_ready ? r->worker_lcore[idx] : 0;
	return prober_set_run(&run->sets[idx],
			      tsc_from_ns(&r->clk.clock, PROBE_REST_NS),
			      &force_quit);
}

static uint64_t
sum_stat(const struct probe_run *run, size_t off)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < run->n_workers; i++)
		s += prober_stat_read(
			(const uint64_t *)((const char *)&run->w[i].st + off));
	return s + *(const uint64_t *)((const char *)&run->gone.st + off);
}

#define SUM_STAT(run, f) sum_stat(run, offsetof(struct prober_stats, f))

/* Series s of --hlog: rtt, then network_rtt and turnaround when the proto
 * has them, then (open loop) intended. */
static const struct histogram *
probe_hlog_get(void *ctx, unsigned s, unsigned w)
{
	const struct probe_ctx *x = ctx;
	const struct prober_worker *pw = &x->run->w[w];

	/* STAMP: forward and reverse come last (after intended). */
	if (x->o.proto->has_remote_ts && s >= 3 + (x->o.rate_pps != 0))
		return s == 3 + (x->o.rate_pps != 0) ? &pw->forward
						     : &pw->reverse;
	if (s != 0 && !x->o.proto->has_remote_ts)
		s += 2;
	return s == 0	? &pw->rtt
	       : s == 1 ? &pw->network_rtt
	       : s == 2 ? &pw->turnaround
			: &pw->intended;
}

/* --hlog: Tag=rtt (and network_rtt, turnaround, forward, reverse when the
 * proto has them; intended with --rate). */
static void
probe_interval(struct app_run *r, double el, bool final)
{
	static const char *const tags[] = {"rtt", "network_rtt", "turnaround",
					   "forward", "reverse"};
	static const char *const tags_ro[] = {"rtt",	    "network_rtt",
					      "turnaround", "intended",
					      "forward",    "reverse"};
	static const char *const tags_open[] = {"rtt", "intended"};
	struct probe_ctx *x = r->ctx;
	bool remote = x->o.proto->has_remote_ts, open = x->o.rate_pps != 0;

	(void) final;
	/* STAMP: one-way forward and reverse too (issue 28). */
	if (x->hlog.n_workers == 0)
		app_hlog_series(&x->hlog, (remote ? 5u : 1u) + (open ? 1u : 0u),
				remote && open ? tags_ro
				: remote       ? tags
					       : tags_open,
				x->run->n_workers);
	app_hlog_tick(&x->hlog, el, probe_hlog_get, x);
}

/* Live line each second; during warm-up, its progress. */
static void
probe_tick(struct app_run *r, double el)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	struct live *lv = &x->live;
	uint64_t sent, recv, lost, warm;
	char line[256];

	if (lv->oom)
		return;
	if (lv->prev == NULL) {
		/* Room for workers SIGHUP may add later. */
		lv->prev = calloc(PROBE_MAX_WORKERS + 1, sizeof(*lv->prev));
		lv->snap = histogram_create();
		lv->iv = histogram_create();
		lv->sum = histogram_create();
		if (lv->prev == NULL || lv->snap == NULL || lv->iv == NULL ||
		    lv->sum == NULL) {
			lv->oom = true;
			return;
		}
		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
			histogram_init(&lv->prev[i]);
		if (x->o.rate_pps != 0) {
			lv->iprev = calloc(PROBE_MAX_WORKERS + 1,
					   sizeof(*lv->iprev));
			lv->isum = histogram_create();
			if (lv->iprev == NULL || lv->isum == NULL) {
				lv->oom = true;
				return;
			}
			for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
				histogram_init(&lv->iprev[i]);
		}
	}
	sent = SUM_STAT(run, sent);
	warm = SUM_STAT(run, warmup);
	if (sent == 0 && x->o.warmup != 0 && warm < x->o.warmup) {
		fprintf(stderr, "%7.1fs  warm-up %llu/%llu\n", el,
			(unsigned long long)warm,
			(unsigned long long)x->o.warmup);
		return;
	}
	histogram_init(lv->sum);
	for (unsigned i = 0; i < run->n_workers; i++) {
		histogram_take_interval(lv->sum, &run->w[i].rtt, &lv->prev[i],
					lv->snap, lv->iv);
	}
	recv = SUM_STAT(run, received);
	lost = SUM_STAT(run, lost);
	report_live_line(line, sizeof(line), el, sent - lv->sent,
			 recv - lv->recv, lost - lv->lost, lv->sum);
	if (lv->isum != NULL) {
		/* Open loop: the intended latency's p99 that second too. */
		char p99[16] = "-";
		size_t len = strlen(line);

		histogram_init(lv->isum);
		for (unsigned i = 0; i < run->n_workers; i++) {
			histogram_take_interval(lv->isum, &run->w[i].intended,
						&lv->iprev[i], lv->snap,
						lv->iv);
		}
		if (histogram_count(lv->isum) != 0)
			report_fmt_ns(histogram_percentile(lv->isum, 99.0), p99,
				      sizeof(p99));
		snprintf(line + len, sizeof(line) - len, "  intended p99 %s",
			 p99);
	}
	fprintf(stderr, "%s\n", line);
	lv->sent = sent;
	lv->recv = recv;
	lv->lost = lost;
}

/*
 * A dead peer: the first 10 probes (warm-up included) went unanswered. Say
 * so once, with the likeliest cause the counters point at; the run goes on.
 */
#define DEAD_PROBES 10

static bool
probe_watch(struct app_run *r, double el)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	uint64_t done = SUM_STAT(run, warmup) + SUM_STAT(run, sent);
	uint64_t ignored = SUM_STAT(run, rx_ignored);
	uint64_t resets = SUM_STAT(run, resets);
	const char *why;

	(void)el;
	if (x->o.multi)
		return false; /* per target: the report's rows, the metrics */
	if (SUM_STAT(run, answered) != 0)
		return false; /* alive */
	if (done < DEAD_PROBES)
		return !app_quit();
	if (SUM_STAT(run, ignored[PROBER_IGN_TOO_SHORT]) != 0)
		why = "the reflector answers, but its answers are too short to "
		      "be used (too_short)";
	else if (ignored != 0)
		why = "frames come back but none answers our probes: the port "
		      "is closed or runs another protocol";
	else if (x->sock != NULL)
		why = "nothing comes back: no reflector on that port, or a "
		      "firewall";
	else if (x->o.have_peer_mac)
		why = "nothing comes back: wrong --peer-mac, no reflector "
		      "there, or a firewall";
	else
		why = "nothing comes back although ARP answered: no reflector "
		      "on that port, or a firewall";
	fprintf(stderr,
		"latprobe probe: no answer from %s:%u to the first %u probes "
		"(%llu frames ignored%s): %s; going on\n",
		x->ip, x->o.dport, DEAD_PROBES, (unsigned long long)ignored,
		resets ? ", RST seen" : "", why);
	return false;
}

/* The STAMP reflector's Error Estimate: the last one of the worker that had
 * the most answers, answers and changes summed over the workers. */
static void
reflector_ee(const struct probe_run *run, struct report_error_estimate *e)
{
	const struct prober_stats *best = NULL;
	struct stamp_error_estimate d;

	memset(e, 0, sizeof(*e));
	for (unsigned i = 0; i < run->n_workers; i++) {
		const struct prober_stats *st = &run->w[i].st;

		e->answers += st->reflector_ee_answers;
		e->changes += st->reflector_ee_changes;
		if (st->reflector_ee_answers != 0 &&
		    (best == NULL ||
		     st->reflector_ee_answers > best->reflector_ee_answers))
			best = st;
	}
	if (best == NULL)
		return;
	e->present = true;
	e->raw = (uint16_t)best->reflector_ee;
	stamp_ee_decode(e->raw, &d);
	e->sync = d.sync;
	e->ptp = d.ptp;
	e->scale = d.scale;
	e->multiplier = d.multiplier;
	e->seconds = stamp_ee_to_ns(&d) / 1e9;
}

static int
write_probe_json(const void *arg, FILE *f)
{
	return report_probe_json(arg, f);
}

/* The prober's counters under the report's names (JSON keys). */
static const enum report_ignored ignored_to_report[PROBER_IGN__COUNT] = {
	[PROBER_IGN_CHECKSUM] = REPORT_IGN_CHECKSUM,
	[PROBER_IGN_TOO_SHORT] = REPORT_IGN_TOO_SHORT,
	[PROBER_IGN_OTHER_FLOW] = REPORT_IGN_OTHER_FLOW,
	[PROBER_IGN_NEVER_SENT] = REPORT_IGN_NEVER_SENT,
	[PROBER_IGN_LATE] = REPORT_IGN_LATE,
	[PROBER_IGN_DUPLICATE] = REPORT_IGN_DUPLICATE,
	[PROBER_IGN_NOT_IP] = REPORT_IGN_NOT_IP,
	[PROBER_IGN_ARP] = REPORT_IGN_ARP,
	[PROBER_IGN_UNREACHABLE] = REPORT_IGN_UNREACHABLE,
	[PROBER_IGN_AUTH] = REPORT_IGN_AUTH,
};
_Static_assert((int)PROBER_IGN__COUNT == (int)REPORT_IGN__COUNT,
	       "every prober ignored reason has a report name");

static const enum report_unreach unreach_to_report[PROBER_UNREACH__COUNT] = {
	[PROBER_UNREACH_NET] = REPORT_UNREACH_NET,
	[PROBER_UNREACH_HOST] = REPORT_UNREACH_HOST,
	[PROBER_UNREACH_PORT] = REPORT_UNREACH_PORT,
	[PROBER_UNREACH_ADMIN] = REPORT_UNREACH_ADMIN,
	[PROBER_UNREACH_OTHER] = REPORT_UNREACH_OTHER,
};
_Static_assert((int)PROBER_UNREACH__COUNT == (int)REPORT_UNREACH__COUNT,
	       "every unreachable class has a report name");

/*
 * The series of --metrics: one per target with several targets (worker i
 * is target i), else one for all the workers of the one target.
 */
/* Workers published so far (SIGHUP adds some from the side thread). */
static unsigned
run_nw(const struct probe_run *run)
{
	return __atomic_load_n(&run->n_workers, __ATOMIC_ACQUIRE);
}

static unsigned
mx_n_series(const struct probe_ctx *x)
{
	return x->o.multi ? run_nw(x->run) : 1;
}

static bool
mx_in(const struct probe_ctx *x, unsigned series, unsigned worker)
{
	return !x->o.multi || series == worker;
}

/* A target SIGHUP removed: its series leaves the exposition. */
static bool
mx_retired(const struct probe_ctx *x, unsigned series)
{
	return x->o.multi &&
	       __atomic_load_n(&x->run->retired[series], __ATOMIC_RELAXED);
}

static const struct probe_target *
mx_target(const struct probe_ctx *x, unsigned series)
{
	return &x->o.tg[x->o.multi ? x->run->target[series] : 0];
}

static uint64_t
mx_stat(const struct probe_ctx *x, unsigned series, size_t off)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < run_nw(x->run); i++)
		if (mx_in(x, series, i))
			v += prober_stat_read(
				(const uint64_t *)((const char *)&x->run->w[i]
							   .st +
						   off));
	return v;
}

/* The series' histogram at off in struct prober_worker, in x->mx_sum. */
static void
mx_merge(struct probe_ctx *x, unsigned series, size_t off)
{
	struct probe_run *run = x->run;

	histogram_init(x->mx_sum);
	for (unsigned i = 0; i < run_nw(run); i++) {
		if (!mx_in(x, series, i))
			continue;
		histogram_snapshot(
			(const struct histogram *)((const char *)&run->w[i] +
						   off),
			x->mx_snap);
		histogram_merge(x->mx_sum, x->mx_snap);
	}
}

static void
mx_labels(const struct probe_ctx *x, unsigned series, struct metrics_label l[3])
{
	const struct probe_target *t = mx_target(x, series);

	l[0] = (struct metrics_label){"target", t->name};
	l[1] = (struct metrics_label){"proto", t->proto->name};
	l[2] = (struct metrics_label){"label", t->label};
}

static void
mx_counter(struct probe_ctx *x, struct metrics_buf *b, const char *name,
	   const char *help, size_t off)
{
	struct metrics_label l[3];

	metrics_family(b, name, "counter", help);
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		metrics_counter(b, name, l, 3, mx_stat(x, s, off));
	}
}

/* Where the interval lines go: stdout, unless it carries the JSON. */
static FILE *
iv_out(const struct probe_ctx *x)
{
	return x->o.co.json != NULL && strcmp(x->o.co.json, "-") == 0 ? stderr
								      : stdout;
}

/* An interval row's series from its merged histogram. */
static void
iv_stat_from(const struct histogram *h, struct report_iv_stat *st)
{
	struct report_summary sm;

	report_summarise(h, &sm);
	st->count = sm.count;
	st->p50 = sm.pct[0];
	st->p99 = sm.pct[2];
	st->max = sm.max;
}

/*
 * --interval-report, from the side thread (and once more from the main
 * thread after the workers stopped): each series' interval from relaxed
 * snapshots, one line each, and into a ring of PROBE_IV_KEEP intervals.
 */
static void
probe_report_interval(struct app_run *r, double el, bool final)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;
	struct ivrep *v = x->ivr;
	unsigned nw = run->n_workers, ns = mx_n_series(x);
	struct report_iv_row *rows;
	struct report_interval *slot;
	char line[256];
	FILE *out = iv_out(x);

	(void) final;
	if (v == NULL || v->oom)
		return;
	if (v->snap == NULL) {
		v->snap = histogram_create();
		v->iv = histogram_create();
		v->sum = histogram_create();
		if (v->snap == NULL || v->iv == NULL || v->sum == NULL) {
			v->oom = true;
			return;
		}
	}
	if (x->o.rate_pps != 0 && v->isum == NULL &&
	    (v->isum = histogram_create()) == NULL) {
		v->oom = true;
		return;
	}
	for (unsigned i = 0; i < nw; i++) {
		if (v->prev[i] == NULL &&
		    (v->prev[i] = histogram_create()) == NULL) {
			v->oom = true;
			return;
		}
		if (x->o.rate_pps != 0 && v->iprev[i] == NULL &&
		    (v->iprev[i] = histogram_create()) == NULL) {
			v->oom = true;
			return;
		}
	}
	rows = calloc(ns != 0 ? ns : 1, sizeof(*rows));
	if (rows == NULL)
		return; /* this interval is lost; the next one covers it */
	for (unsigned s = 0; s < ns; s++) {
		struct report_iv_row *row = &rows[s];

		histogram_init(v->sum);
		if (v->isum != NULL)
			histogram_init(v->isum);
		for (unsigned i = 0; i < nw; i++) {
			const struct prober_worker *w = &run->w[i];
			uint64_t sent, recv, lost;

			if (!mx_in(x, s, i))
				continue;
			histogram_take_interval(v->sum, &w->rtt, v->prev[i],
						v->snap, v->iv);
			if (v->isum != NULL)
				histogram_take_interval(v->isum, &w->intended,
							v->iprev[i], v->snap,
							v->iv);
			sent = prober_stat_read(&w->st.sent);
			recv = prober_stat_read(&w->st.received);
			lost = prober_stat_read(&w->st.lost);
			row->sent += sent - v->sent[i];
			row->received += recv - v->recv[i];
			row->lost += lost - v->lost[i];
			v->sent[i] = sent;
			v->recv[i] = recv;
			v->lost[i] = lost;
		}
		row->target = mx_target(x, s)->name;
		iv_stat_from(v->sum, &row->rtt);
		row->has_intended = v->isum != NULL;
		if (row->has_intended)
			iv_stat_from(v->isum, &row->intended);
	}
	if (v->n == v->keep) {
		free((void *)v->ring[v->head].rows);
		v->head = (v->head + 1) % PROBE_IV_KEEP;
		v->n--;
		v->dropped++;
	}
	slot = &v->ring[(v->head + v->n) % PROBE_IV_KEEP];
	*slot = (struct report_interval){
		.t_s = el,
		.len_s = el - v->last_el,
		.rows = rows,
		.n_rows = ns,
	};
	v->n++;
	v->last_el = el;
	for (unsigned s = 0; s < ns; s++) {
		report_iv_line(line, sizeof(line), slot, &rows[s]);
		fprintf(out, "%s\n", line);
	}
	fflush(out);
}

/*
 * --metrics, from the metrics thread: counters and histograms read relaxed
 * from the workers (single writer each; they only grow) and merged in this
 * thread's own scratch histograms. Warm-up probes are not in them.
 */
static int probe_metrics_locked(struct app_run *r, struct metrics_buf *b);

static int
probe_metrics(struct app_run *r, struct metrics_buf *b)
{
	int ret;

	pthread_mutex_lock(&probe_mx_lock);
	ret = probe_metrics_locked(r, b);
	pthread_mutex_unlock(&probe_mx_lock);
	return ret;
}

static int
probe_metrics_locked(struct app_run *r, struct metrics_buf *b)
{
	struct probe_ctx *x = r->ctx;
	struct metrics_label l[3];
	bool any_net = false;

	if (x->mx_snap == NULL) {
		x->mx_snap = histogram_create();
		x->mx_sum = histogram_create();
		if (x->mx_snap == NULL || x->mx_sum == NULL)
			return -ENOMEM;
	}
	app_metrics_preamble(b, "probe", r->dpdk_ready, r->clk.clock.hz);
	mx_counter(x, b, "latprobe_probes_sent_total",
		   "Probes sent whose fate is known (answered or lost)",
		   offsetof(struct prober_stats, sent));
	mx_counter(x, b, "latprobe_probes_received_total", "Probes answered",
		   offsetof(struct prober_stats, received));
	mx_counter(x, b, "latprobe_probes_lost_total",
		   "Probes not answered within --timeout",
		   offsetof(struct prober_stats, lost));
	metrics_family(b, "latprobe_rtt_seconds", "histogram",
		       "Round-trip time T4 - T1 (TSC, same lcore)");
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		mx_merge(x, s, offsetof(struct prober_worker, rtt));
		metrics_histogram(b, "latprobe_rtt_seconds", l, 3, x->mx_sum);
		any_net = any_net || mx_target(x, s)->proto->has_remote_ts;
	}
	if (!any_net)
		return b->err;
	metrics_family(b, "latprobe_network_rtt_seconds", "histogram",
		       "Network round-trip time (T4 - T1) - (T3 - T2): the "
		       "reflector's turnaround taken out");
	for (unsigned s = 0; s < mx_n_series(x); s++) {
		if (!mx_target(x, s)->proto->has_remote_ts || mx_retired(x, s))
			continue;
		mx_labels(x, s, l);
		mx_merge(x, s, offsetof(struct prober_worker, network_rtt));
		metrics_histogram(b, "latprobe_network_rtt_seconds", l, 3,
				  x->mx_sum);
	}
	/* One-way (issue 28): only the positive ones, as in the report;
	 * whether they mean anything is the report's one_way.valid. */
	for (unsigned k = 0; k < 2; k++) {
		const char *name = k == 0 ? "latprobe_forward_seconds"
					  : "latprobe_reverse_seconds";

		metrics_family(b, name, "histogram",
			       k == 0 ? "One-way forward delay T2 - T1 (the "
					"two clocks' bound applies)"
				      : "One-way reverse delay T4 - T3 (the "
					"two clocks' bound applies)");
		for (unsigned s = 0; s < mx_n_series(x); s++) {
			if (!mx_target(x, s)->proto->has_remote_ts ||
			    mx_retired(x, s))
				continue;
			mx_labels(x, s, l);
			mx_merge(
				x, s,
				k == 0 ? offsetof(struct prober_worker, forward)
				       : offsetof(struct prober_worker,
						  reverse));
			metrics_histogram(b, name, l, 3, x->mx_sum);
		}
	}
	return b->err;
}

static int
write_samples(const void *arg, FILE *f)
{
	const struct probe_run *r = arg;
	struct report_sample chunk[256];
	int ret = report_samples_header(f);

	for (unsigned i = 0; ret == 0 && i < r->n_workers; i++) {
		const struct prober_worker *w = &r->w[i];

		for (size_t k = 0; ret == 0 && k < w->n_samples;) {
			size_t n = 0;

			for (; n < RTE_DIM(chunk) && k < w->n_samples; n++, k++)
				chunk[n] = (struct report_sample){
					.seq = w->samples[k].seq,
					.lcore = w->samples[k].lcore,
					.t1_ns = w->samples[k].t1_ns,
					.rtt_ns = w->samples[k].rtt_ns,
					.network_rtt_ns =
						w->samples[k].network_rtt_ns,
					.has_one_way =
						w->samples[k].has_one_way,
					.forward_ns = w->samples[k].forward_ns,
					.reverse_ns = w->samples[k].reverse_ns,
				};
			ret = report_samples_write(f, chunk, n);
		}
	}
	return ret;
}

static void
conf_common(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct prober_conf *c = &x->conf;

	c->proto = o->proto;
	if (o->target.family == 6) {
		c->flow.ip_version = 6;
		memcpy(c->flow.src6, o->co.addr6.a, 16);
		memcpy(c->flow.dst6, o->target.a, 16);
	} else {
		c->flow.ip_version = 4;
		c->flow.src4 = o->co.addr;
		c->flow.dst4 = codec_ip_v4(&o->target);
	}
	c->flow.sport = o->sport;
	c->flow.dport = o->dport;
	c->flow.ttl = 64;
	c->flow.vlan = o->vlan != 0;
	c->flow.vlan_tci = o->vlan;
	c->size = (unsigned)o->size;
	c->warmup = o->warmup;
	c->clock = r->clk.clock;
	c->anchor = r->clk.anchor;
	c->interval_cycles = tsc_from_ns(&r->clk.clock, o->interval_ns);
	c->timeout_cycles = tsc_from_ns(&r->clk.clock, o->timeout_ns);
	c->duration_cycles = tsc_from_ns(&r->clk.clock, o->co.duration_ns);
	c->keep_samples = o->samples != NULL;
	/* 16 M samples (640 MiB) per run at most; past that they are counted.
	 */
	c->max_samples = 16u * 1024 * 1024 / r->n_workers;
	c->icmp_id = (uint16_t)(getpid() & 0xff00);
	c->tcp_isn_base = (uint32_t)(tsc_read() * 2654435761u);
	c->auth_key = o->co.auth_key;
	c->auth_key_len = o->co.auth_key_len;
	/* NIC clock: two reads 10 ms apart to start, then one a second. */
	c->hw_ts = o->co.hw_timestamps;
	c->hw_calib_cycles = tsc_from_ns(&r->clk.clock, 10000000ull);
	c->hw_resample_cycles = tsc_from_ns(&r->clk.clock, 1000000000ull);
	c->rate_pps = o->rate_pps;
	c->spacing = o->spacing;
	c->seed = o->seed;
	c->behind_bound_cycles = tsc_from_ns(&r->clk.clock, o->max_behind_ns);
	cli_format_ip(&o->target, x->ip);
}

static int
probe_parse_hook(struct app_run *r, int argc, char **argv)
{
	struct probe_ctx *x = r->ctx;

	x->pcap_fd = -1;
	if (probe_parse(argc, argv, &x->o) != 0)
		return -1;
	r->opt.kernel = x->o.co.kernel;
	r->opt.quiet = x->o.co.quiet;
	r->opt.promisc = x->o.co.promisc;
	r->opt.no_doctor = x->o.co.no_doctor;
	r->opt.hw_timestamps = x->o.co.hw_timestamps;
	r->opt.live_path = x->o.co.live_path;
	r->opt.link_required = true;
	r->opt.port_id = x->o.co.port_id;
	r->opt.calib_ns = x->o.co.calib_ns;
	r->opt.hlog_interval_ns =
		x->o.co.hlog != NULL ? x->o.co.hlog_interval_ns : 0;
	r->opt.have_metrics = x->o.co.have_metrics;
	r->opt.metrics_addr = x->o.co.metrics_addr;
	r->opt.metrics_port = x->o.co.metrics_port;
	r->opt.report_interval_ns = x->o.iv_report_ns;
	/* SIGHUP re-reads the pinglist; its lcores then wait for targets
	 * until the run ends, which the side thread's deadline does. */
	r->opt.want_hup = x->o.targets_file != NULL;
	if (x->o.targets_file != NULL && x->o.count == 0)
		r->opt.deadline_ns = x->o.co.duration_ns;
	if (x->o.iv_report_ns != 0) {
		const char *keep = getenv("LATPROBE_TEST_IV_KEEP");

		x->ivr = calloc(1, sizeof(*x->ivr));
		if (x->ivr == NULL) {
			app_err("out of memory");
			return -1;
		}
		/* Tests show the bound without a run of 1000 intervals. */
		x->ivr->keep = keep != NULL && atoi(keep) > 0 &&
					       atoi(keep) < PROBE_IV_KEEP
				       ? (unsigned)atoi(keep)
				       : PROBE_IV_KEEP;
	}
	return 0;
}

static int
probe_open_outputs(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	int ret;

	ret = app_out_open(&x->json, "--json", x->o.co.json);
	if (ret == EXIT_OK)
		ret = app_out_open(&x->samples, "--samples", x->o.samples);
	if (ret == EXIT_OK)
		ret = app_hlog_open(&x->hlog, x->o.co.hlog);
	if (ret == EXIT_OK && x->o.pcap != NULL) {
		x->pcap_fd =
			open(x->o.pcap,
			     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (x->pcap_fd < 0) {
			app_err("--pcap %s: cannot write it: %s", x->o.pcap,
				strerror(errno));
			ret = EXIT_USAGE;
		}
	}
	return ret;
}

/* Several targets: each its own ARP resolution (or --peer-mac). */
static int
probe_setup_dpdk_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	unsigned ok = 0;

	conf_common(r);
	memcpy(x->conf.flow.src_mac.b, r->port.mac.addr_bytes, 6);
	for (unsigned i = 0; i < o->n_tg; i++) {
		struct probe_target *t = &o->tg[i];
		int ret;

		if (o->have_peer_mac) {
			t->mac = o->peer_mac;
			ok++;
			continue;
		}
		if (app_quit()) {
			t->skip = true;
			continue;
		}
		ret = prober_arp_resolve_vlan(
			&r->port.q[0], &x->conf.flow.src_mac, o->co.addr,
			o->vlan, t->addr,
			(unsigned)(o->arp_timeout_ns / 1000000), &r->clk.clock,
			&t->mac, &force_quit);
		if (ret != 0) {
			t->skip = true;
			if (ret != -EINTR)
				app_warn("no ARP answer from %s within %.1fs: "
					 "not probed",
					 t->name,
					 (double)o->arp_timeout_ns / 1e9);
			continue;
		}
		ok++;
	}
	if (ok == 0 && !app_quit()) {
		app_err("no target answered ARP (is a reflector running? "
			"--peer-mac skips ARP)");
		return EXIT_UNREACHABLE;
	}
	for (unsigned i = 0; i < o->n_tg; i++) {
		if (!o->tg[i].skip) {
			x->peer = o->tg[i].mac;
			break;
		}
	}
	return EXIT_OK;
}

/* How many ports above the first free candidate a kernel socket tries. */
#define PROBE_SPORT_TRIES 1024u

/* Can a UDP socket bind this port on our address now (a cheap look)? */
static bool
udp_port_free(const struct probe_opts *o, int family, uint16_t port)
{
	int fd = socket(family == 6 ? AF_INET6 : AF_INET,
			SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return true; /* let the real open say why */
	if (family == 6) {
		struct sockaddr_in6 sa = {.sin6_family = AF_INET6,
					  .sin6_port = htons(port)};
		int one = 1;

		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				 sizeof(one));
		if (o->co.addr6.family == 6)
			memcpy(sa.sin6_addr.s6_addr, o->co.addr6.a, 16);
		ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	} else {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons(port)};

		if (o->co.have_addr)
			sa.sin_addr.s_addr = htonl(o->co.addr);
		ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	}
	close(fd);
	return ret == 0 || errno != EADDRINUSE;
}

static struct sockio *
kernel_sock_at(const struct probe_opts *o, const struct codec_ip *dst,
	       uint16_t dport, uint16_t sport, struct codec_mac *mac,
	       const struct sockio_opts *so)
{
	if (dst->family == 6)
		return sockio_open_prober6(
			o->co.addr6.family == 6 ? o->co.addr6.a : NULL, sport,
			dst->a, dport, mac, so);
	return sockio_open_prober(o->co.have_addr ? o->co.addr : 0, sport,
				  codec_ip_v4(dst), dport, mac, so);
}

/*
 * A kernel prober socket to dst:dport from port `from`: with --sport that
 * port or NULL (errno EADDRINUSE when another socket has it); without, the
 * first free port from `from` up (the same ports again on a host in the
 * same state, so a run is repeatable), and when PROBE_SPORT_TRIES of them
 * are all taken, one the kernel picks. NULL with errno.
 */
static struct sockio *
kernel_sock_open(const struct probe_opts *o, const struct codec_ip *dst,
		 uint16_t dport, uint16_t from, struct codec_mac *mac,
		 const struct sockio_opts *so)
{
	struct sockio *s;

	if (o->have_sport)
		return kernel_sock_at(o, dst, dport, from, mac, so);
	for (unsigned p = from; p <= 65535 && p < from + PROBE_SPORT_TRIES;
	     p++) {
		if (!udp_port_free(o, dst->family, (uint16_t)p))
			continue;
		s = kernel_sock_at(o, dst, dport, (uint16_t)p, mac, so);
		/* EADDRINUSE: taken since the look; try the next. */
		if (s != NULL || errno != EADDRINUSE)
			return s;
	}
	return kernel_sock_at(o, dst, dport, 0, mac, so);
}

/* Several targets on the kernel backend: one connected socket each. */
static int
probe_setup_kernel_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct sockio_opts so;

	sockio_opts_default(&so);
	so.so_busy_poll_us = o->co.busy_poll_us;
	conf_common(r);
	for (unsigned i = 0, next = o->sport; i < o->n_tg; i++) {
		struct probe_target *t = &o->tg[i];
		struct codec_ip dst = codec_ip_from_v4(t->addr);
		/* --sport N: N + i; else each the first free after the
		 * previous target's. */
		uint16_t sport =
			(uint16_t)(o->have_sport ? o->sport + i : next);

		t->sock = kernel_sock_open(o, &dst, t->dport, sport, &t->mac,
					   &so);
		if (t->sock != NULL && sockio_local_port(t->sock, 0) < 65535)
			next = sockio_local_port(t->sock, 0) + 1u;
		if (t->sock == NULL) {
			int err = errno;

			app_err("kernel UDP socket :%u -> %s: %s%s", sport,
				t->name, strerror(err),
				err == EADDRINUSE
					? " (the source port is in use: "
					  "--sport N picks another range)"
					: "");
			return err == EINVAL ? EXIT_USAGE : EXIT_SETUP;
		}
	}
	x->conf.flow.src4 = sockio_local_addr(o->tg[0].sock, 0);
	return EXIT_OK;
}

/* Peer MAC, capture. Returns an exit code. */
static int
probe_setup_dpdk(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	char err[256];
	int ret;

	if (o->multi)
		return probe_setup_dpdk_multi(r);

	conf_common(r);
	memcpy(x->conf.flow.src_mac.b, r->port.mac.addr_bytes, 6);

	if (o->loopback) {
		/* The reflector shares our port: our own MAC is the peer's. */
		x->peer = x->conf.flow.src_mac;
	} else if (o->have_peer_mac) {
		x->peer = o->peer_mac;
	} else if (o->target.family == 6) {
		ret = prober_nd_resolve(&r->port.q[0], &x->conf.flow.src_mac,
					o->co.addr6.a, o->vlan, o->target.a,
					(unsigned)(o->arp_timeout_ns / 1000000),
					&r->clk.clock, &x->peer, &force_quit);
		if (ret == -EINTR)
			fprintf(stderr,
				"latprobe probe: interrupted while resolving "
				"%s by neighbour discovery; no probe was "
				"sent\n",
				x->ip);
		if (ret != 0 && ret != -EINTR) {
			app_err("no Neighbor Advertisement from %s within "
				"%.1fs (is the reflector running? --peer-mac "
				"skips neighbour discovery)",
				x->ip, (double)o->arp_timeout_ns / 1e9);
			return EXIT_UNREACHABLE;
		}
	} else {
		ret = prober_arp_resolve_vlan(
			&r->port.q[0], &x->conf.flow.src_mac, o->co.addr,
			o->vlan, codec_ip_v4(&o->target),
			(unsigned)(o->arp_timeout_ns / 1000000), &r->clk.clock,
			&x->peer, &force_quit);
		/* -EINTR: stopped before any probe; the workers see the flag
		 * at once and the report says so. */
		if (ret == -EINTR)
			fprintf(stderr,
				"latprobe probe: interrupted while resolving "
				"%s by ARP; no probe was sent\n",
				x->ip);
		if (ret != 0 && ret != -EINTR) {
			app_err("no ARP answer from %s within %.1fs (is the "
				"reflector running? --peer-mac skips ARP)",
				x->ip, (double)o->arp_timeout_ns / 1e9);
			return EXIT_UNREACHABLE;
		}
	}
	x->conf.flow.dst_mac = x->peer;
	if (x->pcap_fd >= 0) {
		x->cap = capture_open(x->pcap_fd, o->pcap, o->co.port_id,
				      r->n_workers, err, sizeof(err));
		x->pcap_fd = -1; /* capture_open owns it now */
		if (x->cap == NULL) {
			app_err("--pcap: %s", err);
			return EXIT_RUNTIME;
		}
		x->conf.capture.fn = capture_packet;
		x->conf.capture.arg = x->cap;
	}
	return EXIT_OK;
}

/* Kernel UDP socket, connected to the target; one worker, this thread. */
static int
probe_setup_kernel(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct sockio_opts so;

	if (o->multi)
		return probe_setup_kernel_multi(r);
	sockio_opts_default(&so);
	so.so_busy_poll_us = o->co.busy_poll_us;
	x->sock = kernel_sock_open(o, &o->target, o->dport, o->sport,
				   &x->conf.flow.src_mac, &so);
	if (x->sock == NULL) {
		int err = errno;
		char src[CLI_IP_STRLEN] = "*", dst[CLI_IP_STRLEN];

		if (o->target.family == 6 && o->co.addr6.family == 6)
			cli_format_ip(&o->co.addr6, src);
		else if (o->target.family == 4 && o->co.have_addr)
			cli_format_ipv4(o->co.addr, src);
		cli_format_ip(&o->target, dst);
		app_err("kernel UDP socket %s:%u -> %s:%u: %s%s", src, o->sport,
			dst, o->dport, strerror(err),
			err == EADDRINUSE ? " (the source port is in use: "
					    "--sport N picks another)"
					  : "");
		return err == EINVAL ? EXIT_USAGE : EXIT_SETUP;
	}
	conf_common(r);
	/* The engine matches answers against the socket's real address. */
	if (o->target.family == 6)
		sockio_local_addr6(x->sock, 0, x->conf.flow.src6);
	else
		x->conf.flow.src4 = sockio_local_addr(x->sock, 0);
	x->conf.flow.sport = sockio_local_port(x->sock, 0);
	x->peer = x->conf.flow.dst_mac;
	return EXIT_OK;
}

/*
 * Worker k for target o.tg[ti] on lane k % lanes: its conf, queue (the
 * lane's DPDK queue, or the target's own socket), and a place in the
 * lane's set (which publishes it to the lcore). Returns an exit code
 * (message printed); from the side thread on SIGHUP too.
 */
static int
probe_add_worker(struct app_run *r, unsigned ti, unsigned k)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	const struct probe_target *t = &o->tg[ti];
	struct prober_conf *c = &run->conf[k];
	unsigned nl = run->n_lanes, lane = k % nl;
	struct io_queue *q;

	*c = x->conf;
	c->proto = t->proto;
	c->flow.dst4 = t->addr;
	c->flow.dport = t->dport;
	c->size = t->size;
	c->count = o->count; /* -n per target */
	c->max_samples = 16u * 1024 * 1024 / PINGLIST_MAX;
	if (t->sock != NULL) {
		q = sockio_queue(t->sock);
		c->flow.src_mac = t->mac;
		c->flow.src4 = sockio_local_addr(t->sock, 0);
		c->flow.sport = sockio_local_port(t->sock, 0);
	} else {
		uint16_t sport;
		int ret = port_pick_sport(&r->port, (uint16_t)lane, o->co.addr,
					  t->addr, t->dport, o->sport, &sport);

		if (ret == 0 && !t->proto->udp &&
		    t->proto != &probe_proto_tcp_syn && nl > 1 && r->port.rss)
			ret = -ENOTSUP; /* ICMP: hashed on addresses */
		if (ret == 0 && nl > 1 && r->port.rss &&
		    t->size + 28 > r->port.q[lane].mtu)
			ret = -ENOTSUP; /* fragments: no ports */
		if (ret != 0) {
			app_err("with %u lcores the answers must come back on "
				"each lcore's queue, and this port's RSS "
				"cannot steer %s's %s answers there: use one "
				"lcore (-l N)",
				nl, t->name, t->proto->name);
			return EXIT_USAGE;
		}
		q = &r->port.q[lane];
		c->flow.dst_mac = t->mac;
		c->flow.sport = sport;
	}
	run->target[k] = ti;
	run->lane[k] = lane;
	run->w[k].lcore = r->dpdk_ready ? r->worker_lcore[lane] : 0;
	if (prober_worker_init(&run->w[k], c, q, k) != 0) {
		app_err("out of memory (samples, fragment buffers)");
		return EXIT_RUNTIME;
	}
	if (k < run->n_workers) {
		/* A retired worker's place (probe_reusable()): same lane, same
		 * place in its set. */
		(void)prober_set_reuse(&run->sets[lane], run->slot[k],
				       &run->w[k]);
		__atomic_store_n(&run->retired[k], false, __ATOMIC_RELAXED);
		return EXIT_OK;
	}
	run->slot[k] = run->sets[lane].n;
	if (prober_set_add(&run->sets[lane], &run->w[k]) != 0) {
		prober_worker_fini(&run->w[k]);
		app_err("lcore %u has %u targets already", lane,
			PROBER_SET_MAX);
		return EXIT_USAGE;
	}
	/* Published whole (release): the metrics thread reads up to here. */
	__atomic_store_n(&run->n_workers, k + 1, __ATOMIC_RELEASE);
	return EXIT_OK;
}

/* Several targets: one worker each, spread over the lcores in turn. */
static int
probe_init_workers_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run;
	unsigned k = 0;
	int ret;

	run = x->run = calloc(1, sizeof(*x->run));
	if (run != NULL)
		run->sets = calloc(r->n_workers, sizeof(*run->sets));
	if (run == NULL || run->sets == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	histogram_init(&run->gone.rtt);
	histogram_init(&run->gone.network_rtt);
	histogram_init(&run->gone.turnaround);
	histogram_init(&run->gone.intended);
	histogram_init(&run->gone.behind);
	histogram_init(&run->gone.hw_rtt);
	histogram_init(&run->gone.hw_rx_delay);
	app_oneway_gone_init(&run->gone);
	run->n_lanes = r->n_workers;
	/* With a pinglist and no -n, targets may come and go (SIGHUP): the
	 * lcores wait for new ones until the run ends. */
	for (unsigned l = 0; l < run->n_lanes; l++) {
		prober_set_init(&run->sets[l],
				o->targets_file != NULL && o->count == 0);
		/* Targets SIGHUP adds: ARP by their lcore. */
		if (r->dpdk_ready && !o->have_peer_mac)
			run->sets[l].arp_timeout_ms =
				(unsigned)(o->arp_timeout_ns / 1000000);
		/* No target to probe (all rest, or SIGHUP took them all):
		 * the lane still answers ARP for our address. */
		if (r->dpdk_ready) {
			run->sets[l].idle_q = &r->port.q[l];
			run->sets[l].idle_flow = x->conf.flow;
		}
	}
	for (unsigned ti = 0; ti < o->n_tg; ti++) {
		if (o->tg[ti].skip)
			continue;
		ret = probe_add_worker(r, ti, k++);
		if (ret != EXIT_OK)
			return ret;
	}
	return EXIT_OK;
}

/*
 * SIGHUP with every place taken: the oldest retired worker whose lcore is
 * done with it, waiting up to 2 s for the lcores to stop those retired just
 * now (a probe in flight, an ARP). Its index, or -1 when none.
 */
static int
probe_reusable(const struct probe_run *run)
{
	for (unsigned tries = 0; tries < 2000; tries++) {
		bool any = false;

		for (unsigned k = 0; k < run->n_workers; k++) {
			if (!run->retired[k])
				continue;
			if (prober_set_reusable(&run->sets[run->lane[k]],
						run->slot[k]))
				return (int)k;
			any = true;
		}
		if (!any)
			return -1;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	return -1;
}

/* Worker k's figures into run->gone (the merged totals keep them), and its
 * per-interval memories forgotten, before a new target takes its place.
 * Side thread, metrics lock held. */
static void
probe_fold(struct probe_ctx *x, unsigned k)
{
	struct probe_run *run = x->run;
	struct prober_worker *g = &run->gone;
	const struct prober_worker *w = &run->w[k];
	uint64_t *d = (uint64_t *)&g->st;
	const uint64_t *v = (const uint64_t *)&w->st;
	uint64_t behind = g->st.behind_max_ns;

	_Static_assert(sizeof(struct prober_stats) % sizeof(uint64_t) == 0,
		       "prober_stats is counters");
	for (size_t i = 0; i < sizeof(g->st) / sizeof(*d); i++)
		d[i] += v[i];
	g->st.behind_max_ns =
		behind > w->st.behind_max_ns ? behind : w->st.behind_max_ns;
	g->st.reflector_ee = w->st.reflector_ee;
	histogram_merge(&g->rtt, &w->rtt);
	histogram_merge(&g->network_rtt, &w->network_rtt);
	histogram_merge(&g->turnaround, &w->turnaround);
	histogram_merge(&g->intended, &w->intended);
	histogram_merge(&g->behind, &w->behind);
	histogram_merge(&g->hw_rtt, &w->hw_rtt);
	histogram_merge(&g->hw_rx_delay, &w->hw_rx_delay);
	app_oneway_fold(g, w);
	run->gone_rows++;
	if (x->live.prev != NULL)
		histogram_init(&x->live.prev[k]);
	if (x->live.iprev != NULL)
		histogram_init(&x->live.iprev[k]);
	if (x->ivr != NULL) {
		if (x->ivr->prev[k] != NULL)
			histogram_init(x->ivr->prev[k]);
		if (x->ivr->iprev[k] != NULL)
			histogram_init(x->ivr->iprev[k]);
		x->ivr->sent[k] = x->ivr->recv[k] = x->ivr->lost[k] = 0;
	}
	app_hlog_forget(&x->hlog, k);
}

static bool
same_target(const struct probe_target *a, const struct probe_target *b)
{
	return a->addr == b->addr && a->dport == b->dport &&
	       a->proto == b->proto;
}

/*
 * SIGHUP, on the side thread: re-read the pinglist. Targets no longer in
 * it are retired (their lcore stops them before their next probe; their
 * figures stay in the report), new ones get a worker and a place in an
 * lcore's set, unchanged ones go on with their histograms. Bad lines are
 * reported and skipped; a file that cannot be read changes nothing.
 */
static void
probe_hup(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	struct probe_opts *nw = malloc(sizeof(*nw));
	unsigned kept = 0, added = 0, removed = 0, reused = 0;
	unsigned n_run = run->n_workers;

	if (nw == NULL) {
		app_warn("SIGHUP: out of memory; targets unchanged");
		return;
	}
	memcpy(nw, o, sizeof(*nw));
	nw->n_tg = 0;
	if (probe_targets_load(nw, o->n_args, o->args, true) != 0) {
		free(nw); /* said why, targets unchanged */
		return;
	}
	/* Retire what is gone. */
	for (unsigned k = 0; k < n_run; k++) {
		bool keep = false;

		if (run->retired[k])
			continue;
		for (unsigned i = 0; i < nw->n_tg && !keep; i++)
			keep = same_target(&o->tg[run->target[k]], &nw->tg[i]);
		if (keep) {
			kept++;
			continue;
		}
		__atomic_store_n(&run->retired[k], true, __ATOMIC_RELAXED);
		prober_set_retire(&run->sets[run->lane[k]], run->slot[k]);
		removed++;
	}
	/* Start what is new. */
	for (unsigned i = 0; i < nw->n_tg; i++) {
		struct probe_target *t = &nw->tg[i];
		unsigned ti = o->n_tg, k = run->n_workers;
		bool have = false;
		int reuse = -1;

		for (unsigned j = 0; j < n_run && !have; j++)
			have = !run->retired[j] &&
			       same_target(&o->tg[run->target[j]], t);
		if (have)
			continue;
		if (ti >= PINGLIST_MAX || k >= PROBE_MAX_WORKERS) {
			/* Every place taken: the oldest removed target's
			 * (its row leaves the report, its figures stay in
			 * the totals). */
			reuse = probe_reusable(run);
			if (reuse < 0) {
				app_warn("SIGHUP: %s not added: %u targets "
					 "are probed already",
					 t->name, PINGLIST_MAX);
				continue;
			}
			k = (unsigned)reuse;
			ti = run->target[k];
			if (o->tg[ti].sock != NULL) {
				/* Done with it: its port for the new one. */
				sockio_close(o->tg[ti].sock);
				o->tg[ti].sock = NULL;
			}
		}
		if (r->dpdk_ready) {
			/* Without --peer-mac its lcore resolves it. */
			memset(&t->mac, 0, sizeof(t->mac));
			if (o->have_peer_mac)
				t->mac = o->peer_mac;
		} else {
			struct sockio_opts so;

			sockio_opts_default(&so);
			so.so_busy_poll_us = o->co.busy_poll_us;
			struct codec_ip dst = codec_ip_from_v4(t->addr);

			t->sock = kernel_sock_open(o, &dst, t->dport,
						   (uint16_t)(o->sport + k),
						   &t->mac, &so);
			if (t->sock == NULL) {
				app_warn("SIGHUP: %s not added: kernel UDP "
					 "socket: %s",
					 t->name, strerror(errno));
				continue;
			}
		}
		if (reuse >= 0) {
			int ret;

			pthread_mutex_lock(&probe_mx_lock);
			probe_fold(x, k);
			prober_worker_fini(&run->w[k]);
			o->tg[ti] = *t;
			t->sock = NULL;
			ret = probe_add_worker(r, ti, k);
			if (ret != EXIT_OK) {
				/* Said why; in gone already, so nothing here
				 * (a row of 0 for it, removed). */
				struct prober_worker *w = &run->w[k];

				memset(&w->st, 0, sizeof(w->st));
				histogram_init(&w->rtt);
				histogram_init(&w->network_rtt);
				histogram_init(&w->turnaround);
				app_oneway_gone_init(w);
			}
			pthread_mutex_unlock(&probe_mx_lock);
			if (ret != EXIT_OK)
				continue;
			reused++;
			added++;
			continue;
		}
		o->tg[ti] = *t;
		o->n_tg = ti + 1;
		t->sock = NULL; /* o->tg owns it now */
		if (probe_add_worker(r, ti, k) != EXIT_OK)
			continue; /* said why; its socket closes at teardown */
		added++;
	}
	if (reused != 0)
		app_warn("SIGHUP: %u new targets took the places of removed "
			 "ones (%u targets at most at a time): those rows "
			 "leave the report, their figures stay in its totals",
			 reused, PINGLIST_MAX);
	fprintf(stderr,
		"latprobe probe: SIGHUP: --targets %s re-read: %u kept, %u "
		"added, %u removed\n",
		o->targets_file, kept, added, removed);
	free(nw);
}

/*
 * --flows N / --new-flow-every K: worker i's source ports, all from --sport
 * up and brought back to its queue by RSS (port_pick_sports). --flows
 * wants N of them; --new-flow-every as many as the run opens tuples (a
 * run without -n: all there are), fewer only means reuse (counted).
 */
static int
probe_flow_ports(struct app_run *r, unsigned i)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct prober_conf *c = &x->run->conf[i];
	struct rss_addr ours = {0}, peer = {0};
	uint64_t want = o->flows;
	uint16_t *sports;
	int got;

	if (o->new_flow_every != 0)
		want = c->count != 0
			       ? (c->count + o->warmup) / o->new_flow_every + 1
			       : 65535;
	if (want > 65535)
		want = 65535;
	if (o->target.family == 6) {
		ours.family = peer.family = RSS_AF_IPV6;
		memcpy(ours.v6, o->co.addr6.a, 16);
		memcpy(peer.v6, o->target.a, 16);
	} else {
		ours.family = peer.family = RSS_AF_IPV4;
		ours.v4 = o->co.addr;
		peer.v4 = codec_ip_v4(&o->target);
	}
	/* Freed with the run (conf[i].sports). */
	sports = malloc(want * sizeof(uint16_t));
	c->sports = sports;
	if (sports == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	got = port_pick_sports(&r->port, (uint16_t)i, &ours, &peer, o->dport,
			       o->sport, sports, (unsigned)want);
	if (got <= 0 || (o->flows != 0 && (unsigned)got < o->flows)) {
		app_err("%s: %d source ports from --sport %u up bring answers "
			"back to lcore %u's queue (%s needed)",
			o->flows != 0 ? "--flows" : "--new-flow-every",
			got < 0 ? 0 : got, o->sport, i,
			o->flows != 0 ? "one per flow" : "at least one");
		return EXIT_USAGE;
	}
	c->n_sports = (uint32_t)got;
	c->n_flows = o->flows;
	c->new_flow_every = o->new_flow_every;
	c->flow.sport = c->sports[0];
	return EXIT_OK;
}

static int
probe_init_workers(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run;
	unsigned nw = r->n_workers;

	/* STAMP: T1/T4 onto a re-sampled UTC mapping (app/oneway.c). */
	if (o->proto->has_remote_ts &&
	    app_oneway_start(&x->ow, &r->clk, r->dpdk_ready) == 0)
		x->conf.utc_feed = &x->ow.feed;
	else if (o->proto->has_remote_ts)
		app_warn("cannot start the clock thread: one-way delays use "
			 "the start's clock mapping");
	if (o->multi)
		return probe_init_workers_multi(r);
	run = x->run = calloc(1, sizeof(*x->run));
	if (run == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	/* Split -n across the lcores; the first ones take the remainder. */
	for (unsigned i = 0; i < nw; i++) {
		struct io_queue *q =
			x->sock ? sockio_queue(x->sock) : &r->port.q[i];

		run->conf[i] = x->conf;
		if (!x->sock) {
			/* RSS must bring each lcore's answers to its queue. */
			uint16_t sport = (uint16_t)(o->sport + i);
			unsigned hdr = o->target.family == 6 ? 48 : 28;
			int ret = 0;

			if (o->target.family == 6)
				ret = port_pick_sport6(&r->port, (uint16_t)i,
						       o->co.addr6.a,
						       o->target.a, o->dport,
						       o->sport, &sport);
			else
				ret = port_pick_sport(
					&r->port, (uint16_t)i, o->co.addr,
					codec_ip_v4(&o->target), o->dport,
					o->sport, &sport);

			if (ret == 0 && !o->proto->udp &&
			    o->proto != &probe_proto_tcp_syn && nw > 1 &&
			    r->port.rss)
				ret = -ENOTSUP; /* ICMP: hashed on addresses */
			if (ret == 0 && nw > 1 && r->port.rss &&
			    o->size + hdr > r->port.q[i].mtu) {
				/* Fragments carry no ports to hash on. */
				app_err("%llu-byte probes go as IP "
					"fragments, "
					"which RSS cannot steer back to each "
					"lcore's queue: use one lcore",
					(unsigned long long)o->size);
				return EXIT_USAGE;
			}
			if (ret != 0) {
				app_err("with %u lcores the answers must come "
					"back on each lcore's queue, and this "
					"port's RSS cannot steer %s answers "
					"there: use one lcore (-l N)",
					nw, o->proto->name);
				return EXIT_USAGE;
			}
			run->conf[i].flow.sport = sport;
		}
		if (o->count != 0)
			run->conf[i].count =
				o->count / nw + (i < o->count % nw);
		if (o->flows != 0 || o->new_flow_every != 0) {
			int ret = probe_flow_ports(r, i);

			if (ret != EXIT_OK)
				return ret;
		}
		if (o->loopback) {
			struct reflector_conf rc;

			reflector_conf_default(&rc);
			if (o->target.family == 6) {
				rc.addr = 0;
				rc.addr6 = o->target;
			} else {
				rc.addr = codec_ip_v4(&o->target);
			}
			rc.mac = x->conf.flow.src_mac;
			if (o->proto == &probe_proto_stamp)
				rc.stamp_port = o->dport;
			else if (o->proto == &probe_proto_sockperf)
				rc.sockperf_port = o->dport;
			else if (o->proto == &probe_proto_udp_echo)
				rc.echo_port = o->dport;
			rc.clock = r->clk.clock;
			rc.anchor = r->clk.anchor;
			rc.utc_feed = x->conf.utc_feed; /* one-way: one clock */
			rc.auth_key = o->co.auth_key;
			rc.auth_key_len = o->co.auth_key_len;
			if (loopback_io_init(&run->lo[i], q, &rc) != 0) {
				app_err("out of memory");
				return EXIT_RUNTIME;
			}
			q = &run->lo[i].q;
		}
		if (prober_worker_init(&run->w[i], &run->conf[i], q, i) != 0) {
			if (o->loopback)
				loopback_io_fini(&run->lo[i]);
			app_err("out of memory (samples, fragment buffers)");
			return EXIT_RUNTIME;
		}
		run->n_workers = i + 1;
	}
	return EXIT_OK;
}

/* The source address of a flow as text. */
static void
flow_src_format(const struct codec_flow *fl, char *out /* CLI_IP_STRLEN */)
{
	struct codec_ip ip = fl->ip_version == 6 ? codec_ip_from_v6(fl->src6)
						 : codec_ip_from_v4(fl->src4);

	cli_format_ip(&ip, out);
}

/*
 * The start line's ", source port 40001" (", source ports 40001, 40002,
 * ..." with several workers: each one's first), and why when the kernel
 * backend had to move off --sport's default; "" for ICMP.
 */
static void
sports_format(const struct probe_ctx *x, char *out, size_t cap)
{
	const struct probe_run *run = x->run;
	unsigned n = run->n_workers, shown = n < 4 ? n : 4;
	size_t len;

	out[0] = '\0';
	if (n == 0 || (!x->o.multi && !x->o.proto->udp &&
		       x->o.proto != &probe_proto_tcp_syn))
		return;
	len = (size_t)snprintf(out, cap, ", source port%s", n > 1 ? "s" : "");
	for (unsigned i = 0; i < shown && len < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s %u",
					i != 0 ? "," : "",
					run->conf[i].flow.sport);
	if (n > shown && len < cap)
		len += (size_t)snprintf(out + len, cap - len, ", ... (%u)", n);
	if (x->o.co.kernel && !x->o.have_sport &&
	    run->conf[0].flow.sport != x->o.sport && len < cap)
		snprintf(out + len, cap - len,
			 " (%u was taken: the first free one)", x->o.sport);
}

static void
probe_start_line(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	char mac[18], src[CLI_IP_STRLEN], sports[128];

	codec_mac_format(&x->peer, mac);
	flow_src_format(&x->conf.flow, src);
	sports_format(x, sports, sizeof(sports));
	if (x->o.multi) {
		fprintf(stderr,
			"latprobe probe: %s -> %u targets (%s first), %s, "
			"%u lcore(s), %s %s (%s)%s\n",
			src, x->run->n_workers,
			x->run->n_workers != 0 ? x->o.tg[x->run->target[0]].name
					       : "-",
			x->o.co.kernel ? "kernel routes" : "ARP per target",
			r->n_workers, x->o.co.kernel ? "backend" : "port",
			x->o.co.kernel ? "kernel" : r->port.name,
			x->o.co.kernel ? "UDP sockets" : r->port.driver,
			sports);
		return;
	}
	fprintf(stderr,
		"latprobe probe: %s -> %s%s%s:%u (%s), %s, %llu-byte "
		"probes, %u lcore(s), %s %s (%s)%s\n",
		src, x->o.target.family == 6 ? "[" : "", x->ip,
		x->o.target.family == 6 ? "]" : "", x->o.dport,
		x->o.co.kernel ? "kernel route" : mac, x->o.proto->name,
		(unsigned long long)x->o.size, r->n_workers,
		x->o.co.kernel ? "backend" : "port",
		x->o.co.kernel ? "kernel" : r->port.name,
		x->o.co.kernel ? "UDP socket" : r->port.driver, sports);
	if (x->conf.utc_feed != NULL) {
		char clk[256];

		app_oneway_describe(&x->ow, clk, sizeof(clk));
		fprintf(stderr, "latprobe probe: one-way: %s%s\n", clk,
			x->o.same_clock ? "; --same-clock" : "");
	}
}

/*
 * --flows: every worker's flows into *flows (rep->flows); --new-flow-every:
 * the first packets merged into *first (rep->first_packet) and a warning
 * when fresh ports ran out. EXIT_OK or EXIT_RUNTIME (said).
 */
static int
probe_report_flows(struct probe_ctx *x, struct report_probe *rep,
		   struct report_flow **flows, struct histogram **first)
{
	const struct probe_opts *o = &x->o;
	const struct probe_run *run = x->run;
	unsigned n = 0;

	if (o->flows != 0) {
		*flows = calloc((size_t)run->n_workers * o->flows,
				sizeof(**flows));
		if (*flows == NULL) {
			app_err("out of memory");
			return EXIT_RUNTIME;
		}
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct prober_worker *w = &run->w[i];

			for (unsigned j = 0; w->flows != NULL && j < o->flows;
			     j++) {
				const struct prober_flow *f = &w->flows[j];

				(*flows)[n++] = (struct report_flow){
					.flow = i * o->flows + j,
					.lcore = i,
					.sport = f->sport,
					.count = f->count,
					.lost = f->lost,
					.p50 = prober_flow_percentile(f, 50),
					.p99 = prober_flow_percentile(f, 99),
					.max = f->max,
				};
			}
		}
		rep->flows = *flows;
		rep->n_flows = n;
	}
	if (o->new_flow_every == 0)
		return EXIT_OK;
	*first = histogram_create();
	if (*first == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	for (unsigned i = 0; i < run->n_workers; i++) {
		const struct prober_worker *w = &run->w[i];

		if (w->first_rtt != NULL)
			histogram_merge(*first, w->first_rtt);
		rep->new_flows += w->st.new_flows;
		rep->fresh_reused += w->st.fresh_reused;
		rep->first_lost += w->st.first_lost;
		rep->fresh_ports += run->conf[i].n_sports;
	}
	rep->new_flow_every = o->new_flow_every;
	rep->first_packet = *first;
	if (rep->fresh_reused != 0)
		app_warn(
			"--new-flow-every %llu: the %llu fresh source ports "
			"ran out; %llu new flows reused the oldest port (their "
			"first packet may not be a flow's first)",
			(unsigned long long)o->new_flow_every,
			(unsigned long long)rep->fresh_ports,
			(unsigned long long)rep->fresh_reused);
	return EXIT_OK;
}

static int
probe_report(struct app_run *r, double duration_s,
	     const struct report_counter *xs, unsigned n_xs)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	struct histogram *rtt = histogram_create();
	struct histogram *net = histogram_create();
	struct histogram *turn = histogram_create();
	struct histogram *hw_rtt = histogram_create();
	struct histogram *hw_rxd = histogram_create();
	struct histogram *intended = histogram_create();
	struct histogram *behind = histogram_create();
	struct report_hw hw = {.rtt = hw_rtt, .rx_delay = hw_rxd};
	struct report_open open = {
		.rate_pps = o->rate_pps,
		.spacing = o->spacing == PROBER_SPACING_POISSON ? "poisson"
								: "constant",
		.seed = o->seed,
		.window_slots = o->window_slots,
		.bound_ns = o->max_behind_ns,
		.intended = intended,
		.behind = behind,
	};
	struct report_probe rep;
	struct report_meta meta = {0};
	struct report_target *tgs = NULL;
	uint16_t sports[PROBE_MAX_WORKERS];
	struct report_interval *ivs = NULL;
	struct report_flow *flows = NULL;
	struct histogram *first = NULL;
	char target[CLI_IP_STRLEN + 8], src[CLI_IP_STRLEN], iface[160];
	char csum_rx[32], csum_tx[32];
	bool remote_ts = o->proto->has_remote_ts;
	int ret = EXIT_OK;

	if (rtt == NULL || net == NULL || turn == NULL || hw_rtt == NULL ||
	    hw_rxd == NULL || intended == NULL || behind == NULL) {
		app_err("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	memset(&rep, 0, sizeof(rep));
	/* The workers, then the removed targets whose places were reused. */
	for (unsigned i = 0; i <= run->n_workers; i++) {
		const struct prober_worker *w =
			i < run->n_workers ? &run->w[i] : &run->gone;

		if (w == &run->gone && run->gone_rows == 0)
			break;
		histogram_merge(rtt, &w->rtt);
		histogram_merge(net, &w->network_rtt);
		histogram_merge(turn, &w->turnaround);
		histogram_merge(hw_rtt, &w->hw_rtt);
		histogram_merge(hw_rxd, &w->hw_rx_delay);
		histogram_merge(intended, &w->intended);
		histogram_merge(behind, &w->behind);
		open.late_sends += w->st.late_sends;
		if (w->st.behind_max_ns > open.behind_max_ns)
			open.behind_max_ns = w->st.behind_max_ns;
		app_hw_add(&hw, &w->hw, &w->nic, &r->clk.clock);
		rep.sent += w->st.sent;
		rep.received += w->st.received;
		rep.lost += w->st.lost;
		rep.duplicated += w->st.duplicated;
		rep.reordered += w->st.reordered;
		rep.timeouts += w->st.lost - w->st.lost_unreachable;
		for (unsigned k = 0; k < PROBER_IGN__COUNT; k++)
			rep.ignored[ignored_to_report[k]] += w->st.ignored[k];
		for (unsigned k = 0; k < PROBER_UNREACH__COUNT; k++)
			rep.unreachable[unreach_to_report[k]] +=
				w->st.unreachable[k];
		rep.rx_ignored += w->st.rx_ignored;
		rep.warmup += w->st.warmup;
		rep.late += w->st.late;
		rep.resets += w->st.resets;
		rep.reasm_failed += w->st.reasm_failed;
		rep.auth_failed += w->st.auth_failed;
		rep.l4_partial += w->st.l4_partial;
		rep.nombuf += w->st.nombuf;
		if (w->st.tx_fail != 0)
			app_warn("lcore %u: %llu probes the tx queue did not "
				 "take (not counted as sent)",
				 w->lcore, (unsigned long long)w->st.tx_fail);
		if (w->samples_dropped)
			app_warn("lcore %u: %llu samples not kept (--samples "
				 "memory cap)",
				 w->lcore,
				 (unsigned long long)w->samples_dropped);
	}
	if (rep.sent == 0 && rep.warmup != 0 && o->co.duration_ns != 0 &&
	    !r->interrupted)
		app_warn("-t %.3gs ended during the warm-up (%llu probes of "
			 "-w %llu): nothing measured",
			 (double)o->co.duration_ns / 1e9,
			 (unsigned long long)rep.warmup,
			 (unsigned long long)o->warmup);
	snprintf(target, sizeof(target),
		 o->target.family == 6 ? "[%s]:%u" : "%s:%u", x->ip, o->dport);
	if (o->multi) {
		/* One row per target; the figures above merge them all. */
		tgs = calloc(run->n_workers + 1, sizeof(*tgs));
		if (tgs == NULL) {
			app_err("out of memory");
			ret = EXIT_RUNTIME;
			goto out;
		}
		remote_ts = run->n_workers != 0;
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct prober_worker *w = &run->w[i];
			const struct probe_target *t = &o->tg[run->target[i]];

			tgs[i] = (struct report_target){
				.target = t->name,
				.proto = t->proto->name,
				.label = t->label,
				.sent = w->st.sent,
				.received = w->st.received,
				.lost = w->st.lost,
				.rtt = &w->rtt,
				.network_rtt = t->proto->has_remote_ts
						       ? &w->network_rtt
						       : NULL,
				.removed = run->retired[i],
				.sport =
					t->proto->udp ||
							t->proto ==
								&probe_proto_tcp_syn
						? run->conf[i].flow.sport
						: 0,
			};
			remote_ts = remote_ts && t->proto->has_remote_ts;
		}
		rep.targets = tgs;
		rep.n_targets = run->n_workers;
		snprintf(target, sizeof(target), "%u targets", run->n_workers);
	}
	if (x->ivr != NULL && x->ivr->n != 0) {
		ivs = calloc(x->ivr->n, sizeof(*ivs));
		if (ivs == NULL) {
			app_err("out of memory");
			ret = EXIT_RUNTIME;
			goto out;
		}
		for (unsigned k = 0; k < x->ivr->n; k++)
			ivs[k] = x->ivr->ring[(x->ivr->head + k) %
					      PROBE_IV_KEEP];
		rep.intervals = ivs;
		rep.n_intervals = x->ivr->n;
	}
	if (x->ivr != NULL)
		rep.intervals_dropped = x->ivr->dropped;
	if (probe_report_flows(x, &rep, &flows, &first) != EXIT_OK) {
		ret = EXIT_RUNTIME;
		goto out;
	}
	rep.proto = o->proto->name;
	rep.backend = x->o.co.kernel ? "kernel" : "dpdk";
	rep.target = target;
	rep.port_driver = x->o.co.kernel ? "udp-socket" : r->port.driver;
	for (unsigned i = 0;
	     i < run->n_workers &&
	     (o->multi || o->proto->udp || o->proto == &probe_proto_tcp_syn);
	     i++)
		sports[rep.n_sports++] = run->conf[i].flow.sport;
	rep.sports = sports;
	rep.size = (unsigned)o->size;
	rep.lcores = r->n_workers;
	rep.duration_s = duration_s;
	rep.interrupted = r->interrupted;
	rep.authenticated = o->co.auth_key_len != 0;
	rep.rtt = rtt;
	rep.network_rtt = remote_ts ? net : NULL;
	rep.turnaround = remote_ts ? turn : NULL;
	rep.buckets.n_buckets = o->n_edges ? 0 : o->n_buckets;
	rep.buckets.edges_ns = o->edges_ns;
	rep.buckets.n_edges = o->n_edges;
	rep.port.present = r->dpdk_ready;
	rep.port.delta = xs;
	rep.port.n_delta = n_xs;
	rep.port.path = r->path;
	rep.hw = o->co.hw_timestamps ? &hw : NULL;
	if (rep.hw != NULL)
		app_hw_check(&hw);
	rep.interval_ns = o->interval_ns;
	rep.timeout_ns = o->timeout_ns;
	rep.open = o->rate_pps != 0 ? &open : NULL;
	for (unsigned i = 0; i < run->n_workers; i++)
		rep.interval_stretched += run->w[i].st.interval_stretched;
	rep.interval_stretched += run->gone.st.interval_stretched;
	reflector_ee(run, &rep.reflector_ee);
	if (remote_ts && (x->ow_fwd = histogram_create()) != NULL &&
	    (x->ow_rev = histogram_create()) != NULL) {
		app_oneway_probe_report(&x->ow, run->w, run->n_workers,
					run->gone_rows != 0 ? &run->gone : NULL,
					o->same_clock, x->ow_fwd, x->ow_rev,
					&x->ow_rep);
		rep.one_way = &x->ow_rep;
	}
	if (report_meta_init(&meta, r->start, "latprobe probe", r->argc,
			     r->argv) == 0)
		rep.meta = &meta;
	meta.dpdk_version = x->o.co.kernel ? NULL : rte_version();
	meta.nic_driver = rep.port_driver;
	meta.cores_used = rep.lcores;
	if (r->dpdk_ready && !x->o.co.kernel) {
		port_csum_names(&r->port.csum, 1, csum_rx, sizeof(csum_rx));
		port_csum_names(&r->port.csum, 0, csum_tx, sizeof(csum_tx));
		meta.csum_rx = csum_rx;
		meta.csum_tx = csum_tx;
	}
	flow_src_format(&x->conf.flow, src);
	meta.source = src;
	snprintf(iface, sizeof(iface), "%s (%s)",
		 x->o.co.kernel ? "kernel" : r->port.name,
		 x->o.co.kernel ? "UDP socket" : r->port.driver);
	meta.interface = iface;
	app_clock_report(&r->clk, &rep.tsc);

	/* With --json -, stdout carries the JSON alone. */
	if (report_probe_text(&rep,
			      o->co.json != NULL && strcmp(o->co.json, "-") == 0
				      ? stderr
				      : stdout) != 0)
		ret = EXIT_RUNTIME;
	if (app_stdout_flush() != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_out_write(&x->json, write_probe_json, &rep) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_hlog_close(&x->hlog) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (app_out_write(&x->samples, write_samples, run) != EXIT_OK)
		ret = EXIT_RUNTIME;
	if (x->cap != NULL) {
		uint64_t dropped;
		int64_t n = capture_close(x->cap, &dropped);

		x->cap = NULL;
		if (n < 0) {
			app_err("--pcap %s: %s", o->pcap, strerror((int)-n));
			ret = EXIT_RUNTIME;
		} else if (dropped != 0) {
			app_warn("--pcap: %llu packets not captured (capture "
				 "pool empty)",
				 (unsigned long long)dropped);
		}
	}
	if (ret == EXIT_OK && rep.sent > 0 && rep.received == 0)
		ret = EXIT_ALL_LOST;
out:
	free(tgs);
	free(ivs);
	free(flows);
	histogram_destroy(first);
	report_meta_fini(&meta);
	histogram_destroy(rtt);
	histogram_destroy(net);
	histogram_destroy(turn);
	histogram_destroy(hw_rtt);
	histogram_destroy(hw_rxd);
	histogram_destroy(intended);
	histogram_destroy(behind);
	return ret;
}

static void
probe_teardown(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;

	app_oneway_stop(&x->ow);
	histogram_destroy(x->ow_fwd);
	histogram_destroy(x->ow_rev);
	x->ow_fwd = x->ow_rev = NULL;
	if (x->run != NULL) {
		for (unsigned i = 0; i < x->run->n_workers; i++) {
			prober_worker_fini(&x->run->w[i]);
			if (x->o.loopback)
				loopback_io_fini(&x->run->lo[i]);
		}
		free(x->run->sets);
		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
			free((void *)x->run->conf[i].sports);
		free(x->run);
		x->run = NULL;
	}
	if (x->cap != NULL) {
		uint64_t dropped;

		(void)capture_close(x->cap, &dropped);
		x->cap = NULL;
	}
	if (x->pcap_fd >= 0)
		close(x->pcap_fd);
	x->pcap_fd = -1;
	app_out_close(&x->json);
	app_out_close(&x->samples);
	(void)app_hlog_close(&x->hlog);
	if (x->sock != NULL)
		sockio_close(x->sock);
	x->sock = NULL;
	for (unsigned i = 0; i < x->o.n_tg; i++) {
		if (x->o.tg[i].sock != NULL)
			sockio_close(x->o.tg[i].sock);
		x->o.tg[i].sock = NULL;
	}
	free(x->live.prev);
	free(x->live.iprev);
	histogram_destroy(x->live.isum);
	histogram_destroy(x->live.snap);
	histogram_destroy(x->live.iv);
	histogram_destroy(x->live.sum);
	memset(&x->live, 0, sizeof(x->live));
	histogram_destroy(x->mx_snap);
	histogram_destroy(x->mx_sum);
	x->mx_snap = x->mx_sum = NULL;
	if (x->ivr != NULL) {
		struct ivrep *v = x->ivr;

		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++) {
			histogram_destroy(v->prev[i]);
			histogram_destroy(v->iprev[i]);
		}
		histogram_destroy(v->isum);
		for (unsigned k = 0; k < v->n; k++)
			free((void *)v->ring[(v->head + k) % PROBE_IV_KEEP]
				     .rows);
		histogram_destroy(v->snap);
		histogram_destroy(v->iv);
		histogram_destroy(v->sum);
		free(v);
		x->ivr = NULL;
	}
}

static const struct app_cmd probe_cmd = {
	.name = "probe",
	.usage = probe_usage,
	.short_help = false, /* -h is PsPing's bucket option */
	.ctx_size = sizeof(struct probe_ctx),
	.parse = probe_parse_hook,
	.open_outputs = probe_open_outputs,
	.setup_kernel = probe_setup_kernel,
	.setup_dpdk = probe_setup_dpdk,
	.init_workers = probe_init_workers,
	.start_line = probe_start_line,
	.worker = probe_worker,
	.tick = probe_tick,
	.interval = probe_interval,
	.watch = probe_watch,
	.report = probe_report,
	.teardown = probe_teardown,
	.metrics = probe_metrics,
	.report_interval = probe_report_interval,
	.hup = probe_hup,
};

int
cmd_probe(int argc, char **argv)
{
	return app_run(&probe_cmd, argc, argv);
}
