/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * latprobe probe's targets: the TARGET arguments and --targets FILE into
 * o->tg, and SIGHUP's reload of them into a running prober (new workers
 * published to their lcore's set, removed ones retired and folded).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "latprobe/stamp.h"
#include "latprobe/stamp_auth.h"
#include "probe.h"

struct pinglist_bad {
	const char *file;
};

static void
pinglist_warn(void *arg, unsigned line, const char *why)
{
	const struct pinglist_bad *b = arg;

	app_warn("--targets %s:%u: %s; line skipped", b->file, line, why);
}

/* One target into o->tg (a duplicate is skipped); 0, or -1 (printed). */
static int
target_add(struct probe_opts *o, uint32_t addr, bool has_port, uint16_t port,
	   const char *proto, const char *label, const char *where)
{
	struct probe_target *t = &o->tg[o->n_tg];
	char ip[16];

	if (o->n_tg >= PINGLIST_MAX) {
		app_warn("%s: more than %u targets; skipped", where,
			 PINGLIST_MAX);
		return 0;
	}
	memset(t, 0, sizeof(*t));
	t->proto = proto[0] != '\0' ? probe_proto_find(proto) : o->proto;
	if (t->proto == NULL) {
		app_warn("%s: unknown proto '%s'; skipped", where, proto);
		return 0;
	}
	if (o->co.kernel && !t->proto->udp) {
		app_warn("%s: --backend kernel runs stamp, sockperf and "
			 "udp-echo, not %s; skipped",
			 where, t->proto->name);
		return 0;
	}
	if (o->co.auth_key_len != 0 && t->proto != &probe_proto_stamp) {
		app_warn("%s: --auth-key applies to stamp only, not %s; "
			 "skipped",
			 where, t->proto->name);
		return 0;
	}
	t->addr = addr;
	t->dport = has_port ? port : t->proto->default_port;
	t->size = o->have_l		    ? (unsigned)o->size
		  : o->co.auth_key_len != 0 ? STAMP_AUTH_BASE_LEN
					    : t->proto->min_size;
	if (t->size < t->proto->min_size ||
	    (o->have_l && t->proto == &probe_proto_tcp_syn)) {
		app_warn("%s: -l %u does not fit %s; skipped", where, t->size,
			 t->proto->name);
		return 0;
	}
	snprintf(t->label, sizeof(t->label), "%s", label);
	cli_format_ipv4(addr, ip);
	/* ICMP has no port: the address alone names it. */
	if (t->proto == &probe_proto_icmp)
		snprintf(t->name, sizeof(t->name), "%s", ip);
	else
		snprintf(t->name, sizeof(t->name), "%s:%u", ip, t->dport);
	for (unsigned i = 0; i < o->n_tg; i++) {
		if (o->tg[i].addr == t->addr && o->tg[i].dport == t->dport &&
		    o->tg[i].proto == t->proto) {
			app_warn("%s: %s %s given twice; skipped", where,
				 t->name, t->proto->name);
			return 0;
		}
	}
	o->n_tg++;
	return 0;
}

/* The TARGET arguments, then --targets FILE (again on SIGHUP: reload). 0
 * or -1 (printed). */
int
probe_targets_load(struct probe_opts *o, int n_args, char **args, bool reload)
{
	struct pinglist_entry *e;
	struct pinglist_bad bad;
	unsigned n, n_bad;
	char *text = NULL, where[320];
	size_t len = 0;
	FILE *f;

	for (int i = 0; i < n_args; i++) {
		uint32_t addr;
		uint16_t port;
		bool has_port;

		struct codec_ip ip;

		if (cli_parse_target_ip(args[i], &ip, &port, &has_port))
			return app_opt_bad("TARGET",
					   "A.B.C.D[:PORT] or [X:X::X][:PORT]",
					   args[i]);
		snprintf(where, sizeof(where), "TARGET %s", args[i]);
		if (has_port && port == 0)
			return app_opt_bad("TARGET", "A.B.C.D[:PORT]", args[i]);
		if (ip.family == 6) {
			/* IPv6: one target, the command line's (several
			 * targets and --targets are IPv4 for now). */
			if (n_args != 1 || o->targets_file != NULL || reload) {
				app_err("TARGET %s: an IPv6 target is probed "
					"alone (several targets and --targets "
					"take IPv4 addresses)",
					args[i]);
				return -1;
			}
			addr = 0;
		} else {
			addr = codec_ip_v4(&ip);
		}
		if (target_add(o, addr, has_port, port, "", "", where) == 0 &&
		    ip.family == 6 && o->n_tg == 1) {
			char a6[CLI_IP_STRLEN];

			cli_format_ip(&ip, a6);
			snprintf(o->tg[0].name, sizeof(o->tg[0].name),
				 "[%s]:%u", a6, o->tg[0].dport);
		}
	}
	if (o->targets_file != NULL) {
		const char *why = NULL;

		f = fopen(o->targets_file, "re");
		if (f == NULL)
			why = strerror(errno);
		text = f != NULL ? malloc(PINGLIST_FILE_MAX + 1) : NULL;
		if (text != NULL)
			len = fread(text, 1, PINGLIST_FILE_MAX + 1, f);
		if (why == NULL &&
		    (text == NULL || ferror(f) || len > PINGLIST_FILE_MAX))
			why = text == NULL ? "out of memory"
			      : ferror(f)  ? "cannot read it"
					   : "larger than 1 MiB";
		/* Nothing but blanks: a file being rewritten in place (an
		 * editor's truncate, then write), not a list. */
		if (why == NULL && reload && pinglist_blank(text, len))
			why = "empty (being rewritten? replace it atomically: "
			      "write a temporary file, then rename it)";
		if (f != NULL)
			fclose(f);
		if (why != NULL) {
			/* SIGHUP: one line, and the run goes on as it was. */
			if (reload)
				app_warn("SIGHUP: --targets %s: %s; targets "
					 "unchanged",
					 o->targets_file, why);
			else
				app_err("--targets %s: %s", o->targets_file,
					why);
			free(text);
			return -1;
		}
		e = calloc(PINGLIST_MAX, sizeof(*e));
		if (e == NULL) {
			free(text);
			app_err("out of memory");
			return -1;
		}
		bad.file = o->targets_file;
		n = pinglist_parse(text, len, e, PINGLIST_MAX, pinglist_warn,
				   &bad, &n_bad);
		for (unsigned i = 0; i < n; i++) {
			snprintf(where, sizeof(where), "--targets %s:%u",
				 o->targets_file, e[i].line);
			target_add(o, e[i].addr, e[i].has_port, e[i].port,
				   e[i].proto, e[i].label, where);
		}
		free(e);
		free(text);
	}
	if (reload)
		return 0; /* comments only: a list of none, all stop */
	if (o->n_tg == 0) {
		app_err(n_args == 0 && o->targets_file == NULL
				? "no TARGET given (e.g. 198.18.0.2 or "
				  "198.18.0.2:862, or --targets FILE)"
				: "no target left to probe");
		return -1;
	}
	o->multi = o->targets_file != NULL || o->n_tg > 1;
	/* One target: the command line's proto and size as before. */
	if (!o->multi) {
		o->proto = o->tg[0].proto;
		o->size = o->tg[0].size;
	}
	return 0;
}

/*
 * SIGHUP with every place taken: the oldest retired worker whose lcore is
 * done with it, waiting up to 2 s for the lcores to stop those retired just
 * now (a probe in flight, an ARP). Its index, or -1 when none.
 */
int
probe_reusable(const struct probe_run *run)
{
	for (unsigned tries = 0; tries < 2000; tries++) {
		bool any = false;

		for (unsigned k = 0; k < run->n_workers; k++) {
			if (!run->retired[k])
				continue;
			if (prober_set_reusable(&run->sets[run->lane[k]],
						run->slot[k]))
				return (int)k;
			any = true;
		}
		if (!any)
			return -1;
		nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
	}
	return -1;
}

/* Worker k's figures into run->gone (the merged totals keep them), and its
 * per-interval memories forgotten, before a new target takes its place.
 * Side thread, metrics lock held. */
static void
probe_fold(struct probe_ctx *x, unsigned k)
{
	struct probe_run *run = x->run;
	struct prober_worker *g = &run->gone;
	const struct prober_worker *w = &run->w[k];
	uint64_t *d = (uint64_t *)&g->st;
	const uint64_t *v = (const uint64_t *)&w->st;
	uint64_t behind = g->st.behind_max_ns;

	_Static_assert(sizeof(struct prober_stats) % sizeof(uint64_t) == 0,
		       "prober_stats is counters");
	for (size_t i = 0; i < sizeof(g->st) / sizeof(*d); i++)
		d[i] += v[i];
	g->st.behind_max_ns =
		behind > w->st.behind_max_ns ? behind : w->st.behind_max_ns;
	g->st.reflector_ee = w->st.reflector_ee;
	histogram_merge(&g->rtt, &w->rtt);
	histogram_merge(&g->network_rtt, &w->network_rtt);
	histogram_merge(&g->turnaround, &w->turnaround);
	histogram_merge(&g->intended, &w->intended);
	histogram_merge(&g->behind, &w->behind);
	histogram_merge(&g->hw_rtt, &w->hw_rtt);
	histogram_merge(&g->hw_rx_delay, &w->hw_rx_delay);
	app_oneway_fold(g, w);
	app_stalls_fold(g, w);
	run->gone_rows++;
	if (x->live.prev != NULL)
		histogram_init(&x->live.prev[k]);
	if (x->live.iprev != NULL)
		histogram_init(&x->live.iprev[k]);
	if (x->ivr != NULL) {
		if (x->ivr->prev[k] != NULL)
			histogram_init(x->ivr->prev[k]);
		if (x->ivr->iprev[k] != NULL)
			histogram_init(x->ivr->iprev[k]);
		x->ivr->sent[k] = x->ivr->recv[k] = x->ivr->lost[k] = 0;
	}
	app_hlog_forget(&x->hlog, k);
}

static bool
same_target(const struct probe_target *a, const struct probe_target *b)
{
	return a->addr == b->addr && a->dport == b->dport &&
	       a->proto == b->proto;
}

/*
 * SIGHUP, on the side thread: re-read the pinglist. Targets no longer in
 * it are retired (their lcore stops them before their next probe; their
 * figures stay in the report), new ones get a worker and a place in an
 * lcore's set, unchanged ones go on with their histograms. Bad lines are
 * reported and skipped; a file that cannot be read changes nothing.
 */
void
probe_hup(struct app_run *r)
{
	struct probe_ctx *x = r->ctx;
	struct probe_opts *o = &x->o;
	struct probe_run *run = x->run;
	struct probe_opts *nw = malloc(sizeof(*nw));
	unsigned kept = 0, added = 0, removed = 0, reused = 0;
	unsigned n_run = run->n_workers;

	if (nw == NULL) {
		app_warn("SIGHUP: out of memory; targets unchanged");
		return;
	}
	memcpy(nw, o, sizeof(*nw));
	nw->n_tg = 0;
	if (probe_targets_load(nw, o->n_args, o->args, true) != 0) {
		free(nw); /* said why, targets unchanged */
		return;
	}
	/* Retire what is gone. */
	for (unsigned k = 0; k < n_run; k++) {
		bool keep = false;

		if (run->retired[k])
			continue;
		for (unsigned i = 0; i < nw->n_tg && !keep; i++)
			keep = same_target(&o->tg[run->target[k]], &nw->tg[i]);
		if (keep) {
			kept++;
			continue;
		}
		__atomic_store_n(&run->retired[k], true, __ATOMIC_RELAXED);
		prober_set_retire(&run->sets[run->lane[k]], run->slot[k]);
		removed++;
	}
	/* Start what is new. */
	for (unsigned i = 0; i < nw->n_tg; i++) {
		struct probe_target *t = &nw->tg[i];
		unsigned ti = o->n_tg, k = run->n_workers;
		bool have = false;
		int reuse = -1;

		for (unsigned j = 0; j < n_run && !have; j++)
			have = !run->retired[j] &&
			       same_target(&o->tg[run->target[j]], t);
		if (have)
			continue;
		if (ti >= PINGLIST_MAX || k >= PROBE_MAX_WORKERS) {
			/* Every place taken: the oldest removed target's
			 * (its row leaves the report, its figures stay in
			 * the totals). */
			reuse = probe_reusable(run);
			if (reuse < 0) {
				app_warn("SIGHUP: %s not added: %u targets "
					 "are probed already",
					 t->name, PINGLIST_MAX);
				continue;
			}
			k = (unsigned)reuse;
			ti = run->target[k];
			if (o->tg[ti].sock != NULL) {
				/* Done with it: its port for the new one. */
				sockio_close(o->tg[ti].sock);
				o->tg[ti].sock = NULL;
			}
		}
		if (r->dpdk_ready) {
			/* Without --peer-mac its lcore resolves it. */
			memset(&t->mac, 0, sizeof(t->mac));
			if (o->have_peer_mac)
				t->mac = o->peer_mac;
		} else {
			struct sockio_opts so;

			sockio_opts_default(&so);
			so.so_busy_poll_us = o->co.busy_poll_us;
			struct codec_ip dst = codec_ip_from_v4(t->addr);

			t->sock = probe_kernel_sock_open(
				o, &dst, t->dport, (uint16_t)(o->sport + k),
				&t->mac, &so);
			if (t->sock == NULL) {
				app_warn("SIGHUP: %s not added: kernel UDP "
					 "socket: %s",
					 t->name, strerror(errno));
				continue;
			}
		}
		if (reuse >= 0) {
			int ret;

			pthread_mutex_lock(&probe_mx_lock);
			probe_fold(x, k);
			prober_worker_fini(&run->w[k]);
			o->tg[ti] = *t;
			t->sock = NULL;
			ret = probe_add_worker(r, ti, k);
			if (ret != EXIT_OK) {
				/* Said why; in gone already, so nothing here
				 * (a row of 0 for it, removed). */
				struct prober_worker *w = &run->w[k];

				memset(&w->st, 0, sizeof(w->st));
				histogram_init(&w->rtt);
				histogram_init(&w->network_rtt);
				histogram_init(&w->turnaround);
				app_oneway_gone_init(w);
			}
			pthread_mutex_unlock(&probe_mx_lock);
			if (ret != EXIT_OK)
				continue;
			reused++;
			added++;
			continue;
		}
		o->tg[ti] = *t;
		o->n_tg = ti + 1;
		t->sock = NULL; /* o->tg owns it now */
		if (probe_add_worker(r, ti, k) != EXIT_OK)
			continue; /* said why; its socket closes at teardown */
		added++;
	}
	if (reused != 0)
		app_warn("SIGHUP: %u new targets took the places of removed "
			 "ones (%u targets at most at a time): those rows "
			 "leave the report, their figures stay in its totals",
			 reused, PINGLIST_MAX);
	fprintf(stderr,
		"latprobe probe: SIGHUP: --targets %s re-read: %u kept, %u "
		"added, %u removed\n",
		o->targets_file, kept, added, removed);
	free(nw);
}
