/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_IO_FAKE_H
#define LATPROBE_IO_FAKE_H

/*
 * In-memory wire for engine tests: two io_queues joined back to back (what
 * one sends, the other receives), hand-made mbufs without EAL, a fake clock
 * that advances by a fixed step per read, and hooks to drop, duplicate or
 * inject frames. Single-threaded: a tx on one side may call a peer hook
 * that polls the other side at once (e.g. a reflector's poll function).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "latprobe/io.h"

struct io_fake;

/* n_mbufs buffers of 2 KiB each; NULL with errno on failure. */
struct io_fake *io_fake_create(unsigned n_mbufs, uint16_t mtu);
void io_fake_destroy(struct io_fake *f);

/* Side 0 and side 1 of the wire. */
struct io_queue *io_fake_queue(struct io_fake *f, unsigned side);

/* Called after every tx on `side` (with what was sent). */
void io_fake_set_peer(struct io_fake *f, unsigned side, void (*hook)(void *arg),
		      void *arg);

/* Called with every frame side transmits, as it goes on the wire (before
 * any drop or duplicate); fn NULL: none. */
void io_fake_set_tx_watch(struct io_fake *f, unsigned side,
			  void (*fn)(void *arg, const uint8_t *frame,
				     size_t len),
			  void *arg);

/* Clock: cycles per read (default 100); io_fake_advance moves it on. */
void io_fake_set_tick(struct io_fake *f, uint64_t cycles);
void io_fake_advance(struct io_fake *f, uint64_t cycles);
uint64_t io_fake_now(const struct io_fake *f);

/*
 * A stall of side's worker between PMD calls: the first read of side's
 * clock at or after `at` (the shared clock) that does not close an rx/tx
 * call (the read right after one) moves the clock on by len cycles before
 * it returns, as if the worker had lost its CPU for that long right before
 * that read. Up to IO_FAKE_MAX_STALLS per side, given in order of at.
 * -ENOSPC when full, -EINVAL when not in order.
 */
#define IO_FAKE_MAX_STALLS 64
int io_fake_stall(struct io_fake *f, unsigned side, uint64_t at, uint64_t len);
/* Stalls of side injected so far (taken by a clock read). */
unsigned io_fake_stalls_taken(const struct io_fake *f, unsigned side);

/*
 * A PMD whose calls take time inside (a kernel-entering one: af_xdp's
 * syscalls, a veth's path): every rx call of side moves the clock on by
 * rx_cycles, every tx call by tx_cycles, and side's queue says whether its
 * calls run the packet's path (io_queue.path_calls).
 */
void io_fake_set_call_time(struct io_fake *f, unsigned side, uint64_t rx_cycles,
			   uint64_t tx_cycles, bool path_calls);
/* A stall inside a call: the first rx or tx call of side at or after `at`
 * moves the clock on by len (as io_fake_stall, but inside the PMD). */
int io_fake_call_stall(struct io_fake *f, unsigned side, uint64_t at,
		       uint64_t len);
unsigned io_fake_call_stalls_taken(const struct io_fake *f, unsigned side);

/* Drop every nth frame sent by side (0 = none); duplicate likewise. */
void io_fake_set_drop_every(struct io_fake *f, unsigned side, unsigned n);
void io_fake_set_dup_every(struct io_fake *f, unsigned side, unsigned n);
/* Every nth frame sent by side is held back and goes right after the next
 * one (reordered); 0 = none. */
void io_fake_set_swap_every(struct io_fake *f, unsigned side, unsigned n);
/*
 * Timing of what side sends (fake clock cycles): it reaches the peer's rx
 * delay cycles after the tx; and a frame sent during the first hold cycles
 * of each period (now % period < hold) waits until that hold is over (a
 * path that stalls once a period). Frames keep their order. 0 = none.
 */
void io_fake_set_delay(struct io_fake *f, unsigned side, uint64_t cycles);
void io_fake_set_hold(struct io_fake *f, unsigned side, uint64_t period,
		      uint64_t hold);
/* The rx offload flags (RTE_MBUF_F_RX_*_CKSUM_*) of every frame side
 * receives from now on, as a NIC that checks checksums sets them. */
void io_fake_set_rx_ol_flags(struct io_fake *f, unsigned side,
			     uint64_t ol_flags);
/* What such a NIC may say of a frame: nothing, IP or L4 sum good or bad,
 * both good, both NONE (verified, sums left partial: virtio), L4 NONE
 * with IP good, IP NONE alone. */
#define IO_FAKE_RX_OL_CASES 9
extern const uint64_t io_fake_rx_ol_cases[IO_FAKE_RX_OL_CASES];

/*
 * Pin side's clock: its clock and clock_end (the end of an rx burst, a
 * reflector's T2) read rx_at and its clock_start (before a tx, T3) tx_at,
 * and reading them moves nothing. For two engines compared at the same
 * instants (the reflector's fast path against its generic path).
 */
void io_fake_pin_clock(struct io_fake *f, unsigned side, uint64_t rx_at,
		       uint64_t tx_at);

/*
 * A NIC clock on side: every frame side receives carries an rx timestamp
 * (io_rx_nic_ts) of the moment it was sent to it, in ticks = offset + now *
 * ticks_per_cycle of the fake clock (a skewed, offset clock), and side's
 * queue reads that clock (read_nic_clock). ticks_per_cycle 0: none.
 */
#define IO_FAKE_RX_TS_FLAG (1ull << 30)
void io_fake_set_nic_clock(struct io_fake *f, unsigned side,
			   double ticks_per_cycle, uint64_t offset);

/* Put raw bytes on the rx ring of side, as if they came off the wire. */
int io_fake_inject(struct io_fake *f, unsigned side, const void *frame,
		   size_t len);

/* The next n io_alloc() calls on side's queue return NULL (a pool that
 * ran dry for a moment). */
void io_fake_fail_alloc(struct io_fake *f, unsigned side, unsigned n);

/* Frames sent by side so far, and mbufs currently not in the pool. */
uint64_t io_fake_tx_count(const struct io_fake *f, unsigned side);
unsigned io_fake_mbufs_in_use(const struct io_fake *f);

#endif /* LATPROBE_IO_FAKE_H */
