/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <json-c/json.h>

#include "latprobe/hdr_codec.h"
#include "latprobe/report.h"

const double report_pcts[REPORT_N_PCTS] = {50, 90, 99, 99.9, 99.99, 99.999};

/* Text labels and JSON keys for report_pcts[], same order. */
static const char *const pct_label[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99.9", "p99.99", "p99.999",
};
static const char *const pct_key[REPORT_N_PCTS] = {
	"p50", "p90", "p99", "p99_9", "p99_99", "p99_999",
};

const char *const report_ignored_name[REPORT_IGN__COUNT] = {
	[REPORT_IGN_CHECKSUM] = "checksum",
	[REPORT_IGN_TOO_SHORT] = "too_short",
	[REPORT_IGN_OTHER_FLOW] = "other_flow",
	[REPORT_IGN_NEVER_SENT] = "never_sent",
	[REPORT_IGN_LATE] = "late",
	[REPORT_IGN_DUPLICATE] = "duplicate",
	[REPORT_IGN_NOT_IP] = "not_ip",
	[REPORT_IGN_ARP] = "arp",
	[REPORT_IGN_UNREACHABLE] = "unreachable",
	[REPORT_IGN_AUTH] = "auth",
};

/* What to do about the biggest reason, for the text report. */
static const char *const ignored_hint[REPORT_IGN__COUNT] = {
	[REPORT_IGN_CHECKSUM] =
		"answers with a wrong checksum: corrupted on the way, or a "
		"peer that sends wrong sums (partial ones, from a peer's tx "
		"checksum offload, are used and counted apart)",
	[REPORT_IGN_TOO_SHORT] = "answers too short or malformed: does the "
				 "peer speak this --proto?",
	[REPORT_IGN_OTHER_FLOW] = "frames for other addresses, ports or VLANs "
				  "share the link",
	[REPORT_IGN_NEVER_SENT] = "answers to probes never sent: another "
				  "prober on the same flow (--sport)?",
	[REPORT_IGN_LATE] = "answers after their probe timed out: a longer "
			    "--timeout counts them",
	[REPORT_IGN_DUPLICATE] = "the path or the peer duplicates answers",
	[REPORT_IGN_NOT_IP] = "non-IP traffic on the link (LLDP, ...)",
	[REPORT_IGN_ARP] = "ARP traffic for other addresses",
	[REPORT_IGN_UNREACHABLE] = "ICMP destination unreachable: see above",
	[REPORT_IGN_AUTH] = "answers whose HMAC does not verify: the two "
			    "--auth-key files differ, or the peer has none",
};

const char *const report_unreach_name[REPORT_UNREACH__COUNT] = {
	[REPORT_UNREACH_NET] = "net",	  [REPORT_UNREACH_HOST] = "host",
	[REPORT_UNREACH_PORT] = "port",	  [REPORT_UNREACH_ADMIN] = "admin",
	[REPORT_UNREACH_OTHER] = "other",
};

/* Stands in for a NULL histogram: reports of nothing show zeros. */
static const struct histogram empty_histogram = {.min = UINT64_MAX};

static const struct histogram *
hist_or_empty(const struct histogram *h)
{
	return h != NULL ? h : &empty_histogram;
}

void
report_summarise(const struct histogram *h, struct report_summary *s)
{
	unsigned i;

	if (s == NULL)
		return;
	memset(s, 0, sizeof(*s));
	if (h == NULL || histogram_count(h) == 0)
		return;
	s->count = histogram_count(h);
	s->min = histogram_min(h);
	s->max = histogram_max(h);
	s->mean = histogram_mean(h);
	s->stddev = histogram_stddev(h);
	for (i = 0; i < REPORT_N_PCTS; i++)
		s->pct[i] = histogram_percentile(h, report_pcts[i]);
}

const char *
report_fmt_ns(uint64_t ns, char *buf, size_t cap)
{
	if (buf == NULL || cap == 0) {
		errno = EINVAL;
		return NULL;
	}
	/*
	 * Switch unit where rounding would print "1000.00us": each unit shows
	 * at most three integer digits.
	 */
	if (ns < 1000)
		snprintf(buf, cap, "%" PRIu64 "ns", ns);
	else if (ns < 999995)
		snprintf(buf, cap, "%.2fus", (double)ns / 1e3);
	else if (ns < 999999500)
		snprintf(buf, cap, "%.3fms", (double)ns / 1e6);
	else if (ns < 999999500000ull)
		snprintf(buf, cap, "%.3fs", (double)ns / 1e9);
	else
		snprintf(buf, cap, "%" PRIu64 "s",
			 ns / 1000000000 + (ns % 1000000000 >= 500000000));
	return buf;
}

/* report_fmt_ns() for use inside one printf: each call owns its buffer. */
struct ns_str {
	char s[24];
};

static struct ns_str
fmt_ns(uint64_t ns)
{
	struct ns_str r;

	report_fmt_ns(ns, r.s, sizeof(r.s));
	return r;
}

/* fmt_ns(), or "-" when the series has no sample (count 0). */
static struct ns_str
fmt_ns_of(uint64_t count, uint64_t ns)
{
	struct ns_str r;

	if (count == 0)
		snprintf(r.s, sizeof(r.s), "-");
	else
		report_fmt_ns(ns, r.s, sizeof(r.s));
	return r;
}

static uint64_t
round_ns(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 18446744073709549568.0)
		return UINT64_MAX;
	return (uint64_t)(v + 0.5);
}

int
report_auto_rows(const struct histogram *h, struct histogram_row *rows,
		 unsigned cap)
{
	uint64_t total, hi, lo, cum = 0, prev = 0;
	double llo, lspan, nines;
	unsigned i, n = 0, k = 1;

	if (h == NULL || rows == NULL || cap < REPORT_AUTO_ROWS + 1)
		return -EINVAL;
	total = h->total;
	if (total == 0)
		return 0;
	lo = histogram_percentile(h, 0.1);
	hi = histogram_max(h);
	if (lo == 0)
		lo = 1;
	llo = log((double)lo);
	lspan = log((double)hi) - llo;
	nines = total > 1 ? log10((double)total) : 1.0;
	for (i = 0; i < HISTOGRAM_COUNTERS && cum < total; i++) {
		uint64_t up;
		double lf, nf, m;

		if (h->counts[i] == 0)
			continue;
		cum += h->counts[i];
		up = histogram_index_highest(i);
		if (up > hi || cum == total)
			up = hi;
		lf = lspan > 0 ? (log((double)up) - llo) / lspan : 1.0;
		lf = lf < 0 ? 0 : lf > 1 ? 1 : lf;
		/* "Nines" of the rank: p90 is 1, p99 2, ... up to the last. */
		nf = cum == total ? 1.0
				  : -log10(1.0 - (double)cum / (double)total) /
					    nines;
		m = ((double)cum / (double)total + nf + lf) / 3.0;
		/*
		 * A row ends where the mix passes the next 1/ROWS step, and
		 * the last one at max. At most ROWS steps, so at most ROWS + 1
		 * rows even when rounding lets the last counter pass one more.
		 */
		if (cum == total || m * REPORT_AUTO_ROWS >= k) {
			rows[n].upper_ns = up;
			rows[n].count = cum - prev;
			n++;
			prev = cum;
			while (k <= REPORT_AUTO_ROWS &&
			       m * REPORT_AUTO_ROWS >= k)
				k++;
		}
	}
	return (int)n;
}

/* Rows of the bucket table for h, malloc'd into *rows; *layout names it. */
static int
bucket_rows(const struct histogram *h, const struct report_buckets *b,
	    struct histogram_row **rows, const char **layout)
{
	unsigned n;
	int ret;

	*rows = NULL;
	if (b->n_buckets != 0) {
		n = b->n_buckets;
		*layout = "linear";
	} else if (b->n_edges != 0 && b->edges_ns != NULL) {
		n = b->n_edges + 1;
		*layout = "edges";
	} else {
		n = REPORT_AUTO_ROWS + 1;
		*layout = "auto";
	}
	*rows = calloc(n, sizeof(**rows));
	if (*rows == NULL)
		return -ENOMEM;
	if (b->n_buckets != 0)
		ret = histogram_table_linear(h, b->n_buckets, *rows);
	else if (b->n_edges != 0 && b->edges_ns != NULL)
		ret = histogram_table_edges(h, b->edges_ns, b->n_edges, *rows);
	else
		ret = report_auto_rows(h, *rows, n);
	if (ret < 0) {
		free(*rows);
		*rows = NULL;
	}
	return ret;
}

static const char *
str_or(const char *s, const char *dflt)
{
	return s != NULL ? s : dflt;
}

static int
stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

/* ---------------------------------------------------------------- text */

static void
text_pct_line(FILE *out, const char *title, const struct histogram *h)
{
	struct report_summary s;
	unsigned i;

	report_summarise(h, &s);
	fprintf(out, "%s: count %" PRIu64 ", min %s", title, s.count,
		fmt_ns_of(s.count, s.min).s);
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, ", %s %s", pct_label[i],
			fmt_ns_of(s.count, s.pct[i]).s);
	fprintf(out, ", max %s\n", fmt_ns_of(s.count, s.max).s);
}

static void
text_tsc(FILE *out, const struct report_tsc *t)
{
	fprintf(out, "TSC: %" PRIu64 " Hz (%.6f GHz), %s", t->hz,
		(double)t->hz / 1e9,
		t->invariant ? "invariant"
			     : "NOT invariant (latencies may be wrong)");
	if (t->dpdk_hz != 0)
		fprintf(out, "; DPDK says %" PRIu64 " Hz, %+.1f ppm",
			t->dpdk_hz, t->calib_ppm);
	if (t->read_cost_cycles > 0)
		fprintf(out, "; ordered read %.1f cycles", t->read_cost_cycles);
	fputc('\n', out);
}

/* Cumulative % of the table's total at each row (0 when empty). */
static double
cum_pct(const struct histogram_row *rows, int n, int upto)
{
	uint64_t total = 0, cum = 0;
	int i;

	for (i = 0; i < n; i++) {
		total += rows[i].count;
		if (i <= upto)
			cum += rows[i].count;
	}
	return total != 0 ? 100.0 * (double)cum / (double)total : 0.0;
}

static void
text_buckets(FILE *out, const struct histogram_row *rows, int n)
{
	int i;

	/* PsPing -h: the upper edge of each bucket and its count; then the
	 * share of round trips up to that edge. */
	fprintf(out, "%12s  %10s  %7s\n", "Latency", "Count", "Cum %");
	for (i = 0; i < n; i++) {
		char edge[32];

		if (rows[i].upper_ns == UINT64_MAX)
			snprintf(edge, sizeof(edge), "> %s",
				 i > 0 ? fmt_ns(rows[i - 1].upper_ns).s
				       : "0ns");
		else
			snprintf(edge, sizeof(edge), "%s",
				 fmt_ns(rows[i].upper_ns).s);
		fprintf(out, "%12s  %10" PRIu64 "  %7.2f\n", edge,
			rows[i].count, cum_pct(rows, n, i));
	}
}

static void
text_xstats(FILE *out, const struct report_port_xstats *x)
{
	if (!x->present)
		return;
	if (x->n_delta == 0 || x->delta == NULL) {
		fputs("Port xstats: no drop, error or missed counter moved\n",
		      out);
		return;
	}
	fputs("Port xstats that moved:", out);
	for (unsigned i = 0; i < x->n_delta; i++)
		fprintf(out, "%s %s +%" PRIu64, i ? "," : "",
			x->delta[i].name != NULL ? x->delta[i].name : "?",
			x->delta[i].value);
	fputc('\n', out);
}

/* --hw-timestamps: the NIC-clock figures next to the TSC's. */
static void
text_hw(FILE *out, const struct report_hw *hw, const char *t)
{
	char label[64];

	if (hw == NULL)
		return;
	if (hw->rtt != NULL)
		text_pct_line(out, "NIC-clock RTT (NIC rx - T1)", hw->rtt);
	if (hw->rx_delay != NULL) {
		snprintf(label, sizeof(label), "TSC - NIC at rx (%s - NIC rx)",
			 t);
		text_pct_line(out, label, hw->rx_delay);
	}
	fprintf(out,
		"NIC timestamps: %" PRIu64 " stamped, %" PRIu64
		" unstamped, %" PRIu64 " outside; NIC clock %.6f MHz, %" PRIu64
		" clock samples (%" PRIu64 " failed), offset +/- %.0f ns\n",
		hw->stamped, hw->unstamped, hw->outside, hw->nic_hz / 1e6,
		hw->clock_samples, hw->clock_sample_failures,
		hw->pair_gap_ns / 2);
}

/* The path section: VF vs synthetic, the driver's counters that moved. */
static void
text_path(FILE *out, const struct report_port_path *p)
{
	uint64_t syn;

	if (p == NULL)
		return;
	fprintf(out, "Port path (%s%s%s):", str_or(p->kind, "?"),
		p->vf_driver != NULL ? ", VF " : "", str_or(p->vf_driver, ""));
	if (p->split) {
		syn = p->synthetic_rx + p->synthetic_tx;
		fprintf(out,
			" VF rx %" PRIu64 " tx %" PRIu64
			", synthetic rx %" PRIu64 " tx %" PRIu64,
			p->vf_rx, p->vf_tx, p->synthetic_rx, p->synthetic_tx);
		if (p->vf_share >= 0)
			fprintf(out, " (VF share %.2f%%)", p->vf_share * 100.0);
		fputc('\n', out);
		if (syn != 0)
			fprintf(out,
				"WARNING: %" PRIu64 " packet(s) took the "
				"synthetic path (VF absent or being "
				"serviced): those latencies are not the VF's\n",
				syn);
	} else {
		fputs(" one path (no VF/synthetic split on this driver)\n",
		      out);
	}
	if (p->includes != NULL)
		fprintf(out, "  a latency here includes: %s\n", p->includes);
	if (p->n_driver == 0 || p->driver == NULL) {
		fputs("  driver counters: none moved\n", out);
		return;
	}
	fputs("  driver counters that moved:", out);
	for (unsigned i = 0; i < p->n_driver; i++)
		fprintf(out, "%s %s +%" PRIu64, i ? "," : "",
			str_or(p->driver[i].name, "?"), p->driver[i].value);
	fputc('\n', out);
}

/* 1234567 -> "1,234,567" */
static struct ns_str
fmt_count(uint64_t v)
{
	struct ns_str r;
	char digits[24];
	size_t len, i, o = 0;

	snprintf(digits, sizeof(digits), "%" PRIu64, v);
	len = strlen(digits);
	for (i = 0; i < len && o + 2 < sizeof(r.s); i++) {
		if (i != 0 && (len - i) % 3 == 0)
			r.s[o++] = ',';
		r.s[o++] = digits[i];
	}
	r.s[o] = '\0';
	return r;
}

static bool
set(const char *s)
{
	return s != NULL && s[0] != '\0';
}

/* CPU model, kernel and online CPUs; what cannot be read stays empty. */
static void
machine_probe(struct report_meta *m)
{
	struct utsname u;
	char line[512];
	FILE *f;
	long n;

	if (uname(&u) == 0) {
		/* "Linux 6.1.0-28-amd64": both fields are at most 64 bytes */
		size_t a = strnlen(u.sysname, 64), b = strnlen(u.release, 64);

		memcpy(m->kernel, u.sysname, a);
		m->kernel[a] = ' ';
		memcpy(m->kernel + a + 1, u.release, b);
		m->kernel[a + 1 + b] = '\0';
	}
	n = sysconf(_SC_NPROCESSORS_ONLN);
	m->cpus_online = n > 0 ? (unsigned)n : 0;
	f = fopen("/proc/cpuinfo", "r");
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');
		size_t len;

		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		len = strcspn(colon, "\n");
		if (len >= sizeof(m->cpu_model))
			len = sizeof(m->cpu_model) - 1;
		memcpy(m->cpu_model, colon, len);
		m->cpu_model[len] = '\0';
		break;
	}
	fclose(f);
}

int
report_meta_init(struct report_meta *m, time_t start, const char *prog,
		 int argc, char *const argv[])
{
	size_t len = 1;
	struct tm tm;
	char *p;
	int i;

	if (m == NULL || argc < 0 || (argc > 0 && argv == NULL))
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	if (gmtime_r(&start, &tm) != NULL)
		strftime(m->start_utc, sizeof(m->start_utc),
			 "%Y-%m-%dT%H:%M:%SZ", &tm);
	if (gethostname(m->host, sizeof(m->host)) != 0)
		m->host[0] = '\0';
	m->host[sizeof(m->host) - 1] = '\0';
	machine_probe(m);
	/* Worst case every byte quoted: 4 bytes each, plus quotes/space. */
	if (prog != NULL)
		len += strlen(prog);
	for (i = 0; i < argc; i++)
		len += 4 * strlen(argv[i]) + 3;
	m->command = malloc(len);
	if (m->command == NULL)
		return -ENOMEM;
	p = m->command;
	p += sprintf(p, "%s", prog != NULL ? prog : "");
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		bool plain = a[0] != '\0';

		for (const char *c = a; *c != '\0'; c++)
			if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOP"
				   "QRSTUVWXYZ0123456789-_./:=,+@%",
				   *c) == NULL)
				plain = false;
		if (p != m->command)
			*p++ = ' ';
		if (plain) {
			p += sprintf(p, "%s", a);
			continue;
		}
		/* Shell single quotes; a quote inside becomes '\'' */
		*p++ = '\'';
		for (const char *c = a; *c != '\0'; c++) {
			if (*c == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *c;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	return 0;
}

void
report_meta_fini(struct report_meta *m)
{
	if (m == NULL)
		return;
	free(m->command);
	m->command = NULL;
}

/* "Measured ..." and "Command: ..." lines, for what is known. */
static void
text_meta(FILE *out, const struct report_meta *m, const char *target)
{
	if (m == NULL)
		return;
	fprintf(out, "Measured %s",
		set(m->start_utc) ? m->start_utc : "at an unknown time");
	if (set(m->host))
		fprintf(out, " on %s", m->host);
	if (set(m->source))
		fprintf(out, ", %s%s%s", m->source,
			target != NULL ? " -> " : "",
			target != NULL ? target : "");
	if (set(m->interface))
		fprintf(out, " via %s", m->interface);
	fputc('\n', out);
	if (set(m->command))
		fprintf(out, "Command: %s\n", m->command);
}

/*
 * One line to paste next to another run's: "summary: 198.18.0.2:862 stamp
 * 44B  min 5.10us p50 6.00us p99 9.80us p99.9 40.00us max 80.00us  loss
 * 0.00% (0/10000)".
 */
static void
text_summary_line(char *buf, size_t cap, const struct report_probe *r,
		  const struct report_summary *s)
{
	double loss =
		r->sent != 0 ? 100.0 * (double)r->lost / (double)r->sent : 0.0;

	snprintf(buf, cap,
		 "summary: %s %s %uB  min %s p50 %s p99 %s p99.9 %s max %s  "
		 "loss %.2f%% (%" PRIu64 "/%" PRIu64 ")",
		 str_or(r->target, "?"), str_or(r->proto, "?"), r->size,
		 fmt_ns_of(s->count, s->min).s,
		 fmt_ns_of(s->count, s->pct[0]).s,
		 fmt_ns_of(s->count, s->pct[2]).s,
		 fmt_ns_of(s->count, s->pct[3]).s,
		 fmt_ns_of(s->count, s->max).s, loss, r->lost, r->sent);
}

/* "  Ignored: checksum 3, other_flow 1 (most: checksum: hint)". */
static void
text_ignored(FILE *out, const struct report_probe *r)
{
	unsigned i, top = 0;
	const char *sep = "";
	uint64_t any = 0;

	for (i = 0; i < REPORT_IGN__COUNT; i++)
		any |= r->ignored[i];
	if (any == 0)
		return; /* no reasons given: the total is on the line above */
	fprintf(out, "  Ignored:");
	for (i = 0; i < REPORT_IGN__COUNT; i++) {
		if (r->ignored[i] == 0)
			continue;
		fprintf(out, "%s %s %" PRIu64, sep, report_ignored_name[i],
			r->ignored[i]);
		sep = ",";
		if (r->ignored[i] > r->ignored[top])
			top = i;
	}
	/* Unreachable has its own line above. */
	if (top != REPORT_IGN_UNREACHABLE)
		fprintf(out, "\n    mostly %s: %s\n", report_ignored_name[top],
			ignored_hint[top]);
	else
		fputc('\n', out);
}

/* Frames came back on our flow, but none could be used as an answer. */
static bool
answers_unusable(const struct report_probe *r)
{
	return r->received == 0 && r->ignored[REPORT_IGN_TOO_SHORT] != 0;
}

static void
text_unusable(FILE *out, const struct report_probe *r)
{
	if (!answers_unusable(r))
		return;
	fprintf(out,
		"  The reflector answered (%" PRIu64
		" too_short) but its answers were not usable: too short to "
		"hold %s\n",
		r->ignored[REPORT_IGN_TOO_SHORT],
		r->proto != NULL && strcmp(r->proto, "stamp") == 0
			? "the Session-Sender sequence number (28 bytes)"
			: "what this --proto reads");
}

static void
text_error_estimate(FILE *out, const struct report_error_estimate *e)
{
	if (!e->present)
		return;
	fprintf(out,
		"  Reflector error estimate: %.3g s (S=%d: %ssynchronised to "
		"UTC; Z=%d: %s timestamps; scale %u, multiplier %u%s)",
		e->seconds, e->sync, e->sync ? "" : "not ", e->ptp,
		e->ptp ? "PTP" : "NTP", e->scale, e->multiplier,
		e->multiplier == 0 ? ", invalid" : "");
	if (e->changes != 0)
		fprintf(out, ", changed %" PRIu64 " times", e->changes);
	fputc('\n', out);
}

static void
text_unreachable(FILE *out, const struct report_probe *r)
{
	static const char *const what[REPORT_UNREACH__COUNT] = {
		[REPORT_UNREACH_NET] = "network unreachable: no route to it",
		[REPORT_UNREACH_HOST] = "host unreachable: nobody has the "
					"address",
		[REPORT_UNREACH_PORT] = "port unreachable: nothing listens "
					"there",
		[REPORT_UNREACH_ADMIN] = "administratively prohibited: a "
					 "filter drops the probes",
		[REPORT_UNREACH_OTHER] = "destination unreachable",
	};

	for (unsigned i = 0; i < REPORT_UNREACH__COUNT; i++)
		if (r->unreachable[i] != 0)
			fprintf(out,
				"  %s answered ICMP %s (%" PRIu64 " time%s)\n",
				str_or(r->target, "?"), what[i],
				r->unreachable[i],
				r->unreachable[i] == 1 ? "" : "s");
}

/*
 * What both forms of a probe report start from: the RTT histogram (an empty
 * one when there is none), its bucket rows (malloc'd into *rows) and their
 * layout, its summary. The number of rows or a negative errno.
 */
static int
probe_rtt(const struct report_probe *r, const struct histogram **rtt,
	  struct histogram_row **rows, const char **layout,
	  struct report_summary *s)
{
	int n;

	*rtt = hist_or_empty(r->rtt);
	n = bucket_rows(*rtt, &r->buckets, rows, layout);
	if (n >= 0)
		report_summarise(*rtt, s);
	return n;
}

struct target_row {
	const struct report_target *t;
	struct report_summary s;
};

/* Worst p99 first; targets without a round trip last, in list order. */
static int
target_row_cmp(const void *a, const void *b)
{
	const struct target_row *x = a, *y = b;

	if ((x->s.count == 0) != (y->s.count == 0))
		return x->s.count == 0 ? 1 : -1;
	if (x->s.pct[2] != y->s.pct[2])
		return x->s.pct[2] < y->s.pct[2] ? 1 : -1;
	return x->t < y->t ? -1 : x->t > y->t;
}

static bool
any_removed(const struct report_probe *r)
{
	for (unsigned i = 0; i < r->n_targets; i++)
		if (r->targets[i].removed)
			return true;
	return false;
}

static int
text_targets(FILE *out, const struct report_probe *r)
{
	struct target_row *rows;

	if (r->n_targets == 0)
		return 0;
	rows = calloc(r->n_targets, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n_targets; i++) {
		rows[i].t = &r->targets[i];
		report_summarise(hist_or_empty(r->targets[i].rtt), &rows[i].s);
	}
	qsort(rows, r->n_targets, sizeof(*rows), target_row_cmp);
	fprintf(out, "Targets (%u, worst p99 first%s):\n", r->n_targets,
		any_removed(r) ? "; * removed on SIGHUP" : "");
	fprintf(out, "  %-21s %-8s %-12s %9s %9s %7s %10s %10s %10s\n",
		"target", "proto", "label", "sent", "received", "loss", "p50",
		"p99", "max");
	for (unsigned i = 0; i < r->n_targets; i++) {
		const struct report_target *t = rows[i].t;
		const struct report_summary *s = &rows[i].s;

		fprintf(out,
			"%c %-21s %-8s %-12s %9" PRIu64 " %9" PRIu64
			" %6.2f%% %10s %10s %10s\n",
			t->removed ? '*' : ' ', str_or(t->target, "?"),
			str_or(t->proto, "?"),
			t->label != NULL && t->label[0] != '\0' ? t->label
								: "-",
			t->sent, t->received,
			t->sent != 0 ? 100.0 * (double)t->lost / (double)t->sent
				     : 0.0,
			fmt_ns_of(s->count, s->pct[0]).s,
			fmt_ns_of(s->count, s->pct[2]).s,
			fmt_ns_of(s->count, s->max).s);
	}
	free(rows);
	return 0;
}

static int
u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

void
report_flows_spread(const struct report_flow *f, unsigned n,
		    struct report_flows_spread *out)
{
	uint64_t *p50 = NULL;
	unsigned k = 0;

	memset(out, 0, sizeof(*out));
	if (n >= 2)
		p50 = malloc(n * sizeof(*p50));
	if (p50 == NULL)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (f[i].count == 0)
			continue;
		p50[k++] = f[i].p50;
		if (f[i].p50 > out->worst_p50 || out->worst_sport == 0) {
			out->worst_p50 = f[i].p50;
			out->worst_sport = f[i].sport;
		}
	}
	if (k >= 2) {
		qsort(p50, k, sizeof(*p50), u64_cmp);
		out->median_p50 = p50[(k - 1) / 2];
		/* The median flow's own p99: of the first flow with that p50
		 * (several may share it; the smallest such p99 is the
		 * tightest own spread, the fairest test). */
		out->median_p99 = UINT64_MAX;
		for (unsigned i = 0; i < n; i++)
			if (f[i].count != 0 && f[i].p50 == out->median_p50 &&
			    f[i].p99 < out->median_p99)
				out->median_p99 = f[i].p99;
		out->flows = k;
		out->ratio = out->median_p50 != 0
				     ? (double)out->worst_p50 /
					       (double)out->median_p50
				     : 0.0;
		out->own = out->median_p50 != 0
				   ? (double)out->median_p99 /
					     (double)out->median_p50
				   : 0.0;
		/* Two steps of the per-flow histogram (1/16 each) are its
		 * resolution, not a difference. */
		out->differ = out->ratio > out->own &&
			      out->ratio > REPORT_FLOWS_MIN_RATIO;
		out->valid = out->median_p50 != 0;
	}
	free(p50);
}

/* Worst p99 first; flows without answers last, in flow order. */
static int
flow_row_cmp(const void *a, const void *b)
{
	const struct report_flow *x = a, *y = b;

	if ((x->count == 0) != (y->count == 0))
		return x->count == 0 ? 1 : -1;
	if (x->p99 != y->p99)
		return x->p99 < y->p99 ? 1 : -1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static int
text_flows(FILE *out, const struct report_probe *r)
{
	struct report_flow *rows;
	struct report_flows_spread sp;
	unsigned shown;

	if (r->n_flows == 0)
		return 0;
	rows = calloc(r->n_flows, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	memcpy(rows, r->flows, r->n_flows * sizeof(*rows));
	qsort(rows, r->n_flows, sizeof(*rows), flow_row_cmp);
	shown = r->n_flows < REPORT_FLOWS_TOP ? r->n_flows : REPORT_FLOWS_TOP;
	fprintf(out, "Flows (%u, worst p99 first", r->n_flows);
	if (shown < r->n_flows)
		fprintf(out, "; the top %u, all in the JSON", shown);
	fprintf(out, "):\n");
	fprintf(out, "  %6s %5s %6s %9s %7s %10s %10s %10s\n", "flow", "lcore",
		"sport", "count", "loss", "p50", "p99", "max");
	for (unsigned i = 0; i < shown; i++) {
		const struct report_flow *f = &rows[i];
		uint64_t sent = f->count + f->lost;

		fprintf(out,
			"  %6u %5u %6u %9" PRIu64 " %6.2f%% %10s %10s %10s\n",
			f->flow, f->lcore, f->sport, f->count,
			sent != 0 ? 100.0 * (double)f->lost / (double)sent
				  : 0.0,
			fmt_ns_of(f->count, f->p50).s,
			fmt_ns_of(f->count, f->p99).s,
			fmt_ns_of(f->count, f->max).s);
	}
	free(rows);
	report_flows_spread(r->flows, r->n_flows, &sp);
	if (!sp.valid) {
		fprintf(out,
			"  Flow spread: - (fewer than 2 flows answered)\n");
		return 0;
	}
	fprintf(out,
		"  Flow spread: worst p50 (sport %u) / median p50 = %.2f, the "
		"median flow's own p99/p50 = %.2f:\n  %s\n",
		sp.worst_sport, sp.ratio, sp.own,
		sp.differ ? "the flows DIFFER more than their own spread "
			    "explains (one path slower?)"
			  : "the flows do not differ more than their own "
			    "spread explains");
	return 0;
}

/* --new-flow-every: the first packets' line, next to the steady state. */
static void
text_first_packet(FILE *out, const struct report_probe *r,
		  const struct report_summary *steady)
{
	struct report_summary s;

	if (r->first_packet == NULL)
		return;
	report_summarise(r->first_packet, &s);
	fprintf(out,
		"First packet of each new flow (every %" PRIu64
		" probes; %" PRIu64 " flows, %" PRIu64 " lost%s):\n",
		r->new_flow_every, r->new_flows, r->first_lost,
		r->fresh_reused != 0 ? "; fresh ports ran out, some reused"
				     : "");
	text_pct_line(out, "  first packet", r->first_packet);
	if (s.count != 0 && steady->count != 0 && steady->pct[0] != 0)
		fprintf(out,
			"  first-packet p50 / steady-state p50 = %.2f (the "
			"steady state is rtt above: first packets are not in "
			"it)\n",
			(double)s.pct[0] / (double)steady->pct[0]);
}

/* Open loop: the rate, the intended latency, how the sender kept up. */
static void
text_open(FILE *out, const struct report_open *o)
{
	const struct histogram *b;
	uint64_t n;

	if (o == NULL)
		return;
	b = hist_or_empty(o->behind);
	n = histogram_count(b); /* measured sends */
	text_pct_line(out, "Intended latency (T4-scheduled)",
		      hist_or_empty(o->intended));
	fprintf(out,
		"Open loop: %" PRIu64 " probes/s per lcore, %s spacing "
		"(seed %" PRIu64 "); sender behind schedule: p50 %s, p99 %s, "
		"max %s; %" PRIu64 " sends (%.2f%%) later than %s\n",
		o->rate_pps, str_or(o->spacing, "?"), o->seed,
		fmt_ns_of(n, histogram_percentile(b, 50.0)).s,
		fmt_ns_of(n, histogram_percentile(b, 99.0)).s,
		fmt_ns(o->behind_max_ns).s, o->late_sends,
		n != 0 ? 100.0 * (double)o->late_sends / (double)n : 0.0,
		fmt_ns(o->bound_ns).s);
	/* More than 1 %: the intended latency is mostly the sender's. */
	if (n != 0 && o->late_sends * 100 > n)
		fprintf(out, "  the sender did not keep the rate (busy or "
			     "shared CPU, or a rate above what one lcore "
			     "sends): the intended latency includes its lag\n");
}

int
report_probe_text(const struct report_probe *r, FILE *out)
{
	const struct histogram *rtt;
	struct histogram_row *rows;
	struct report_summary s;
	const char *layout;
	char summary[256];
	double loss_pct;
	unsigned i;
	int n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	n = probe_rtt(r, &rtt, &rows, &layout, &s);
	if (n < 0)
		return n;
	loss_pct =
		r->sent != 0 ? 100.0 * (double)r->lost / (double)r->sent : 0.0;

	text_meta(out, r->meta, r->target);

	fprintf(out,
		"%s round trips to %s (%s%s%s, %u lcore%s, %u bytes, "
		"%.2f s%s):\n",
		str_or(r->proto, "?"), str_or(r->target, "?"),
		str_or(r->backend, "?"), r->port_driver != NULL ? " " : "",
		str_or(r->port_driver, ""), r->lcores,
		r->lcores == 1 ? "" : "s", r->size, r->duration_s,
		r->interrupted ? ", interrupted" : "");
	fprintf(out,
		"  Sent = %" PRIu64 ", Received = %" PRIu64 ", Lost = %" PRIu64
		" (%.2f%%),\n",
		r->sent, r->received, r->lost, loss_pct);
	fprintf(out,
		"  Duplicated = %" PRIu64 ", Reordered = %" PRIu64
		", Timeouts = %" PRIu64 ", Ignored = %" PRIu64
		", Warm-up = %" PRIu64 "\n",
		r->duplicated, r->reordered, r->timeouts, r->rx_ignored,
		r->warmup);
	if (r->interval_ns != 0 && r->interval_stretched != 0)
		fprintf(out,
			"  Interval %s stretched to %s by %s timeouts "
			"(probes lost; -i shorter than --timeout)\n",
			fmt_ns(r->interval_ns).s, fmt_ns(r->timeout_ns).s,
			fmt_count(r->interval_stretched).s);
	text_unreachable(out, r);
	text_ignored(out, r);
	text_unusable(out, r);
	text_error_estimate(out, &r->reflector_ee);
	if (r->authenticated)
		fprintf(out,
			"  Authenticated (HMAC-SHA-256): %" PRIu64
			" answers failed verification\n",
			r->auth_failed);
	if (r->l4_partial != 0)
		fprintf(out,
			"  Answers with a partial L4 checksum = %" PRIu64
			" (used: the peer left its sum to a tx checksum "
			"offload, as a kernel on a veth or in a container "
			"does)\n",
			r->l4_partial);
	if (r->reasm_failed != 0)
		fprintf(out,
			"  Fragmented answers not reassembled = "
			"%" PRIu64 "\n",
			r->reasm_failed);
	if (r->nombuf != 0)
		fprintf(out,
			"  No mbuf = %" PRIu64
			" (sends that found the pool empty, tried again)\n",
			r->nombuf);
	if (r->late != 0 || r->resets != 0)
		fprintf(out,
			"  Late answers = %" PRIu64 ", RST answers = %" PRIu64
			"%s\n",
			r->late, r->resets,
			r->resets ? " (the port is closed: RST counted as the "
				    "answer)"
				  : "");
	fprintf(out,
		"  Minimum = %s, Maximum = %s, Average = %s, Stddev = "
		"%s\n",
		fmt_ns_of(s.count, s.min).s, fmt_ns_of(s.count, s.max).s,
		fmt_ns_of(s.count, round_ns(s.mean)).s,
		fmt_ns_of(s.count, round_ns(s.stddev)).s);
	if (rtt->underflow != 0 || rtt->overflow != 0)
		fprintf(out,
			"  Out of range: %" PRIu64 " below 1ns, %" PRIu64
			" above 10s (not in the figures above)\n",
			rtt->underflow, rtt->overflow);

	fprintf(out, "\nPercentiles:\n");
	for (i = 0; i < REPORT_N_PCTS; i++)
		fprintf(out, "  %-8s %s\n", pct_label[i],
			fmt_ns_of(s.count, s.pct[i]).s);

	/* Without a sample the rows would all be "0ns 0". */
	if (n > 0 && s.count != 0) {
		fputc('\n', out);
		text_buckets(out, rows, n);
	}
	free(rows);

	fputc('\n', out);
	if (r->network_rtt != NULL)
		text_pct_line(out, "Network RTT (T4-T1)-(T3-T2)",
			      r->network_rtt);
	if (r->turnaround != NULL)
		text_pct_line(out, "Turnaround (T3-T2)", r->turnaround);
	text_open(out, r->open);
	text_hw(out, r->hw, "T4");
	text_first_packet(out, r, &s);
	if (text_targets(out, r) != 0 || text_flows(out, r) != 0)
		return -ENOMEM;
	text_xstats(out, &r->port);
	text_path(out, r->port.path);
	text_tsc(out, &r->tsc);
	text_summary_line(summary, sizeof(summary), r, &s);
	fprintf(out, "%s\n", summary);
	return stream_status(out);
}

/* A count that may be unknown, right-aligned in w columns ("-"). */
static void
text_count_or_dash(FILE *out, int w, bool known, uint64_t v)
{
	if (known)
		fprintf(out, " %*" PRIu64, w, v);
	else
		fprintf(out, " %*s", w, "-");
}

/*
 * Several workers: one row each, with its share of the answers, then a line
 * for a worker that answered nothing while the others answered.
 */
static void
text_reflect_workers(FILE *out, const struct report_reflect *r)
{
	uint64_t total = 0;

	if (r->n_workers < 2)
		return;
	for (unsigned i = 0; i < r->n_workers; i++)
		total += r->workers[i].answered;
	fprintf(out, "Per lcore (%u workers, each answers its own queue):\n",
		r->n_workers);
	fprintf(out, "  %5s %5s %12s %12s %6s %10s %10s %12s %10s\n", "lcore",
		"queue", "rx", "answered", "share", "ignored", "tx_dropped",
		"queue_rx", "rx_errors");
	for (unsigned i = 0; i < r->n_workers; i++) {
		const struct report_reflect_worker *w = &r->workers[i];

		fputs("  ", out);
		if (w->lcore >= 0)
			fprintf(out, "%5d", w->lcore);
		else
			fprintf(out, "%5s", "-");
		if (w->queue >= 0)
			fprintf(out, " %5d", w->queue);
		else
			fprintf(out, " %5s", "-");
		fprintf(out, " %12" PRIu64 " %12" PRIu64, w->rx, w->answered);
		if (total != 0)
			fprintf(out, " %5.1f%%",
				(double)w->answered * 100.0 / (double)total);
		else
			fprintf(out, " %6s", "-");
		fprintf(out, " %10" PRIu64 " %10" PRIu64, w->ignored,
			w->tx_dropped);
		text_count_or_dash(out, 12, w->have_queue_stats,
				   w->queue_rx_packets);
		text_count_or_dash(out, 10, w->have_queue_stats,
				   w->queue_rx_errors);
		fputc('\n', out);
	}
	if (total == 0)
		return;
	for (unsigned i = 0; i < r->n_workers; i++) {
		const struct report_reflect_worker *w = &r->workers[i];

		if (w->answered != 0)
			continue;
		fprintf(out,
			"  lcore %d (queue %d) answered nothing while the "
			"others answered %" PRIu64 ": no request reached its "
			"queue (the port spreads flows by a hash, RSS or "
			"af_packet's fanout, or pairs its queues with the "
			"peer's as memif does: probe with more flows, or as "
			"many lcores)\n",
			w->lcore, w->queue, total);
	}
}

int
report_reflect_text(const struct report_reflect *r, FILE *out)
{
	size_t width = 8;
	unsigned i, shown = 0;

	if (r == NULL || out == NULL ||
	    (r->n_counters != 0 && r->counters == NULL) ||
	    (r->n_workers != 0 && r->workers == NULL))
		return -EINVAL;
	for (i = 0; i < r->n_counters; i++) {
		const char *name = str_or(r->counters[i].name, "?");

		if (strlen(name) > width)
			width = strlen(name);
	}
	text_meta(out, r->meta, NULL);
	fprintf(out, "Reflector on %s (%s), %.2f s%s:\n", str_or(r->addr, "?"),
		str_or(r->backend, "?"), r->duration_s,
		r->interrupted ? ", interrupted" : "");
	/* Only what happened; the JSON keeps every counter. */
	for (i = 0; i < r->n_counters; i++) {
		if (r->counters[i].value == 0)
			continue;
		fprintf(out, "  %-*s %12" PRIu64 "\n", (int)width,
			str_or(r->counters[i].name, "?"), r->counters[i].value);
		shown++;
	}
	if (shown == 0)
		fprintf(out, "  (every counter is zero)\n");
	for (i = 0; i < r->n_counters; i++)
		if (r->counters[i].value != 0 && r->counters[i].name != NULL &&
		    strcmp(r->counters[i].name, "rx.l4_partial") == 0)
			fprintf(out,
				"  rx.l4_partial: requests whose L4 checksum "
				"was partial (the sender left it to a tx "
				"checksum offload, as a kernel on a veth or in "
				"a container does), answered with a complete "
				"one\n");
	if (r->turnaround != NULL)
		text_pct_line(out, "Turnaround (T3-T2)", r->turnaround);
	text_reflect_workers(out, r);
	text_hw(out, r->hw, "T2");
	text_xstats(out, &r->port);
	text_path(out, r->port.path);
	text_tsc(out, &r->tsc);
	return stream_status(out);
}

/* ---------------------------------------------------------------- json */

/*
 * json-c setters that remember the first allocation failure in *err, so
 * that building a report is straight-line code checked once at the end.
 */
static void
jset(struct json_object *o, const char *key, struct json_object *v, int *err)
{
	if (o == NULL || v == NULL || json_object_object_add(o, key, v) != 0) {
		json_object_put(v);
		*err = -ENOMEM;
	}
}

static void
jset_u64(struct json_object *o, const char *key, uint64_t v, int *err)
{
	jset(o, key, json_object_new_uint64(v), err);
}

static void
jset_bool(struct json_object *o, const char *key, bool v, int *err)
{
	jset(o, key, json_object_new_boolean(v), err);
}

/*
 * json-c prints doubles with %.17g ("36.799999999999997"); use the shortest
 * precision that parses back to the same double instead, and keep a ".0"
 * so that a float field never turns into an integer from one run to the
 * next.
 */
static struct json_object *
json_double(double v)
{
	char buf[40];
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (prec == 17)
		snprintf(buf, sizeof(buf), "%.17g", v);
	if (strpbrk(buf, ".e") == NULL) {
		size_t len = strlen(buf);

		snprintf(buf + len, sizeof(buf) - len, ".0");
	}
	return json_object_new_double_s(v, buf);
}

/* NaN and infinities are not JSON: they become null. */
static void
jset_double(struct json_object *o, const char *key, double v, int *err)
{
	if (!isfinite(v)) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset(o, key, json_double(v), err);
}

static void
jset_str(struct json_object *o, const char *key, const char *v, int *err)
{
	if (v == NULL) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset(o, key, json_object_new_string(v), err);
}

static struct json_object *
json_summary(const struct histogram *h, int *err)
{
	struct json_object *o = json_object_new_object();
	struct report_summary s;
	unsigned i;

	report_summarise(h, &s);
	jset_u64(o, "count", s.count, err);
	jset_u64(o, "min", s.min, err);
	jset_double(o, "mean", s.mean, err);
	jset_double(o, "stddev", s.stddev, err);
	jset_u64(o, "max", s.max, err);
	for (i = 0; i < REPORT_N_PCTS; i++)
		jset_u64(o, pct_key[i], s.pct[i], err);
	jset_u64(o, "underflow", h->underflow, err);
	jset_u64(o, "overflow", h->overflow, err);
	/* The whole histogram, lossless (underflow/overflow are beside it). */
	{
		char *b64 = NULL;
		size_t len;

		if (hdr_codec_encode(h, &b64, &len) != 0) {
			*err = -ENOMEM;
		} else {
			jset(o, "hdr",
			     json_object_new_string_len(b64, (int)len), err);
			free(b64);
		}
	}
	jset_u64(o, "hdr_lowest", HDR_CODEC_LOWEST, err);
	jset_u64(o, "hdr_highest", HDR_CODEC_HIGHEST, err);
	jset_u64(o, "hdr_sigfigs", HDR_CODEC_SIGFIGS, err);
	jset_u64(o, "sum", h->sum, err);
	return o;
}

static struct json_object *
json_tsc(const struct report_tsc *t, int *err)
{
	struct json_object *o = json_object_new_object();

	jset_u64(o, "hz", t->hz, err);
	jset_bool(o, "invariant", t->invariant, err);
	jset_u64(o, "dpdk_hz", t->dpdk_hz, err);
	jset_double(o, "calib_ppm", t->calib_ppm, err);
	jset_double(o, "read_cost_cycles", t->read_cost_cycles, err);
	return o;
}

static struct json_object *
json_buckets(const struct histogram_row *rows, int n, int *err)
{
	struct json_object *a = json_object_new_array();
	int i;

	for (i = 0; i < n && a != NULL; i++) {
		struct json_object *row = json_object_new_object();

		/* The open-ended last row of an edge list: no upper edge. */
		if (rows[i].upper_ns == UINT64_MAX) {
			if (row == NULL ||
			    json_object_object_add(row, "upper_ns", NULL) != 0)
				*err = -ENOMEM;
		} else {
			jset_u64(row, "upper_ns", rows[i].upper_ns, err);
		}
		jset_u64(row, "count", rows[i].count, err);
		jset_double(row, "cum_pct", cum_pct(rows, n, i), err);
		if (row == NULL || json_object_array_add(a, row) != 0) {
			json_object_put(row);
			*err = -ENOMEM;
		}
	}
	return a;
}

/* --hw-timestamps: "hw_timestamps" and the NIC-clock series. */
static void
json_hw(struct json_object *root, const struct report_hw *hw, int *err)
{
	struct json_object *o;

	if (hw == NULL)
		return;
	o = json_object_new_object();
	jset_u64(o, "stamped", hw->stamped, err);
	jset_u64(o, "unstamped", hw->unstamped, err);
	jset_u64(o, "outside", hw->outside, err);
	jset_u64(o, "clock_samples", hw->clock_samples, err);
	jset_u64(o, "clock_sample_failures", hw->clock_sample_failures, err);
	jset_double(o, "nic_hz", hw->nic_hz > 0 ? hw->nic_hz : NAN, err);
	jset_double(o, "clock_pair_gap_ns",
		    hw->clock_samples > 0 ? hw->pair_gap_ns : NAN, err);
	jset(root, "hw_timestamps", o, err);
	if (hw->rtt != NULL)
		jset(root, "hw_rtt_ns", json_summary(hw->rtt, err), err);
	if (hw->rx_delay != NULL)
		jset(root, "hw_rx_delay_ns", json_summary(hw->rx_delay, err),
		     err);
}

/* "path": {"kind", "vf_rx_packets", ..., "vf_share", "driver_delta"} */
static struct json_object *
json_path(const struct report_port_path *p, int *err)
{
	struct json_object *o = json_object_new_object();
	struct json_object *drv = json_object_new_object();

	jset_str(o, "kind", p->kind, err);
	if (p->vf_driver != NULL)
		jset_str(o, "vf_driver", p->vf_driver, err);
	if (p->includes != NULL)
		jset_str(o, "includes", p->includes, err);
	if (p->split) {
		jset_u64(o, "vf_rx_packets", p->vf_rx, err);
		jset_u64(o, "vf_tx_packets", p->vf_tx, err);
		jset_u64(o, "synthetic_rx_packets", p->synthetic_rx, err);
		jset_u64(o, "synthetic_tx_packets", p->synthetic_tx, err);
		/* NaN is written as null: nothing counted. */
		jset_double(o, "vf_share", p->vf_share >= 0 ? p->vf_share : NAN,
			    err);
	}
	for (unsigned i = 0; i < p->n_driver && p->driver != NULL; i++)
		if (p->driver[i].name != NULL)
			jset_u64(drv, p->driver[i].name, p->driver[i].value,
				 err);
	jset(o, "driver_delta", drv, err);
	return o;
}

/* "port": {"xstats_delta": {...}}, when there is a port. */
static void
json_port(struct json_object *root, const struct report_port_xstats *x,
	  int *err)
{
	struct json_object *port, *delta;

	if (!x->present)
		return;
	port = json_object_new_object();
	delta = json_object_new_object();
	for (unsigned i = 0; i < x->n_delta && x->delta != NULL; i++) {
		if (x->delta[i].name == NULL)
			continue;
		jset_u64(delta, x->delta[i].name, x->delta[i].value, err);
	}
	jset(port, "xstats_delta", delta, err);
	if (x->path != NULL)
		jset(port, "path", json_path(x->path, err), err);
	jset(root, "port", port, err);
}

/* The members every report ends with ("tsc", "port"), then the document
 * written to out unless building it failed (err); root is freed. */
static int
json_finish(struct json_object *root, const struct report_tsc *tsc,
	    const struct report_port_xstats *port, int err, FILE *out)
{
	const char *txt;

	jset(root, "tsc", json_tsc(tsc, &err), &err);
	json_port(root, port, &err);
	if (err == 0) {
		txt = json_object_to_json_string_ext(
			root, JSON_C_TO_STRING_PRETTY |
				      JSON_C_TO_STRING_NOSLASHESCAPE);
		if (txt == NULL)
			err = -ENOMEM;
		else if (fputs(txt, out) == EOF || fputc('\n', out) == EOF)
			err = -EIO;
		else
			err = stream_status(out);
	}
	json_object_put(root);
	return err;
}

static void
json_meta(struct json_object *root, const struct report_meta *m, int *err)
{
	struct json_object *mach = json_object_new_object();

	jset_u64(root, "format_version", REPORT_FORMAT_VERSION, err);
	jset_str(mach, "cpu_model",
		 m != NULL && set(m->cpu_model) ? m->cpu_model : NULL, err);
	jset_u64(mach, "cpus_online", m != NULL ? m->cpus_online : 0, err);
	jset_u64(mach, "cores_used", m != NULL ? m->cores_used : 0, err);
	jset_str(mach, "kernel", m != NULL && set(m->kernel) ? m->kernel : NULL,
		 err);
	jset_str(mach, "dpdk_version", m != NULL ? m->dpdk_version : NULL, err);
	jset_str(mach, "nic_driver", m != NULL ? m->nic_driver : NULL, err);
	jset_str(mach, "host", m != NULL && set(m->host) ? m->host : NULL, err);
	jset(root, "machine", mach, err);
	jset_str(root, "start_utc",
		 m != NULL && set(m->start_utc) ? m->start_utc : NULL, err);
	jset_str(root, "host", m != NULL && set(m->host) ? m->host : NULL, err);
	jset_str(root, "source", m != NULL ? m->source : NULL, err);
	jset_str(root, "interface", m != NULL ? m->interface : NULL, err);
	jset_str(root, "command", m != NULL ? m->command : NULL, err);
	if (m != NULL && m->csum_rx != NULL && m->csum_tx != NULL) {
		struct json_object *cs = json_object_new_object();

		jset_str(cs, "rx", m->csum_rx, err);
		jset_str(cs, "tx", m->csum_tx, err);
		jset(root, "checksum_offloads", cs, err);
	} else {
		jset_str(root, "checksum_offloads", NULL, err);
	}
}

int
report_iv_line(char *buf, size_t cap, const struct report_interval *iv,
	       const struct report_iv_row *row)
{
	int n = snprintf(buf, cap,
			 "interval %8.3fs  %-21s sent %" PRIu64 " lost %" PRIu64
			 "  p50 %s p99 %s max %s",
			 iv->t_s, str_or(row->target, "?"), row->sent,
			 row->lost, fmt_ns_of(row->rtt.count, row->rtt.p50).s,
			 fmt_ns_of(row->rtt.count, row->rtt.p99).s,
			 fmt_ns_of(row->rtt.count, row->rtt.max).s);

	if (n < 0 || !row->has_intended)
		return n;
	return n +
	       snprintf((size_t)n < cap ? buf + n : NULL,
			(size_t)n < cap ? cap - (size_t)n : 0,
			"  intended p50 %s p99 %s max %s",
			fmt_ns_of(row->intended.count, row->intended.p50).s,
			fmt_ns_of(row->intended.count, row->intended.p99).s,
			fmt_ns_of(row->intended.count, row->intended.max).s);
}

/* Open loop: intended_latency_ns (rtt_ns's keys), sender, open_loop. */
static void
json_open(struct json_object *root, const struct report_open *o, int *err)
{
	struct json_object *snd, *ol;
	const struct histogram *b;

	if (o == NULL)
		return;
	b = hist_or_empty(o->behind);
	jset(root, "intended_latency_ns",
	     json_summary(hist_or_empty(o->intended), err), err);
	snd = json_object_new_object();
	jset_u64(snd, "late_sends", o->late_sends, err);
	jset_u64(snd, "behind_max_ns", o->behind_max_ns, err);
	jset_u64(snd, "bound_ns", o->bound_ns, err);
	/* 0 when no send was measured (histogram_percentile()). */
	jset_u64(snd, "behind_p50_ns", histogram_percentile(b, 50.0), err);
	jset_u64(snd, "behind_p99_ns", histogram_percentile(b, 99.0), err);
	jset(root, "sender", snd, err);
	ol = json_object_new_object();
	jset_u64(ol, "rate_pps", o->rate_pps, err);
	jset_str(ol, "spacing", o->spacing, err);
	jset_u64(ol, "seed", o->seed, err);
	jset_u64(ol, "window_slots", o->window_slots, err);
	jset(root, "open_loop", ol, err);
}

/* One series of an interval row: count, p50, p99, max. */
static struct json_object *
json_iv_stat(const struct report_iv_stat *st, int *err)
{
	struct json_object *o = json_object_new_object();

	jset_u64(o, "count", st->count, err);
	jset_u64(o, "p50", st->p50, err);
	jset_u64(o, "p99", st->p99, err);
	jset_u64(o, "max", st->max, err);
	return o;
}

static struct json_object *
json_intervals(const struct report_probe *r, int *err)
{
	struct json_object *a = json_object_new_array();

	if (a == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < r->n_intervals; i++) {
		const struct report_interval *iv = &r->intervals[i];
		struct json_object *o = json_object_new_object();
		struct json_object *rows = json_object_new_array();

		jset_double(o, "t_s", iv->t_s, err);
		jset_double(o, "len_s", iv->len_s, err);
		for (unsigned k = 0; rows != NULL && k < iv->n_rows; k++) {
			const struct report_iv_row *w = &iv->rows[k];
			struct json_object *x = json_object_new_object();

			jset_str(x, "target", w->target, err);
			jset_u64(x, "sent", w->sent, err);
			jset_u64(x, "received", w->received, err);
			jset_u64(x, "lost", w->lost, err);
			jset(x, "rtt_ns", json_iv_stat(&w->rtt, err), err);
			if (w->has_intended)
				jset(x, "intended_latency_ns",
				     json_iv_stat(&w->intended, err), err);
			if (x == NULL || json_object_array_add(rows, x) != 0) {
				json_object_put(x);
				*err = -ENOMEM;
			}
		}
		jset(o, "targets", rows, err);
		if (o == NULL || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			*err = -ENOMEM;
		}
	}
	return a;
}

/* A UDP/TCP port, null when 0 (none). */
static void
jset_port(struct json_object *o, const char *key, uint16_t port, int *err)
{
	if (port == 0) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset_u64(o, key, port, err);
}

/* "source_port" (the first worker's) and "source_ports" (every one's). */
static void
json_sports(struct json_object *root, const struct report_probe *r, int *err)
{
	struct json_object *a = json_object_new_array();

	jset_port(root, "source_port", r->n_sports != 0 ? r->sports[0] : 0,
		  err);
	for (unsigned i = 0; a != NULL && i < r->n_sports; i++)
		if (json_object_array_add(
			    a, json_object_new_uint64(r->sports[i])) != 0)
			*err = -ENOMEM;
	jset(root, "source_ports", a, err);
}

static struct json_object *
json_targets(const struct report_probe *r, int *err)
{
	struct json_object *a = json_object_new_array();

	if (a == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < r->n_targets; i++) {
		const struct report_target *t = &r->targets[i];
		struct json_object *o = json_object_new_object();
		struct json_object *p = json_object_new_object();

		jset_str(o, "target", t->target, err);
		jset_str(o, "proto", t->proto, err);
		jset_str(o, "label", t->label != NULL ? t->label : "", err);
		jset_bool(o, "removed", t->removed, err);
		jset_port(o, "source_port", t->sport, err);
		jset_u64(p, "sent", t->sent, err);
		jset_u64(p, "received", t->received, err);
		jset_u64(p, "lost", t->lost, err);
		jset(o, "probes", p, err);
		jset(o, "rtt_ns", json_summary(hist_or_empty(t->rtt), err),
		     err);
		if (t->network_rtt != NULL)
			jset(o, "network_rtt_ns",
			     json_summary(t->network_rtt, err), err);
		if (o == NULL || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			*err = -ENOMEM;
		}
	}
	return a;
}

static struct json_object *
json_flows(const struct report_probe *r, int *err)
{
	struct json_object *a = json_object_new_array();

	if (a == NULL) {
		*err = -ENOMEM;
		return NULL;
	}
	for (unsigned i = 0; i < r->n_flows; i++) {
		const struct report_flow *f = &r->flows[i];
		struct json_object *o = json_object_new_object();

		jset_u64(o, "flow", f->flow, err);
		jset_u64(o, "lcore", f->lcore, err);
		jset_u64(o, "sport", f->sport, err);
		jset_u64(o, "count", f->count, err);
		jset_u64(o, "lost", f->lost, err);
		jset_u64(o, "p50", f->p50, err);
		jset_u64(o, "p99", f->p99, err);
		jset_u64(o, "max", f->max, err);
		if (o == NULL || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			*err = -ENOMEM;
		}
	}
	return a;
}

static struct json_object *
json_flows_spread(const struct report_probe *r, int *err)
{
	struct json_object *o = json_object_new_object();
	struct report_flows_spread sp;

	report_flows_spread(r->flows, r->n_flows, &sp);
	jset_bool(o, "valid", sp.valid, err);
	jset_u64(o, "flows_answered", sp.flows, err);
	jset_u64(o, "worst_p50_ns", sp.worst_p50, err);
	jset_u64(o, "worst_sport", sp.worst_sport, err);
	jset_u64(o, "median_p50_ns", sp.median_p50, err);
	jset_u64(o, "median_p99_ns", sp.median_p99, err);
	jset_double(o, "ratio", sp.valid ? sp.ratio : NAN, err);
	jset_double(o, "own_p99_over_p50", sp.valid ? sp.own : NAN, err);
	if (sp.valid)
		jset_bool(o, "differ", sp.differ, err);
	else if (o != NULL && json_object_object_add(o, "differ", NULL) != 0)
		*err = -ENOMEM;
	return o;
}

int
report_probe_json(const struct report_probe *r, FILE *out)
{
	struct json_object *root, *probes;
	const struct histogram *rtt;
	struct histogram_row *rows;
	struct report_summary s;
	const char *layout;
	char summary[256];
	int err = 0, n;

	if (r == NULL || out == NULL)
		return -EINVAL;
	n = probe_rtt(r, &rtt, &rows, &layout, &s);
	if (n < 0)
		return n;
	text_summary_line(summary, sizeof(summary), r, &s);

	root = json_object_new_object();
	json_meta(root, r->meta, &err);
	jset_str(root, "proto", r->proto, &err);
	jset_str(root, "backend", r->backend, &err);
	jset_str(root, "target", r->target, &err);
	jset_str(root, "port_driver", r->port_driver, &err);
	json_sports(root, r, &err);
	jset_u64(root, "size", r->size, &err);
	jset_u64(root, "lcores", r->lcores, &err);
	jset_double(root, "duration_s", r->duration_s, &err);
	jset_bool(root, "interrupted", r->interrupted, &err);
	jset_u64(root, "interval_ns", r->interval_ns, &err);
	jset_u64(root, "timeout_ns", r->timeout_ns, &err);
	jset_str(root, "summary", summary, &err);
	jset_bool(root, "authenticated", r->authenticated, &err);

	probes = json_object_new_object();
	jset_u64(probes, "sent", r->sent, &err);
	jset_u64(probes, "received", r->received, &err);
	jset_u64(probes, "lost", r->lost, &err);
	jset_u64(probes, "duplicated", r->duplicated, &err);
	jset_u64(probes, "reordered", r->reordered, &err);
	jset_u64(probes, "timeouts", r->timeouts, &err);
	jset_u64(probes, "rx_ignored", r->rx_ignored, &err);
	jset_u64(probes, "late", r->late, &err);
	jset_u64(probes, "resets", r->resets, &err);
	jset_u64(probes, "reassembly_failed", r->reasm_failed, &err);
	jset_u64(probes, "auth_failed", r->auth_failed, &err);
	jset_u64(probes, "l4_partial", r->l4_partial, &err);
	jset_u64(probes, "warmup", r->warmup, &err);
	jset_u64(probes, "interval_stretched", r->interval_stretched, &err);
	jset_u64(probes, "nombuf", r->nombuf, &err);
	{
		struct json_object *ign = json_object_new_object();
		uint64_t unreach = 0;
		char key[40];

		for (unsigned i = 0; i < REPORT_IGN__COUNT; i++)
			jset_u64(ign, report_ignored_name[i], r->ignored[i],
				 &err);
		jset(probes, "ignored", ign, &err);
		for (unsigned i = 0; i < REPORT_UNREACH__COUNT; i++) {
			snprintf(key, sizeof(key), "unreachable_%s",
				 report_unreach_name[i]);
			jset_u64(probes, key, r->unreachable[i], &err);
			unreach += r->unreachable[i];
		}
		jset_u64(probes, "unreachable", unreach, &err);
	}
	jset_bool(probes, "answers_unusable", answers_unusable(r), &err);
	jset(root, "probes", probes, &err);
	if (r->reflector_ee.present) {
		const struct report_error_estimate *e = &r->reflector_ee;
		struct json_object *stamp = json_object_new_object();
		struct json_object *ee = json_object_new_object();

		jset_u64(ee, "raw", e->raw, &err);
		jset_bool(ee, "synchronized", e->sync, &err);
		jset_str(ee, "timestamp_format", e->ptp ? "ptp" : "ntp", &err);
		jset_u64(ee, "scale", e->scale, &err);
		jset_u64(ee, "multiplier", e->multiplier, &err);
		jset_double(ee, "seconds", e->seconds, &err);
		jset_bool(ee, "valid", e->multiplier != 0, &err);
		jset_u64(ee, "answers", e->answers, &err);
		jset_u64(ee, "changes", e->changes, &err);
		jset(stamp, "reflector_error_estimate", ee, &err);
		jset(root, "stamp", stamp, &err);
	}

	jset(root, "rtt_ns", json_summary(rtt, &err), &err);
	if (r->network_rtt != NULL)
		jset(root, "network_rtt_ns", json_summary(r->network_rtt, &err),
		     &err);
	if (r->turnaround != NULL)
		jset(root, "turnaround_ns", json_summary(r->turnaround, &err),
		     &err);
	json_open(root, r->open, &err);
	json_hw(root, r->hw, &err);
	jset_str(root, "buckets_layout", layout, &err);
	jset(root, "buckets", json_buckets(rows, n, &err), &err);
	if (r->n_targets != 0)
		jset(root, "targets", json_targets(r, &err), &err);
	if (r->n_flows != 0) {
		jset(root, "flows", json_flows(r, &err), &err);
		jset(root, "flows_spread", json_flows_spread(r, &err), &err);
	}
	if (r->first_packet != NULL) {
		struct json_object *fp = json_object_new_object();

		jset(root, "first_packet_rtt_ns",
		     json_summary(r->first_packet, &err), &err);
		jset_u64(fp, "every", r->new_flow_every, &err);
		jset_u64(fp, "new_flows", r->new_flows, &err);
		jset_u64(fp, "fresh_ports", r->fresh_ports, &err);
		jset_u64(fp, "fresh_reused", r->fresh_reused, &err);
		jset_u64(fp, "lost", r->first_lost, &err);
		jset(root, "first_packet", fp, &err);
	}
	if (r->n_intervals != 0 || r->intervals_dropped != 0) {
		jset(root, "intervals", json_intervals(r, &err), &err);
		jset_u64(root, "intervals_dropped", r->intervals_dropped, &err);
	}
	free(rows);
	return json_finish(root, &r->tsc, &r->port, err, out);
}

/* An integer, or null when negative (unknown). */
static void
jset_int_or_null(struct json_object *o, const char *key, int v, int *err)
{
	if (v < 0) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset(o, key, json_object_new_int(v), err);
}

static void
jset_u64_or_null(struct json_object *o, const char *key, bool known, uint64_t v,
		 int *err)
{
	if (!known) {
		if (o == NULL || json_object_object_add(o, key, NULL) != 0)
			*err = -ENOMEM;
		return;
	}
	jset_u64(o, key, v, err);
}

/* "workers": [{lcore, queue, rx, tx, answered, answered_by, ...}] */
static struct json_object *
json_reflect_workers(const struct report_reflect *r, int *err)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_workers && a != NULL; i++) {
		const struct report_reflect_worker *w = &r->workers[i];
		struct json_object *o = json_object_new_object();
		struct json_object *by = json_object_new_object();

		jset_int_or_null(o, "lcore", w->lcore, err);
		jset_int_or_null(o, "queue", w->queue, err);
		jset_u64(o, "rx", w->rx, err);
		jset_u64(o, "tx", w->tx, err);
		jset_u64(o, "answered", w->answered, err);
		for (unsigned k = 0;
		     k < w->n_answered_by && w->answered_by != NULL; k++)
			if (w->answered_by[k].name != NULL)
				jset_u64(by, w->answered_by[k].name,
					 w->answered_by[k].value, err);
		jset(o, "answered_by", by, err);
		jset_u64(o, "ignored", w->ignored, err);
		jset_u64(o, "tx_dropped", w->tx_dropped, err);
		jset_u64_or_null(o, "queue_rx_packets", w->have_queue_stats,
				 w->queue_rx_packets, err);
		jset_u64_or_null(o, "queue_rx_errors", w->have_queue_stats,
				 w->queue_rx_errors, err);
		if (o == NULL || json_object_array_add(a, o) != 0) {
			json_object_put(o);
			*err = -ENOMEM;
		}
	}
	return a;
}

int
report_reflect_json(const struct report_reflect *r, FILE *out)
{
	struct json_object *root, *counters;
	int err = 0;
	unsigned i;

	if (r == NULL || out == NULL ||
	    (r->n_counters != 0 && r->counters == NULL) ||
	    (r->n_workers != 0 && r->workers == NULL))
		return -EINVAL;
	for (i = 0; i < r->n_counters; i++)
		if (r->counters[i].name == NULL)
			return -EINVAL;

	root = json_object_new_object();
	json_meta(root, r->meta, &err);
	jset_str(root, "backend", r->backend, &err);
	jset_str(root, "addr", r->addr, &err);
	jset_double(root, "duration_s", r->duration_s, &err);
	jset_bool(root, "interrupted", r->interrupted, &err);
	counters = json_object_new_object();
	for (i = 0; i < r->n_counters; i++)
		jset_u64(counters, r->counters[i].name, r->counters[i].value,
			 &err);
	jset(root, "counters", counters, &err);
	jset(root, "workers", json_reflect_workers(r, &err), &err);
	if (r->turnaround != NULL)
		jset(root, "turnaround_ns", json_summary(r->turnaround, &err),
		     &err);
	json_hw(root, r->hw, &err);
	return json_finish(root, &r->tsc, &r->port, err, out);
}

/* ---------------------------------------------------------------- live */

int
report_live_path(char *buf, size_t cap, const struct report_port_path *p)
{
	size_t len;
	int n;

	if (buf == NULL || cap == 0 || p == NULL)
		return -EINVAL;
	if (p->split)
		n = snprintf(buf, cap,
			     "         path (%s): VF rx +%" PRIu64
			     " tx +%" PRIu64 ", synthetic rx +%" PRIu64
			     " tx +%" PRIu64 "%s",
			     str_or(p->kind, "?"), p->vf_rx, p->vf_tx,
			     p->synthetic_rx, p->synthetic_tx,
			     p->synthetic_rx + p->synthetic_tx != 0
				     ? " (SYNTHETIC PATH)"
				     : "");
	else
		n = snprintf(buf, cap,
			     "         path (%s):", str_or(p->kind, "?"));
	if (n < 0)
		return -EINVAL;
	len = (size_t)n < cap ? (size_t)n : cap - 1;
	if (p->split)
		return (int)len;
	if (p->n_driver == 0 || p->driver == NULL) {
		n = snprintf(buf + len, cap - len, " no driver counter moved");
		len += n > 0 ? (size_t)n : 0;
		return (int)(len < cap ? len : cap - 1);
	}
	for (unsigned i = 0; i < p->n_driver && i < 4 && len < cap - 1; i++) {
		n = snprintf(buf + len, cap - len, "%s %s +%" PRIu64,
			     i ? "," : "", str_or(p->driver[i].name, "?"),
			     p->driver[i].value);
		len += n > 0 ? (size_t)n : 0;
	}
	if (p->n_driver > 4 && len < cap - 1) {
		n = snprintf(buf + len, cap - len, ", %u more",
			     p->n_driver - 4);
		len += n > 0 ? (size_t)n : 0;
	}
	return (int)(len < cap ? len : cap - 1);
}

int
report_live_line(char *buf, size_t cap, double t_s, uint64_t sent,
		 uint64_t received, uint64_t lost,
		 const struct histogram *interval)
{
	struct report_summary s;
	int n;

	if (buf == NULL || cap == 0)
		return -EINVAL;
	report_summarise(interval, &s);
	if (s.count == 0)
		n = snprintf(buf, cap,
			     "%6.1fs  sent %" PRIu64 " recv %" PRIu64
			     " lost %" PRIu64 " p50 - p99 - max -",
			     t_s, sent, received, lost);
	else
		n = snprintf(buf, cap,
			     "%6.1fs  sent %" PRIu64 " recv %" PRIu64
			     " lost %" PRIu64 " p50 %s p99 %s max %s",
			     t_s, sent, received, lost, fmt_ns(s.pct[0]).s,
			     fmt_ns(s.pct[2]).s, fmt_ns(s.max).s);
	if (n < 0)
		return -EINVAL;
	return (size_t)n < cap ? n : (int)(cap - 1);
}

/* ---------------------------------------------------------------- CSV */

int
report_samples_header(FILE *out)
{
	if (out == NULL)
		return -EINVAL;
	if (fputs("seq,lcore,t1_ns,rtt_ns,network_rtt_ns\n", out) == EOF)
		return -EIO;
	return 0;
}

int
report_samples_write(FILE *out, const struct report_sample *s, size_t n)
{
	size_t i;

	if (out == NULL || (n != 0 && s == NULL))
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int ret;

		/* No network RTT for this proto: an empty field (CSV "NA"). */
		if (s[i].network_rtt_ns < 0)
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",\n",
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns);
		else
			ret = fprintf(out,
				      "%" PRIu64 ",%" PRIu32 ",%" PRIu64
				      ",%" PRIu64 ",%" PRId64 "\n",
				      s[i].seq, s[i].lcore, s[i].t1_ns,
				      s[i].rtt_ns, s[i].network_rtt_ns);
		if (ret < 0)
			return -EIO;
	}
	return 0;
}
