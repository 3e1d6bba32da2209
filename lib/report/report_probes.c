/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The probe counters (JSON "probes", "stamp"): sent, lost and the rest,
 * why frames were ignored (with a hint), ICMP unreachable, the reflector's
 * error estimate.
 */
#include "latprobe/report_internal.h"

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
				rpt_str_or(r->target, "?"), what[i],
				r->unreachable[i],
				r->unreachable[i] == 1 ? "" : "s");
}

/* The counters' lines of the text report, from "Sent = ..." on. */
void
rpt_text_probes(FILE *out, const struct report_probe *r)
{
	fprintf(out,
		"  Sent = %" PRIu64 ", Received = %" PRIu64 ", Lost = %" PRIu64
		" (%.2f%%),\n",
		r->sent, r->received, r->lost, rpt_pct(r->lost, r->sent));
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
			rpt_fmt_ns(r->interval_ns).s,
			rpt_fmt_ns(r->timeout_ns).s,
			rpt_fmt_count(r->interval_stretched).s);
	rpt_text_link_loss(out, r);
	text_unreachable(out, r);
	text_ignored(out, r);
	text_unusable(out, r);
	/* The reflector's clock matters to one-way figures (--details). */
	if (!r->brief)
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
}

/* JSON "probes" and, when the reflector gave one, "stamp". */
void
rpt_json_probes(struct json_object *root, const struct report_probe *r,
		int *err)
{
	struct json_object *probes;

	probes = json_object_new_object();
	rpt_jset_u64(probes, "sent", r->sent, err);
	rpt_jset_u64(probes, "received", r->received, err);
	rpt_jset_u64(probes, "lost", r->lost, err);
	rpt_jset_u64(probes, "duplicated", r->duplicated, err);
	rpt_jset_u64(probes, "reordered", r->reordered, err);
	rpt_jset_u64(probes, "timeouts", r->timeouts, err);
	rpt_jset_u64(probes, "rx_ignored", r->rx_ignored, err);
	rpt_jset_u64(probes, "late", r->late, err);
	rpt_jset_u64(probes, "resets", r->resets, err);
	rpt_jset_u64(probes, "reassembly_failed", r->reasm_failed, err);
	rpt_jset_u64(probes, "auth_failed", r->auth_failed, err);
	rpt_jset_u64(probes, "l4_partial", r->l4_partial, err);
	rpt_jset_u64(probes, "warmup", r->warmup, err);
	rpt_jset_u64(probes, "interval_stretched", r->interval_stretched, err);
	rpt_jset_u64(probes, "nombuf", r->nombuf, err);
	rpt_json_link_loss(probes, r, err);
	{
		struct json_object *ign = json_object_new_object();
		uint64_t unreach = 0;
		char key[40];

		for (unsigned i = 0; i < REPORT_IGN__COUNT; i++)
			rpt_jset_u64(ign, report_ignored_name[i], r->ignored[i],
				     err);
		rpt_jset(probes, "ignored", ign, err);
		for (unsigned i = 0; i < REPORT_UNREACH__COUNT; i++) {
			snprintf(key, sizeof(key), "unreachable_%s",
				 report_unreach_name[i]);
			rpt_jset_u64(probes, key, r->unreachable[i], err);
			unreach += r->unreachable[i];
		}
		rpt_jset_u64(probes, "unreachable", unreach, err);
	}
	rpt_jset_bool(probes, "answers_unusable", answers_unusable(r), err);
	rpt_jset(root, "probes", probes, err);
	if (r->reflector_ee.present) {
		const struct report_error_estimate *e = &r->reflector_ee;
		struct json_object *stamp = json_object_new_object();
		struct json_object *ee = json_object_new_object();

		rpt_jset_u64(ee, "raw", e->raw, err);
		rpt_jset_bool(ee, "synchronized", e->sync, err);
		rpt_jset_str(ee, "timestamp_format", e->ptp ? "ptp" : "ntp",
			     err);
		rpt_jset_u64(ee, "scale", e->scale, err);
		rpt_jset_u64(ee, "multiplier", e->multiplier, err);
		rpt_jset_double(ee, "seconds", e->seconds, err);
		rpt_jset_bool(ee, "valid", e->multiplier != 0, err);
		rpt_jset_u64(ee, "answers", e->answers, err);
		rpt_jset_u64(ee, "changes", e->changes, err);
		rpt_jset(stamp, "reflector_error_estimate", ee, err);
		rpt_jset(root, "stamp", stamp, err);
	}
}
