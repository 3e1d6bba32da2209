/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --flows (JSON "flows", "flows_spread", the text table of the worst and
 * the spread line) and --new-flow-every's first packets.
 */
#include "latprobe/report_internal.h"

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

/* A flow's p50/p99: "-" when it has too few answers for it. */
static struct ns_str
flow_pct(const struct report_flow *f, double p, uint64_t ns)
{
	return rpt_fmt_ns_of(report_pct_enough(f->count, p) ? f->count : 0, ns);
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

int
rpt_text_flows(FILE *out, const struct report_probe *r)
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
			rpt_pct(f->lost, sent), flow_pct(f, 50, f->p50).s,
			flow_pct(f, 99, f->p99).s,
			rpt_fmt_ns_of(f->count, f->max).s);
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

static struct json_object *
json_flows(const struct report_probe *r, int *err)
{
	/* NULL: the rpt_jadd()s below and the caller's rpt_jset() say so. */
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_flows; i++) {
		const struct report_flow *f = &r->flows[i];
		struct json_object *o = json_object_new_object();

		rpt_jset_u64(o, "flow", f->flow, err);
		rpt_jset_u64(o, "lcore", f->lcore, err);
		rpt_jset_u64(o, "sport", f->sport, err);
		rpt_jset_u64(o, "count", f->count, err);
		rpt_jset_u64(o, "lost", f->lost, err);
		rpt_jset_u64_or_null(o, "p50", report_pct_enough(f->count, 50),
				     f->p50, err);
		rpt_jset_u64_or_null(o, "p99", report_pct_enough(f->count, 99),
				     f->p99, err);
		rpt_jset_u64(o, "max", f->max, err);
		rpt_jadd(a, o, err);
	}
	return a;
}

static struct json_object *
json_flows_spread(const struct report_probe *r, int *err)
{
	struct json_object *o = json_object_new_object();
	struct report_flows_spread sp;

	report_flows_spread(r->flows, r->n_flows, &sp);
	rpt_jset_bool(o, "valid", sp.valid, err);
	rpt_jset_u64(o, "flows_answered", sp.flows, err);
	rpt_jset_u64(o, "worst_p50_ns", sp.worst_p50, err);
	rpt_jset_u64(o, "worst_sport", sp.worst_sport, err);
	rpt_jset_u64(o, "median_p50_ns", sp.median_p50, err);
	rpt_jset_u64(o, "median_p99_ns", sp.median_p99, err);
	rpt_jset_double(o, "ratio", sp.valid ? sp.ratio : NAN, err);
	rpt_jset_double(o, "own_p99_over_p50", sp.valid ? sp.own : NAN, err);
	if (sp.valid)
		rpt_jset_bool(o, "differ", sp.differ, err);
	else
		rpt_jset_null(o, "differ", err);
	return o;
}

/* --new-flow-every: the first packets' line, next to the steady state. */
void
rpt_text_first_packet(FILE *out, const struct report_probe *r,
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
	rpt_text_pct_line(out, "  first packet", r->first_packet);
	if (s.pct_ok[0] && steady->pct_ok[0] && steady->pct[0] != 0)
		fprintf(out,
			"  first-packet p50 / steady-state p50 = %.2f (the "
			"steady state is rtt above: first packets are not in "
			"it)\n",
			(double)s.pct[0] / (double)steady->pct[0]);
}

/* JSON "flows" and "flows_spread", with --flows. */
void
rpt_json_flows(struct json_object *root, const struct report_probe *r, int *err)
{
	if (r->n_flows != 0) {
		rpt_jset(root, "flows", json_flows(r, err), err);
		rpt_jset(root, "flows_spread", json_flows_spread(r, err), err);
	}
}

/* JSON "first_packet_rtt_ns" and "first_packet", with --new-flow-every. */
void
rpt_json_first_packet(struct json_object *root, const struct report_probe *r,
		      int *err)
{
	if (r->first_packet != NULL) {
		struct json_object *fp = json_object_new_object();

		rpt_jset(root, "first_packet_rtt_ns",
			 rpt_json_summary(r->first_packet, err), err);
		rpt_jset_u64(fp, "every", r->new_flow_every, err);
		rpt_jset_u64(fp, "new_flows", r->new_flows, err);
		rpt_jset_u64(fp, "fresh_ports", r->fresh_ports, err);
		rpt_jset_u64(fp, "fresh_reused", r->fresh_reused, err);
		rpt_jset_u64(fp, "lost", r->first_lost, err);
		rpt_jset(root, "first_packet", fp, err);
	}
}
