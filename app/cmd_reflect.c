/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe reflect: the command's flow. The hooks of the run skeleton
 * (app/run.c) in one table, and the worker each lcore runs; the hooks live by
 * concern in reflect_opts.c (usage, options), reflect_setup.c (DPDK/kernel
 * set-up, workers), reflect_live.c (live line, metrics, --hlog) and
 * reflect_report.c (start line, final report).
 */

#include "reflect.h"

static int
reflect_worker(struct app_run *r, unsigned idx)
{
	struct reflect_ctx *x = r->ctx;

	reflector_run(&x->run->w[idx], &force_quit);
	return 0;
}

static unsigned
reflect_stall_dets(struct app_run *r, const struct stall_det **out,
		   unsigned max)
{
	struct reflect_ctx *x = r->ctx;
	unsigned n = 0;

	if (x->run == NULL)
		return 0;
	for (unsigned i = 0; i < x->run->n_workers && n < max; i++)
		out[n++] = &x->run->w[i].stall;
	return n;
}

static const struct app_cmd reflect_cmd = {
	.name = "reflect",
	.usage = reflect_usage,
	.short_help = true,
	.ctx_size = sizeof(struct reflect_ctx),
	.parse = reflect_parse_hook,
	.open_outputs = reflect_open_outputs,
	.setup_kernel = reflect_setup_kernel,
	.setup_dpdk = reflect_setup_dpdk,
	.init_workers = reflect_init_workers,
	.start_line = reflect_start_line,
	.worker = reflect_worker,
	.tick = reflect_tick,
	.interval = reflect_interval,
	.report = reflect_report,
	.teardown = reflect_teardown,
	.metrics = reflect_metrics,
	.port_swap = reflect_port_swap,
	.stall_dets = reflect_stall_dets,
};

int
cmd_reflect(int argc, char **argv)
{
	return app_run(&reflect_cmd, argc, argv);
}
