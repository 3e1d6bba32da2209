/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_REPORT_H
#define LATPROBE_REPORT_H

/*
 * Reports: the merged result of a probe run (or a reflector's counters) as
 * text (PsPing-style bucket table + percentiles) and as JSON (json-c), and
 * the per-probe CSV samples writer. Writes to a FILE * the caller opened;
 * never prints to the terminal on its own.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "latprobe/histogram.h"

/* Percentiles every report shows, in this order. */
#define REPORT_N_PCTS 6
extern const double report_pcts[REPORT_N_PCTS]; /* 50 90 99 99.9 99.99 99.999 */

/*
 * A series' figures. A percentile rests on the count: pct_ok[i] is false
 * when the series has too few samples for a 95 % interval of it inside
 * the data (pct_interval()); pct[i] is then not a figure to show (text
 * "-", JSON null). ci_lo/ci_hi: that interval, 0 when !pct_ok.
 */
struct report_summary {
	uint64_t count, min, max;
	double mean, stddev;
	uint64_t pct[REPORT_N_PCTS]; /* values at report_pcts[] */
	bool pct_ok[REPORT_N_PCTS];
	uint64_t ci_lo[REPORT_N_PCTS], ci_hi[REPORT_N_PCTS];
};

/* Summarise a histogram (all zero when empty). */
void report_summarise(const struct histogram *h, struct report_summary *s);

/* Enough samples (count) for percentile p (0 < p < 100) to be shown: its
 * 95 % interval falls inside the data (pct_min_samples()). */
bool report_pct_enough(uint64_t count, double p);
/* The fewest samples percentile p needs (0 for p outside (0, 100)). */
uint64_t report_pct_min_count(double p);

struct report_tsc {
	uint64_t hz;	  /* in use */
	uint64_t dpdk_hz; /* rte_get_tsc_hz(), 0 without EAL */
	double calib_ppm; /* own calibration vs dpdk_hz */
	bool invariant;
	double read_cost_cycles; /* ordered read */
};

/*
 * -h: either n_buckets (linear between min and max, PsPing's layout) or
 * explicit edges. Neither (all zero, no -h given): the default table, about
 * REPORT_AUTO_ROWS rows spaced for the data (see report_auto_rows()).
 */
struct report_buckets {
	unsigned n_buckets; /* 0 when edges are given */
	const uint64_t *edges_ns;
	unsigned n_edges;
};

#define REPORT_AUTO_ROWS 20

/*
 * The default bucket table: rows end on HdrHistogram counter edges (so the
 * counts are exact), placed so that each row advances by 1/REPORT_AUTO_ROWS
 * in an even mix of three scales: the cumulative share, its "nines" (p90 =
 * 1, p99 = 2, ..., the last value = log10(count)) and log(latency) between
 * p0.1 and max. The bulk gets rows by count, the p99..p99.99 region by
 * nines, a far tail by decade; no row holds more than 3/REPORT_AUTO_ROWS of
 * the round trips unless one counter (0.78 % wide) holds them. rows needs
 * REPORT_AUTO_ROWS + 1 entries; returns how many were filled (0 for an
 * empty histogram) or -EINVAL.
 */
int report_auto_rows(const struct histogram *h, struct histogram_row *rows,
		     unsigned cap);

/*
 * When, where and what was measured, so two saved reports can be told
 * apart. report_meta_init() fills start_utc (ISO 8601), host and command
 * (argv shell-quoted after prog, malloc'd); the caller sets source and
 * interface. A NULL or empty field is left out of the text and null in
 * JSON.
 */
struct report_meta {
	char start_utc[32]; /* "2026-11-30T15:04:21Z" */
	char host[256];
	char *command;	       /* "latprobe probe --profile x -- ..." */
	const char *source;    /* our address, e.g. "198.18.0.1" */
	const char *interface; /* e.g. "net_af_xdp0 (net_af_xdp)" */
	/*
	 * JSON "machine": report_meta_init() fills cpu_model (/proc/cpuinfo),
	 * kernel (uname -sr) and cpus_online; the caller sets dpdk_version,
	 * nic_driver and cores_used (worker lcores).
	 */
	char cpu_model[128];
	char kernel[160];
	unsigned cpus_online;
	const char *dpdk_version;
	const char *nic_driver;
	unsigned cores_used;
	/* JSON "checksum_offloads": {rx, tx}, comma lists of the port's
	 * checksum offloads enabled ("ipv4,udp,tcp", "" for none); NULL: not
	 * a DPDK port (null in JSON). */
	const char *csum_rx, *csum_tx;
};

/*
 * JSON "format_version". 1: each series carries its whole histogram
 * ("hdr": HdrHistogram V2 compressed base64, "hdr_lowest", "hdr_highest",
 * "hdr_sigfigs") and the report a "machine" object. Reports without the
 * key are from before.
 */
#define REPORT_FORMAT_VERSION 1

/* 0, -EINVAL (m NULL) or -ENOMEM; report_meta_fini() frees command. */
int report_meta_init(struct report_meta *m, time_t start, const char *prog,
		     int argc, char *const argv[]);
void report_meta_fini(struct report_meta *m);
/*
 * Why a frame the prober received did not complete a probe (JSON
 * probes.ignored.<name>, names in report_ignored_name[]). rx_ignored is
 * their sum. Late and duplicated answers are in here too (late equals
 * probes.late, duplicate equals probes.duplicated).
 */
enum report_ignored {
	REPORT_IGN_CHECKSUM,	/* IPv4 header or L4 checksum wrong */
	REPORT_IGN_TOO_SHORT,	/* malformed, truncated, or too short for the
				   protocol's answer */
	REPORT_IGN_OTHER_FLOW,	/* other addresses, ports, VLAN, protocol */
	REPORT_IGN_NEVER_SENT,	/* answers a sequence number not sent yet */
	REPORT_IGN_LATE,	/* its probe was already given up */
	REPORT_IGN_DUPLICATE,	/* its probe was already answered */
	REPORT_IGN_NOT_IP,	/* neither IP nor ARP (LLDP, ...) */
	REPORT_IGN_ARP,		/* ARP not asking for our address */
	REPORT_IGN_UNREACHABLE, /* ICMP destination unreachable quoting a
				   probe (also in unreachable[]) */
	REPORT_IGN_AUTH,	/* STAMP answer on our flow whose HMAC does not
				   verify (also in auth_failed) */
	REPORT_IGN__COUNT
};

extern const char *const report_ignored_name[REPORT_IGN__COUNT];

/* ICMP destination unreachable by code (RFC 792, RFC 1812 §5.2.7.1);
 * JSON probes.unreachable_<name>, names in report_unreach_name[]; the
 * prober classifies the codes (prober_unreach_of_code). */
enum report_unreach {
	REPORT_UNREACH_NET,   /* codes 0, 6, 11 (kernel: ENETUNREACH) */
	REPORT_UNREACH_HOST,  /* codes 1, 7, 12 (EHOSTUNREACH) */
	REPORT_UNREACH_PORT,  /* code 3 (ECONNREFUSED): nothing listens */
	REPORT_UNREACH_ADMIN, /* codes 9, 10, 13: a filter */
	REPORT_UNREACH_OTHER, /* protocol, fragmentation needed, ... */
	REPORT_UNREACH__COUNT
};

extern const char *const report_unreach_name[REPORT_UNREACH__COUNT];

/* One named counter (reflector drop reasons, port xstats, ...). */
struct report_counter {
	const char *name;
	uint64_t value;
};

/*
 * Port xstats (drops, errors, missed, no-mbuf) that moved during the run:
 * "port": {"xstats_delta": {name: delta}} in JSON, one text line. Only
 * when present (a DPDK port); delta may be empty.
 */
/*
 * The path the run's packets took (lib/port/path.h classifies the xstats):
 * "port": {"path": {...}}. On a master over a VF (netvsc, failsafe) the
 * packets counted on the VF and on the synthetic path, and vf_share
 * (< 0: nothing counted, written as null); on any port the driver's own
 * counters that moved (not the ethdev's generic totals).
 */
/*
 * Failover: a shift of the path that carries the packets
 * (JSON port.path.shifts[]: t_s, from, to, took_s) and the latency on each
 * path between shifts (port.path.intervals[]: from_s, to_s, path, sent,
 * received, lost, rtt_ns {min, p50, p99, max}).
 */
struct report_path_shift {
	double t_s;	       /* the first sample that showed the new path */
	const char *from, *to; /* "vf", "synthetic" */
	double took_s;	       /* since the VF's removal; < 0: null */
};

struct report_path_interval {
	double from_s, to_s;
	const char *path; /* "vf", "synthetic", "idle" */
	uint64_t sent, received, lost;
	uint64_t min_ns, p50_ns, p99_ns, max_ns; /* received == 0: null */
};

struct report_port_path {
	const char *kind;      /* "netvsc", "failsafe", "mlx", "mana", ... */
	const char *vf_driver; /* the hardware VF behind netvsc/failsafe
				  (mlx5_pci, net_mana, ...), NULL: none */
	const char *includes;  /* what a latency on this path includes */
	bool split;	       /* vf_* / synthetic_* below are known */
	uint64_t vf_rx, vf_tx, synthetic_rx, synthetic_tx;
	double vf_share;
	const struct report_counter *driver; /* deltas */
	unsigned n_driver;
	/* Sampled over the run: shifts and intervals below. */
	bool timeline;
	double poll_s; /* the samples' period */
	const struct report_path_shift *shifts;
	unsigned n_shifts;
	uint64_t shifts_dropped;
	const struct report_path_interval *intervals; /* the prober's */
	unsigned n_intervals;
};

/*
 * The port's events over the run (report_port_events.c): JSON
 * port.link_events [{t_s, event, speed_mbps}], port.link_events_dropped,
 * port.link_down_s, port.link_detection, port.removed_at_s (null: not
 * removed), port.attached_at_s; text "Port events:" lines.
 */
struct report_port_event {
	double t_s;	     /* since the start of the run */
	const char *kind;    /* "link_down", "link_up", "removed" */
	uint32_t speed_mbps; /* link_up: 0 when unknown (null) */
};

struct report_port_events {
	const struct report_port_event *ev;
	unsigned n;
	uint64_t dropped; /* events not kept (the counts have them) */
	uint64_t downs, ups;
	double down_s; /* total time the link was down */
	bool link_up_at_end;
	const char *detection; /* "interrupt" (LSC) or "polled" */
	bool removed;
	double removed_at_s; /* the latest removal */
	/* It came back after that (--forever, a reflector service): JSON
	 * attached_at_s (null: not). */
	bool attached;
	double attached_at_s;
};

struct report_port_xstats {
	bool present;
	const struct report_counter *delta;
	unsigned n_delta;
	const struct report_port_path *path; /* NULL: not classified */
	/* NULL: no events known (kernel backend); no keys written. */
	const struct report_port_events *events;
};

/*
 * --hw-timestamps: NIC rx timestamps mapped onto the TSC. JSON
 * "hw_timestamps": {stamped, unstamped, outside, clock_samples,
 * clock_sample_failures, nic_hz} and the series "hw_rtt_ns" (probe: the
 * answer's NIC rx time - T1) and "hw_rx_delay_ns" (TSC rx time - NIC rx
 * time of the same frame: T4 on the prober, T2 on the reflector). NULL: off.
 */
struct report_hw {
	uint64_t stamped;   /* frames with a NIC rx timestamp, used */
	uint64_t unstamped; /* frames without one (or before calibration) */
	uint64_t outside;   /* NIC time outside [T1, T4] / after T2: not
			       recorded (conversion error) */
	uint64_t clock_samples, clock_sample_failures;
	double nic_hz; /* the NIC clock's rate on the TSC */
	/* TSC span (ns) around the NIC read of the latest pair: the mapping's
	 * offset is uncertain by half of it (mlx5 reads its clock through an
	 * ioctl, microseconds). */
	double pair_gap_ns;
	const struct histogram *rtt; /* probe only; NULL for reflect */
	const struct histogram *rx_delay;
};

/*
 * STAMP: the Error Estimate of the reflector's answers (RFC 4656 §4.1.2,
 * Z bit RFC 8762 §4.2.1): JSON stamp.reflector_error_estimate, one text
 * line. Only when present (some answer carried one).
 */
struct report_error_estimate {
	bool present;
	uint16_t raw;  /* as on the wire, of the last answer */
	bool sync;     /* S: the reflector's clock is synchronised to UTC */
	bool ptp;      /* Z: its timestamps are PTP, else NTP */
	uint8_t scale; /* 6 bits */
	uint8_t multiplier; /* 0 is invalid (RFC 4656) */
	double seconds;	    /* multiplier * 2^(scale - 32) */
	uint64_t answers;   /* answers that carried one */
	uint64_t changes;   /* answers whose estimate differed from the one
			       before */
};

/*
 * One-way delays of STAMP answers (report_oneway.c): forward =
 * T2 - T1 and reverse = T4 - T3 (JSON forward_ns, reverse_ns: rtt_ns's
 * keys, positive values only) and JSON one_way: whether they mean
 * anything, why not, and the bound. The bound is the sum of both sides':
 * the reflector's largest Error Estimate plus our mapping's largest error
 * plus our clock's largest sync error over the run (not with same_clock:
 * both sides read one system clock, so the sync errors cancel). It is
 * known only when every part is: not when our mapping was not re-sampled
 * (the clock thread did not run), our clock was not synchronised at some
 * read of the run or its source gave no error figure, or the reflector
 * sent no estimate, an unknown one, or one with S clear (those three
 * last ignored with same_clock, as the sync errors). Not valid (reasons)
 * when the bound is unknown (each cause its reason), no answer had T2/T3,
 * a one-way delay was <= 0 (the clocks disagree by at least its size),
 * or the bound is not below the median of either direction.
 */
enum report_ow_reason {
	REPORT_OW_NO_ANSWERS,
	REPORT_OW_REFLECTOR_UNSYNC,
	REPORT_OW_NO_ESTIMATE,
	REPORT_OW_LOCAL_UNSYNC,
	REPORT_OW_NEGATIVE,
	REPORT_OW_BOUND,
	REPORT_OW_LOCAL_ERR_UNKNOWN, /* synchronised, no error figure */
	REPORT_OW_LOCAL_NO_MAPPING,  /* our clock thread did not run */
	REPORT_OW_REFLECTOR_UNKNOWN, /* an estimate that says "unknown" */
	REPORT_OW__COUNT
};

struct report_one_way {
	const struct histogram *forward, *reverse;
	uint64_t answers, fwd_nonpos, rev_nonpos;
	int64_t fwd_min_ns, rev_min_ns; /* signed, of every answer */
	bool same_clock;		/* --same-clock */
	/* The reflector's, from its answers' Error Estimates. */
	uint64_t refl_ee_max_ns, refl_s_clear, refl_no_ee;
	uint64_t refl_ee_unknown; /* answers whose estimate was unknown */
	/* Ours: the TSC -> UTC mapping over the run. */
	bool map_unknown;	 /* not re-sampled: the clock thread did not
				    run, so its error is not known */
	uint64_t map_err_max_ns; /* at the answers, max */
	uint64_t map_resamples, map_steps;
	int64_t map_step_max_ns;
	uint64_t map_residual_max_ns;
	double map_slew_max_ppm;
	/* Ours: the clock's synchronisation over the run (the worst of its
	 * reads, struct clock_run). */
	bool local_synced;	    /* at every read */
	const char *local_source;   /* "chrony", "kernel", "test", "none" */
	bool local_sync_unknown;    /* synced, but a read gave no error */
	uint64_t local_sync_err_ns; /* the largest read */
	uint64_t local_reads, local_unsynced_reads;
	bool kernel_read, kernel_synced;
	unsigned kernel_status; /* adjtimex STA_* bits */
	uint64_t kernel_esterror_ns, kernel_maxerror_ns;
	bool chrony; /* chronyc answered: the fields below */
	const char *chrony_ref;
	unsigned chrony_stratum;
	bool chrony_synced, chrony_phc;
	double chrony_offset_s, chrony_root_delay_s, chrony_root_dispersion_s;
	uint64_t chrony_bound_ns;
	/* report_one_way_judge() fills these. */
	uint64_t bound_ns; /* bound_known only */
	bool bound_known;
	enum report_ow_reason bound_why; /* !bound_known: the first cause */
	bool valid;
	unsigned reasons;     /* 1 << enum report_ow_reason */
	uint64_t disagree_ns; /* with REPORT_OW_NEGATIVE: at least this */
};

void report_one_way_judge(struct report_one_way *ow);
/* JSON one_way.reasons[] names ("reflector_unsynchronised", ...). */
const char *report_ow_reason_key(enum report_ow_reason r);

/* One target of a run with several (--targets, or several TARGETs). */
struct report_target {
	const char *target; /* "198.18.0.2:862" */
	const char *proto;
	const char *label; /* "" = none */
	uint64_t sent, received, lost;
	const struct histogram *rtt;
	const struct histogram *network_rtt; /* NULL: the proto has none */
	bool removed;	/* SIGHUP took it out of the pinglist during the run */
	uint16_t sport; /* its source port (JSON source_port); 0: none */
};

/*
 * One flow of --flows (each lcore's N flows): JSON "flows", one object
 * each with flow, lcore, sport, count, lost, p50, p99, max (ns; the
 * percentiles from the prober's compact per-flow histogram, never below
 * the exact value and less than 6.25 % above it).
 */
struct report_flow {
	unsigned flow;	/* lcore index * N + its flow index */
	unsigned lcore; /* worker index */
	uint16_t sport;
	uint64_t count, lost;
	uint64_t p50, p99, max; /* 0 when count is 0 */
};

/*
 * Do the flows differ more than their own spread explains? Over the flows
 * with answers: ratio = the worst flow's p50 / the median flow's p50 (the
 * lower median), own = that median flow's p99 / p50; differ when ratio >
 * own and ratio > REPORT_FLOWS_MIN_RATIO (two steps of the per-flow
 * histogram's 1/16 resolution) (JSON "flows_spread"). Needs 2 flows with
 * answers (valid).
 */
#define REPORT_FLOWS_MIN_RATIO 1.125

struct report_flows_spread {
	bool valid;
	unsigned flows; /* with answers */
	uint64_t worst_p50, median_p50, median_p99;
	uint16_t worst_sport;
	double ratio, own;
	bool differ;
};

void report_flows_spread(const struct report_flow *f, unsigned n,
			 struct report_flows_spread *out);

/* The text table shows this many flows, worst p99 first. */
#define REPORT_FLOWS_TOP 10

/* One series over one interval: ns, 0 when none. */
struct report_iv_stat {
	uint64_t count, p50, p99, max;
};

/* One target's figures over one --interval-report interval. */
struct report_iv_row {
	const char *target; /* "198.18.0.2:862" */
	uint64_t sent, received, lost;
	struct report_iv_stat rtt; /* round trips */
	/* Open loop: the intended latency's (JSON intended_latency_ns,
	 * text "intended p50 ..."). */
	bool has_intended;
	struct report_iv_stat intended;
};

struct report_interval {
	double t_s;   /* end of the interval, seconds since the start */
	double len_s; /* its length */
	/* Port events in it: link downs and ups, the time the
	 * link was down in it, the link down at its end, the device away
	 * (removed in it or still away at its end), back in it. Text
	 * "  LINK ...", "  DEVICE AWAY", "  device back" and JSON "link"
	 * {downs, ups, down_s, down_at_end, removed, attached} when any is
	 * set. */
	unsigned link_downs, link_ups;
	double link_down_s;
	bool link_down_at_end, removed, attached;
	/* The path over the run (netvsc/failsafe): the one that
	 * carried the packets at its end ("vf", "synthetic"; NULL: not
	 * watched) and the shifts in it. Text "  PATH vf -> synthetic" when
	 * it shifted, "  PATH synthetic" while off the VF; JSON "path" {now,
	 * shifts} then. */
	const char *path;
	unsigned path_shifts;
	const char *path_from; /* the path at its start, when it shifted */
	const struct report_iv_row *rows;
	unsigned n_rows;
	/* A run of one target: its line has no target column and short
	 * forms of the figures (80 columns); the JSON is the same. */
	bool one_target;
};

/* "interval 12.000s 198.18.0.2:862 sent 50 lost 0 p50 ... p99 ... max
 * ..." into buf; the length snprintf would write. */
int report_iv_line(char *buf, size_t cap, const struct report_interval *iv,
		   const struct report_iv_row *row);

/*
 * Open loop (--rate): JSON "open_loop" {rate_pps, spacing, seed,
 * window_slots}, "sender" {late_sends, behind_max_ns, bound_ns,
 * behind_p50_ns, behind_p99_ns} and the series "intended_latency_ns" (T4 -
 * scheduled send time, same keys as rtt_ns); text lines for each.
 */
struct report_open {
	uint64_t rate_pps;   /* per lcore */
	const char *spacing; /* "constant", "poisson" */
	uint64_t seed;
	uint64_t window_slots; /* per lcore */
	uint64_t late_sends;   /* sends behind schedule by more than bound */
	uint64_t behind_max_ns;
	uint64_t bound_ns;
	const struct histogram *intended;
	const struct histogram *behind; /* per measured send, ns */
};

/*
 * Report_stalls.c: one side's stalls (gaps of a worker's poll
 * loop above the threshold), summed over its workers, and what the host
 * said over the same run (steal time and other runnable tasks on the
 * workers' CPUs, as latprobe doctor reads them). JSON stalls.prober /
 * stalls.reflector.
 */
#define REPORT_STALL_BUCKETS 19
/*
 * What the host's own counters say of a side's stalls, window by window
 * (the side thread's samples): a window's stalls are explained by
 * preemption when the workers' threads waited on a run queue or were
 * switched out involuntarily in it (its lost time up to that wait), else by
 * the threads being off their CPU while not runnable (stopped, asleep: the
 * window's wall time less their run and run-queue time; voluntary
 * switches), else by steal, else by interrupts on their CPUs (count only:
 * an interrupt's time is not counted); what is left is unexplained. Time
 * off the CPU that no stall accounts for happened where the loop cannot
 * see it (inside a PMD call that enters the kernel, typically):
 * hidden_wait_ns.
 */
struct report_stall_corr {
	bool have;
	uint64_t windows;
	bool threads_ok, steal_ok, irqs_ok;  /* each source was readable */
	uint64_t wait_ns, involuntary, irqs; /* totals over the windows */
	uint64_t off_cpu_ns, voluntary;
	uint64_t by_preemption, by_off_cpu, by_steal, by_irq;
	uint64_t unexplained; /* stalls */
	uint64_t by_preemption_ns, by_off_cpu_ns, by_steal_ns, unexplained_ns;
	uint64_t hidden_wait_ns;
};

/* The time inside one kind of PMD call (stall.h's series). */
struct report_stall_call {
	const char *kind; /* "rx_empty", "rx", "tx" */
	uint64_t count, total_ns, max_ns, p50_ns, p99_ns;
	/* A call longer is a stall (a poll-mode queue: the threshold or the
	 * kind's own level, the highest of the workers'); 0: not judged by
	 * time (a kernel-entering queue's). */
	uint64_t thr_ns;
};

#define REPORT_STALL_CALLS 3

struct report_stall_side {
	bool known; /* false: nothing is known of this side */
	/* The threshold in force and how it was set: the floor (the user's
	 * --stall-threshold) and the calibration's gaps and their p99.9. */
	bool have_calib;
	uint64_t threshold_ns, floor_ns, calib_gaps, calib_p999_ns;
	unsigned calib_mult; /* the threshold's multiple of that p99.9 */
	/* The loop's own gaps over the run (log2 bins: a bin's upper edge). */
	uint64_t gaps, gap_p50_ns, gap_p999_ns;
	/* Gaps that held a frame's work, since the start (calibration and
	 * warm-up too), the highest p50 of a worker's and the highest
	 * threshold they are judged against (STALL_WORK_MULT x their p90, at
	 * least threshold_ns); work_gaps 0: none seen. */
	uint64_t work_gaps, work_p50_ns, work_thr_ns;
	/* The PMD's calls: their time is the path's (path_calls) or judged. */
	bool have_calls, path_calls;
	struct report_stall_call calls[REPORT_STALL_CALLS];
	struct report_stall_corr corr;
	uint64_t count, total_ns, longest_ns;
	/* Of count: kernel-entering PMD calls the thread spent partly off its
	 * CPU (path_calls only). */
	uint64_t in_call;
	bool have_hist;
	uint64_t hist[REPORT_STALL_BUCKETS];
	const uint64_t *hist_upper_ns; /* REPORT_STALL_BUCKETS, last = max */
	bool have_host;		       /* steal and runnable sampled */
	uint64_t steal_ns;	       /* over the workers' CPUs */
	uint64_t other_runnable;       /* tasks of other processes seen
					  runnable on those CPUs */
	unsigned host_scans;
};

/*
 * The probe report's stall section: both sides, the split of the measured
 * round trips (rtt = unaffected + host_prober + host_reflector +
 * host_both, counter for counter), the tail's attribution above p99 and
 * p99.9 and the verdict line. JSON "stalls" and the series
 * "rtt_ns_unaffected" (rtt_ns's keys).
 */
struct report_stalls {
	uint64_t threshold_ns;
	struct report_stall_side prober, reflector;
	/* The reflector's side came in the stall TLV (--stall-tlv): answers
	 * that carried it filled in, and those the reflector flagged U/M. */
	bool tlv;
	uint64_t tlv_answers, tlv_unknown;
	const struct histogram *unaffected, *host_prober, *host_reflector,
		*host_both;
};

/*
 * Can the detector tell the host from the path on this run? Not when more
 * than REPORT_STALL_SEPARABLE_MAX of the measured probes overlapped a stall:
 * then "without host-affected" is a small, biased rest (the probes whose
 * own send and receive were fastest), and neither the split nor a verdict
 * is printed.
 */
#define REPORT_STALL_SEPARABLE_MAX 0.10
bool report_stalls_separable(const struct report_stalls *s,
			     const struct histogram *rtt, double *share);

/* The tail above percentile p (99, 99.9) of rtt, split by side. enough
 * false: rtt's count is too few for p (report_pct_enough()), and nothing
 * but p and count is set. */
struct report_stall_tail {
	double p;
	uint64_t count; /* rtt's in-range round trips */
	bool enough;
	uint64_t value_ns; /* the percentile */
	uint64_t above;	   /* probes above it */
	uint64_t prober, reflector, both;
};
void report_stalls_tail(const struct report_stalls *s,
			const struct histogram *rtt, double p,
			struct report_stall_tail *out);

/* The verdict's significance level (one-sided). */
#define REPORT_STALLS_VERDICT_ALPHA 0.05
/*
 * Whether the data support a verdict on t (the tail above p99.9 of rtt):
 * enough samples in both series, and a host-affected share in the tail
 * significantly above the share of all probes. false: why, in buf.
 */
bool report_stalls_verdict_gate(const struct report_stalls *s,
				const struct histogram *rtt,
				const struct report_stall_tail *t, char *why,
				size_t cap);
/* The verdict (no newline) for p99.9 of rtt when *supported, else why
 * there is none; its length as snprintf's. */
int report_stalls_verdict(char *buf, size_t cap, const struct report_stalls *s,
			  const struct histogram *rtt, bool *supported);

/* The reflector report's: its own side. */
struct report_reflect_stalls {
	uint64_t threshold_ns;
	struct report_stall_side reflector;
};

struct report_probe {
	const char *proto;	 /* "stamp", "sockperf", ... */
	const char *backend;	 /* "dpdk" or "kernel" */
	const char *target;	 /* "198.18.0.2:862" */
	const char *port_driver; /* e.g. "net_af_xdp", NULL for kernel */
	/* Each worker's (first) source port: JSON "source_port" (the first,
	 * null when n_sports is 0) and "source_ports". */
	const uint16_t *sports;
	unsigned n_sports;
	unsigned size;	   /* probe size as given with -l (bytes of payload) */
	unsigned lcores;   /* worker lcores that probed */
	double duration_s; /* measured phase, excluding warm-up */
	bool interrupted;  /* stopped by SIGINT/SIGTERM */

	uint64_t sent, received, lost, duplicated, reordered;
	uint64_t timeouts; /* probes given up after --timeout (= lost) */
	/* Lost probes whose flight saw the link down (part of lost; JSON
	 * probes.lost_link_down and lost_path, with port.events only). */
	uint64_t lost_link_down;
	uint64_t rx_ignored; /* frames received that were not an answer */
	uint64_t warmup;     /* probes sent in warm-up, not recorded */
	uint64_t late;	     /* answers that came after their timeout */
	uint64_t resets;     /* tcp-syn: answers that were RST (port closed) */
	uint64_t reasm_failed;		/* fragmented answers that could not be
					   reassembled */
	uint64_t interval_ns;		/* -i, 0 = back to back */
	uint64_t timeout_ns;		/* --timeout */
	uint64_t interval_stretched;	/* timeouts that ran past the next -i */
	const struct report_meta *meta; /* NULL: not shown */
	uint64_t ignored[REPORT_IGN__COUNT];	     /* sums to rx_ignored */
	uint64_t unreachable[REPORT_UNREACH__COUNT]; /* ICMP errors by code */
	bool authenticated;   /* STAMP authenticated mode (--auth-key) */
	uint64_t auth_failed; /* answers whose HMAC did not verify */
	uint64_t l4_partial;  /* answers used whose L4 checksum was partial */
	uint64_t nombuf; /* sends retried for want of an mbuf (probes.nombuf) */
	struct report_error_estimate reflector_ee;

	const struct histogram *rtt;
	/* NULL when the proto has no T2/T3 (likewise turnaround) */
	const struct histogram *network_rtt;
	const struct histogram *turnaround;
	struct report_buckets buckets;
	struct report_tsc tsc;
	struct report_port_xstats port;
	const struct report_hw *hw;
	/* Several targets: one row each in the text report (worst p99
	 * first) and JSON "targets"; the figures above are all of them
	 * merged. n_targets 0: a run with one target, no table. */
	const struct report_target *targets;
	unsigned n_targets;
	/* --interval-report: the last n_intervals intervals (JSON
	 * "intervals", oldest first); intervals_dropped older ones were let
	 * go to bound the memory. n_intervals 0 and no drop: no key. */
	const struct report_interval *intervals;
	unsigned n_intervals;
	uint64_t intervals_dropped;
	/* --flows: every flow (n_flows 0: none); text: the top
	 * REPORT_FLOWS_TOP by p99 and the spread line. */
	const struct report_flow *flows;
	unsigned n_flows;
	/* --new-flow-every K (0: off): the first probe of each new tuple,
	 * JSON "first_packet_rtt_ns" (rtt_ns keys; not in rtt_ns) and
	 * "first_packet" {every, new_flows, fresh_ports, fresh_reused,
	 * lost}. */
	uint64_t new_flow_every;
	const struct histogram *first_packet;
	uint64_t new_flows, fresh_ports, fresh_reused, first_lost;
	const struct report_open *open; /* NULL: closed loop */
	/* STAMP one-way delays (judged); NULL: not shown */
	const struct report_one_way *one_way;
	const struct report_stalls *stalls; /* NULL: not watched */
	/* The text report's default view: the answer first, a section with
	 * nothing to say in one line or none, the bucket table only when
	 * asked for (-h). false: every section (--details). */
	bool brief;
};

/*
 * Human-readable report in PsPing's layout: when/where/what (meta), "Sent =
 * N, Received = N, Lost = N (x%)", minimum/maximum/average, percentiles,
 * the bucket table (upper edge, count, cumulative %), a compact line each
 * for network RTT and turnaround when present, the TSC facts, and last one
 * "summary:" line made to be pasted next to another run's. A series without
 * samples shows "-" for each figure (a NULL rtt reads as empty). When frames
 * were ignored, a line gives the count per reason and a hint for the
 * biggest one; ICMP unreachable answers get a line of their own
 * ("198.18.0.2:862 answered ICMP port unreachable: nothing listens there").
 * With r->brief, the same report cut to what a reader looks for first:
 * percentiles the count is too small for share one line, the series
 * beyond the round trip one line, and the one-way, stall, port and TSC
 * sections only when they find something (a valid one-way delay, a stall
 * verdict, a path split, a moved counter, a link event, a TSC that is not
 * invariant); the JSON is the same either way.
 * Returns 0, -EINVAL (bad arguments or bucket spec), -ENOMEM or -EIO.
 */
int report_probe_text(const struct report_probe *r, FILE *out);

/*
 * JSON with the stable keys of the design card (probes.*, rtt_ns.*,
 * network_rtt_ns.*, turnaround_ns.*, buckets[], tsc.*) plus extras
 * (buckets[].cum_pct, buckets_layout, the meta fields, summary).
 * buckets[].upper_ns is null for the open-ended last row of an edge list;
 * doubles that are not finite are written as null. Returns 0, -EINVAL
 * (bad arguments or bucket spec), -ENOMEM or -EIO (writing failed).
 */
int report_probe_json(const struct report_probe *r, FILE *out);

/*
 * One reflector worker (an lcore and its rx/tx queue pair): JSON "workers"
 * [{lcore, queue, rx, tx, answered, answered_by, ignored, tx_dropped,
 * queue_rx_packets, queue_rx_errors}], a text table when there is more than
 * one. The totals (counters) stay the run's.
 */
struct report_reflect_worker {
	int lcore;	   /* EAL lcore id; -1: none (kernel backend: null) */
	int queue;	   /* rx/tx queue of the port; -1: none (null) */
	uint64_t rx;	   /* frames received */
	uint64_t tx;	   /* frames sent */
	uint64_t answered; /* requests answered, every protocol */
	/* answered per protocol ("stamp", "sockperf", ...); may be NULL */
	const struct report_counter *answered_by;
	unsigned n_answered_by;
	uint64_t ignored;    /* frames dropped by reason (not answered) */
	uint64_t tx_dropped; /* answers the tx queue did not take */
	/* The PMD's own count of this rx queue over the run (rte_eth_stats
	 * q_ipackets, q_errors: frames it received, frames it dropped or
	 * failed); have_queue_stats false: it does not count per queue
	 * (null). */
	bool have_queue_stats;
	uint64_t queue_rx_packets, queue_rx_errors;
};

/*
 * The reflector's clock for STAMP one-way delays: its TSC -> UTC
 * mapping over the run and its synchronisation, as the prober's
 * one_way.local has them, and the Error Estimate its answers carried last.
 * JSON "clock", one text line.
 */
struct report_clock {
	bool not_resampled; /* the clock thread did not run: the start's
			       mapping, its error unknown */
	uint64_t mapping_error_max_ns, residual_max_ns, resamples, steps;
	int64_t step_max_ns;
	double slew_max_ppm;
	bool synchronised;	 /* at every read of the run */
	const char *source;	 /* "chrony", "kernel", "test", "none" */
	bool sync_error_unknown; /* synchronised, a read gave no figure */
	uint64_t sync_error_ns;	 /* the largest read */
	uint64_t sync_reads, unsynchronised_reads;
	uint16_t error_estimate; /* raw, as on the wire */
	double error_estimate_ns;
};

struct report_reflect {
	const char *backend;
	const char *addr;
	double duration_s;
	bool interrupted;
	const struct report_counter *counters; /* answered.*, dropped.* */
	unsigned n_counters;
	/* T3 - T2 per answered probe; may be NULL */
	const struct histogram *turnaround;
	struct report_tsc tsc;
	const struct report_meta *meta; /* NULL: not shown */
	struct report_port_xstats port;
	const struct report_hw *hw;
	const struct report_reflect_worker *workers; /* may be NULL */
	unsigned n_workers;
	const struct report_clock *clock; /* STAMP's clock; NULL: none */
	/* NULL: not watched */
	const struct report_reflect_stalls *stalls;
};

/*
 * Counters as "name value" lines (text: only those that are not zero) / a
 * JSON object name -> value (all of them; names are used whole, dots
 * included), turnaround summary when present, TSC facts; the workers (JSON
 * "workers", always; text: a table with each one's share of the answers
 * when there are several, and a line naming a worker that answered nothing
 * while others did).
 * 0, -EINVAL (a counter without a name, counters NULL with n_counters,
 * workers NULL with n_workers), -ENOMEM or -EIO.
 */
int report_reflect_text(const struct report_reflect *r, FILE *out);
int report_reflect_json(const struct report_reflect *r, FILE *out);

/*
 * One line of live progress: "  12.0s sent 1000 lost 0 p50 3.21us p99
 * 4.10us max 9.87us" for an interval histogram (received is sent - lost
 * and not shown; counts from 100000 on as "123k", "1.23M"; latencies in
 * three digits). With t_s < 10000 and a report_live_mark() after it, at
 * most 80 columns.
 * Writes into buf (NUL-terminated, truncated to cap - 1), returns the length
 * of what is in buf, or -EINVAL (buf NULL, cap 0). An empty interval shows
 * "p50 - p99 - max -".
 */
int report_live_line(char *buf, size_t cap, double t_s, uint64_t sent,
		     uint64_t received, uint64_t lost,
		     const struct histogram *interval);

/* The port's state a live line ends with, from report_live_mark(). */
enum report_live_state {
	REPORT_LIVE_OK,	     /* nothing: "" */
	REPORT_LIVE_REMOVED, /* " [REMOVED]" */
	REPORT_LIVE_DOWN,    /* " [LINK DOWN 1.2s]": down for down_s */
	REPORT_LIVE_FLAPPED, /* " [FLAP down 1.2s]": went down and up since
				the last line, down_s in all */
};

/* The live line's mark (at most 18 columns) into buf; its length, or
 * -EINVAL (buf NULL, cap 0). */
int report_live_mark(char *buf, size_t cap, enum report_live_state st,
		     double down_s);

/*
 * The path over one live interval (--live-path): "path (netvsc): VF rx +N
 * tx +N, synthetic rx +N tx +N" on a master over a VF, else the driver's
 * counters that moved ("path (mlx): rx_vport_packets +N, ..." up to four,
 * or "no driver counter moved"). Writes into buf like report_live_line;
 * returns the length, or -EINVAL.
 */
int report_live_path(char *buf, size_t cap, const struct report_port_path *p);

/*
 * Format ns as "812ns", "3.21us", "4.567ms", "1.234s" (at most three integer
 * digits; from 999.9995 s on, whole seconds) into buf (>= 16 is always
 * enough). Returns buf, or NULL with errno EINVAL when buf is NULL or cap 0.
 */
const char *report_fmt_ns(uint64_t ns, char *buf, size_t cap);

/*
 * --samples CSV: header "seq,lcore,t1_ns,rtt_ns,network_rtt_ns,forward_ns,
 * reverse_ns", one row per sample; a negative network_rtt_ns is written as
 * an empty field (NA), and so are forward/reverse without one-way figures
 * (they are signed: a negative one is the clocks' disagreement).
 * 0, -EINVAL or -EIO.
 */
struct report_sample {
	uint64_t seq;
	uint32_t lcore;
	uint64_t t1_ns; /* since the run's start */
	uint64_t rtt_ns;
	int64_t network_rtt_ns; /* -1 when the proto has none (CSV: empty) */
	/* One-way (STAMP): T2 - T1 and T4 - T3, signed; has_one_way false:
	 * empty fields. */
	bool has_one_way;
	int64_t forward_ns, reverse_ns;
};

int report_samples_header(FILE *out);
int report_samples_write(FILE *out, const struct report_sample *s, size_t n);

#endif /* LATPROBE_REPORT_H */
