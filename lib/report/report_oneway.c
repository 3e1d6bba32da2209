/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One-way delays (struct report_one_way): the judgement, the text lines
 * and JSON one_way with the forward_ns / reverse_ns series.
 */
#include "latprobe/report_internal.h"

static const char *const reason_key[REPORT_OW__COUNT] = {
	[REPORT_OW_NO_ANSWERS] = "no_answers",
	[REPORT_OW_REFLECTOR_UNSYNC] = "reflector_unsynchronised",
	[REPORT_OW_NO_ESTIMATE] = "reflector_no_error_estimate",
	[REPORT_OW_LOCAL_UNSYNC] = "local_unsynchronised",
	[REPORT_OW_NEGATIVE] = "negative_delay",
	[REPORT_OW_BOUND] = "bound_exceeds_delay",
	[REPORT_OW_LOCAL_ERR_UNKNOWN] = "local_error_unknown",
	[REPORT_OW_LOCAL_NO_MAPPING] = "local_clock_not_resampled",
	[REPORT_OW_REFLECTOR_UNKNOWN] = "reflector_error_unknown",
};

const char *
report_ow_reason_key(enum report_ow_reason r)
{
	return (unsigned)r < REPORT_OW__COUNT ? reason_key[r] : "?";
}

static uint64_t
sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

static uint64_t
neg_mag(int64_t v)
{
	return v >= 0		? 0
	       : v == INT64_MIN ? (uint64_t)INT64_MAX + 1
				: (uint64_t)-v;
}

/* The parts of the bound that are not known, as reasons (1 << reason),
 * in the order the first is named as the bound's. */
static const enum report_ow_reason bound_order[] = {
	REPORT_OW_LOCAL_NO_MAPPING,  REPORT_OW_LOCAL_UNSYNC,
	REPORT_OW_LOCAL_ERR_UNKNOWN, REPORT_OW_NO_ESTIMATE,
	REPORT_OW_REFLECTOR_UNKNOWN, REPORT_OW_REFLECTOR_UNSYNC,
};

static unsigned
bound_unknowns(const struct report_one_way *ow)
{
	unsigned why = 0;

	if (ow->map_unknown)
		why |= 1u << REPORT_OW_LOCAL_NO_MAPPING;
	if (ow->refl_no_ee != 0)
		why |= 1u << REPORT_OW_NO_ESTIMATE;
	if (ow->refl_ee_unknown != 0)
		why |= 1u << REPORT_OW_REFLECTOR_UNKNOWN;
	/* The sync errors cancel on one clock; apart, each side's own error
	 * against UTC is part of the bound. */
	if (ow->same_clock)
		return why;
	if (!ow->local_synced)
		why |= 1u << REPORT_OW_LOCAL_UNSYNC;
	else if (ow->local_sync_unknown)
		why |= 1u << REPORT_OW_LOCAL_ERR_UNKNOWN;
	if (ow->refl_s_clear != 0)
		why |= 1u << REPORT_OW_REFLECTOR_UNSYNC;
	return why;
}

void
report_one_way_judge(struct report_one_way *ow)
{
	struct report_summary f, r;
	unsigned why = bound_unknowns(ow);

	ow->bound_known = why == 0;
	ow->bound_why = REPORT_OW__COUNT;
	for (unsigned i = 0; i < sizeof(bound_order) / sizeof(bound_order[0]);
	     i++)
		if (ow->bound_why == REPORT_OW__COUNT &&
		    (why & (1u << bound_order[i])))
			ow->bound_why = bound_order[i];
	ow->bound_ns = 0;
	if (ow->bound_known) {
		ow->bound_ns = sat_add(ow->refl_ee_max_ns, ow->map_err_max_ns);
		if (!ow->same_clock)
			ow->bound_ns =
				sat_add(ow->bound_ns, ow->local_sync_err_ns);
	}
	ow->disagree_ns = 0;
	if (ow->answers == 0)
		why |= 1u << REPORT_OW_NO_ANSWERS;
	if (ow->answers != 0 && (ow->fwd_nonpos != 0 || ow->rev_nonpos != 0)) {
		uint64_t a = neg_mag(ow->fwd_min_ns),
			 b = neg_mag(ow->rev_min_ns);

		why |= 1u << REPORT_OW_NEGATIVE;
		ow->disagree_ns = a > b ? a : b;
	}
	report_summarise(rpt_hist_or_empty(ow->forward), &f);
	report_summarise(rpt_hist_or_empty(ow->reverse), &r);
	/* pct[0] is p50 (report_pcts[]). */
	if (ow->bound_known && ((f.count != 0 && ow->bound_ns >= f.pct[0]) ||
				(r.count != 0 && ow->bound_ns >= r.pct[0])))
		why |= 1u << REPORT_OW_BOUND;
	ow->reasons = why;
	ow->valid = why == 0;
}

/* The text of each reason, and what to do about it. */
static void
text_reason(FILE *out, const struct report_one_way *ow, enum report_ow_reason k)
{
	switch (k) {
	case REPORT_OW_NO_ANSWERS:
		fprintf(out, "    - no answer carried the reflector's T2 and "
			     "T3\n");
		break;
	case REPORT_OW_REFLECTOR_UNSYNC:
		fprintf(out,
			"    - the reflector says its clock is not "
			"synchronised to UTC (S bit clear in %" PRIu64
			" answers)\n",
			ow->refl_s_clear);
		break;
	case REPORT_OW_NO_ESTIMATE:
		fprintf(out,
			"    - %" PRIu64 " answers carried no Error Estimate "
			"(multiplier 0): the reflector's error is unknown\n",
			ow->refl_no_ee);
		break;
	case REPORT_OW_LOCAL_UNSYNC:
		fprintf(out,
			"    - this host's clock was not synchronised at "
			"%" PRIu64 " of %" PRIu64
			" reads of the run (latest: %s)\n",
			ow->local_unsynced_reads, ow->local_reads,
			ow->chrony ? ow->chrony_synced
					     ? "chrony: synchronised"
					     : "chrony: not synchronised"
			: ow->kernel_read
				? ow->kernel_synced
					  ? "adjtimex: synchronised"
					  : "adjtimex: STA_UNSYNC, no time "
					    "daemon in charge"
				: "adjtimex did not answer");
		break;
	case REPORT_OW_LOCAL_ERR_UNKNOWN:
		fprintf(out,
			"    - this host's clock is synchronised (%s) but its "
			"source gives no error figure (adjtimex esterror %s; "
			"systemd-timesyncd leaves it 0): its error against "
			"UTC is unknown (chrony states one)\n",
			rpt_str_or(ow->local_source, "none"),
			rpt_fmt_ns(ow->kernel_esterror_ns).s);
		break;
	case REPORT_OW_LOCAL_NO_MAPPING:
		fprintf(out, "    - this host's clock thread did not run: T1 "
			     "and T4 rest on the start's TSC -> UTC mapping, "
			     "whose error since is not measured\n");
		break;
	case REPORT_OW_REFLECTOR_UNKNOWN:
		fprintf(out,
			"    - %" PRIu64 " answers carried an Error Estimate "
			"that says the reflector's error is unknown (the "
			"largest the field holds)\n",
			ow->refl_ee_unknown);
		break;
	case REPORT_OW_NEGATIVE:
		fprintf(out,
			"    - %" PRIu64 " forward and %" PRIu64
			" reverse delays were <= 0: not delays but evidence "
			"that the two clocks disagree by at least %s\n",
			ow->fwd_nonpos, ow->rev_nonpos,
			rpt_fmt_ns(ow->disagree_ns).s);
		break;
	case REPORT_OW_BOUND:
		fprintf(out,
			"    - the bound +-%s is not below the median of "
			"forward or of reverse\n",
			rpt_fmt_ns(ow->bound_ns).s);
		break;
	case REPORT_OW__COUNT:
	default:
		break;
	}
}

/* Why the bound is unknown, in a few words (ow->bound_why). */
static const char *
bound_why_text(const struct report_one_way *ow)
{
	switch (ow->bound_why) {
	case REPORT_OW_LOCAL_NO_MAPPING:
		return "this host's clock thread did not run";
	case REPORT_OW_LOCAL_UNSYNC:
		return "this host's clock was not synchronised during the run";
	case REPORT_OW_LOCAL_ERR_UNKNOWN:
		return "this host's time source gives no error figure";
	case REPORT_OW_NO_ESTIMATE:
		return "the reflector sent no Error Estimate";
	case REPORT_OW_REFLECTOR_UNKNOWN:
		return "the reflector says its error is unknown";
	case REPORT_OW_REFLECTOR_UNSYNC:
		return "the reflector's clock is not synchronised (S clear)";
	default:
		return "?";
	}
}

/* The bound and each of its parts: a figure, or why it is unknown. */
static void
bound_line(FILE *out, const struct report_one_way *ow)
{
	if (ow->bound_known)
		fprintf(out,
			"One-way bound: +-%s = ", rpt_fmt_ns(ow->bound_ns).s);
	else
		fprintf(out, "One-way bound: unknown (%s); its parts: ",
			bound_why_text(ow));
	if (ow->refl_no_ee != 0 || ow->refl_ee_unknown != 0)
		fprintf(out, "reflector unknown (%s)",
			ow->refl_no_ee != 0 ? "no Error Estimate"
					    : "its Error Estimate says so");
	else if (!ow->same_clock && ow->refl_s_clear != 0)
		fprintf(out,
			"reflector %s (its Error Estimate, against its own "
			"clock only: S clear)",
			rpt_fmt_ns(ow->refl_ee_max_ns).s);
	else
		fprintf(out, "reflector %s (its Error Estimate)",
			rpt_fmt_ns(ow->refl_ee_max_ns).s);
	if (ow->map_unknown)
		fprintf(out, " + this host's mapping unknown (not re-sampled)");
	else
		fprintf(out, " + this host's mapping %s",
			rpt_fmt_ns(ow->map_err_max_ns).s);
	if (ow->same_clock)
		fprintf(out, " (--same-clock: one system clock, sync errors "
			     "cancel)\n");
	else if (!ow->local_synced)
		fprintf(out,
			" + its sync unknown (not synchronised at %" PRIu64
			" of %" PRIu64 " reads)\n",
			ow->local_unsynced_reads, ow->local_reads);
	else if (ow->local_sync_unknown)
		fprintf(out, " + its sync unknown (%s: no error figure)\n",
			rpt_str_or(ow->local_source, "none"));
	else
		fprintf(out,
			" + its sync %s (%s, the largest of %" PRIu64
			" reads)\n",
			rpt_fmt_ns(ow->local_sync_err_ns).s,
			rpt_str_or(ow->local_source, "none"), ow->local_reads);
}

/* "One-way: forward p50 x +-b, reverse p50 y +-b (...)", valid figures. */
static void
text_one_way_p50s(FILE *out, const struct report_one_way *ow)
{
	struct report_summary f, r;
	const unsigned i = 0; /* p50 (report_pcts[]) */

	report_summarise(rpt_hist_or_empty(ow->forward), &f);
	report_summarise(rpt_hist_or_empty(ow->reverse), &r);
	fprintf(out,
		"One-way: forward p50 %s +-%s, reverse p50 %s +-%s "
		"(%s is the slower direction)\n",
		rpt_fmt_pct(&f, i).s, rpt_fmt_ns(ow->bound_ns).s,
		rpt_fmt_pct(&r, i).s, rpt_fmt_ns(ow->bound_ns).s,
		f.pct[i] > r.pct[i] + 2 * ow->bound_ns	 ? "forward"
		: r.pct[i] > f.pct[i] + 2 * ow->bound_ns ? "reverse"
							 : "neither clearly");
}

void
rpt_text_one_way_brief(FILE *out, const struct report_one_way *ow)
{
	if (ow != NULL && ow->valid)
		text_one_way_p50s(out, ow);
}

void
rpt_text_one_way(FILE *out, const struct report_one_way *ow)
{
	if (ow == NULL)
		return;
	/* Refused figures are shown, and say so on their own line. */
	rpt_text_pct_line(out,
			  ow->valid ? "Forward (T2-T1)"
				    : "Forward (T2-T1, not meaningful)",
			  rpt_hist_or_empty(ow->forward));
	rpt_text_pct_line(out,
			  ow->valid ? "Reverse (T4-T3)"
				    : "Reverse (T4-T3, not meaningful)",
			  rpt_hist_or_empty(ow->reverse));
	bound_line(out, ow);
	if (ow->valid) {
		text_one_way_p50s(out, ow);
		return;
	}
	fprintf(out, "One-way figures are not meaningful:\n");
	for (unsigned k = 0; k < REPORT_OW__COUNT; k++)
		if (ow->reasons & (1u << k))
			text_reason(out, ow, (enum report_ow_reason)k);
	fprintf(out,
		"  Fix: synchronise both hosts' clocks (chrony; on Azure "
		"`refclock PHC /dev/ptp_hyperv poll 3 dpoll -2 offset 0`, see "
		"docs/azure.md) and check each with `latprobe doctor`; "
		"--same-clock when both ends share one host's clock.\n");
}

void
rpt_json_one_way(struct json_object *root, const struct report_one_way *ow,
		 int *err)
{
	struct json_object *o, *a, *refl, *loc, *k;

	if (ow == NULL)
		return;
	rpt_jset(root, "forward_ns",
		 rpt_json_summary(rpt_hist_or_empty(ow->forward), err), err);
	rpt_jset(root, "reverse_ns",
		 rpt_json_summary(rpt_hist_or_empty(ow->reverse), err), err);
	o = json_object_new_object();
	rpt_jset_bool(o, "valid", ow->valid, err);
	a = json_object_new_array();
	for (unsigned i = 0; i < REPORT_OW__COUNT; i++)
		if (ow->reasons & (1u << i))
			rpt_jadd(a, json_object_new_string(reason_key[i]), err);
	rpt_jset(o, "reasons", a, err);
	if (ow->bound_known) {
		rpt_jset_u64(o, "bound_ns", ow->bound_ns, err);
		rpt_jset_null(o, "bound_reason", err);
	} else {
		rpt_jset_null(o, "bound_ns", err);
		rpt_jset_str(o, "bound_reason", reason_key[ow->bound_why], err);
	}
	rpt_jset_bool(o, "same_clock", ow->same_clock, err);
	rpt_jset_u64(o, "answers", ow->answers, err);
	rpt_jset_u64(o, "forward_nonpositive", ow->fwd_nonpos, err);
	rpt_jset_u64(o, "reverse_nonpositive", ow->rev_nonpos, err);
	if (ow->answers != 0) {
		rpt_jset(o, "forward_min_signed_ns",
			 json_object_new_int64(ow->fwd_min_ns), err);
		rpt_jset(o, "reverse_min_signed_ns",
			 json_object_new_int64(ow->rev_min_ns), err);
	} else {
		rpt_jset_null(o, "forward_min_signed_ns", err);
		rpt_jset_null(o, "reverse_min_signed_ns", err);
	}
	rpt_jset_u64(o, "clocks_disagree_ns", ow->disagree_ns, err);
	refl = json_object_new_object();
	rpt_jset_u64(refl, "error_estimate_max_ns", ow->refl_ee_max_ns, err);
	rpt_jset_u64(refl, "s_clear", ow->refl_s_clear, err);
	rpt_jset_u64(refl, "no_estimate", ow->refl_no_ee, err);
	rpt_jset_u64(refl, "error_unknown", ow->refl_ee_unknown, err);
	rpt_jset(o, "reflector", refl, err);
	loc = json_object_new_object();
	rpt_jset_bool(loc, "resampled", !ow->map_unknown, err);
	if (ow->map_unknown)
		rpt_jset_null(loc, "mapping_error_max_ns", err);
	else
		rpt_jset_u64(loc, "mapping_error_max_ns", ow->map_err_max_ns,
			     err);
	rpt_jset_u64(loc, "residual_max_ns", ow->map_residual_max_ns, err);
	rpt_jset_u64(loc, "resamples", ow->map_resamples, err);
	rpt_jset_u64(loc, "steps", ow->map_steps, err);
	rpt_jset(loc, "step_max_ns", json_object_new_int64(ow->map_step_max_ns),
		 err);
	rpt_jset_double(loc, "slew_max_ppm", ow->map_slew_max_ppm, err);
	rpt_jset_bool(loc, "synchronised", ow->local_synced, err);
	rpt_jset_str(loc, "source", rpt_str_or(ow->local_source, "none"), err);
	if (ow->local_synced && !ow->local_sync_unknown)
		rpt_jset_u64(loc, "sync_error_ns", ow->local_sync_err_ns, err);
	else
		rpt_jset_null(loc, "sync_error_ns", err);
	rpt_jset_u64(loc, "sync_reads", ow->local_reads, err);
	rpt_jset_u64(loc, "unsynchronised_reads", ow->local_unsynced_reads,
		     err);
	k = json_object_new_object();
	rpt_jset_bool(k, "read", ow->kernel_read, err);
	rpt_jset_bool(k, "synchronised", ow->kernel_synced, err);
	rpt_jset_u64(k, "status", ow->kernel_status, err);
	rpt_jset_u64(k, "esterror_ns", ow->kernel_esterror_ns, err);
	rpt_jset_u64(k, "maxerror_ns", ow->kernel_maxerror_ns, err);
	rpt_jset(loc, "kernel", k, err);
	if (ow->chrony) {
		k = json_object_new_object();
		rpt_jset_str(k, "reference", ow->chrony_ref, err);
		rpt_jset_u64(k, "stratum", ow->chrony_stratum, err);
		rpt_jset_bool(k, "synchronised", ow->chrony_synced, err);
		rpt_jset_bool(k, "phc", ow->chrony_phc, err);
		rpt_jset_double(k, "offset_s", ow->chrony_offset_s, err);
		rpt_jset_double(k, "root_delay_s", ow->chrony_root_delay_s,
				err);
		rpt_jset_double(k, "root_dispersion_s",
				ow->chrony_root_dispersion_s, err);
		rpt_jset_u64(k, "bound_ns", ow->chrony_bound_ns, err);
		rpt_jset(loc, "chrony", k, err);
	} else {
		rpt_jset_null(loc, "chrony", err);
	}
	rpt_jset(o, "local", loc, err);
	rpt_jset(root, "one_way", o, err);
}

void
rpt_text_clock(FILE *out, const struct report_clock *c)
{
	char sync[96];

	if (c == NULL)
		return;
	if (!c->synchronised)
		snprintf(sync, sizeof(sync),
			 "not synchronised at %" PRIu64 " of %" PRIu64 " reads",
			 c->unsynchronised_reads, c->sync_reads);
	else if (c->sync_error_unknown)
		snprintf(sync, sizeof(sync),
			 "synchronised (%s, sync error unknown: no figure)",
			 rpt_str_or(c->source, "none"));
	else
		snprintf(sync, sizeof(sync),
			 "synchronised (%s, sync error up to %s)",
			 rpt_str_or(c->source, "none"),
			 rpt_fmt_ns(c->sync_error_ns).s);
	if (c->not_resampled) {
		fprintf(out,
			"Clock (STAMP T2/T3): %s; the clock thread did not "
			"run: the start's TSC -> UTC mapping, its error "
			"unknown; Error Estimate unknown (the largest the "
			"field holds)%s\n",
			sync,
			c->error_estimate & 0x8000 ? " (S set)" : " (S clear)");
		return;
	}
	fprintf(out,
		"Clock (STAMP T2/T3): %s; TSC -> UTC "
		"mapping error up to %s over %" PRIu64 " re-samples, %" PRIu64
		" step(s), slew up to %.2f ppm; "
		"Error Estimate %s%s\n",
		sync, rpt_fmt_ns(c->mapping_error_max_ns).s, c->resamples,
		c->steps, c->slew_max_ppm,
		rpt_fmt_ns(rpt_round_ns(c->error_estimate_ns)).s,
		c->error_estimate & 0x8000 ? " (S set)" : " (S clear)");
}

void
rpt_json_clock(struct json_object *root, const struct report_clock *c, int *err)
{
	struct json_object *o;

	if (c == NULL)
		return;
	o = json_object_new_object();
	rpt_jset_bool(o, "resampled", !c->not_resampled, err);
	if (c->not_resampled)
		rpt_jset_null(o, "mapping_error_max_ns", err);
	else
		rpt_jset_u64(o, "mapping_error_max_ns", c->mapping_error_max_ns,
			     err);
	rpt_jset_u64(o, "residual_max_ns", c->residual_max_ns, err);
	rpt_jset_u64(o, "resamples", c->resamples, err);
	rpt_jset_u64(o, "steps", c->steps, err);
	rpt_jset(o, "step_max_ns", json_object_new_int64(c->step_max_ns), err);
	rpt_jset_double(o, "slew_max_ppm", c->slew_max_ppm, err);
	rpt_jset_bool(o, "synchronised", c->synchronised, err);
	rpt_jset_str(o, "source", rpt_str_or(c->source, "none"), err);
	if (c->synchronised && !c->sync_error_unknown)
		rpt_jset_u64(o, "sync_error_ns", c->sync_error_ns, err);
	else
		rpt_jset_null(o, "sync_error_ns", err);
	rpt_jset_u64(o, "sync_reads", c->sync_reads, err);
	rpt_jset_u64(o, "unsynchronised_reads", c->unsynchronised_reads, err);
	rpt_jset_u64(o, "error_estimate", c->error_estimate, err);
	if (c->error_estimate_ns >= 0x1p64)
		rpt_jset_null(o, "error_estimate_ns", err);
	else
		rpt_jset_double(o, "error_estimate_ns", c->error_estimate_ns,
				err);
	rpt_jset(root, "clock", o, err);
}
