/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe reflect while it runs: the live line, the metrics exposition (the
 * reflector's counters and turnaround mapped onto metric names) and --hlog's
 * intervals.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "path_watch.h"
#include "reflect.h"

uint64_t
reflect_sum_counter(const struct reflect_run *r, enum reflector_counter c)
{
	uint64_t s = 0;

	for (unsigned i = 0; i < r->n_workers; i++)
		s += reflector_counter_read(&r->w[i], c);
	return s;
}

/* Live line each second. */
void
reflect_tick(struct app_run *r, double el)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	uint64_t rx = reflect_sum_counter(run, RC_RX);
	uint64_t tx = reflect_sum_counter(run, RC_TX);
	/* Everything received and not answered. */
	uint64_t drop = rx - reflect_sum_counter(run, RC_ARP) -
			reflect_sum_counter(run, RC_ICMP) -
			reflect_sum_counter(run, RC_STAMP) -
			reflect_sum_counter(run, RC_SOCKPERF) -
			reflect_sum_counter(run, RC_ECHO);
	char per[160] = "";
	size_t len = 0;

	/* Several workers: each one's frames that second, up to 8. */
	for (unsigned i = 0; run->n_workers > 1 && i < run->n_workers && i < 8;
	     i++) {
		uint64_t v = reflector_counter_read(&run->w[i], RC_RX);
		int n = snprintf(per + len, sizeof(per) - len, "%s%llu",
				 i == 0 ? "  rx per lcore " : " ",
				 (unsigned long long)(v - x->last_wrx[i]));

		x->last_wrx[i] = v;
		if (n < 0 || (size_t)n >= sizeof(per) - len)
			break;
		len += (size_t)n;
	}
	fprintf(stderr, "%7.1fs  rx %llu tx %llu not answered %llu%s%s\n", el,
		(unsigned long long)(rx - x->last_rx),
		(unsigned long long)(tx - x->last_tx),
		(unsigned long long)(drop - x->last_drop), per,
		run->n_workers > 8 ? " ..." : "");
	x->last_rx = rx;
	x->last_tx = tx;
	x->last_drop = drop;
}

/* --metrics: per worker (lcore and queue labels; as many as -l has). */
static int
reflect_metrics_lcores(struct app_run *r, struct metrics_buf *b)
{
	static const struct {
		const char *name, *help;
		enum reflector_counter c; /* RC__COUNT: every answered.* */
	} fam[] = {
		{"latprobe_reflector_lcore_rx_frames_total",
		 "Frames each reflector lcore received from its queue", RC_RX},
		{"latprobe_reflector_lcore_answered_total",
		 "Requests each reflector lcore answered, every protocol",
		 RC__COUNT},
		{"latprobe_reflector_lcore_tx_dropped_total",
		 "Answers the tx queue of each reflector lcore did not take",
		 RC_DROP_TX},
	};
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;

	for (unsigned k = 0; k < RTE_DIM(fam); k++) {
		metrics_family(b, fam[k].name, "counter", fam[k].help);
		for (unsigned i = 0; i < run->n_workers; i++) {
			const struct reflector_worker *w = &run->w[i];
			char lc[12], qu[12];
			struct metrics_label l[2] = {{"lcore", lc},
						     {"queue", qu}};
			uint64_t v = 0;
			int ret;

			snprintf(lc, sizeof(lc), "%u", r->worker_lcore[i]);
			snprintf(qu, sizeof(qu), "%u", w->q->queue_id);
			if (fam[k].c != RC__COUNT)
				v = reflector_counter_read(w, fam[k].c);
			else
				for (unsigned c = 0; c < RC__COUNT; c++)
					if (strncmp(reflector_counter_name(c),
						    "answered.", 9) == 0)
						v += reflector_counter_read(w,
									    c);
			ret = metrics_counter(b, fam[k].name, l, 2, v);
			if (ret != 0)
				return ret;
		}
	}
	return 0;
}

/*
 * --metrics, from the metrics thread: the workers' counters and turnaround
 * histograms read relaxed (they only grow), merged in this thread's own
 * scratch histograms.
 */
int
reflect_metrics(struct app_run *r, struct metrics_buf *b)
{
	struct reflect_ctx *x = r->ctx;
	struct reflect_run *run = x->run;
	struct metrics_label l[1];

	if (x->mx_snap == NULL) {
		x->mx_snap = histogram_create();
		x->mx_sum = histogram_create();
		if (x->mx_snap == NULL || x->mx_sum == NULL)
			return -ENOMEM;
	}
	app_metrics_preamble(b, "reflect", r->dpdk_ready, r->clk.clock.hz);
	app_link_metrics(b); /* Link state, port events */
	app_path_metrics(b); /* and the path the packets take */
	metrics_family(b, "latprobe_reflector_rx_frames_total", "counter",
		       "Frames the reflector received");
	metrics_counter(b, "latprobe_reflector_rx_frames_total", NULL, 0,
			reflect_sum_counter(run, RC_RX));
	metrics_family(b, "latprobe_reflector_tx_frames_total", "counter",
		       "Frames the reflector sent");
	metrics_counter(b, "latprobe_reflector_tx_frames_total", NULL, 0,
			reflect_sum_counter(run, RC_TX));
	metrics_family(b, "latprobe_reflector_answered_total", "counter",
		       "Requests answered, by protocol");
	for (unsigned c = 0; c < RC__COUNT; c++) {
		const char *n = reflector_counter_name(c);

		if (strncmp(n, "answered.", 9) != 0)
			continue;
		l[0] = (struct metrics_label){"proto", n + 9};
		metrics_counter(b, "latprobe_reflector_answered_total", l, 1,
				reflect_sum_counter(run, c));
	}
	metrics_family(b, "latprobe_reflector_dropped_total", "counter",
		       "Frames not answered, by reason");
	for (unsigned c = 0; c < RC__COUNT; c++) {
		const char *n = reflector_counter_name(c);

		if (strncmp(n, "dropped.", 8) != 0)
			continue;
		l[0] = (struct metrics_label){"reason", n + 8};
		metrics_counter(b, "latprobe_reflector_dropped_total", l, 1,
				reflect_sum_counter(run, c));
	}
	if (x->sock == NULL) {
		int ret = reflect_metrics_lcores(r, b);

		if (ret != 0)
			return ret;
	}
	app_stalls_metrics_reflect(b, run->w, run->n_workers);
	histogram_init(x->mx_sum);
	for (unsigned i = 0; i < run->n_workers; i++) {
		histogram_snapshot(&run->w[i].turnaround, x->mx_snap);
		histogram_merge(x->mx_sum, x->mx_snap);
	}
	metrics_family(b, "latprobe_reflector_turnaround_seconds", "histogram",
		       "STAMP turnaround T3 - T2 inside the reflector");
	return metrics_histogram(b, "latprobe_reflector_turnaround_seconds",
				 NULL, 0, x->mx_sum);
}

static const struct histogram *
reflect_hlog_get(void *ctx, unsigned s, unsigned w)
{
	(void)s;
	return &((struct reflect_run *)ctx)->w[w].turnaround;
}

/* --hlog: Tag=turnaround (T3 - T2 of STAMP answers). */
void
reflect_interval(struct app_run *r, double el, bool final)
{
	static const char *const tags[] = {"turnaround"};
	struct reflect_ctx *x = r->ctx;

	(void) final;
	if (x->hlog.n_workers == 0)
		app_hlog_series(&x->hlog, 1, tags, x->run->n_workers);
	app_hlog_tick(&x->hlog, el, reflect_hlog_get, x->run);
}
