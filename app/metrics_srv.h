/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_APP_METRICS_SRV_H
#define LATPROBE_APP_METRICS_SRV_H

/*
 * --metrics ADDR[:PORT]: GET /metrics over HTTP/1.0-1.1, served by
 * libmicrohttpd on a control thread of ours (never a worker lcore). We
 * bind, listen and accept ourselves (MHD_USE_NO_LISTEN_SOCKET +
 * MHD_add_connection) so that the port can be chosen and an accept error
 * backs off; libmicrohttpd parses the requests and answers them, up to
 * METRICS_CONN_MAX connections at once, each closed after
 * METRICS_IDLE_S seconds without a byte and at the latest
 * METRICS_LIFE_MS after it was accepted. Each scrape calls collect(),
 * which reads the workers' counters and histograms with relaxed loads
 * (single-writer rule): the workers never wait for a scrape.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "app.h"
#include "latprobe/metrics.h"

/* Connections served at once; more wait in the listen backlog. */
#define METRICS_CONN_MAX     16
/* A connection that sends or takes nothing for this long is closed. */
#define METRICS_IDLE_S	     2
/* The longest a connection lives: its request, then its answer. */
#define METRICS_LIFE_MS	     4000
/* libmicrohttpd's memory per connection (its request head must fit). */
#define METRICS_CONN_MEMORY  16384
/* Without a port: the first free one from the default up, this many. */
#define METRICS_PORT_TRIES   16
/* The default ports (deploy/prometheus's convention). */
#define METRICS_PORT_REFLECT 9862
#define METRICS_PORT_PROBE   9863

struct MHD_Daemon;

struct app_metrics_conn {
	int fd; /* -1: a free slot */
	struct timespec t0;
	bool cut; /* shut down at METRICS_LIFE_MS; libmicrohttpd closes it */
};

struct app_metrics_srv {
	int fd;	       /* listening socket; -1 when off */
	uint16_t port; /* the port it listens on */
	atomic_bool stop;
	struct app_thread thread; /* the server, off the workers' CPUs */
	struct MHD_Daemon *d;
	int (*collect)(void *arg, struct metrics_buf *b);
	void *arg;
	struct metrics_buf buf;
	/* This thread only: */
	struct app_metrics_conn conn[METRICS_CONN_MAX];
	unsigned n_conn;
	unsigned backoff_ms;	/* after an accept error; 0: none */
	struct timespec resume; /* no accept before this */
	uint64_t scrapes;	/* answered with 200 */
	uint64_t accept_errors; /* EMFILE, ENFILE, ENOBUFS, ... */
};

/* fd = -1: nothing to stop. */
void app_metrics_init(struct app_metrics_srv *s);

/*
 * Bind and listen on addr:port (host order); before anything is sent, so
 * that an address we do not have is a usage error. port 0: the first free
 * port from dflt up (METRICS_PORT_TRIES of them); s->port says which. An
 * explicit port is that one or an error. Exit code (message printed).
 */
int app_metrics_listen(struct app_metrics_srv *s, uint32_t addr, uint16_t port,
		       uint16_t dflt);

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
