/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Open loop (--rate): probes leave at their scheduled send times whatever
 * the answers do, many in flight. Each probe has a slot in a sequence
 * window (seq, scheduled time, T1, state); an answer finds its slot by its
 * own sequence number. Sends go in sequence order and the timeout is one
 * constant, so the oldest probe is always the first to expire: expiry pops
 * from the head while the head is older than the timeout, O(1) a probe.
 * A slot stays in the window until its timeout even when answered, so that
 * a duplicate within the timeout is told from a late answer.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latprobe/prober.h"

#define STAT_ADD(w, field, n) util_relaxed_add(&(w)->st.field, (n))

void
prober_sched_init(struct prober_sched *s, enum prober_spacing spacing,
		  uint64_t hz, uint64_t rate, uint64_t seed)
{
	memset(s, 0, sizeof(*s));
	s->spacing = spacing;
	s->rate = rate != 0 ? rate : 1;
	s->gap_q = hz / s->rate;
	s->gap_r = hz % s->rate;
	s->mean_gap = (double)hz / (double)s->rate;
	s->rng = seed;
}

uint64_t
prober_sched_gap(struct prober_sched *s)
{
	uint64_t gap;
	double u;

	if (s->spacing == PROBER_SPACING_CONSTANT) {
		gap = s->gap_q;
		s->acc += s->gap_r;
		if (s->acc >= s->rate) {
			s->acc -= s->rate;
			gap++;
		}
		return gap;
	}
	/* Uniform in (0, 1]: -log(u) is finite, at most 36.7 mean gaps. */
	u = (double)((util_splitmix64(&s->rng) >> 11) + 1) * 0x1.0p-53;
	return (uint64_t)llround(-log(u) * s->mean_gap);
}

/* The fate of probe seq is known: count it where it belongs. */
static void
settle(struct prober_worker *w, uint64_t seq, bool answered)
{
	if (seq < w->conf->warmup) {
		STAT_ADD(w, warmup, 1);
		return;
	}
	STAT_ADD(w, sent, 1);
	if (answered) {
		STAT_ADD(w, received, 1);
	} else {
		STAT_ADD(w, lost, 1);
		prober_flow_lost(w, seq); /* its flow's, or first_lost */
		if (w->conf->link != NULL &&
		    io_link_lost(w->conf->link,
				 w->open->slot[seq & w->open->mask].t1))
			STAT_ADD(w, lost_link_down, 1);
	}
}

static bool
open_take(struct prober_worker *w, const struct probe_reply *r, uint64_t t4)
{
	struct prober_open *o = w->open;
	struct prober_slot *s;

	if (r->seq < o->head) {
		/* Expired (its timeout passed) and out of the window. */
		prober_note_order(w, r->seq);
		STAT_ADD(w, late, 1);
		prober_ignore(w, PROBER_IGN_LATE);
		return false;
	}
	s = &o->slot[r->seq & o->mask];
	if (s->state == PROBER_SLOT_ANSWERED) {
		STAT_ADD(w, duplicated, 1);
		prober_ignore(w, PROBER_IGN_DUPLICATE);
		return false;
	}
	prober_note_order(w, r->seq);
	if (s->state == PROBER_SLOT_UNREACHABLE) {
		/* An ICMP error gave it up already. */
		STAT_ADD(w, late, 1);
		prober_ignore(w, PROBER_IGN_LATE);
		return false;
	}
	if (s->state != PROBER_SLOT_IN_FLIGHT) {
		/* Answers a probe the tx queue never took. */
		prober_ignore(w, PROBER_IGN_NEVER_SENT);
		return false;
	}
	s->state = PROBER_SLOT_ANSWERED;
	o->in_flight--;
	STAT_ADD(w, answered, 1);
	settle(w, r->seq, true);
	if (r->seq >= w->conf->warmup)
		prober_record_answer(w, r, r->seq, s->t1, t4, s->sched);
	return true;
}

static bool
open_unreachable(struct prober_worker *w, uint64_t low, unsigned bits)
{
	struct prober_open *o = w->open;
	uint64_t span = 1ull << bits, seq;

	if (o->next == o->head)
		return false;
	/* The newest seq below next that ends in low, then older ones. */
	seq = o->next - 1 - ((o->next - 1 - low) & (span - 1));
	while (seq >= o->head && seq < o->next) {
		struct prober_slot *s = &o->slot[seq & o->mask];

		if (s->state == PROBER_SLOT_IN_FLIGHT) {
			s->state = PROBER_SLOT_UNREACHABLE;
			o->in_flight--;
			settle(w, seq, false);
			if (seq >= w->conf->warmup)
				STAT_ADD(w, lost_unreachable, 1);
			return true;
		}
		if (seq < span)
			break;
		seq -= span;
	}
	return false;
}

/* Pop every probe whose timeout has passed; those unanswered are lost. */
static void
expire(struct prober_worker *w, uint64_t now)
{
	struct prober_open *o = w->open;
	uint64_t timeout = w->conf->timeout_cycles;

	while (o->head != o->next) {
		/* The slot of seq head (the window is never wider than the
		 * ring). */
		struct prober_slot *s = &o->slot[o->head & o->mask];

		if (now - s->t1 <= timeout)
			break;
		if (s->state == PROBER_SLOT_IN_FLIGHT) {
			o->in_flight--;
			settle(w, o->head, false);
		}
		o->head++;
	}
}

/* Send probe next, due at o->next_sched; 0 or -errno. */
static int
send_next(struct prober_worker *w, uint64_t now)
{
	const struct prober_conf *c = w->conf;
	struct prober_open *o = w->open;
	uint64_t seq = o->next, t1 = now, behind;
	struct prober_slot *s = &o->slot[seq & o->mask];
	int ret;

	if (seq == c->warmup)
		w->t_start = o->next_sched;
	ret = prober_send_probe(w, seq, now, &t1);
	if (ret < 0)
		return ret;
	s->sched = o->next_sched;
	s->t1 = t1;
	s->state = ret == 1 ? PROBER_SLOT_IN_FLIGHT : PROBER_SLOT_TX_FAILED;
	if (ret == 1)
		o->in_flight++;
	o->next = seq + 1;
	w->step_seq = seq + 1; /* the matchers' newest sent */
	o->next_sched += prober_sched_gap(&o->sched);
	if (seq < c->warmup)
		return 0;
	behind = t1 > s->sched ? t1 - s->sched : 0;
	if (behind > c->behind_bound_cycles)
		STAT_ADD(w, late_sends, 1);
	behind = tsc_to_ns(&c->clock, behind);
	/* On time reads as 1 ns, the histogram's lowest value, so that every
	 * measured send is in its count. */
	histogram_record(&w->behind, behind != 0 ? behind : 1);
	if (behind > w->st.behind_max_ns)
		__atomic_store_n(&w->st.behind_max_ns, behind,
				 __ATOMIC_RELAXED);
	return 0;
}

/* The schedule from o->next_sched on, until the stop, -t, or the count's
 * last answer or expiry. */
static int
open_loop(struct prober_worker *w, const atomic_bool *stop)
{
	const struct prober_conf *c = w->conf;
	struct prober_open *o = w->open;
	struct io_queue *q = w->q;
	uint64_t end = c->count != 0 ? c->warmup + c->count : UINT64_MAX;
	int ret = 0;

	for (;;) {
		uint64_t now = io_clock(q);

		if (atomic_load_explicit(stop, memory_order_relaxed) ||
		    (w->step_deadline != 0 && now >= w->step_deadline))
			break; /* in flight: abandoned */
		if (o->next >= end && o->in_flight == 0)
			break;
		/* Every send that is due, a burst at most between polls; a
		 * full window (a sender far behind) waits for expiry. */
		for (unsigned k = 0;
		     k < PROBER_BURST && o->next < end &&
		     now >= o->next_sched && o->next - o->head <= o->mask;
		     k++) {
			ret = send_next(w, now);
			if (ret == -ENOBUFS) {
				/* No mbuf for now: counted; the probe goes when
				 * the poll below gave some back, behind its
				 * schedule (intended latency sees it). */
				ret = prober_nombuf(w, o->next, now);
				if (ret != 0)
					goto out;
				break;
			}
			if (ret != 0)
				goto out;
			now = io_clock(q);
		}
		prober_poll_open(w, o->next);
		expire(w, io_clock(q));
	}
out:
	return ret;
}

int
prober_worker_run_open(struct prober_worker *w, const atomic_bool *stop)
{
	const struct prober_conf *c = w->conf;
	struct prober_open *o = w->open;
	int ret;

	if (o == NULL) {
		ret = -EINVAL;
		goto out;
	}
	o->take = open_take;
	o->unreachable = open_unreachable;
	ret = prober_worker_begin(w);
	if (ret != 0)
		goto out;
	prober_sched_init(&o->sched, c->spacing, c->clock.hz, c->rate_pps,
			  c->seed);
	o->head = o->next = o->in_flight = 0;
	o->next_sched = io_clock(w->q);
	ret = open_loop(w, stop);
out:
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return ret;
}

int
prober_worker_resume_open(struct prober_worker *w, const atomic_bool *stop)
{
	struct prober_open *o = w->open;
	int ret;

	if (o == NULL)
		return -EINVAL;
	__atomic_store_n(&w->done, false, __ATOMIC_RELEASE);
	w->nombuf_since = 0;
	/* The gap's sends were never made: the schedule goes on from now
	 * (no catch-up burst of them, and no intended latency of a gap that
	 * is not the path's); those in flight expire as lost. */
	o->next_sched = io_clock(w->q);
	stall_rebase(&w->stall, o->next_sched);
	ret = open_loop(w, stop);
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return ret;
}
