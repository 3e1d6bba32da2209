/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Stalls: each side's stalls, the round trips without the
 * host-affected probes next to the percentiles, the tail's attribution
 * and the verdict line; JSON "stalls" and "rtt_ns_unaffected".
 */
#include "latprobe/report_internal.h"

/* Counts of h in the counters above the one that holds v, overflow too. */
static uint64_t
above(const struct histogram *h, uint64_t v)
{
	uint64_t n = 0;

	if (h == NULL)
		return 0;
	for (unsigned i = histogram_index(v) + 1; i < HISTOGRAM_COUNTERS; i++)
		n += h->counts[i];
	return n + h->overflow;
}

void
report_stalls_tail(const struct report_stalls *s, const struct histogram *rtt,
		   double p, struct report_stall_tail *out)
{
	memset(out, 0, sizeof(*out));
	out->p = p;
	if (rtt == NULL)
		return;
	out->count = histogram_count(rtt);
	out->enough = report_pct_enough(out->count, p);
	if (!out->enough)
		return;
	out->value_ns = histogram_percentile(rtt, p);
	out->above = above(rtt, out->value_ns);
	out->prober = above(s->host_prober, out->value_ns);
	out->reflector = above(s->host_reflector, out->value_ns);
	out->both = above(s->host_both, out->value_ns);
}

static uint64_t
n_of(const struct histogram *h)
{
	return h == NULL ? 0 : histogram_count(h) + h->overflow;
}

bool
report_stalls_separable(const struct report_stalls *s,
			const struct histogram *rtt, double *share)
{
	uint64_t n = n_of(rtt);
	uint64_t a = n_of(s->host_prober) + n_of(s->host_reflector) +
		     n_of(s->host_both);
	double f = n == 0 ? 0.0 : (double)a / (double)n;

	if (share != NULL)
		*share = f;
	return f <= REPORT_STALL_SEPARABLE_MAX;
}

/*
 * Whether the data support a verdict on the tail above p99.9; when not,
 * why, into why (one clause, no newline). Every rule that withholds the
 * verdict belongs here:
 *  - both series (all, and without host-affected) have enough samples for
 *    a 95 % interval of p99.9 inside the data (report_pct_enough());
 *  - the tail's host-affected share is significantly above the share of
 *    all probes: an exact one-sided binomial test of the affected count
 *    among the probes above p99.9 against the all-probes share, at
 *    REPORT_STALLS_VERDICT_ALPHA. A share no higher than everywhere else
 *    says nothing about what made the tail.
 */
bool
report_stalls_verdict_gate(const struct report_stalls *s,
			   const struct histogram *rtt,
			   const struct report_stall_tail *t, char *why,
			   size_t cap)
{
	uint64_t n = n_of(rtt), nu = n_of(s->unaffected);
	uint64_t need = report_pct_min_count(99.9);
	uint64_t aff = n_of(s->host_prober) + n_of(s->host_reflector) +
		       n_of(s->host_both);
	uint64_t k = t->prober + t->reflector + t->both;
	double p0, pv;

	if (!report_pct_enough(histogram_count(rpt_hist_or_empty(rtt)), 99.9)) {
		snprintf(why, cap, "p99.9 needs %s round trips, the run has %s",
			 rpt_fmt_count(need).s, rpt_fmt_count(n).s);
		return false;
	}
	if (!report_pct_enough(
		    histogram_count(rpt_hist_or_empty(s->unaffected)), 99.9)) {
		snprintf(why, cap,
			 "p99.9 needs %s round trips, %s are without "
			 "host-affected ones",
			 rpt_fmt_count(need).s, rpt_fmt_count(nu).s);
		return false;
	}
	p0 = n != 0 ? (double)aff / (double)n : 0.0;
	pv = binom_test_greater(k, t->above, p0);
	if (!(pv < REPORT_STALLS_VERDICT_ALPHA)) {
		snprintf(why, cap,
			 "the probes above p99.9 are host-affected no more "
			 "often than all probes (%" PRIu64 " of %" PRIu64
			 " against %.2f %% of all; one-sided binomial p = "
			 "%.2g)",
			 k, t->above, 100.0 * p0, pv);
		return false;
	}
	return true;
}

int
report_stalls_verdict(char *buf, size_t cap, const struct report_stalls *s,
		      const struct histogram *rtt, bool *supported)
{
	struct report_stall_tail t;
	uint64_t n = n_of(rtt), aff;
	double ps, rs, pv, share;
	int len;

	*supported = false;
	if (!report_stalls_separable(s, rtt, &share))
		return snprintf(buf, cap,
				"%.1f %% of the probes overlapped a stall "
				"(more than %.0f %%): the detector cannot "
				"separate the host from the path on this run",
				100.0 * share,
				100.0 * REPORT_STALL_SEPARABLE_MAX);
	report_stalls_tail(s, rtt, 99.9, &t);
	*supported = report_stalls_verdict_gate(s, rtt, &t, buf, cap);
	if (!*supported)
		return (int)strlen(buf);
	aff = n_of(s->host_prober) + n_of(s->host_reflector) +
	      n_of(s->host_both);
	pv = binom_test_greater(t.prober + t.reflector + t.both, t.above,
				(double)aff / (double)n);
	ps = rpt_pct(t.prober + t.both, t.above);
	rs = rpt_pct(t.reflector + t.both, t.above);
	len = snprintf(buf, cap, "p99.9 %s: ", rpt_fmt_ns(t.value_ns).s);
	if (len < 0 || (size_t)len >= cap)
		return len;
	/* The gate passed: some of the tail is host-affected. */
	if (ps > 0 && rs > 0)
		len += snprintf(buf + len, cap - (size_t)len,
				"%.0f %% of the probes above it overlapped a "
				"stall of this host, %.0f %% one of the "
				"reflector's",
				ps, rs);
	else if (ps > 0)
		len += snprintf(buf + len, cap - (size_t)len,
				"%.0f %% of the probes above it overlapped a "
				"stall of this host",
				ps);
	else
		len += snprintf(buf + len, cap - (size_t)len,
				"%.0f %% of the probes above it overlapped a "
				"stall of the reflector's host",
				rs);
	if (len < 0 || (size_t)len >= cap)
		return len;
	len += snprintf(
		buf + len, cap - (size_t)len,
		" (%.2f %% of all probes; one-sided binomial p = "
		"%.2g); without them p99.9 is %s",
		rpt_pct(aff, n), pv,
		rpt_fmt_ns(histogram_percentile(s->unaffected, 99.9)).s);
	if (len < 0 || (size_t)len >= cap)
		return len;
	if (!s->reflector.known)
		len += snprintf(buf + len, cap - (size_t)len,
				" (the reflector's stalls are not known)");
	if (len >= 0 && (size_t)len < cap && s->prober.corr.hidden_wait_ns != 0)
		len += snprintf(buf + len, cap - (size_t)len,
				"; this host's worker was also off its CPU "
				"for %s where the loop cannot see it (inside "
				"PMD calls): the probes that waited then are "
				"not marked",
				rpt_fmt_ns(s->prober.corr.hidden_wait_ns).s);
	return len;
}

void
rpt_text_stalls_pcts(FILE *out, const struct report_probe *r,
		     const struct report_summary *all)
{
	const struct report_stalls *st = r->stalls;
	const struct histogram *u = rpt_hist_or_empty(st->unaffected);
	static const char *const titles[2] = {"all", "without host-affected"};
	struct report_summary s;
	const struct report_summary *cols[2] = {all, &s};

	report_summarise(u, &s);
	rpt_text_pct_table(out, cols, titles, 2, r->brief);
}

/* How the threshold was set, the loop's gaps, the PMD calls. */
static void
text_side_how(FILE *out, const struct report_stall_side *d)
{
	if (d->have_calib) {
		fprintf(out, "  %-9s threshold %s: ", "",
			rpt_fmt_ns(d->threshold_ns).s);
		if (d->calib_p999_ns != 0)
			fprintf(out,
				"max(floor %s, %u x p99.9 %s of %" PRIu64
				" loop gaps before the first probe)\n",
				rpt_fmt_ns(d->floor_ns).s, d->calib_mult,
				rpt_fmt_ns(d->calib_p999_ns).s, d->calib_gaps);
		else
			fprintf(out,
				"the floor (%" PRIu64
				" loop gaps measured before the first probe: "
				"too few to calibrate)\n",
				d->calib_gaps);
	}
	if (d->gaps != 0)
		fprintf(out,
			"  %-9s loop gaps between PMD calls: %" PRIu64
			", p50 <=%s, p99.9 <=%s\n",
			"", d->gaps, rpt_fmt_ns(d->gap_p50_ns).s,
			rpt_fmt_ns(d->gap_p999_ns).s);
	if (d->work_gaps != 0)
		fprintf(out,
			"  %-9s gaps holding a frame's work: %" PRIu64
			", p50 <=%s; judged above %s\n",
			"", d->work_gaps, rpt_fmt_ns(d->work_p50_ns).s,
			rpt_fmt_ns(d->work_thr_ns).s);
	if (d->have_calls) {
		if (d->path_calls)
			fprintf(out,
				"  %-9s in PMD calls (the kernel's path; a "
				"stall only off its CPU: %" PRIu64 "):",
				"", d->in_call);
		else
			fprintf(out,
				"  %-9s in PMD calls (user space, judged as "
				"gaps):",
				"");
		for (unsigned k = 0; k < REPORT_STALL_CALLS; k++) {
			const struct report_stall_call *c = &d->calls[k];

			if (c->count == 0)
				continue;
			fprintf(out, " %s %" PRIu64 " p50 <=%s max %s", c->kind,
				c->count, rpt_fmt_ns(c->p50_ns).s,
				rpt_fmt_ns(c->max_ns).s);
			if (c->thr_ns != 0 && c->thr_ns != d->threshold_ns)
				fprintf(out, " (judged above %s)",
					rpt_fmt_ns(c->thr_ns).s);
			fputc(';', out);
		}
		fputc('\n', out);
	}
	if (d->corr.have) {
		const struct report_stall_corr *c = &d->corr;

		fprintf(out,
			"  %-9s explained: preemption %" PRIu64
			" (run-queue wait %s, %" PRIu64
			" involuntary switches), off CPU %" PRIu64
			" (stopped/asleep %s), steal %" PRIu64
			", interrupts %" PRIu64 " (%" PRIu64
			" on its CPUs); unexplained %" PRIu64 " (%s)\n",
			"", c->by_preemption, rpt_fmt_ns(c->wait_ns).s,
			c->involuntary, c->by_off_cpu,
			rpt_fmt_ns(c->off_cpu_ns).s, c->by_steal, c->by_irq,
			c->irqs, c->unexplained,
			rpt_fmt_ns(c->unexplained_ns).s);
		if (c->hidden_wait_ns != 0)
			fprintf(out,
				"  %-9s off its CPU where the loop cannot see "
				"(e.g. inside a PMD call): %s\n",
				"", rpt_fmt_ns(c->hidden_wait_ns).s);
	}
}

static void
text_side(FILE *out, const char *name, const struct report_stall_side *d)
{
	fprintf(out, "  %-9s %" PRIu64 " stall%s, total %s, longest %s", name,
		d->count, d->count == 1 ? "" : "s", rpt_fmt_ns(d->total_ns).s,
		rpt_fmt_ns_of(d->count, d->longest_ns).s);
	if (d->have_host)
		fprintf(out,
			"; steal %s, other runnable tasks seen %" PRIu64
			" (%u scans)",
			rpt_fmt_ns(d->steal_ns).s, d->other_runnable,
			d->host_scans);
	fputc('\n', out);
	if (d->have_hist && d->count != 0 && d->hist_upper_ns != NULL) {
		fprintf(out, "  %-9s", "");
		for (unsigned i = 0; i < REPORT_STALL_BUCKETS; i++) {
			if (d->hist[i] == 0)
				continue;
			if (d->hist_upper_ns[i] == UINT64_MAX)
				fprintf(out, " >%s: %" PRIu64,
					rpt_fmt_ns(d->hist_upper_ns[i - 1]).s,
					d->hist[i]);
			else
				fprintf(out, " <=%s: %" PRIu64,
					rpt_fmt_ns(d->hist_upper_ns[i]).s,
					d->hist[i]);
		}
		fputc('\n', out);
	}
	text_side_how(out, d);
}

static void
text_tail(FILE *out, const struct report_stalls *s, const char *label,
	  const struct report_stall_tail *t)
{
	if (!t->enough) {
		fprintf(out,
			"  above %s: - (too few round trips: %s, needs %s)\n",
			label, rpt_fmt_count(t->count).s,
			rpt_fmt_count(report_pct_min_count(t->p)).s);
		return;
	}
	fprintf(out,
		"  above %s (%s): %" PRIu64 " probes, %.1f %% host-affected "
		"(this host %.1f %%, the reflector's %.1f %%, both %.1f %%)\n",
		label, rpt_fmt_ns(t->value_ns).s, t->above,
		rpt_pct(t->prober + t->reflector + t->both, t->above),
		rpt_pct(t->prober, t->above), rpt_pct(t->reflector, t->above),
		rpt_pct(t->both, t->above));
	(void)s;
}

void
rpt_text_stalls(FILE *out, const struct report_probe *r)
{
	const struct report_stalls *s = r->stalls;
	struct report_stall_tail t99, t999;
	uint64_t hp, hr, hb;
	char verdict[512];
	bool supported;

	if (s == NULL)
		return;
	hp = n_of(s->host_prober);
	hr = n_of(s->host_reflector);
	hb = n_of(s->host_both);
	fprintf(out, "Stalls (gaps of a worker's poll loop above %s):\n",
		rpt_fmt_ns(s->threshold_ns).s);
	text_side(out, "prober", &s->prober);
	if (s->reflector.known) {
		text_side(out, "reflector", &s->reflector);
		fprintf(out,
			"  %-9s (told in the stall TLV by %" PRIu64
			" answers)\n",
			"", s->tlv_answers);
	} else {
		fprintf(out, "  reflector not known: %s\n",
			s->tlv ? "the reflector did not fill in the stall TLV "
				 "(not latprobe): only this host's side is "
				 "known"
			       : "only this host's side is known (--stall-tlv "
				 "asks a latprobe reflector)");
	}
	fprintf(out,
		"  host-affected: %" PRIu64 " of %" PRIu64
		" probes (this host %" PRIu64 ", the reflector's %" PRIu64
		", both %" PRIu64
		"); still in the round trips above, left out of the figures "
		"without them\n",
		hp + hr + hb, n_of(r->rtt), hp, hr, hb);
	if (report_stalls_separable(s, r->rtt, NULL)) {
		report_stalls_tail(s, r->rtt, 99.0, &t99);
		report_stalls_tail(s, r->rtt, 99.9, &t999);
		text_tail(out, s, "p99", &t99);
		text_tail(out, s, "p99.9", &t999);
	}
	report_stalls_verdict(verdict, sizeof(verdict), s, r->rtt, &supported);
	fprintf(out, "%s: %s\n\n", supported ? "verdict" : "no verdict",
		verdict);
}

void
rpt_text_stalls_brief(FILE *out, const struct report_probe *r)
{
	const struct report_stalls *s = r->stalls;
	char verdict[512];
	bool supported;

	if (s == NULL)
		return;
	report_stalls_verdict(verdict, sizeof(verdict), s, r->rtt, &supported);
	if (supported)
		fprintf(out, "verdict: %s\n", verdict);
	else if (n_of(s->host_prober) + n_of(s->host_reflector) +
			 n_of(s->host_both) !=
		 0)
		fprintf(out, "no verdict: %s\n", verdict);
}

static void
json_side_how(struct json_object *o, const struct report_stall_side *d,
	      int *err)
{
	if (d->have_calib) {
		struct json_object *c = json_object_new_object();

		rpt_jset_u64(c, "threshold_ns", d->threshold_ns, err);
		rpt_jset_u64(c, "floor_ns", d->floor_ns, err);
		rpt_jset_u64(c, "gaps", d->calib_gaps, err);
		rpt_jset_u64_or_null(c, "gap_p99_9_ns", d->calib_p999_ns != 0,
				     d->calib_p999_ns, err);
		rpt_jset_u64(c, "multiple", d->calib_mult, err);
		rpt_jset(o, "calibration", c, err);
	}
	if (d->gaps != 0) {
		struct json_object *g = json_object_new_object();

		rpt_jset_u64(g, "count", d->gaps, err);
		rpt_jset_u64(g, "p50_ns", d->gap_p50_ns, err);
		rpt_jset_u64(g, "p99_9_ns", d->gap_p999_ns, err);
		rpt_jset(o, "loop_gaps", g, err);
	}
	if (d->work_gaps != 0) {
		struct json_object *g = json_object_new_object();

		rpt_jset_u64(g, "count", d->work_gaps, err);
		rpt_jset_u64(g, "p50_ns", d->work_p50_ns, err);
		rpt_jset_u64(g, "threshold_ns", d->work_thr_ns, err);
		rpt_jset(o, "work_gaps", g, err);
	}
	if (d->have_calls) {
		struct json_object *c = json_object_new_object();

		rpt_jset_bool(c, "path", d->path_calls, err);
		rpt_jset_u64(c, "off_cpu_stalls", d->in_call, err);
		for (unsigned k = 0; k < REPORT_STALL_CALLS; k++) {
			const struct report_stall_call *k_ = &d->calls[k];
			struct json_object *e = json_object_new_object();

			rpt_jset_u64(e, "count", k_->count, err);
			rpt_jset_u64(e, "total_ns", k_->total_ns, err);
			rpt_jset_u64(e, "max_ns", k_->max_ns, err);
			rpt_jset_u64_or_null(e, "p50_ns", k_->count != 0,
					     k_->p50_ns, err);
			rpt_jset_u64_or_null(e, "p99_ns", k_->count != 0,
					     k_->p99_ns, err);
			rpt_jset_u64_or_null(e, "threshold_ns", k_->thr_ns != 0,
					     k_->thr_ns, err);
			rpt_jset(c, k_->kind != NULL ? k_->kind : "?", e, err);
		}
		rpt_jset(o, "pmd_calls", c, err);
	}
	if (d->corr.have) {
		const struct report_stall_corr *c = &d->corr;
		struct json_object *e = json_object_new_object();

		rpt_jset_u64(e, "windows", c->windows, err);
		rpt_jset_u64_or_null(e, "run_queue_wait_ns", c->threads_ok,
				     c->wait_ns, err);
		rpt_jset_u64_or_null(e, "involuntary_switches", c->threads_ok,
				     c->involuntary, err);
		rpt_jset_u64_or_null(e, "interrupts", c->irqs_ok, c->irqs, err);
		rpt_jset_u64(e, "by_preemption", c->by_preemption, err);
		rpt_jset_u64(e, "by_preemption_ns", c->by_preemption_ns, err);
		rpt_jset_u64_or_null(e, "off_cpu_ns", c->threads_ok,
				     c->off_cpu_ns, err);
		rpt_jset_u64_or_null(e, "voluntary_switches", c->threads_ok,
				     c->voluntary, err);
		rpt_jset_u64(e, "by_off_cpu", c->by_off_cpu, err);
		rpt_jset_u64(e, "by_off_cpu_ns", c->by_off_cpu_ns, err);
		rpt_jset_u64(e, "by_steal", c->by_steal, err);
		rpt_jset_u64(e, "by_steal_ns", c->by_steal_ns, err);
		rpt_jset_u64(e, "by_interrupt", c->by_irq, err);
		rpt_jset_u64(e, "unexplained", c->unexplained, err);
		rpt_jset_u64(e, "unexplained_ns", c->unexplained_ns, err);
		rpt_jset_u64(e, "hidden_wait_ns", c->hidden_wait_ns, err);
		rpt_jset(o, "explained", e, err);
	}
}

static struct json_object *
json_side(const struct report_stall_side *d, bool with_known, int *err)
{
	struct json_object *o = json_object_new_object();

	if (with_known)
		rpt_jset_bool(o, "known", d->known, err);
	if (with_known && !d->known)
		return o;
	rpt_jset_u64(o, "count", d->count, err);
	rpt_jset_u64(o, "total_ns", d->total_ns, err);
	rpt_jset_u64(o, "longest_ns", d->longest_ns, err);
	if (d->have_hist && d->hist_upper_ns != NULL) {
		struct json_object *a = json_object_new_array();

		for (unsigned i = 0; i < REPORT_STALL_BUCKETS; i++) {
			struct json_object *b;

			if (d->hist[i] == 0)
				continue;
			b = json_object_new_object();
			if (d->hist_upper_ns[i] == UINT64_MAX)
				rpt_jset_null(b, "upper_ns", err);
			else
				rpt_jset_u64(b, "upper_ns", d->hist_upper_ns[i],
					     err);
			rpt_jset_u64(b, "count", d->hist[i], err);
			rpt_jadd(a, b, err);
		}
		rpt_jset(o, "histogram", a, err);
	}
	rpt_jset_u64_or_null(o, "steal_ns", d->have_host, d->steal_ns, err);
	rpt_jset_u64_or_null(o, "other_runnable", d->have_host,
			     d->other_runnable, err);
	json_side_how(o, d, err);
	return o;
}

static struct json_object *
json_tail(const struct report_stall_tail *t, int *err)
{
	struct json_object *o = json_object_new_object();
	bool k = t->enough;

	/* Too few round trips for the percentile: no value, no tail. */
	rpt_jset_u64_or_null(o, "value_ns", k, t->value_ns, err);
	rpt_jset_u64_or_null(o, "above", k, t->above, err);
	rpt_jset_u64_or_null(o, "host_affected", k,
			     t->prober + t->reflector + t->both, err);
	rpt_jset_u64_or_null(o, "prober", k, t->prober, err);
	rpt_jset_u64_or_null(o, "reflector", k, t->reflector, err);
	rpt_jset_u64_or_null(o, "both", k, t->both, err);
	rpt_jset_str(o, "reason", k ? NULL : "too_few_samples", err);
	return o;
}

void
rpt_json_stalls(struct json_object *root, const struct report_probe *r,
		int *err)
{
	const struct report_stalls *s = r->stalls;
	struct report_stall_tail t;
	struct json_object *o, *h, *tails;
	char verdict[512];
	bool supported;

	if (s == NULL)
		return;
	o = json_object_new_object();
	rpt_jset_u64(o, "threshold_ns", s->threshold_ns, err);
	rpt_jset(o, "prober", json_side(&s->prober, false, err), err);
	h = json_side(&s->reflector, true, err);
	rpt_jset_bool(h, "tlv_asked", s->tlv, err);
	rpt_jset_u64(h, "tlv_answers", s->tlv_answers, err);
	rpt_jset_u64(h, "tlv_unknown", s->tlv_unknown, err);
	rpt_jset(o, "reflector", h, err);
	h = json_object_new_object();
	rpt_jset_u64(h, "prober", n_of(s->host_prober), err);
	rpt_jset_u64(h, "reflector", n_of(s->host_reflector), err);
	rpt_jset_u64(h, "both", n_of(s->host_both), err);
	rpt_jset_u64(h, "probes",
		     n_of(s->host_prober) + n_of(s->host_reflector) +
			     n_of(s->host_both),
		     err);
	rpt_jset(o, "host_affected", h, err);
	{
		double share;
		bool sep = report_stalls_separable(s, r->rtt, &share);

		rpt_jset_bool(o, "separable", sep, err);
		rpt_jset_double(o, "affected_share", share, err);
	}
	tails = json_object_new_object();
	report_stalls_tail(s, r->rtt, 99.0, &t);
	rpt_jset(tails, "p99", json_tail(&t, err), err);
	report_stalls_tail(s, r->rtt, 99.9, &t);
	rpt_jset(tails, "p99_9", json_tail(&t, err), err);
	report_stalls_tail(s, r->rtt, 99.99, &t);
	rpt_jset(tails, "p99_99", json_tail(&t, err), err);
	rpt_jset(o, "tail", tails, err);
	report_stalls_verdict(verdict, sizeof(verdict), s, r->rtt, &supported);
	/* One of the two is a string, the other null. */
	rpt_jset_str(o, "verdict", supported ? verdict : NULL, err);
	rpt_jset_str(o, "no_verdict", supported ? NULL : verdict, err);
	rpt_jset(root, "stalls", o, err);
	rpt_jset(root, "rtt_ns_unaffected",
		 rpt_json_summary(rpt_hist_or_empty(s->unaffected), err), err);
}

void
rpt_text_reflect_stalls(FILE *out, const struct report_reflect *r)
{
	if (r->stalls == NULL)
		return;
	fprintf(out, "Stalls (gaps of a worker's poll loop above %s):\n",
		rpt_fmt_ns(r->stalls->threshold_ns).s);
	text_side(out, "reflector", &r->stalls->reflector);
}

void
rpt_json_reflect_stalls(struct json_object *root,
			const struct report_reflect *r, int *err)
{
	struct json_object *o;

	if (r->stalls == NULL)
		return;
	o = json_object_new_object();
	rpt_jset_u64(o, "threshold_ns", r->stalls->threshold_ns, err);
	rpt_jset(o, "reflector", json_side(&r->stalls->reflector, false, err),
		 err);
	rpt_jset(root, "stalls", o, err);
}
