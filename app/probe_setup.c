/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe's set-up: the output files, the DPDK or kernel backend for
 * one target or many (ARP, capture, sockets), the workers' configuration and
 * their initialisation, and the teardown that undoes it all.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "latprobe/port.h"
#include "latprobe/sockperf.h"
#include "latprobe/stamp.h"
#include "probe.h"

static void
conf_common(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct prober_conf *c = &x->conf;

	c->proto = o->proto;
	if (o->target.family == 6) {
		c->flow.ip_version = 6;
		memcpy(c->flow.src6, o->co.addr6.a, 16);
		memcpy(c->flow.dst6, o->target.a, 16);
	} else {
		c->flow.ip_version = 4;
		c->flow.src4 = o->co.addr;
		c->flow.dst4 = codec_ip_v4(&o->target);
	}
	c->flow.sport = o->sport;
	c->flow.dport = o->dport;
	c->flow.ttl = 64;
	c->flow.vlan = o->vlan != 0;
	c->flow.vlan_tci = o->vlan;
	c->size = (unsigned)o->size;
	c->warmup = o->warmup;
	c->clock = r->clk.clock;
	c->anchor = r->clk.anchor;
	c->interval_cycles = tsc_from_ns(&r->clk.clock, o->interval_ns);
	c->timeout_cycles = tsc_from_ns(&r->clk.clock, o->timeout_ns);
	c->duration_cycles = tsc_from_ns(&r->clk.clock, o->co.duration_ns);
	c->keep_samples = o->samples != NULL;
	/* 16 M samples (640 MiB) per run at most; past that they are counted.
	 */
	c->max_samples = 16u * 1024 * 1024 / r->n_workers;
	c->icmp_id = (uint16_t)(getpid() & 0xff00);
	c->tcp_isn_base = (uint32_t)(tsc_read() * 2654435761u);
	c->auth_key = o->co.auth_key;
	c->auth_key_len = o->co.auth_key_len;
	/* NIC clock: two reads 10 ms apart to start, then one a second. */
	c->hw_ts = o->co.hw_timestamps;
	c->hw_calib_cycles = tsc_from_ns(&r->clk.clock, 10000000ull);
	c->hw_resample_cycles = tsc_from_ns(&r->clk.clock, 1000000000ull);
	c->rate_pps = o->rate_pps;
	c->spacing = o->spacing;
	c->seed = o->seed;
	c->behind_bound_cycles = tsc_from_ns(&r->clk.clock, o->max_behind_ns);
	c->link = app_link_io(); /* NULL on the kernel backend */
	c->stall_threshold_ns = o->co.stall_threshold_ns;
	c->stall_calib_ns = STALL_CALIB_NS;
	c->stall_tlv = o->co.stall_tlv;
	cli_format_ip(&o->target, x->ip);
}

int
probe_open_outputs(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	int ret;

	ret = app_out_open(&x->json, "--json", x->o.co.json);
	if (ret == EXIT_OK)
		ret = app_out_open(&x->samples, "--samples", x->o.samples);
	if (ret == EXIT_OK)
		ret = app_hlog_open(&x->hlog, x->o.co.hlog);
	if (ret == EXIT_OK && x->o.pcap != NULL) {
		x->pcap_fd =
			open(x->o.pcap,
			     O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (x->pcap_fd < 0) {
			app_err("--pcap %s: cannot write it: %s", x->o.pcap,
				strerror(errno));
			ret = EXIT_USAGE;
		}
	}
	return ret;
}

/* Several targets: each its own ARP resolution (or --peer-mac). */
static int
probe_setup_dpdk_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	unsigned ok = 0;

	conf_common(r);
	memcpy(x->conf.flow.src_mac.b, r->port.mac.addr_bytes, 6);
	for (unsigned i = 0; i < o->n_tg; i++) {
		struct probe_target *t = &o->tg[i];
		int ret;

		if (o->have_peer_mac) {
			t->mac = o->peer_mac;
			ok++;
			continue;
		}
		if (app_quit()) {
			t->skip = true;
			continue;
		}
		ret = prober_arp_resolve_vlan(
			&r->port.q[0], &x->conf.flow.src_mac, o->co.addr,
			o->vlan, t->addr,
			(unsigned)(o->arp_timeout_ns / 1000000), &r->clk.clock,
			&t->mac, &force_quit);
		if (ret != 0) {
			t->skip = true;
			if (ret != -EINTR)
				app_warn("no ARP answer from %s within %.1fs: "
					 "not probed",
					 t->name,
					 (double)o->arp_timeout_ns / 1e9);
			continue;
		}
		ok++;
	}
	if (ok == 0 && !app_quit()) {
		app_err("no target answered ARP (is a reflector running? "
			"--peer-mac skips ARP)");
		return EXIT_UNREACHABLE;
	}
	for (unsigned i = 0; i < o->n_tg; i++) {
		if (!o->tg[i].skip) {
			x->peer = o->tg[i].mac;
			break;
		}
	}
	return EXIT_OK;
}

/* How many ports above the first free candidate a kernel socket tries. */
#define PROBE_SPORT_TRIES 1024u

/* Can a UDP socket bind this port on our address now (a cheap look)? */
static bool
udp_port_free(const struct probe_opts *o, int family, uint16_t port)
{
	int fd = socket(family == 6 ? AF_INET6 : AF_INET,
			SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0)
		return true; /* let the real open say why */
	if (family == 6) {
		struct sockaddr_in6 sa = {.sin6_family = AF_INET6,
					  .sin6_port = htons(port)};
		int one = 1;

		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one,
				 sizeof(one));
		if (o->co.addr6.family == 6)
			memcpy(sa.sin6_addr.s6_addr, o->co.addr6.a, 16);
		ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	} else {
		struct sockaddr_in sa = {.sin_family = AF_INET,
					 .sin_port = htons(port)};

		if (o->co.have_addr)
			sa.sin_addr.s_addr = htonl(o->co.addr);
		ret = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	}
	close(fd);
	return ret == 0 || errno != EADDRINUSE;
}

static struct sockio *
kernel_sock_at(const struct probe_opts *o, const struct codec_ip *dst,
	       uint16_t dport, uint16_t sport, struct codec_mac *mac,
	       const struct sockio_opts *so)
{
	if (dst->family == 6)
		return sockio_open_prober6(
			o->co.addr6.family == 6 ? o->co.addr6.a : NULL, sport,
			dst->a, dport, mac, so);
	return sockio_open_prober(o->co.have_addr ? o->co.addr : 0, sport,
				  codec_ip_v4(dst), dport, mac, so);
}

/*
 * A kernel prober socket to dst:dport from port `from`: with --sport that
 * port or NULL (errno EADDRINUSE when another socket has it); without, the
 * first free port from `from` up (the same ports again on a host in the
 * same state, so a run is repeatable), and when PROBE_SPORT_TRIES of them
 * are all taken, one the kernel picks. NULL with errno.
 */
struct sockio *
probe_kernel_sock_open(const struct probe_opts *o, const struct codec_ip *dst,
		       uint16_t dport, uint16_t from, struct codec_mac *mac,
		       const struct sockio_opts *so)
{
	struct sockio *s;

	if (o->have_sport)
		return kernel_sock_at(o, dst, dport, from, mac, so);
	for (unsigned p = from; p <= 65535 && p < from + PROBE_SPORT_TRIES;
	     p++) {
		if (!udp_port_free(o, dst->family, (uint16_t)p))
			continue;
		s = kernel_sock_at(o, dst, dport, (uint16_t)p, mac, so);
		/* EADDRINUSE: taken since the look; try the next. */
		if (s != NULL || errno != EADDRINUSE)
			return s;
	}
	return kernel_sock_at(o, dst, dport, 0, mac, so);
}

/* Several targets on the kernel backend: one connected socket each. */
static int
probe_setup_kernel_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct sockio_opts so;

	sockio_opts_default(&so);
	so.so_busy_poll_us = o->co.busy_poll_us;
	conf_common(r);
	for (unsigned i = 0, next = o->sport; i < o->n_tg; i++) {
		struct probe_target *t = &o->tg[i];
		struct codec_ip dst = codec_ip_from_v4(t->addr);
		/* --sport N: N + i; else each the first free after the
		 * previous target's. */
		uint16_t sport =
			(uint16_t)(o->have_sport ? o->sport + i : next);

		t->sock = probe_kernel_sock_open(o, &dst, t->dport, sport,
						 &t->mac, &so);
		if (t->sock != NULL && sockio_local_port(t->sock, 0) < 65535)
			next = sockio_local_port(t->sock, 0) + 1u;
		if (t->sock == NULL) {
			int err = errno;

			app_err("kernel UDP socket :%u -> %s: %s%s", sport,
				t->name, strerror(err),
				err == EADDRINUSE
					? " (the source port is in use: "
					  "--sport N picks another range)"
					: "");
			return err == EINVAL ? EXIT_USAGE : EXIT_SETUP;
		}
	}
	x->conf.flow.src4 = sockio_local_addr(o->tg[0].sock, 0);
	return EXIT_OK;
}

/* Peer MAC, capture. Returns an exit code. */
int
probe_setup_dpdk(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	char err[256];
	int ret;

	if (o->multi)
		return probe_setup_dpdk_multi(r);

	conf_common(r);
	memcpy(x->conf.flow.src_mac.b, r->port.mac.addr_bytes, 6);

	if (o->loopback) {
		/* The reflector shares our port: our own MAC is the peer's. */
		x->peer = x->conf.flow.src_mac;
	} else if (o->have_peer_mac) {
		x->peer = o->peer_mac;
	} else if (o->target.family == 6) {
		ret = prober_nd_resolve(&r->port.q[0], &x->conf.flow.src_mac,
					o->co.addr6.a, o->vlan, o->target.a,
					(unsigned)(o->arp_timeout_ns / 1000000),
					&r->clk.clock, &x->peer, &force_quit);
		if (ret == -EINTR)
			fprintf(stderr,
				"latprobe probe: interrupted while resolving "
				"%s by neighbour discovery; no probe was "
				"sent\n",
				x->ip);
		if (ret != 0 && ret != -EINTR) {
			app_err("no Neighbor Advertisement from %s within "
				"%.1fs (is the reflector running? --peer-mac "
				"skips neighbour discovery)",
				x->ip, (double)o->arp_timeout_ns / 1e9);
			return EXIT_UNREACHABLE;
		}
	} else {
		ret = prober_arp_resolve_vlan(
			&r->port.q[0], &x->conf.flow.src_mac, o->co.addr,
			o->vlan, codec_ip_v4(&o->target),
			(unsigned)(o->arp_timeout_ns / 1000000), &r->clk.clock,
			&x->peer, &force_quit);
		/* -EINTR: stopped before any probe; the workers see the flag
		 * at once and the report says so. */
		if (ret == -EINTR)
			fprintf(stderr,
				"latprobe probe: interrupted while resolving "
				"%s by ARP; no probe was sent\n",
				x->ip);
		if (ret != 0 && ret != -EINTR) {
			app_err("no ARP answer from %s within %.1fs (is the "
				"reflector running? --peer-mac skips ARP)",
				x->ip, (double)o->arp_timeout_ns / 1e9);
			return EXIT_UNREACHABLE;
		}
	}
	x->conf.flow.dst_mac = x->peer;
	if (x->pcap_fd >= 0) {
		x->cap = capture_open(x->pcap_fd, o->pcap, r->port.id,
				      r->n_workers, err, sizeof(err));
		x->pcap_fd = -1; /* capture_open owns it now */
		if (x->cap == NULL) {
			app_err("--pcap: %s", err);
			return EXIT_RUNTIME;
		}
		x->conf.capture.fn = capture_packet;
		x->conf.capture.arg = x->cap;
	}
	return EXIT_OK;
}

/* Kernel UDP socket, connected to the target; one worker, this thread. */
int
probe_setup_kernel(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct sockio_opts so;

	if (o->multi)
		return probe_setup_kernel_multi(r);
	sockio_opts_default(&so);
	so.so_busy_poll_us = o->co.busy_poll_us;
	x->sock = probe_kernel_sock_open(o, &o->target, o->dport, o->sport,
					 &x->conf.flow.src_mac, &so);
	if (x->sock == NULL) {
		int err = errno;
		char src[CLI_IP_STRLEN] = "*", dst[CLI_IP_STRLEN];

		if (o->target.family == 6 && o->co.addr6.family == 6)
			cli_format_ip(&o->co.addr6, src);
		else if (o->target.family == 4 && o->co.have_addr)
			cli_format_ipv4(o->co.addr, src);
		cli_format_ip(&o->target, dst);
		app_err("kernel UDP socket %s:%u -> %s:%u: %s%s", src, o->sport,
			dst, o->dport, strerror(err),
			err == EADDRINUSE ? " (the source port is in use: "
					    "--sport N picks another)"
					  : "");
		return err == EINVAL ? EXIT_USAGE : EXIT_SETUP;
	}
	conf_common(r);
	/* The engine matches answers against the socket's real address. */
	if (o->target.family == 6)
		sockio_local_addr6(x->sock, 0, x->conf.flow.src6);
	else
		x->conf.flow.src4 = sockio_local_addr(x->sock, 0);
	x->conf.flow.sport = sockio_local_port(x->sock, 0);
	x->peer = x->conf.flow.dst_mac;
	return EXIT_OK;
}

/*
 * Worker k for target o.tg[ti] on lane k % lanes: its conf, queue (the
 * lane's DPDK queue, or the target's own socket), and a place in the
 * lane's set (which publishes it to the lcore). Returns an exit code
 * (message printed); from the side thread on SIGHUP too.
 */
int
probe_add_worker(struct app_run *r, unsigned ti, unsigned k)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	const struct probe_target *t = &o->tg[ti];
	struct prober_conf *c = &run->conf[k];
	unsigned nl = run->n_lanes, lane = k % nl;
	struct io_queue *q;

	*c = x->conf;
	c->proto = t->proto;
	c->flow.dst4 = t->addr;
	c->flow.dport = t->dport;
	c->size = t->size;
	c->count = o->count; /* -n per target */
	c->max_samples = 16u * 1024 * 1024 / PINGLIST_MAX;
	if (t->sock != NULL) {
		q = sockio_queue(t->sock);
		c->flow.src_mac = t->mac;
		c->flow.src4 = sockio_local_addr(t->sock, 0);
		c->flow.sport = sockio_local_port(t->sock, 0);
	} else {
		uint16_t sport;
		int ret = port_pick_sport(&r->port, (uint16_t)lane, o->co.addr,
					  t->addr, t->dport, o->sport, &sport);

		if (ret == 0 && !t->proto->udp &&
		    t->proto != &probe_proto_tcp_syn && nl > 1 && r->port.rss)
			ret = -ENOTSUP; /* ICMP: hashed on addresses */
		if (ret == 0 && nl > 1 && r->port.rss &&
		    t->size + 28 > r->port.q[lane].mtu)
			ret = -ENOTSUP; /* fragments: no ports */
		if (ret != 0) {
			app_err("with %u lcores the answers must come back on "
				"each lcore's queue, and this port's RSS "
				"cannot steer %s's %s answers there: use one "
				"lcore (-l N)",
				nl, t->name, t->proto->name);
			return EXIT_USAGE;
		}
		q = &r->port.q[lane];
		c->flow.dst_mac = t->mac;
		c->flow.sport = sport;
	}
	run->target[k] = ti;
	run->lane[k] = lane;
	run->w[k].lcore = r->dpdk_ready ? r->worker_lcore[lane] : 0;
	if (prober_worker_init(&run->w[k], c, q, k) != 0) {
		app_err("out of memory (samples, fragment buffers)");
		return EXIT_RUNTIME;
	}
	if (k < run->n_workers) {
		/* A retired worker's place (probe_reusable()): same lane, same
		 * place in its set. */
		(void)prober_set_reuse(&run->sets[lane], run->slot[k],
				       &run->w[k]);
		__atomic_store_n(&run->retired[k], false, __ATOMIC_RELAXED);
		return EXIT_OK;
	}
	run->slot[k] = run->sets[lane].n;
	if (prober_set_add(&run->sets[lane], &run->w[k]) != 0) {
		prober_worker_fini(&run->w[k]);
		app_err("lcore %u has %u targets already", lane,
			PROBER_SET_MAX);
		return EXIT_USAGE;
	}
	/* Published whole (release): the metrics thread reads up to here. */
	__atomic_store_n(&run->n_workers, k + 1, __ATOMIC_RELEASE);
	return EXIT_OK;
}

/* Several targets: one worker each, spread over the lcores in turn. */
static int
probe_init_workers_multi(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run;
	unsigned k = 0;
	int ret;

	run = x->run = calloc(1, sizeof(*x->run));
	if (run != NULL)
		run->sets = calloc(r->n_workers, sizeof(*run->sets));
	if (run == NULL || run->sets == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	histogram_init(&run->gone.rtt);
	histogram_init(&run->gone.network_rtt);
	histogram_init(&run->gone.turnaround);
	histogram_init(&run->gone.intended);
	histogram_init(&run->gone.behind);
	histogram_init(&run->gone.hw_rtt);
	histogram_init(&run->gone.hw_rx_delay);
	histogram_init(&run->gone.rtt_host_prober);
	histogram_init(&run->gone.rtt_host_reflector);
	histogram_init(&run->gone.rtt_host_both);
	app_oneway_gone_init(&run->gone);
	run->n_lanes = r->n_workers;
	/* With a pinglist and no -n, targets may come and go (SIGHUP): the
	 * lcores wait for new ones until the run ends. */
	for (unsigned l = 0; l < run->n_lanes; l++) {
		prober_set_init(&run->sets[l],
				o->targets_file != NULL && o->count == 0);
		/* Targets SIGHUP adds: ARP by their lcore. */
		if (r->dpdk_ready && !o->have_peer_mac)
			run->sets[l].arp_timeout_ms =
				(unsigned)(o->arp_timeout_ns / 1000000);
		/* No target to probe (all rest, or SIGHUP took them all):
		 * the lane still answers ARP for our address. */
		if (r->dpdk_ready) {
			run->sets[l].idle_q = &r->port.q[l];
			run->sets[l].idle_flow = x->conf.flow;
		}
	}
	for (unsigned ti = 0; ti < o->n_tg; ti++) {
		if (o->tg[ti].skip)
			continue;
		ret = probe_add_worker(r, ti, k++);
		if (ret != EXIT_OK)
			return ret;
	}
	return EXIT_OK;
}

/*
 * --flows N / --new-flow-every K: worker i's source ports, all from --sport
 * up and brought back to its queue by RSS (port_pick_sports). --flows
 * wants N of them; --new-flow-every as many as the run opens tuples (a
 * run without -n: all there are), fewer only means reuse (counted).
 */
static int
probe_flow_ports(struct app_run *r, unsigned i)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct prober_conf *c = &x->run->conf[i];
	struct rss_addr ours = {0}, peer = {0};
	uint64_t want = o->flows;
	uint16_t *sports;
	int got;

	if (o->new_flow_every != 0)
		want = c->count != 0
			       ? (c->count + o->warmup) / o->new_flow_every + 1
			       : 65535;
	if (want > 65535)
		want = 65535;
	if (o->target.family == 6) {
		ours.family = peer.family = RSS_AF_IPV6;
		memcpy(ours.v6, o->co.addr6.a, 16);
		memcpy(peer.v6, o->target.a, 16);
	} else {
		ours.family = peer.family = RSS_AF_IPV4;
		ours.v4 = o->co.addr;
		peer.v4 = codec_ip_v4(&o->target);
	}
	/* Freed with the run (conf[i].sports). */
	sports = malloc(want * sizeof(uint16_t));
	c->sports = sports;
	if (sports == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	got = port_pick_sports(&r->port, (uint16_t)i, &ours, &peer, o->dport,
			       o->sport, sports, (unsigned)want);
	if (got <= 0 || (o->flows != 0 && (unsigned)got < o->flows)) {
		app_err("%s: %d source ports from --sport %u up bring answers "
			"back to lcore %u's queue (%s needed)",
			o->flows != 0 ? "--flows" : "--new-flow-every",
			got < 0 ? 0 : got, o->sport, i,
			o->flows != 0 ? "one per flow" : "at least one");
		return EXIT_USAGE;
	}
	c->n_sports = (uint32_t)got;
	c->n_flows = o->flows;
	c->new_flow_every = o->new_flow_every;
	c->flow.sport = c->sports[0];
	return EXIT_OK;
}

int
probe_init_workers(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	const struct probe_opts *o = &x->o;
	struct probe_run *run;
	unsigned nw = r->n_workers;

	/* STAMP: T1/T4 onto a re-sampled UTC mapping (app/oneway.c). */
	if (o->proto->has_remote_ts &&
	    app_oneway_start(&x->ow, &r->clk, r->dpdk_ready) == 0)
		x->conf.utc_feed = &x->ow.feed;
	else if (o->proto->has_remote_ts)
		app_warn("cannot start the clock thread: one-way delays use "
			 "the start's clock mapping, whose error is not "
			 "measured: their bound is unknown");
	if (o->multi)
		return probe_init_workers_multi(r);
	run = x->run = calloc(1, sizeof(*x->run));
	if (run == NULL) {
		app_err("out of memory");
		return EXIT_RUNTIME;
	}
	/* Split -n across the lcores; the first ones take the remainder. */
	for (unsigned i = 0; i < nw; i++) {
		struct io_queue *q =
			x->sock ? sockio_queue(x->sock) : &r->port.q[i];

		run->conf[i] = x->conf;
		if (!x->sock) {
			/* RSS must bring each lcore's answers to its queue. */
			uint16_t sport = (uint16_t)(o->sport + i);
			unsigned hdr = o->target.family == 6 ? 48 : 28;
			int ret = 0;

			if (o->target.family == 6)
				ret = port_pick_sport6(&r->port, (uint16_t)i,
						       o->co.addr6.a,
						       o->target.a, o->dport,
						       o->sport, &sport);
			else
				ret = port_pick_sport(
					&r->port, (uint16_t)i, o->co.addr,
					codec_ip_v4(&o->target), o->dport,
					o->sport, &sport);

			if (ret == 0 && !o->proto->udp &&
			    o->proto != &probe_proto_tcp_syn && nw > 1 &&
			    r->port.rss)
				ret = -ENOTSUP; /* ICMP: hashed on addresses */
			if (ret == 0 && nw > 1 && r->port.rss &&
			    o->size + hdr > r->port.q[i].mtu) {
				/* Fragments carry no ports to hash on. */
				app_err("%llu-byte probes go as IP "
					"fragments, "
					"which RSS cannot steer back to each "
					"lcore's queue: use one lcore",
					(unsigned long long)o->size);
				return EXIT_USAGE;
			}
			if (ret != 0) {
				app_err("with %u lcores the answers must come "
					"back on each lcore's queue, and this "
					"port's RSS cannot steer %s answers "
					"there: use one lcore (-l N)",
					nw, o->proto->name);
				return EXIT_USAGE;
			}
			run->conf[i].flow.sport = sport;
		}
		if (o->count != 0)
			run->conf[i].count =
				o->count / nw + (i < o->count % nw);
		if (o->flows != 0 || o->new_flow_every != 0) {
			int ret = probe_flow_ports(r, i);

			if (ret != EXIT_OK)
				return ret;
		}
		if (o->loopback) {
			struct reflector_conf rc;

			reflector_conf_default(&rc);
			if (o->target.family == 6) {
				rc.addr = 0;
				rc.addr6 = o->target;
			} else {
				rc.addr = codec_ip_v4(&o->target);
			}
			rc.mac = x->conf.flow.src_mac;
			if (o->proto == &probe_proto_stamp)
				rc.stamp_port = o->dport;
			else if (o->proto == &probe_proto_sockperf)
				rc.sockperf_port = o->dport;
			else if (o->proto == &probe_proto_udp_echo)
				rc.echo_port = o->dport;
			rc.clock = r->clk.clock;
			rc.anchor = r->clk.anchor;
			rc.utc_feed = x->conf.utc_feed; /* one-way: one clock */
			if (rc.utc_feed == NULL)	/* as reflect_setup.c */
				rc.error_estimate = app_oneway_unknown_ee();
			rc.auth_key = o->co.auth_key;
			rc.auth_key_len = o->co.auth_key_len;
			if (loopback_io_init(&run->lo[i], q, &rc) != 0) {
				app_err("out of memory");
				return EXIT_RUNTIME;
			}
			q = &run->lo[i].q;
		}
		if (prober_worker_init(&run->w[i], &run->conf[i], q, i) != 0) {
			if (o->loopback)
				loopback_io_fini(&run->lo[i]);
			app_err("out of memory (samples, fragment buffers)");
			return EXIT_RUNTIME;
		}
		run->n_workers = i + 1;
	}
	return EXIT_OK;
}

void
probe_teardown(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;

	app_oneway_stop(&x->ow);
	histogram_destroy(x->ow_fwd);
	histogram_destroy(x->ow_rev);
	x->ow_fwd = x->ow_rev = NULL;
	if (x->paths != NULL) {
		histogram_destroy(x->paths->base);
		histogram_destroy(x->paths->cur);
		histogram_destroy(x->paths->iv);
		free(x->paths);
		x->paths = NULL;
	}
	if (x->run != NULL) {
		for (unsigned i = 0; i < x->run->n_workers; i++) {
			prober_worker_fini(&x->run->w[i]);
			if (x->o.loopback)
				loopback_io_fini(&x->run->lo[i]);
		}
		free(x->run->sets);
		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++)
			free((void *)x->run->conf[i].sports);
		free(x->run);
		x->run = NULL;
	}
	if (x->cap != NULL) {
		uint64_t dropped;

		(void)capture_close(x->cap, &dropped);
		x->cap = NULL;
	}
	if (x->pcap_fd >= 0)
		close(x->pcap_fd);
	x->pcap_fd = -1;
	app_out_close(&x->json);
	app_out_close(&x->samples);
	(void)app_hlog_close(&x->hlog);
	if (x->sock != NULL)
		sockio_close(x->sock);
	x->sock = NULL;
	for (unsigned i = 0; i < x->o.n_tg; i++) {
		if (x->o.tg[i].sock != NULL)
			sockio_close(x->o.tg[i].sock);
		x->o.tg[i].sock = NULL;
	}
	free(x->live.prev);
	free(x->live.iprev);
	histogram_destroy(x->live.isum);
	histogram_destroy(x->live.snap);
	histogram_destroy(x->live.iv);
	histogram_destroy(x->live.sum);
	memset(&x->live, 0, sizeof(x->live));
	histogram_destroy(x->mx_snap);
	histogram_destroy(x->mx_sum);
	histogram_destroy(x->mx_fwd);
	histogram_destroy(x->mx_rev);
	x->mx_snap = x->mx_sum = NULL;
	x->mx_fwd = x->mx_rev = NULL;
	if (x->ivr != NULL) {
		struct ivrep *v = x->ivr;

		for (unsigned i = 0; i < PROBE_MAX_WORKERS; i++) {
			histogram_destroy(v->prev[i]);
			histogram_destroy(v->iprev[i]);
		}
		histogram_destroy(v->isum);
		for (unsigned k = 0; k < v->n; k++)
			free((void *)v->ring[(v->head + k) % PROBE_IV_KEEP]
				     .rows);
		histogram_destroy(v->snap);
		histogram_destroy(v->iv);
		histogram_destroy(v->sum);
		free(v);
		x->ivr = NULL;
	}
}

void
probe_port_swap(struct app_run *r, bool done)
{
	struct probe_ctx *x = r->ctx;

	/* A port made again: our address announced on it. */
	if (done && x->sock == NULL)
		app_link_announce(r, &x->conf.flow.src_mac, x->o.co.addr,
				  x->o.vlan);
}
