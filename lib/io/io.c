/* SPDX-License-Identifier: BSD-3-Clause */
#include "latprobe/io.h"

uint16_t
io_tx_all(struct io_queue *q, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t sent = io_tx(q, pkts, n);

	for (uint16_t i = sent; i < n; i++)
		io_free(q, pkts[i]);
	return sent;
}
