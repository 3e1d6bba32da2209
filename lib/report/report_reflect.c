/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reflector's report: counters, turnaround, workers, text and JSON.
 */
#include "latprobe/report_internal.h"

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
			fprintf(out, " %5.1f%%", rpt_pct(w->answered, total));
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
		const char *name = rpt_str_or(r->counters[i].name, "?");

		if (strlen(name) > width)
			width = strlen(name);
	}
	rpt_text_meta(out, r->meta, NULL);
	fprintf(out, "Reflector on %s (%s), %.2f s%s:\n",
		rpt_str_or(r->addr, "?"), rpt_str_or(r->backend, "?"),
		r->duration_s, r->interrupted ? ", interrupted" : "");
	/* Only what happened; the JSON keeps every counter. */
	for (i = 0; i < r->n_counters; i++) {
		if (r->counters[i].value == 0)
			continue;
		fprintf(out, "  %-*s %12" PRIu64 "\n", (int)width,
			rpt_str_or(r->counters[i].name, "?"),
			r->counters[i].value);
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
		rpt_text_pct_line(out, "Turnaround (T3-T2)", r->turnaround);
	text_reflect_workers(out, r);
	rpt_text_clock(out, r->clock);
	rpt_text_hw(out, r->hw, "T2");
	rpt_text_reflect_stalls(out, r);
	rpt_text_xstats(out, &r->port);
	rpt_text_path(out, r->port.path);
	rpt_text_port_events(out, r->port.events);
	rpt_text_tsc(out, &r->tsc);
	return rpt_stream_status(out);
}

/* "workers": [{lcore, queue, rx, tx, answered, answered_by, ...}] */
static struct json_object *
json_reflect_workers(const struct report_reflect *r, int *err)
{
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_workers && a != NULL; i++) {
		const struct report_reflect_worker *w = &r->workers[i];
		struct json_object *o = json_object_new_object();

		rpt_jset_int_or_null(o, "lcore", w->lcore, err);
		rpt_jset_int_or_null(o, "queue", w->queue, err);
		rpt_jset_u64(o, "rx", w->rx, err);
		rpt_jset_u64(o, "tx", w->tx, err);
		rpt_jset_u64(o, "answered", w->answered, err);
		rpt_jset(o, "answered_by",
			 rpt_json_counters(w->answered_by, w->n_answered_by,
					   err),
			 err);
		rpt_jset_u64(o, "ignored", w->ignored, err);
		rpt_jset_u64(o, "tx_dropped", w->tx_dropped, err);
		rpt_jset_u64_or_null(o, "queue_rx_packets", w->have_queue_stats,
				     w->queue_rx_packets, err);
		rpt_jset_u64_or_null(o, "queue_rx_errors", w->have_queue_stats,
				     w->queue_rx_errors, err);
		rpt_jadd(a, o, err);
	}
	return a;
}

int
report_reflect_json(const struct report_reflect *r, FILE *out)
{
	struct json_object *root;
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
	rpt_json_meta(root, r->meta, &err);
	rpt_jset_str(root, "backend", r->backend, &err);
	rpt_jset_str(root, "addr", r->addr, &err);
	rpt_jset_double(root, "duration_s", r->duration_s, &err);
	rpt_jset_bool(root, "interrupted", r->interrupted, &err);
	/* Every name was checked above: none is left out. */
	rpt_jset(root, "counters",
		 rpt_json_counters(r->counters, r->n_counters, &err), &err);
	rpt_jset(root, "workers", json_reflect_workers(r, &err), &err);
	rpt_jset_series(root, "turnaround_ns", r->turnaround, &err);
	rpt_json_clock(root, r->clock, &err);
	rpt_json_hw(root, r->hw, &err);
	rpt_json_reflect_stalls(root, r, &err);
	return rpt_json_finish(root, &r->tsc, &r->port, err, out);
}
