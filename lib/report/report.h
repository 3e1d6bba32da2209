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

#include "histogram.h"

/* Percentiles every report shows, in this order. */
#define REPORT_N_PCTS 6
extern const double report_pcts[REPORT_N_PCTS]; /* 50 90 99 99.9 99.99 99.999 */

struct report_summary {
	uint64_t count, min, max;
	double mean, stddev;
	uint64_t pct[REPORT_N_PCTS]; /* values at report_pcts[] */
};

/* Summarise a histogram (all zero when empty). */
void report_summarise(const struct histogram *h, struct report_summary *s);

struct report_tsc {
	uint64_t hz;	  /* in use */
	uint64_t dpdk_hz; /* rte_get_tsc_hz(), 0 without EAL */
	double calib_ppm; /* own calibration vs dpdk_hz */
	bool invariant;
	double read_cost_cycles; /* ordered read */
};

/* -h: either n_buckets (linear between min and max) or explicit edges. */
struct report_buckets {
	unsigned n_buckets; /* 0 when edges are given */
	const uint64_t *edges_ns;
	unsigned n_edges;
};

struct report_probe {
	const char *proto;	 /* "stamp", "sockperf", ... */
	const char *backend;	 /* "dpdk" or "kernel" */
	const char *target;	 /* "198.18.0.2:862" */
	const char *port_driver; /* e.g. "net_af_xdp", NULL for kernel */
	unsigned size;	   /* probe size as given with -l (bytes of payload) */
	unsigned lcores;   /* worker lcores that probed */
	double duration_s; /* measured phase, excluding warm-up */
	bool interrupted;  /* stopped by SIGINT/SIGTERM */

	uint64_t sent, received, lost, duplicated, reordered;
	uint64_t timeouts;   /* probes given up after --timeout (= lost) */
	uint64_t rx_ignored; /* frames received that were not an answer */
	uint64_t warmup;     /* probes sent in warm-up, not recorded */
	uint64_t late;	     /* answers that came after their timeout */
	uint64_t resets;     /* tcp-syn: answers that were RST (port closed) */
	uint64_t reasm_failed; /* fragmented answers that could not be
				  reassembled */
	bool authenticated;    /* STAMP authenticated mode (--auth-key) */
	uint64_t auth_failed;  /* answers whose HMAC did not verify */

	const struct histogram *rtt;
	/* NULL when the proto has no T2/T3 (likewise turnaround) */
	const struct histogram *network_rtt;
	const struct histogram *turnaround;
	struct report_buckets buckets;
	struct report_tsc tsc;
};

/*
 * Human-readable report in PsPing's layout: "Sent = N, Received = N,
 * Lost = N (x%)", minimum/maximum/average, percentiles, the -h bucket table
 * (upper edge, count), a compact line each for network RTT and turnaround
 * when present, then the TSC facts. A NULL rtt reads as empty (zeros).
 * Returns 0, -EINVAL (bad arguments or bucket spec), -ENOMEM or -EIO.
 */
int report_probe_text(const struct report_probe *r, FILE *out);

/*
 * JSON with the stable keys of the design card (probes.*, rtt_ns.*,
 * network_rtt_ns.*, turnaround_ns.*, buckets[], tsc.*) plus extras.
 * buckets[].upper_ns is null for the open-ended last row of an edge list;
 * doubles that are not finite are written as null. Returns 0, -EINVAL
 * (bad arguments or bucket spec), -ENOMEM or -EIO (writing failed).
 */
int report_probe_json(const struct report_probe *r, FILE *out);

/* One named counter (reflector drop reasons, port xstats, ...). */
struct report_counter {
	const char *name;
	uint64_t value;
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
};

/*
 * Counters as "name value" lines / a JSON object name -> value (names are
 * used whole, dots included), turnaround summary when present, TSC facts.
 * 0, -EINVAL (a counter without a name, counters NULL with n_counters),
 * -ENOMEM or -EIO.
 */
int report_reflect_text(const struct report_reflect *r, FILE *out);
int report_reflect_json(const struct report_reflect *r, FILE *out);

/*
 * One line of live progress: "  12.0s  sent 1000 recv 1000 lost 0
 * p50 3.21us p99 4.10us max 9.87us" for an interval histogram.
 * Writes into buf (NUL-terminated, truncated to cap - 1), returns the length
 * of what is in buf, or -EINVAL (buf NULL, cap 0). An empty interval shows
 * "p50 - p99 - max -".
 */
int report_live_line(char *buf, size_t cap, double t_s, uint64_t sent,
		     uint64_t received, uint64_t lost,
		     const struct histogram *interval);

/*
 * Format ns as "812ns", "3.21us", "4.567ms", "1.234s" (at most three integer
 * digits; from 999.9995 s on, whole seconds) into buf (>= 16 is always
 * enough). Returns buf, or NULL with errno EINVAL when buf is NULL or cap 0.
 */
const char *report_fmt_ns(uint64_t ns, char *buf, size_t cap);

/*
 * --samples CSV: header "seq,lcore,t1_ns,rtt_ns,network_rtt_ns", one row per
 * sample; a negative network_rtt_ns is written as an empty field (NA).
 * 0, -EINVAL or -EIO.
 */
struct report_sample {
	uint64_t seq;
	uint32_t lcore;
	uint64_t t1_ns; /* since the run's start */
	uint64_t rtt_ns;
	int64_t network_rtt_ns; /* -1 when the proto has none (CSV: empty) */
};

int report_samples_header(FILE *out);
int report_samples_write(FILE *out, const struct report_sample *s, size_t n);

#endif /* LATPROBE_REPORT_H */
