/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port: xstats that moved, the path the packets took (VF or synthetic,
 * the driver's counters; also the live path line), NIC timestamps.
 */
#include "latprobe/report_internal.h"

/* " name +delta, name +delta" and the end of the line. */
static void
text_counters(FILE *out, const struct report_counter *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s %s +%" PRIu64, i ? "," : "",
			rpt_str_or(c[i].name, "?"), c[i].value);
	fputc('\n', out);
}

void
rpt_text_xstats(FILE *out, const struct report_port_xstats *x)
{
	if (!x->present)
		return;
	if (x->n_delta == 0 || x->delta == NULL) {
		fputs("Port xstats: no drop, error or missed counter moved\n",
		      out);
		return;
	}
	fputs("Port xstats that moved:", out);
	text_counters(out, x->delta, x->n_delta);
}

/* A path interval's p50/p99 over its answers: "-" when too few. */
static struct ns_str
path_pct(const struct report_path_interval *v, double p, uint64_t ns)
{
	return rpt_fmt_ns_of(report_pct_enough(v->received, p) ? 1 : 0, ns);
}

/* The shifts and the latency on each path between them. */
static void
text_path_timeline(FILE *out, const struct report_port_path *p)
{
	if (!p->timeline)
		return;
	fprintf(out, "  path shifts: %u (sampled every %.0f ms)%s\n",
		p->n_shifts + (unsigned)p->shifts_dropped, p->poll_s * 1e3,
		p->n_shifts == 0 ? ": the packets kept to one path" : "");
	for (unsigned i = 0; i < p->n_shifts; i++) {
		const struct report_path_shift *s = &p->shifts[i];

		fprintf(out, "    %9.3f s  %s -> %s", s->t_s,
			rpt_str_or(s->from, "?"), rpt_str_or(s->to, "?"));
		if (s->took_s >= 0)
			fprintf(out, "  (%.3f s after the VF's removal)",
				s->took_s);
		fputc('\n', out);
	}
	if (p->shifts_dropped != 0)
		fprintf(out, "    (%" PRIu64 " more not kept)\n",
			p->shifts_dropped);
	if (p->n_intervals == 0)
		return;
	fputs("  latency by path:\n", out);
	for (unsigned i = 0; i < p->n_intervals; i++) {
		const struct report_path_interval *v = &p->intervals[i];

		fprintf(out,
			"    %9.3f - %9.3f s  %-9s  sent %" PRIu64
			" received %" PRIu64 " lost %" PRIu64,
			v->from_s, v->to_s, rpt_str_or(v->path, "?"), v->sent,
			v->received, v->lost);
		if (v->received != 0)
			fprintf(out, "  min %s p50 %s p99 %s max %s",
				rpt_fmt_ns(v->min_ns).s,
				path_pct(v, 50, v->p50_ns).s,
				path_pct(v, 99, v->p99_ns).s,
				rpt_fmt_ns(v->max_ns).s);
		fputc('\n', out);
	}
}

/* port.path.shifts and port.path.intervals. */
static void
json_path_timeline(struct json_object *o, const struct report_port_path *p,
		   int *err)
{
	struct json_object *arr;

	if (!p->timeline)
		return;
	rpt_jset_double(o, "poll_s", p->poll_s, err);
	arr = json_object_new_array();
	for (unsigned i = 0; i < p->n_shifts; i++) {
		const struct report_path_shift *s = &p->shifts[i];
		struct json_object *e = json_object_new_object();

		rpt_jset_double(e, "t_s", s->t_s, err);
		rpt_jset_str(e, "from", s->from, err);
		rpt_jset_str(e, "to", s->to, err);
		rpt_jset_double(e, "took_s", s->took_s >= 0 ? s->took_s : NAN,
				err);
		json_object_array_add(arr, e);
	}
	rpt_jset(o, "shifts", arr, err);
	rpt_jset_u64(o, "shifts_dropped", p->shifts_dropped, err);
	arr = json_object_new_array();
	for (unsigned i = 0; i < p->n_intervals; i++) {
		const struct report_path_interval *v = &p->intervals[i];
		struct json_object *e = json_object_new_object();

		rpt_jset_double(e, "from_s", v->from_s, err);
		rpt_jset_double(e, "to_s", v->to_s, err);
		rpt_jset_str(e, "path", v->path, err);
		rpt_jset_u64(e, "sent", v->sent, err);
		rpt_jset_u64(e, "received", v->received, err);
		rpt_jset_u64(e, "lost", v->lost, err);
		if (v->received != 0) {
			struct json_object *rt = json_object_new_object();

			rpt_jset_u64(rt, "min", v->min_ns, err);
			rpt_jset_u64_or_null(rt, "p50",
					     report_pct_enough(v->received, 50),
					     v->p50_ns, err);
			rpt_jset_u64_or_null(rt, "p99",
					     report_pct_enough(v->received, 99),
					     v->p99_ns, err);
			rpt_jset_u64(rt, "max", v->max_ns, err);
			rpt_jset(e, "rtt_ns", rt, err);
		} else {
			rpt_jset_null(e, "rtt_ns", err);
		}
		json_object_array_add(arr, e);
	}
	rpt_jset(o, "intervals", arr, err);
}

/* The path section: VF vs synthetic, the driver's counters that moved. */
void
rpt_text_path(FILE *out, const struct report_port_path *p)
{
	uint64_t syn;

	if (p == NULL)
		return;
	fprintf(out, "Port path (%s%s%s):", rpt_str_or(p->kind, "?"),
		p->vf_driver != NULL ? ", VF " : "",
		rpt_str_or(p->vf_driver, ""));
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
	} else {
		fputs("  driver counters that moved:", out);
		text_counters(out, p->driver, p->n_driver);
	}
	text_path_timeline(out, p);
}

/* "path": {"kind", "vf_rx_packets", ..., "vf_share", "driver_delta"} */
static struct json_object *
json_path(const struct report_port_path *p, int *err)
{
	struct json_object *o = json_object_new_object();

	rpt_jset_str(o, "kind", p->kind, err);
	if (p->vf_driver != NULL)
		rpt_jset_str(o, "vf_driver", p->vf_driver, err);
	if (p->includes != NULL)
		rpt_jset_str(o, "includes", p->includes, err);
	if (p->split) {
		rpt_jset_u64(o, "vf_rx_packets", p->vf_rx, err);
		rpt_jset_u64(o, "vf_tx_packets", p->vf_tx, err);
		rpt_jset_u64(o, "synthetic_rx_packets", p->synthetic_rx, err);
		rpt_jset_u64(o, "synthetic_tx_packets", p->synthetic_tx, err);
		/* NaN is written as null: nothing counted. */
		rpt_jset_double(o, "vf_share",
				p->vf_share >= 0 ? p->vf_share : NAN, err);
	}
	rpt_jset(o, "driver_delta",
		 rpt_json_counters(p->driver, p->n_driver, err), err);
	json_path_timeline(o, p, err);
	return o;
}

/* "port": {"xstats_delta": {...}}, when there is a port. */
void
rpt_json_port(struct json_object *root, const struct report_port_xstats *x,
	      int *err)
{
	struct json_object *port;

	if (!x->present)
		return;
	port = json_object_new_object();
	rpt_jset(port, "xstats_delta",
		 rpt_json_counters(x->delta, x->n_delta, err), err);
	if (x->path != NULL)
		rpt_jset(port, "path", json_path(x->path, err), err);
	rpt_json_port_events(port, x->events, err);
	rpt_jset(root, "port", port, err);
}

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
			     rpt_str_or(p->kind, "?"), p->vf_rx, p->vf_tx,
			     p->synthetic_rx, p->synthetic_tx,
			     p->synthetic_rx + p->synthetic_tx != 0
				     ? " (SYNTHETIC PATH)"
				     : "");
	else
		n = snprintf(buf, cap,
			     "         path (%s):", rpt_str_or(p->kind, "?"));
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
			     i ? "," : "", rpt_str_or(p->driver[i].name, "?"),
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

/* --hw-timestamps: the NIC-clock figures next to the TSC's. */
void
rpt_text_hw(FILE *out, const struct report_hw *hw, const char *t)
{
	char label[64];

	if (hw == NULL)
		return;
	if (hw->rtt != NULL)
		rpt_text_pct_line(out, "NIC-clock RTT (NIC rx - T1)", hw->rtt);
	if (hw->rx_delay != NULL) {
		snprintf(label, sizeof(label), "TSC - NIC at rx (%s - NIC rx)",
			 t);
		rpt_text_pct_line(out, label, hw->rx_delay);
	}
	fprintf(out,
		"NIC timestamps: %" PRIu64 " stamped, %" PRIu64
		" unstamped, %" PRIu64 " outside; NIC clock %.6f MHz, %" PRIu64
		" clock samples (%" PRIu64 " failed), offset +/- %.0f ns\n",
		hw->stamped, hw->unstamped, hw->outside, hw->nic_hz / 1e6,
		hw->clock_samples, hw->clock_sample_failures,
		hw->pair_gap_ns / 2);
}

/* --hw-timestamps: "hw_timestamps" and the NIC-clock series. */
void
rpt_json_hw(struct json_object *root, const struct report_hw *hw, int *err)
{
	struct json_object *o;

	if (hw == NULL)
		return;
	o = json_object_new_object();
	rpt_jset_u64(o, "stamped", hw->stamped, err);
	rpt_jset_u64(o, "unstamped", hw->unstamped, err);
	rpt_jset_u64(o, "outside", hw->outside, err);
	rpt_jset_u64(o, "clock_samples", hw->clock_samples, err);
	rpt_jset_u64(o, "clock_sample_failures", hw->clock_sample_failures,
		     err);
	rpt_jset_double(o, "nic_hz", hw->nic_hz > 0 ? hw->nic_hz : NAN, err);
	rpt_jset_double(o, "clock_pair_gap_ns",
			hw->clock_samples > 0 ? hw->pair_gap_ns : NAN, err);
	rpt_jset(root, "hw_timestamps", o, err);
	rpt_jset_series(root, "hw_rtt_ns", hw->rtt, err);
	rpt_jset_series(root, "hw_rx_delay_ns", hw->rx_delay, err);
}
