/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --hw-timestamps in the prober: the NIC's rx timestamp of each answer,
 * mapped onto the TSC (nic_clock), gives the answer's arrival as the NIC
 * saw it. DPDK's ethdev gives no tx timestamps, so the NIC-clock RTT is
 * the rx side only: NIC rx time of the answer (T4 from the NIC) - T1 (TSC
 * before tx). T4 (TSC after rx) - that NIC time is the difference of the
 * two clocks' views of the same arrival: DMA, the rx ring, the poll.
 */
#include <errno.h>

#include "latprobe/prober.h"

void
prober_hw_init(struct prober_worker *w)
{
	histogram_init(&w->hw_rtt);
	histogram_init(&w->hw_rx_delay);
	nic_clock_reset(&w->nic);
}

/* A pair (TSC, NIC clock), best of 5; counted. */
static int
sample(struct prober_worker *w)
{
	int ret =
		nic_clock_sample(&w->nic, 5, io_nic_clock_cb, io_tsc_cb, w->q);

	w->hw_last_sample = io_clock(w->q);
	if (ret != 0) {
		w->hw.sample_fail++;
		return ret;
	}
	w->hw.samples++;
	return 0;
}

/* Two pairs hw_calib_cycles apart: the rate and offset to start with. */
int
prober_hw_start(struct prober_worker *w)
{
	const struct prober_conf *c = w->conf;
	uint64_t t0;
	int ret;

	if (w->q->rx_ts_flag == 0 || w->q->ops->read_nic_clock == NULL)
		return -ENOTSUP;
	ret = sample(w);
	if (ret != 0)
		return ret;
	t0 = io_clock(w->q);
	while (io_clock(w->q) - t0 < c->hw_calib_cycles)
		;
	return sample(w);
}

void
prober_hw_resample(struct prober_worker *w, uint64_t now)
{
	if (now - w->hw_last_sample >= w->conf->hw_resample_cycles)
		(void)sample(w); /* a failed read keeps the previous pairs */
}

void
prober_hw_rx(struct prober_worker *w, const struct rte_mbuf *m)
{
	uint64_t ticks;

	w->hw_t4_ok = nic_clock_ready(&w->nic) && io_rx_nic_ts(w->q, m, &ticks);
	if (w->hw_t4_ok)
		w->hw_t4 = nic_clock_to_tsc(&w->nic, ticks);
}

void
prober_hw_record(struct prober_worker *w, uint64_t t1, uint64_t t4)
{
	const struct tsc_clock *clk = &w->conf->clock;

	if (!w->hw_t4_ok) {
		w->hw.unstamped++;
		return;
	}
	if (w->hw_t4 < t1 || w->hw_t4 > t4) {
		w->hw.outside++;
		return;
	}
	w->hw.stamped++;
	histogram_record(&w->hw_rtt, tsc_to_ns(clk, w->hw_t4 - t1));
	histogram_record(&w->hw_rx_delay, tsc_to_ns(clk, t4 - w->hw_t4));
}
