/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port's events: link down/up and removal over the run
 * (inside "port"), the probes lost while the link was down (inside
 * "probes"), and an --interval-report interval's marks.
 */
#include <string.h>

#include "latprobe/report_internal.h"

void
rpt_text_port_events(FILE *out, const struct report_port_events *e)
{
	if (e == NULL)
		return;
	if (e->n == 0 && !e->removed) {
		fprintf(out, "Port events: none (link %s, %s)\n",
			e->link_up_at_end ? "up" : "down",
			rpt_str_or(e->detection, "?"));
		return;
	}
	fprintf(out,
		"Port events (%s): link down %" PRIu64 "x, up %" PRIu64
		"x, down %.3f s in all%s\n",
		rpt_str_or(e->detection, "?"), e->downs, e->ups, e->down_s,
		e->link_up_at_end ? "" : ", down at the end");
	for (unsigned i = 0; i < e->n; i++) {
		const struct report_port_event *v = &e->ev[i];

		fprintf(out, "  %10.3f s  %s", v->t_s,
			rpt_str_or(v->kind, "?"));
		if (v->speed_mbps != 0)
			fprintf(out, " (%" PRIu32 " Mb/s)", v->speed_mbps);
		fputc('\n', out);
	}
	if (e->dropped != 0)
		fprintf(out, "  ... %" PRIu64 " more not kept\n", e->dropped);
	if (e->removed && e->attached)
		fprintf(out,
			"Port removed at %.3f s (hot-unplug), released, and "
			"back at %.3f s: the run went on (a gap of %.3f s)\n",
			e->removed_at_s, e->attached_at_s,
			e->attached_at_s - e->removed_at_s);
	else if (e->removed)
		fprintf(out,
			"Port removed at %.3f s: the device was taken away "
			"(hot-unplug); the run stopped there and released "
			"it\n",
			e->removed_at_s);
}

void
rpt_json_port_events(struct json_object *port,
		     const struct report_port_events *e, int *err)
{
	struct json_object *a;

	if (e == NULL)
		return;
	a = json_object_new_array();
	for (unsigned i = 0; a != NULL && i < e->n; i++) {
		const struct report_port_event *v = &e->ev[i];
		struct json_object *o = json_object_new_object();

		rpt_jset_double(o, "t_s", v->t_s, err);
		rpt_jset_str(o, "event", v->kind, err);
		rpt_jset_u64_or_null(o, "speed_mbps", v->speed_mbps != 0,
				     v->speed_mbps, err);
		rpt_jadd(a, o, err);
	}
	rpt_jset(port, "link_events", a, err);
	rpt_jset_u64(port, "link_events_dropped", e->dropped, err);
	rpt_jset_u64(port, "link_downs", e->downs, err);
	rpt_jset_double(port, "link_down_s", e->down_s, err);
	rpt_jset_bool(port, "link_up_at_end", e->link_up_at_end, err);
	rpt_jset_str(port, "link_detection", e->detection, err);
	if (e->removed)
		rpt_jset_double(port, "removed_at_s", e->removed_at_s, err);
	else
		rpt_jset_null(port, "removed_at_s", err);
	if (e->attached)
		rpt_jset_double(port, "attached_at_s", e->attached_at_s, err);
	else
		rpt_jset_null(port, "attached_at_s", err);
}

void
rpt_text_link_loss(FILE *out, const struct report_probe *r)
{
	if (r->port.events == NULL || r->lost_link_down == 0)
		return;
	fprintf(out,
		"  Lost while the link was down: %" PRIu64 " of the %" PRIu64
		" lost (path loss: %" PRIu64 ")\n",
		r->lost_link_down, r->lost,
		r->lost >= r->lost_link_down ? r->lost - r->lost_link_down : 0);
}

void
rpt_json_link_loss(struct json_object *probes, const struct report_probe *r,
		   int *err)
{
	if (r->port.events == NULL)
		return;
	rpt_jset_u64(probes, "lost_link_down", r->lost_link_down, err);
	rpt_jset_u64(probes, "lost_path",
		     r->lost >= r->lost_link_down ? r->lost - r->lost_link_down
						  : 0,
		     err);
}

static bool
iv_marked(const struct report_interval *iv)
{
	return iv->link_downs != 0 || iv->link_ups != 0 ||
	       iv->link_down_s > 0 || iv->link_down_at_end || iv->removed ||
	       iv->attached;
}

/* Off the VF, or shifted in it. */
static bool
iv_path_marked(const struct report_interval *iv)
{
	return iv->path != NULL &&
	       (iv->path_shifts != 0 || strcmp(iv->path, "synthetic") == 0);
}

int
rpt_iv_link_mark(char *buf, size_t cap, const struct report_interval *iv)
{
	bool link = iv->link_downs != 0 || iv->link_ups != 0 ||
		    iv->link_down_s > 0 || iv->link_down_at_end;
	int n = 0, k;

	if (link) {
		n = snprintf(buf, cap, "  LINK%s%s down %.3fs%s",
			     iv->link_downs != 0 ? " went-down" : "",
			     iv->link_ups != 0 ? " came-up" : "",
			     iv->link_down_s,
			     iv->link_down_at_end ? " (still down)" : "");
		if (n < 0)
			return 0;
	}
	if (iv->removed || iv->attached) {
		k = snprintf((size_t)n < cap ? buf + n : NULL,
			     (size_t)n < cap ? cap - (size_t)n : 0, "%s%s",
			     iv->removed ? "  DEVICE AWAY" : "",
			     iv->attached ? "  device back" : "");
		n += k > 0 ? k : 0;
	}
	if (iv_path_marked(iv)) {
		if (iv->path_shifts != 0)
			k = snprintf((size_t)n < cap ? buf + n : NULL,
				     (size_t)n < cap ? cap - (size_t)n : 0,
				     "  PATH %s -> %s%s",
				     iv->path_from != NULL ? iv->path_from
							   : "?",
				     iv->path,
				     iv->path_shifts > 1 ? " (and back)" : "");
		else
			k = snprintf((size_t)n < cap ? buf + n : NULL,
				     (size_t)n < cap ? cap - (size_t)n : 0,
				     "  PATH %s", iv->path);
		n += k > 0 ? k : 0;
	}
	return n;
}

void
rpt_json_iv_link(struct json_object *o, const struct report_interval *iv,
		 int *err)
{
	struct json_object *l;

	if (!iv_marked(iv))
		return;
	l = json_object_new_object();
	rpt_jset_u64(l, "downs", iv->link_downs, err);
	rpt_jset_u64(l, "ups", iv->link_ups, err);
	rpt_jset_double(l, "down_s", iv->link_down_s, err);
	rpt_jset_bool(l, "down_at_end", iv->link_down_at_end, err);
	rpt_jset_bool(l, "removed", iv->removed, err);
	rpt_jset_bool(l, "attached", iv->attached, err);
	rpt_jset(o, "link", l, err);
}

void
rpt_json_iv_path(struct json_object *o, const struct report_interval *iv,
		 int *err)
{
	struct json_object *p;

	if (!iv_path_marked(iv))
		return;
	p = json_object_new_object();
	rpt_jset_str(p, "now", iv->path, err);
	rpt_jset_u64(p, "shifts", iv->path_shifts, err);
	rpt_jset(o, "path", p, err);
}
