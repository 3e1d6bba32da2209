/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --hw-timestamps in the reflector: T2 is the NIC's rx timestamp of the
 * burst's first stamped frame, mapped onto the TSC (nic_clock), so the
 * STAMP answer's receive timestamp and the turnaround start when the NIC
 * saw the request, not when the poll loop did. TSC T2 - NIC T2 is kept as
 * a figure of its own (the rx path: DMA, the ring, the poll).
 */
#include <errno.h>

#include "latprobe/reflector.h"

void
reflector_hw_init(struct reflector_worker *w)
{
	histogram_init(&w->hw_rx_delay);
	nic_clock_reset(&w->nic);
}

void
reflector_hw_rebase(struct reflector_worker *w)
{
	nic_clock_reset(&w->nic);
	w->hw_last_sample = 0;
}

/* Off the answers' path (idle, or after the burst was sent): read the
 * NIC clock when due. */
void
reflector_hw_after(struct reflector_worker *w)
{
	const struct reflector_conf *c = w->conf;
	uint64_t every = nic_clock_ready(&w->nic) ? c->hw_resample_cycles
						  : c->hw_calib_cycles;

	/* The first read at once; after a failure, wait as for a second. */
	if ((w->nic.n_pairs != 0 || w->hw.sample_fail != 0) &&
	    io_clock(w->q) - w->hw_last_sample < every)
		return;
	if (nic_clock_sample(&w->nic, 5, io_nic_clock_cb, io_tsc_cb, w->q) == 0)
		w->hw.samples++;
	else
		w->hw.sample_fail++;
	w->hw_last_sample = io_clock(w->q);
}

uint64_t
reflector_hw_t2(struct reflector_worker *w, struct rte_mbuf **rx, uint16_t n,
		uint64_t t2)
{
	uint64_t ticks, nic_t2;

	if (!nic_clock_ready(&w->nic)) {
		w->hw.unstamped++;
		return t2;
	}
	for (uint16_t i = 0; i < n; i++) {
		if (!io_rx_nic_ts(w->q, rx[i], &ticks))
			continue;
		nic_t2 = nic_clock_to_tsc(&w->nic, ticks);
		if (nic_t2 > t2) {
			w->hw.outside++;
			return t2;
		}
		w->hw.stamped++;
		histogram_record(&w->hw_rx_delay,
				 tsc_to_ns(&w->conf->clock, t2 - nic_t2));
		return nic_t2;
	}
	w->hw.unstamped++;
	return t2;
}
