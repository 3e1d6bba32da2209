/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_METRICS_SRV_H
#define LATPROBE_APP_METRICS_SRV_H

/*
 * --metrics ADDR:PORT: a minimal HTTP/1.0-1.1 server of GET /metrics on a
 * control thread (never a worker lcore): one connection at a time, a
 * bounded request (METRICS_HTTP_MAX_REQUEST), 2 s to send it and 2 s to
 * take the answer, 404 for any other path. Each scrape calls collect(),
 * which reads the workers' counters and histograms with relaxed loads
 * (single-writer rule): the workers never wait for a scrape.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "app.h"
#include "latprobe/metrics.h"

struct app_metrics_srv {
	int fd; /* listening socket; -1 when off */
	atomic_bool stop;
	struct app_thread thread; /* the server, off the workers' CPUs */
	int (*collect)(void *arg, struct metrics_buf *b);
	void *arg;
	struct metrics_buf buf;
	uint64_t scrapes; /* answered with 200; this thread only */
};

/* fd = -1: nothing to stop. */
void app_metrics_init(struct app_metrics_srv *s);

/*
 * Bind and listen on addr:port (host order); before anything is sent, so
 * that an address we do not have is a usage error. Exit code (message
 * printed).
 */
int app_metrics_listen(struct app_metrics_srv *s, uint32_t addr, uint16_t port);

/*
 * Serve from a control thread: an EAL one when dpdk (off the lcores'
 * CPUs), else a pthread. 0 or -errno.
 */
int app_metrics_start(struct app_metrics_srv *s, bool dpdk,
		      int (*collect)(void *arg, struct metrics_buf *b),
		      void *arg);

/* Stop the thread (within 200 ms), close the socket. Idempotent. */
void app_metrics_stop(struct app_metrics_srv *s);

/*
 * What every exposition starts with: latprobe_build_info{version, dpdk,
 * backend, command} 1 and latprobe_tsc_hertz (our calibrated rate).
 */
int app_metrics_preamble(struct metrics_buf *b, const char *command, bool dpdk,
			 uint64_t tsc_hz);

#endif /* LATPROBE_APP_METRICS_SRV_H */
