/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Several targets (JSON "targets", the text table worst p99 first) and the
 * workers' source ports.
 */
#include "latprobe/report_internal.h"

struct target_row {
	const struct report_target *t;
	struct report_summary s;
};

/* Worst p99 first, then those with too few round trips for a p99 (they
 * show "-"), those without one last; ties in list order. */
static int
target_row_cmp(const void *a, const void *b)
{
	const struct target_row *x = a, *y = b;

	if ((x->s.count == 0) != (y->s.count == 0))
		return x->s.count == 0 ? 1 : -1;
	if (x->s.pct_ok[2] != y->s.pct_ok[2])
		return x->s.pct_ok[2] ? -1 : 1;
	if (x->s.pct_ok[2] && x->s.pct[2] != y->s.pct[2])
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

int
rpt_text_targets(FILE *out, const struct report_probe *r)
{
	struct target_row *rows;

	if (r->n_targets == 0)
		return 0;
	rows = calloc(r->n_targets, sizeof(*rows));
	if (rows == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n_targets; i++) {
		rows[i].t = &r->targets[i];
		report_summarise(rpt_hist_or_empty(r->targets[i].rtt),
				 &rows[i].s);
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
			t->removed ? '*' : ' ', rpt_str_or(t->target, "?"),
			rpt_str_or(t->proto, "?"),
			t->label != NULL && t->label[0] != '\0' ? t->label
								: "-",
			t->sent, t->received, rpt_pct(t->lost, t->sent),
			rpt_fmt_pct(s, 0).s, rpt_fmt_pct(s, 2).s,
			rpt_fmt_ns_of(s->count, s->max).s);
	}
	free(rows);
	return 0;
}

/* "source_port" (the first worker's) and "source_ports" (every one's). */
void
rpt_json_sports(struct json_object *root, const struct report_probe *r,
		int *err)
{
	struct json_object *a = json_object_new_array();

	rpt_jset_port(root, "source_port", r->n_sports != 0 ? r->sports[0] : 0,
		      err);
	for (unsigned i = 0; a != NULL && i < r->n_sports; i++)
		rpt_jadd(a, json_object_new_uint64(r->sports[i]), err);
	rpt_jset(root, "source_ports", a, err);
}

static struct json_object *
json_targets(const struct report_probe *r, int *err)
{
	/* NULL: the rpt_jadd()s below and the caller's rpt_jset() say so. */
	struct json_object *a = json_object_new_array();

	for (unsigned i = 0; i < r->n_targets; i++) {
		const struct report_target *t = &r->targets[i];
		struct json_object *o = json_object_new_object();
		struct json_object *p = json_object_new_object();

		rpt_jset_str(o, "target", t->target, err);
		rpt_jset_str(o, "proto", t->proto, err);
		rpt_jset_str(o, "label", t->label != NULL ? t->label : "", err);
		rpt_jset_bool(o, "removed", t->removed, err);
		rpt_jset_port(o, "source_port", t->sport, err);
		rpt_jset_u64(p, "sent", t->sent, err);
		rpt_jset_u64(p, "received", t->received, err);
		rpt_jset_u64(p, "lost", t->lost, err);
		rpt_jset(o, "probes", p, err);
		rpt_jset(o, "rtt_ns",
			 rpt_json_summary(rpt_hist_or_empty(t->rtt), err), err);
		rpt_jset_series(o, "network_rtt_ns", t->network_rtt, err);
		rpt_jadd(a, o, err);
	}
	return a;
}

/* JSON "targets", when there are several. */
void
rpt_json_targets(struct json_object *root, const struct report_probe *r,
		 int *err)
{
	if (r->n_targets != 0)
		rpt_jset(root, "targets", json_targets(r, err), err);
}
