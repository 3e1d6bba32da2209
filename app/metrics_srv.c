/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <rte_lcore.h>
#include <rte_version.h>

#include "app.h"
#include "cli.h"
#include "metrics_srv.h"

/* Per connection: to send the request, then to take the answer. */
#define IO_TIMEOUT_MS 2000
/* How soon a stop is seen. */
#define STOP_POLL_MS  200

void
app_metrics_init(struct app_metrics_srv *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	metrics_buf_init(&s->buf);
}

int
app_metrics_listen(struct app_metrics_srv *s, uint32_t addr, uint16_t port)
{
	struct sockaddr_in sa;
	char ip[16];
	int one = 1, err;

	cli_format_ipv4(addr, ip);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (s->fd < 0) {
		app_err("--metrics: socket: %s", strerror(errno));
		return EXIT_SETUP;
	}
	(void)setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons(port);
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(s->fd, 8) != 0) {
		err = errno;
		close(s->fd);
		s->fd = -1;
		app_err("--metrics %s:%u: cannot listen there: %s%s", ip, port,
			strerror(err),
			err == EADDRNOTAVAIL ? " (not an address of this host)"
			: err == EADDRINUSE  ? " (another process has it)"
					     : "");
		return err == EADDRINUSE ? EXIT_SETUP : EXIT_USAGE;
	}
	return EXIT_OK;
}

static int64_t
ms_left(const struct timespec *t0, int budget_ms)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return budget_ms - ((int64_t)(t1.tv_sec - t0->tv_sec) * 1000 +
			    (int64_t)(t1.tv_nsec - t0->tv_nsec) / 1000000);
}

/* All of buf within the deadline; false if the peer is too slow or gone. */
static bool
send_all(struct app_metrics_srv *s, int fd, const char *buf, size_t len)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		int64_t left;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return false;
		left = ms_left(&t0, IO_TIMEOUT_MS);
		if (left <= 0 ||
		    atomic_load_explicit(&s->stop, memory_order_relaxed))
			return false;
		(void)poll(&p, 1,
			   (int)(left < STOP_POLL_MS ? left : STOP_POLL_MS));
	}
	return true;
}

static void
serve(struct app_metrics_srv *s, int fd)
{
	char req_buf[METRICS_HTTP_MAX_REQUEST];
	char head[512];
	const char *body;
	size_t got = 0, body_len;
	struct metrics_http_req req;
	struct timespec t0;
	int ret = -EAGAIN, hn;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (ret == -EAGAIN) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		int64_t left = ms_left(&t0, IO_TIMEOUT_MS);
		ssize_t n;

		if (left <= 0 ||
		    atomic_load_explicit(&s->stop, memory_order_relaxed))
			return; /* too slow: just close */
		if (poll(&p, 1,
			 (int)(left < STOP_POLL_MS ? left : STOP_POLL_MS)) <= 0)
			continue;
		n = recv(fd, req_buf + got, sizeof(req_buf) - got,
			 MSG_DONTWAIT);
		if (n == 0)
			return;
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			return;
		}
		got += (size_t)n;
		ret = metrics_http_parse(req_buf, got, &req);
	}
	if (req.status == METRICS_HTTP_OK) {
		metrics_buf_reset(&s->buf);
		if (s->collect(s->arg, &s->buf) != 0 || s->buf.err != 0) {
			/* Out of memory: say so rather than half a page. */
			body = "latprobe: cannot build the metrics\n";
			body_len = strlen(body);
			req.status = METRICS_HTTP_BAD_REQUEST;
		} else {
			body = s->buf.p;
			body_len = s->buf.len;
			s->scrapes++;
		}
	} else {
		body = req.status == METRICS_HTTP_NOT_FOUND
			       ? "not found: latprobe serves GET /metrics\n"
			       : "bad request\n";
		body_len = strlen(body);
	}
	hn = metrics_http_head(head, sizeof(head), req.status, body_len);
	if (hn < 0)
		return;
	if (!send_all(s, fd, head, (size_t)hn) || req.head)
		return;
	(void)send_all(s, fd, body, body_len);
}

static void
srv_loop(struct app_metrics_srv *s)
{
	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct pollfd p = {.fd = s->fd, .events = POLLIN};
		int fd;

		if (poll(&p, 1, STOP_POLL_MS) <= 0)
			continue;
		fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0)
			continue;
		serve(s, fd);
		/* Closing the connection tells the client the body ended. */
		(void)shutdown(fd, SHUT_WR);
		close(fd);
	}
}

static void *
srv_pthread(void *arg)
{
	srv_loop(arg);
	return NULL;
}

int
app_metrics_start(struct app_metrics_srv *s, bool dpdk,
		  int (*collect)(void *arg, struct metrics_buf *b), void *arg)
{
	if (s->fd < 0)
		return 0;
	s->collect = collect;
	s->arg = arg;
	return app_thread_start(&s->thread, "lp-metrics", dpdk, srv_pthread, s);
}

int
app_metrics_preamble(struct metrics_buf *b, const char *command, bool dpdk,
		     uint64_t tsc_hz)
{
	const struct metrics_label l[] = {
		{"version", LATPROBE_VERSION},
		{"dpdk", rte_version()},
		{"backend", dpdk ? "dpdk" : "kernel"},
		{"command", command},
	};

	metrics_family(b, "latprobe_build_info", "gauge",
		       "latprobe's version, the DPDK it runs on, its backend "
		       "and subcommand (always 1)");
	metrics_gauge(b, "latprobe_build_info", l, 4, 1);
	metrics_family(b, "latprobe_tsc_hertz", "gauge",
		       "TSC rate latprobe measured and converts cycles with");
	return metrics_gauge(b, "latprobe_tsc_hertz", NULL, 0, (double)tsc_hz);
}

void
app_metrics_stop(struct app_metrics_srv *s)
{
	atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	app_thread_join(&s->thread);
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	metrics_buf_fini(&s->buf);
}
