/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include <rte_version.h>

#include "app.h"
#include "cli.h"
#include "metrics_srv.h"
#include "link_events.h"

/* How soon a stop is seen. */
#define STOP_POLL_MS   200
/* After an accept error, the first wait; doubled up to the last. */
#define BACKOFF_MIN_MS 10
#define BACKOFF_MAX_MS 1000

void
app_metrics_init(struct app_metrics_srv *s)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	for (unsigned i = 0; i < METRICS_CONN_MAX; i++)
		s->conn[i].fd = -1;
	metrics_buf_init(&s->buf);
}

static int
listen_at(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sa;
	int one = 1, fd, err;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(addr);
	sa.sin_port = htons(port);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
	    listen(fd, 64) != 0) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

int
app_metrics_listen(struct app_metrics_srv *s, uint32_t addr, uint16_t port,
		   uint16_t dflt)
{
	char ip[16];
	unsigned p = port != 0 ? port : dflt;
	int fd = -EADDRINUSE;

	cli_format_ipv4(addr, ip);
	for (unsigned k = 0; k < (port != 0 ? 1u : METRICS_PORT_TRIES) &&
			     p + k <= 65535 && fd == -EADDRINUSE;
	     k++) {
		fd = listen_at(addr, (uint16_t)(p + k));
		if (fd >= 0)
			s->port = (uint16_t)(p + k);
	}
	if (fd < 0) {
		int err = -fd;

		if (port == 0 && err == EADDRINUSE)
			app_err("--metrics %s: ports %u to %u are all taken "
				"(--metrics %s:PORT picks another)",
				ip, dflt, dflt + METRICS_PORT_TRIES - 1, ip);
		else
			app_err("--metrics %s:%u: cannot listen there: %s%s",
				ip, p, strerror(err),
				err == EADDRNOTAVAIL
					? " (not an address of this host)"
				: err == EADDRINUSE
					? " (another process has it)"
					: "");
		return err == EADDRINUSE || err == EMFILE || err == ENFILE ||
				       err == ENOBUFS || err == ENOMEM
			       ? EXIT_SETUP
			       : EXIT_USAGE;
	}
	s->fd = fd;
	return EXIT_OK;
}

static int64_t
ms_since(const struct timespec *t0, const struct timespec *t1)
{
	return (int64_t)(t1->tv_sec - t0->tv_sec) * 1000 +
	       (int64_t)(t1->tv_nsec - t0->tv_nsec) / 1000000;
}

static enum MHD_Result
answer(struct MHD_Connection *c, unsigned status, const char *body, size_t len,
       bool ok)
{
	/* MUST_COPY only reads it; the API takes a void *. */
	union {
		const char *c;
		void *v;
	} data = {.c = body};
	struct MHD_Response *resp;
	enum MHD_Result ret;

	resp = MHD_create_response_from_buffer(len, data.v,
					       MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO; /* out of memory: close the connection */
	/* One request per connection, as before: a slot never idles. */
	if (MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION,
				    "close") != MHD_YES ||
	    MHD_add_response_header(
		    resp, MHD_HTTP_HEADER_CONTENT_TYPE,
		    ok ? "text/plain; version=0.0.4; charset=utf-8"
		       : "text/plain; charset=utf-8") != MHD_YES ||
	    (status == METRICS_HTTP_BAD_METHOD &&
	     MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW,
				     "GET, HEAD") != MHD_YES)) {
		MHD_destroy_response(resp);
		return MHD_NO;
	}
	ret = MHD_queue_response(c, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* libmicrohttpd's handler: once the request's head is in. */
static enum MHD_Result
on_request(void *cls, struct MHD_Connection *c, const char *url,
	   const char *method, const char *version, const char *upload_data,
	   size_t *upload_data_size, void **con_cls)
{
	struct app_metrics_srv *s = cls;
	bool body = metrics_http_has_body(
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_CONTENT_LENGTH),
		MHD_lookup_connection_value(c, MHD_HEADER_KIND,
					    MHD_HTTP_HEADER_TRANSFER_ENCODING));
	enum metrics_http_status st = metrics_http_route(method, url, body);
	const char *msg;

	(void)version;
	(void)upload_data;
	(void)upload_data_size;
	(void)con_cls;
	if (st == METRICS_HTTP_OK) {
		metrics_buf_reset(&s->buf);
		if (s->collect(s->arg, &s->buf) != 0 || s->buf.err != 0) {
			/* Out of memory: say so rather than half a page. */
			msg = "latprobe: cannot build the metrics\n";
			return answer(c, MHD_HTTP_INTERNAL_SERVER_ERROR, msg,
				      strlen(msg), false);
		}
		s->scrapes++;
		/* HEAD: libmicrohttpd sends the head only, with this length. */
		return answer(c, MHD_HTTP_OK, s->buf.p, s->buf.len, true);
	}
	msg = st == METRICS_HTTP_NOT_FOUND
		      ? "not found: latprobe serves GET /metrics\n"
	      : st == METRICS_HTTP_BAD_METHOD ? "method not allowed\n"
					      : "bad request\n";
	return answer(c, st, msg, strlen(msg), false);
}

/* Which connections are open, for METRICS_LIFE_MS. */
static void
on_conn(void *cls, struct MHD_Connection *c, void **socket_context,
	enum MHD_ConnectionNotificationCode toe)
{
	struct app_metrics_srv *s = cls;
	struct app_metrics_conn *k = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
			c, MHD_CONNECTION_INFO_CONNECTION_FD);

		for (unsigned i = 0; i < METRICS_CONN_MAX && k == NULL; i++)
			if (s->conn[i].fd < 0)
				k = &s->conn[i];
		if (k == NULL || ci == NULL)
			return; /* cannot happen: MHD has the same limit */
		k->fd = ci->connect_fd;
		k->cut = false;
		clock_gettime(CLOCK_MONOTONIC, &k->t0);
		*socket_context = k;
		s->n_conn++;
	} else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && k != NULL) {
		k->fd = -1;
		*socket_context = NULL;
		s->n_conn--;
	}
}

/*
 * Accept what waits, up to the connection limit. An error such as EMFILE
 * leaves the connection queued: look again BACKOFF_MIN_MS later, twice as
 * late each time it fails again (up to BACKOFF_MAX_MS), instead of
 * polling a listening socket that stays readable.
 */
static void
srv_accept(struct app_metrics_srv *s, const struct timespec *now)
{
	while (s->n_conn < METRICS_CONN_MAX) {
		struct sockaddr_in sa;
		socklen_t sl = sizeof(sa);
		int fd = accept4(s->fd, (struct sockaddr *)&sa, &sl,
				 SOCK_CLOEXEC | SOCK_NONBLOCK);
		int64_t ns;

		if (fd >= 0) {
			s->backoff_ms = 0;
			/* It closes fd itself when it cannot take it. */
			(void)MHD_add_connection(s->d, fd,
						 (struct sockaddr *)&sa, sl);
			continue;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return;
		if (s->backoff_ms == 0)
			app_warn("--metrics: accept: %s; trying again in up "
				 "to %d ms steps",
				 strerror(errno), BACKOFF_MAX_MS);
		s->accept_errors++;
		s->backoff_ms = s->backoff_ms == 0 ? BACKOFF_MIN_MS
				: s->backoff_ms * 2 > BACKOFF_MAX_MS
					? BACKOFF_MAX_MS
					: s->backoff_ms * 2;
		ns = now->tv_nsec + (int64_t)s->backoff_ms * 1000000;
		s->resume.tv_sec = now->tv_sec + ns / 1000000000;
		s->resume.tv_nsec = ns % 1000000000;
		return;
	}
}

/* Shut down the connections older than METRICS_LIFE_MS (a client that
 * trickles its request a byte at a time is never idle). */
static void
srv_cut(struct app_metrics_srv *s, const struct timespec *now)
{
	for (unsigned i = 0; i < METRICS_CONN_MAX; i++) {
		struct app_metrics_conn *k = &s->conn[i];

		if (k->fd >= 0 && !k->cut &&
		    ms_since(&k->t0, now) >= METRICS_LIFE_MS) {
			(void)shutdown(k->fd, SHUT_RDWR);
			k->cut = true;
		}
	}
}

static void
srv_loop(struct app_metrics_srv *s)
{
	const union MHD_DaemonInfo *di =
		MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	int efd = di != NULL ? di->epoll_fd : -1;

	while (!atomic_load_explicit(&s->stop, memory_order_relaxed)) {
		struct pollfd p[2] = {{.fd = efd, .events = POLLIN},
				      {.fd = s->fd, .events = POLLIN}};
		MHD_UNSIGNED_LONG_LONG mhd_ms;
		struct timespec now;
		int64_t wait = STOP_POLL_MS, left;
		nfds_t np = 1;

		clock_gettime(CLOCK_MONOTONIC, &now);
		left = ms_since(&now, &s->resume);
		if (s->n_conn < METRICS_CONN_MAX && left <= 0)
			np = 2;
		else if (left > 0 && left < wait)
			wait = left;
		if (MHD_get_timeout(s->d, &mhd_ms) == MHD_YES &&
		    mhd_ms < (MHD_UNSIGNED_LONG_LONG)wait)
			wait = (int64_t)mhd_ms;
		/* The next METRICS_LIFE_MS cut comes within a poll or two. */
		(void)poll(p, np, (int)wait);
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (np == 2 && (p[1].revents & POLLIN) != 0)
			srv_accept(s, &now);
		srv_cut(s, &now);
		(void)MHD_run(s->d);
	}
}

static void *
srv_pthread(void *arg)
{
	/* The kernel backend's pthread too (ps, top, the tests find it). */
	(void)pthread_setname_np(pthread_self(), "lp-metrics");
	srv_loop(arg);
	return NULL;
}

int
app_metrics_start(struct app_metrics_srv *s, bool dpdk,
		  int (*collect)(void *arg, struct metrics_buf *b), void *arg)
{
	int ret;

	if (s->fd < 0)
		return 0;
	s->collect = collect;
	s->arg = arg;
	/*
	 * No thread of libmicrohttpd's own (it would inherit this thread's
	 * CPUs, a worker lcore's with DPDK): ours runs its event loop.
	 */
	s->d = MHD_start_daemon(
		MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET, 0, NULL, NULL,
		on_request, s, MHD_OPTION_CONNECTION_LIMIT,
		(unsigned)METRICS_CONN_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
		(unsigned)METRICS_IDLE_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
		(size_t)METRICS_CONN_MEMORY, MHD_OPTION_NOTIFY_CONNECTION,
		on_conn, s, MHD_OPTION_END);
	if (s->d == NULL)
		return -ENOMEM;
	ret = app_thread_start(&s->thread, "lp-metrics", dpdk, srv_pthread, s);
	if (ret != 0) {
		MHD_stop_daemon(s->d);
		s->d = NULL;
	}
	return ret;
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
	metrics_gauge(b, "latprobe_tsc_hertz", NULL, 0, (double)tsc_hz);
	app_link_metrics(b); /* issue 27: link state, port events */
	return b->err;
}

void
app_metrics_stop(struct app_metrics_srv *s)
{
	atomic_store_explicit(&s->stop, true, memory_order_relaxed);
	app_thread_join(&s->thread);
	if (s->d != NULL)
		MHD_stop_daemon(s->d); /* closes its connections */
	s->d = NULL;
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	metrics_buf_fini(&s->buf);
}
