/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_mbuf.h>

#include "io_fake.h"
#include "latprobe/io_pool.h"

#define FAKE_BUF_SIZE 2048
#define FAKE_RING     4096

struct fake_ring {
	struct rte_mbuf *slot[FAKE_RING];
	uint64_t due[FAKE_RING]; /* fake time from which rx may take it */
	unsigned head, tail;	 /* head: next to read; tail: next to write */
};

struct fake_side {
	struct io_queue q;
	struct fake_ring rx;
	void (*hook)(void *arg);
	void *hook_arg;
	unsigned drop_every, dup_every, swap_every;
	/* Delivery of what this side sends: delay cycles after the tx, and
	 * held until hold_len into each hold_period (io_fake_set_hold). */
	uint64_t delay, hold_period, hold_len;
	struct rte_mbuf *swapped; /* held back, goes after the next frame */
	uint64_t swapped_due;
	uint64_t rx_ol_flags; /* set on every frame this side receives */
	/* A NIC clock stamping the frames this side receives (0: none). */
	double nic_ticks_per_cycle;
	uint64_t nic_offset;
	/* io_fake_pin_clock: this side's clocks read these instead. */
	bool pinned;
	uint64_t pin_rx, pin_tx;
	uint64_t tx_count;
	void (*watch)(void *arg, const uint8_t *frame, size_t len);
	void *watch_arg;
	unsigned in_hook;
	unsigned alloc_fails; /* io_fake_fail_alloc: allocs left to fail */
	/* io_fake_stall: [stall_next, n_stalls) still to come */
	uint64_t stall_at[IO_FAKE_MAX_STALLS], stall_len[IO_FAKE_MAX_STALLS];
	unsigned n_stalls, stall_next;
	/* io_fake_set_call_time: cycles each rx/tx call takes inside; and
	 * io_fake_call_stall: [cstall_next, n_cstalls) still to come. */
	uint64_t call_rx, call_tx;
	bool after_call; /* the next clock read is the one right after a call */
	uint64_t cstall_at[IO_FAKE_MAX_STALLS], cstall_len[IO_FAKE_MAX_STALLS];
	unsigned n_cstalls, cstall_next;
	struct io_fake *f;
};

struct io_fake {
	struct fake_side side[2];
	struct io_pool pool;
	uint64_t now, tick;
};

static struct fake_side *
side_of(struct io_queue *q)
{
	return q->priv;
}

static int
ring_put_due(struct fake_ring *r, struct rte_mbuf *m, uint64_t due)
{
	if (r->tail - r->head == FAKE_RING)
		return -ENOBUFS;
	/* Due times stay in ring order: rx stops at the first not due. */
	if (r->tail != r->head && due < r->due[(r->tail - 1) % FAKE_RING])
		due = r->due[(r->tail - 1) % FAKE_RING];
	r->due[r->tail % FAKE_RING] = due;
	r->slot[r->tail++ % FAKE_RING] = m;
	return 0;
}

static int
ring_put(struct fake_ring *r, struct rte_mbuf *m)
{
	return ring_put_due(r, m, 0);
}

/* When a frame side sends now reaches its peer's rx. */
static uint64_t
due_of(const struct fake_side *s, uint64_t now)
{
	uint64_t due = now + s->delay;

	if (s->hold_period != 0 && now % s->hold_period < s->hold_len) {
		uint64_t end = now - now % s->hold_period + s->hold_len;

		if (end > due)
			due = end;
	}
	return due;
}

static struct rte_mbuf *
fake_alloc_raw(struct io_fake *f)
{
	return io_pool_get(&f->pool);
}

static void
fake_free_raw(struct io_fake *f, struct rte_mbuf *m)
{
	io_pool_put(&f->pool, m);
}

static struct rte_mbuf *
fake_alloc(struct io_queue *q)
{
	struct fake_side *s = side_of(q);

	if (s->alloc_fails != 0) {
		s->alloc_fails--;
		return NULL;
	}
	return fake_alloc_raw(s->f);
}

void
io_fake_fail_alloc(struct io_fake *f, unsigned side, unsigned n)
{
	f->side[side].alloc_fails = n;
}

static void
fake_free(struct io_queue *q, struct rte_mbuf *m)
{
	fake_free_raw(side_of(q)->f, m);
}

/* The time a call of side s takes inside (io_fake_set_call_time), and an
 * injected stall inside it (io_fake_call_stall). */
static void
call_time(struct fake_side *s, uint64_t cycles)
{
	struct io_fake *f = s->f;

	if (s->pinned)
		return;
	f->now += cycles;
	if (s->cstall_next < s->n_cstalls &&
	    f->now >= s->cstall_at[s->cstall_next])
		f->now += s->cstall_len[s->cstall_next++];
}

static uint16_t
fake_rx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct fake_side *s = side_of(q);
	struct fake_ring *r = &s->rx;
	uint16_t i = 0;

	call_time(s, s->call_rx);
	s->after_call = true;
	while (i < n && r->head != r->tail &&
	       r->due[r->head % FAKE_RING] <= s->f->now) {
		pkts[i] = r->slot[r->head++ % FAKE_RING];
		/* Keep the stamp bit fake_tx set (or cleared). */
		pkts[i]->ol_flags =
			s->rx_ol_flags | (pkts[i]->ol_flags & q->rx_ts_flag);
		i++;
	}
	return i;
}

static struct rte_mbuf *
fake_clone(struct io_fake *f, const struct rte_mbuf *m)
{
	struct rte_mbuf *c = fake_alloc_raw(f);

	if (c == NULL)
		return NULL;
	memcpy(rte_pktmbuf_mtod(c, void *), rte_pktmbuf_mtod(m, const void *),
	       m->data_len);
	io_mbuf_set_len(c, m->data_len);
	return c;
}

static uint64_t
nic_ticks(const struct fake_side *s, uint64_t now)
{
	return s->nic_offset + (uint64_t)((double)now * s->nic_ticks_per_cycle);
}

/* The receiving NIC stamps the frame as it comes off the wire: now. */
static void
nic_stamp(struct fake_side *to, struct rte_mbuf *m)
{
	uint64_t flag = to->q.rx_ts_flag;

	m->ol_flags &= ~IO_FAKE_RX_TS_FLAG;
	if (flag == 0)
		return;
	*RTE_MBUF_DYNFIELD(m, to->q.rx_ts_off, uint64_t *) =
		nic_ticks(to, to->f->now);
	m->ol_flags |= flag;
}

static int
fake_read_nic_clock(struct io_queue *q, uint64_t *ticks)
{
	struct fake_side *s = side_of(q);

	if (s->q.rx_ts_flag == 0)
		return -ENOTSUP;
	s->f->now += s->f->tick;
	*ticks = nic_ticks(s, s->f->now);
	return 0;
}

static uint16_t
fake_tx(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	struct fake_side *s = side_of(q);
	struct io_fake *f = s->f;
	struct fake_side *peer = &f->side[s == &f->side[0] ? 1 : 0];
	uint16_t i;

	call_time(s, s->call_tx);
	s->after_call = true;
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t due = due_of(s, f->now);

		s->tx_count++;
		if (s->watch != NULL)
			s->watch(s->watch_arg, rte_pktmbuf_mtod(m, uint8_t *),
				 m->data_len);
		if (s->drop_every && s->tx_count % s->drop_every == 0) {
			fake_free_raw(f, m);
			continue;
		}
		if (s->dup_every && s->tx_count % s->dup_every == 0) {
			struct rte_mbuf *c = fake_clone(f, m);

			if (c != NULL)
				nic_stamp(peer, c);
			if (c != NULL && ring_put_due(&peer->rx, c, due) != 0)
				fake_free_raw(f, c);
		}
		nic_stamp(peer, m);
		if (s->swap_every && s->swapped == NULL &&
		    s->tx_count % s->swap_every == 0) {
			s->swapped = m; /* overtaken by the next one */
			s->swapped_due = due;
			continue;
		}
		if (ring_put_due(&peer->rx, m, due) != 0)
			fake_free_raw(f, m); /* a full ring drops, like a NIC */
		if (s->swapped != NULL) {
			if (ring_put_due(&peer->rx, s->swapped,
					 s->swapped_due) != 0)
				fake_free_raw(f, s->swapped);
			s->swapped = NULL;
		}
	}
	/* The peer answers at once; no re-entry from its own tx. */
	if (s->hook != NULL && !s->in_hook) {
		s->in_hook = 1;
		s->hook(s->hook_arg);
		s->in_hook = 0;
	}
	return n;
}

static uint64_t
fake_clock(struct io_queue *q)
{
	struct fake_side *s = side_of(q);
	struct io_fake *f = s->f;

	if (s->pinned)
		return s->pin_rx;
	f->now += f->tick;
	/* A read right after an rx/tx call closes that call: a stall taken
	 * there would be inside it. */
	if (s->after_call)
		s->after_call = false;
	else if (s->stall_next < s->n_stalls &&
		 f->now >= s->stall_at[s->stall_next])
		f->now += s->stall_len[s->stall_next++];
	return f->now;
}

int
io_fake_stall(struct io_fake *f, unsigned side, uint64_t at, uint64_t len)
{
	struct fake_side *s = &f->side[side];

	if (s->n_stalls == IO_FAKE_MAX_STALLS)
		return -ENOSPC;
	if (s->n_stalls > 0 && at < s->stall_at[s->n_stalls - 1])
		return -EINVAL;
	s->stall_at[s->n_stalls] = at;
	s->stall_len[s->n_stalls++] = len;
	return 0;
}

void
io_fake_set_call_time(struct io_fake *f, unsigned side, uint64_t rx_cycles,
		      uint64_t tx_cycles, bool path_calls)
{
	f->side[side].call_rx = rx_cycles;
	f->side[side].call_tx = tx_cycles;
	f->side[side].q.path_calls = path_calls;
}

int
io_fake_call_stall(struct io_fake *f, unsigned side, uint64_t at, uint64_t len)
{
	struct fake_side *s = &f->side[side];

	if (s->n_cstalls == IO_FAKE_MAX_STALLS)
		return -ENOSPC;
	if (s->n_cstalls > 0 && at < s->cstall_at[s->n_cstalls - 1])
		return -EINVAL;
	s->cstall_at[s->n_cstalls] = at;
	s->cstall_len[s->n_cstalls++] = len;
	return 0;
}

unsigned
io_fake_call_stalls_taken(const struct io_fake *f, unsigned side)
{
	return f->side[side].cstall_next;
}

unsigned
io_fake_stalls_taken(const struct io_fake *f, unsigned side)
{
	return f->side[side].stall_next;
}

static uint64_t
fake_clock_start(struct io_queue *q)
{
	struct fake_side *s = side_of(q);

	if (!s->pinned)
		return fake_clock(q);
	/* Time moves on to T3: what is read after it is not before it. */
	s->pin_rx = s->pin_tx;
	return s->pin_tx;
}

static const struct io_ops fake_ops = {
	.name = "fake",
	.rx_burst = fake_rx,
	.tx_burst = fake_tx,
	.alloc = fake_alloc,
	.free = fake_free,
	.clock_start = fake_clock_start,
	.clock_end = fake_clock,
	.clock = fake_clock,
	.read_nic_clock = fake_read_nic_clock,
};

struct io_fake *
io_fake_create(unsigned n_mbufs, uint16_t mtu)
{
	struct io_fake *f = calloc(1, sizeof(*f));

	if (f == NULL)
		return NULL;
	if (io_pool_init(&f->pool, n_mbufs, FAKE_BUF_SIZE,
			 RTE_PKTMBUF_HEADROOM) != 0) {
		io_fake_destroy(f);
		errno = ENOMEM;
		return NULL;
	}
	f->tick = 100;
	for (unsigned s = 0; s < 2; s++) {
		f->side[s].f = f;
		f->side[s].q.ops = &fake_ops;
		f->side[s].q.priv = &f->side[s];
		f->side[s].q.queue_id = 0;
		f->side[s].q.port_id = (uint16_t)s;
		f->side[s].q.mtu = mtu;
	}
	return f;
}

void
io_fake_destroy(struct io_fake *f)
{
	if (f == NULL)
		return;
	for (unsigned s = 0; s < 2; s++)
		if (f->side[s].swapped != NULL)
			fake_free_raw(f, f->side[s].swapped);
	io_pool_fini(&f->pool);
	free(f);
}

struct io_queue *
io_fake_queue(struct io_fake *f, unsigned side)
{
	return &f->side[side & 1].q;
}

void
io_fake_set_peer(struct io_fake *f, unsigned side, void (*hook)(void *arg),
		 void *arg)
{
	f->side[side & 1].hook = hook;
	f->side[side & 1].hook_arg = arg;
}

void
io_fake_set_tx_watch(struct io_fake *f, unsigned side,
		     void (*fn)(void *arg, const uint8_t *frame, size_t len),
		     void *arg)
{
	f->side[side & 1].watch = fn;
	f->side[side & 1].watch_arg = arg;
}

void
io_fake_set_tick(struct io_fake *f, uint64_t cycles)
{
	f->tick = cycles;
}

void
io_fake_advance(struct io_fake *f, uint64_t cycles)
{
	f->now += cycles;
}

uint64_t
io_fake_now(const struct io_fake *f)
{
	return f->now;
}

void
io_fake_set_drop_every(struct io_fake *f, unsigned side, unsigned n)
{
	f->side[side & 1].drop_every = n;
}

void
io_fake_set_dup_every(struct io_fake *f, unsigned side, unsigned n)
{
	f->side[side & 1].dup_every = n;
}

void
io_fake_set_swap_every(struct io_fake *f, unsigned side, unsigned n)
{
	f->side[side & 1].swap_every = n;
}

void
io_fake_set_delay(struct io_fake *f, unsigned side, uint64_t cycles)
{
	f->side[side & 1].delay = cycles;
}

void
io_fake_set_hold(struct io_fake *f, unsigned side, uint64_t period,
		 uint64_t hold)
{
	f->side[side & 1].hold_period = period;
	f->side[side & 1].hold_len = hold;
}

const uint64_t io_fake_rx_ol_cases[IO_FAKE_RX_OL_CASES] = {
	0,
	RTE_MBUF_F_RX_IP_CKSUM_GOOD,
	RTE_MBUF_F_RX_IP_CKSUM_BAD,
	RTE_MBUF_F_RX_L4_CKSUM_GOOD,
	RTE_MBUF_F_RX_L4_CKSUM_BAD,
	RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_GOOD,
	RTE_MBUF_F_RX_IP_CKSUM_NONE | RTE_MBUF_F_RX_L4_CKSUM_NONE,
	RTE_MBUF_F_RX_IP_CKSUM_GOOD | RTE_MBUF_F_RX_L4_CKSUM_NONE,
	RTE_MBUF_F_RX_IP_CKSUM_NONE,
};

void
io_fake_set_rx_ol_flags(struct io_fake *f, unsigned side, uint64_t ol_flags)
{
	f->side[side & 1].rx_ol_flags = ol_flags;
}

void
io_fake_pin_clock(struct io_fake *f, unsigned side, uint64_t rx_at,
		  uint64_t tx_at)
{
	struct fake_side *s = &f->side[side & 1];

	s->pinned = true;
	s->pin_rx = rx_at;
	s->pin_tx = tx_at;
}

void
io_fake_set_nic_clock(struct io_fake *f, unsigned side, double ticks_per_cycle,
		      uint64_t offset)
{
	struct fake_side *s = &f->side[side & 1];

	s->nic_ticks_per_cycle = ticks_per_cycle;
	s->nic_offset = offset;
	/* In the dynamic field area, 8-byte aligned as DPDK would place it. */
	s->q.rx_ts_off =
		(int)((offsetof(struct rte_mbuf, dynfield1) + 7) & ~(size_t)7);
	s->q.rx_ts_flag = ticks_per_cycle > 0 ? IO_FAKE_RX_TS_FLAG : 0;
}

int
io_fake_inject(struct io_fake *f, unsigned side, const void *frame, size_t len)
{
	struct rte_mbuf *m;

	if (len > FAKE_BUF_SIZE - RTE_PKTMBUF_HEADROOM)
		return -EMSGSIZE;
	m = fake_alloc_raw(f);
	if (m == NULL)
		return -ENOBUFS;
	memcpy(rte_pktmbuf_mtod(m, void *), frame, len);
	io_mbuf_set_len(m, (uint16_t)len);
	m->ol_flags &= ~IO_FAKE_RX_TS_FLAG; /* no NIC saw it */
	if (ring_put(&f->side[side & 1].rx, m) != 0) {
		fake_free_raw(f, m);
		return -ENOBUFS;
	}
	return 0;
}

uint64_t
io_fake_tx_count(const struct io_fake *f, unsigned side)
{
	return f->side[side & 1].tx_count;
}

unsigned
io_fake_mbufs_in_use(const struct io_fake *f)
{
	return io_pool_in_use(&f->pool);
}
