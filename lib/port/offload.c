/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>

#include <rte_ethdev.h>

#include "latprobe/offload.h"

#define RX_WANT                                                                \
	(RTE_ETH_RX_OFFLOAD_IPV4_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |        \
	 RTE_ETH_RX_OFFLOAD_TCP_CKSUM)
/* Only UDP: the reflector answers UDP; the prober's probes and its TCP
 * RSTs are summed from templates in a few instructions. */
#define TX_WANT RTE_ETH_TX_OFFLOAD_UDP_CKSUM

void
port_csum_pick(uint64_t rx_capa, uint64_t tx_capa, struct port_csum *c)
{
	c->rx = rx_capa & RX_WANT;
	c->tx = tx_capa & TX_WANT;
}

int
port_csum_names(const struct port_csum *c, int rx, char *buf, size_t cap)
{
	static const struct {
		uint64_t rx, tx;
		const char *name;
	} tab[] = {
		{RTE_ETH_RX_OFFLOAD_IPV4_CKSUM, RTE_ETH_TX_OFFLOAD_IPV4_CKSUM,
		 "ipv4"},
		{RTE_ETH_RX_OFFLOAD_UDP_CKSUM, RTE_ETH_TX_OFFLOAD_UDP_CKSUM,
		 "udp"},
		{RTE_ETH_RX_OFFLOAD_TCP_CKSUM, RTE_ETH_TX_OFFLOAD_TCP_CKSUM,
		 "tcp"},
	};
	uint64_t have = rx ? c->rx : c->tx;
	size_t len = 0;

	if (cap > 0)
		buf[0] = '\0';
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++) {
		int n;

		if ((have & (rx ? tab[i].rx : tab[i].tx)) == 0)
			continue;
		n = snprintf(len < cap ? buf + len : NULL,
			     len < cap ? cap - len : 0, "%s%s", len ? "," : "",
			     tab[i].name);
		if (n < 0)
			return n;
		len += (size_t)n;
	}
	return (int)len;
}
