/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe: the command's flow. The hooks of the run skeleton
 * (app/run.c) in one table, and the worker each lcore runs; the hooks
 * themselves live by concern in probe_opts.c (usage, options), probe_targets.c
 * (pinglist, SIGHUP), probe_setup.c (DPDK/kernel set-up, workers),
 * probe_live.c (live line, intervals, metrics) and probe_report.c (start
 * line, final report, JSON and samples).
 */

#include "probe.h"

static int
probe_worker(struct app_run *r, unsigned idx)
{
	struct probe_ctx *x = r->ctx;
	struct probe_run *run = x->run;

	if (!x->o.multi) {
		run->w[idx].lcore = r->dpdk_ready ? r->worker_lcore[idx] : 0;
		if (r->resumed) /* the device came back (link_events.c) */
			return prober_worker_resume(&run->w[idx], &force_quit);
		if (x->o.rate_pps != 0)
			return prober_worker_run_open(&run->w[idx],
						      &force_quit);
		return prober_worker_run(&run->w[idx], &force_quit);
	}
	/* This lcore's targets take turns; a silent one rests 1 s. */
	for (unsigned i = 0; i < run->sets[idx].n; i++)
		run->sets[idx].w[i]->lcore =
			r->dpdk_ready ? r->worker_lcore[idx] : 0;
	run->sets[idx].resume = r->resumed; /* the device came back */
	return prober_set_run(&run->sets[idx],
			      tsc_from_ns(&r->clk.clock, PROBE_REST_NS),
			      &force_quit);
}

static unsigned
probe_stall_dets(struct app_run *r, const struct stall_det **out, unsigned max)
{
	struct probe_ctx *x = r->ctx;
	unsigned n = 0;

	if (x->run == NULL)
		return 0;
	for (unsigned i = 0; i < x->run->n_workers && n < max; i++)
		out[n++] = &x->run->w[i].stall;
	return n;
}

static const struct app_cmd probe_cmd = {
	.name = "probe",
	.usage = probe_usage,
	.short_help = false, /* -h is PsPing's bucket option */
	.ctx_size = sizeof(struct probe_ctx),
	.parse = probe_parse_hook,
	.open_outputs = probe_open_outputs,
	.setup_kernel = probe_setup_kernel,
	.setup_dpdk = probe_setup_dpdk,
	.init_workers = probe_init_workers,
	.start_line = probe_start_line,
	.worker = probe_worker,
	.tick = probe_tick,
	.interval = probe_interval,
	.watch = probe_watch,
	.report = probe_report,
	.teardown = probe_teardown,
	.metrics = probe_metrics,
	.report_interval = probe_report_interval,
	.hup = probe_hup,
	.path_shift = probe_path_shift,
	.port_swap = probe_port_swap,
	.stall_dets = probe_stall_dets,
};

int
cmd_probe(int argc, char **argv)
{
	return app_run(&probe_cmd, argc, argv);
}
