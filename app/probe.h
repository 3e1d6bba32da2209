/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_PROBE_H
#define LATPROBE_APP_PROBE_H

/*
 * What the files of latprobe probe (cmd_probe.c, probe_*.c) share: its
 * options, targets, run state and context, and the hooks each file gives
 * the run skeleton. Not for the other commands.
 */

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rte_lcore.h>

#include "app.h"
#include "capture.h"
#include "cli.h"
#include "hlog_out.h"
#include "link_events.h"
#include "latprobe/loopback.h"
#include "latprobe/prober.h"
#include "latprobe/sockio.h"
#include "metrics_srv.h"
#include "oneway.h"
#include "pinglist.h"
#include "run.h"

/* How long a target that stopped answering rests between tries. */
#define PROBE_REST_NS 1000000000ull

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
	bool details;	 /* -v, --details: every section of the text report */
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

/* The latency on each path between the port's path shifts
 * (path_watch.c tells of them; probe_live.c). */
#define PROBE_PATH_IVS 32
struct probe_paths {
	struct histogram *base, *cur, *iv; /* base: merged at the start */
	uint64_t sent, recv, lost;	   /* at the start */
	double from_s;
	struct report_path_interval ivs[PROBE_PATH_IVS];
	unsigned n;
	uint64_t dropped;
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
	struct histogram *mx_fwd, *mx_rev;  /* its one-way scratch */
	struct ivrep *ivr;		    /* --interval-report */
	/* STAMP one-way delays: our clock thread, the report's part. */
	struct app_oneway ow;
	struct report_one_way ow_rep;
	struct histogram *ow_fwd, *ow_rev;
	struct probe_paths *paths; /* NULL until the first shift */
};

/* The metrics thread and SIGHUP's reload (probe_live.c). */
extern pthread_mutex_t probe_mx_lock;

/* probe_opts.c */
void probe_usage(FILE *f);

int probe_parse_hook(struct app_run *r, int argc, char **argv);

/* probe_targets.c */
int probe_targets_load(struct probe_opts *o, int n_args, char **args,
		       bool reload);

int probe_reusable(const struct probe_run *run);

void probe_hup(struct app_run *r);

/* probe_setup.c */
int probe_open_outputs(struct app_run *r);

struct sockio *probe_kernel_sock_open(const struct probe_opts *o,
				      const struct codec_ip *dst,
				      uint16_t dport, uint16_t from,
				      struct codec_mac *mac,
				      const struct sockio_opts *so);

int probe_setup_dpdk(struct app_run *r);

int probe_setup_kernel(struct app_run *r);

int probe_add_worker(struct app_run *r, unsigned ti, unsigned k);

int probe_init_workers(struct app_run *r);

void probe_teardown(struct app_run *r);

/* app_cmd.port_swap: after a re-attach or failover, announce our address. */
void probe_port_swap(struct app_run *r, bool done);

/* probe_live.c */
void probe_interval(struct app_run *r, double el, bool final);

void probe_tick(struct app_run *r, double el);

bool probe_watch(struct app_run *r, double el);

void probe_report_interval(struct app_run *r, double el, bool final);

/* Side thread: the port's packets go over another path from el on. */
void probe_path_shift(struct app_run *r, double el, enum port_path_now to);

/* The report's latency by path: the last interval closed at duration_s,
 * into p (nothing when the path is not watched). */
void probe_path_intervals(struct app_run *r, double duration_s,
			  struct report_port_path *p);

int probe_metrics(struct app_run *r, struct metrics_buf *b);

/* probe_report.c */
void probe_reflector_ee(const struct probe_run *run,
			struct report_error_estimate *e);

void probe_start_line(struct app_run *r);

int probe_report(struct app_run *r, double duration_s,
		 const struct report_counter *xs, unsigned n_xs);

#endif /* LATPROBE_APP_PROBE_H */
