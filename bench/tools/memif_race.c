/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The minimal reproducer of DPDK's memif disconnect race (docs/design.md,
 * "memif disconnect"): plain DPDK, no latprobe engine. Two processes on one
 * memif socket:
 *
 *   memif_race [EAL] -- poll [gate]     (role=server) one lcore polls rx
 *                                       in a loop; the EAL interrupt
 *                                       thread is put on that lcore's CPU
 *   memif_race [EAL] -- cycle ROUNDS    (role=client) start the port, wait
 *                                       for the link, stop it (a
 *                                       disconnect), ROUNDS times
 *
 * On each disconnect the poller's interrupt thread runs memif_disconnect():
 * it clears the "connected" flag, then munmap()s the rings. Sharing the
 * lcore's CPU, it runs only by preempting the polling lcore, at whatever
 * instruction that is: when it is inside eth_memif_rx() after the flag
 * test, the lcore resumes on an unmapped ring and dies of SIGSEGV (exit
 * 139 from the shell). With "gate" each burst runs inside lib/port/gate.h's
 * gate and the poller lives. The poller ends (exit 0) when no client has
 * been connected for 3 s. tests/integration/memif_race.sh runs both, with
 * and without the gate.
 */
#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>

#include "latprobe/gate.h"

static volatile bool stop;
static struct gate_slot *slot; /* NULL: no gate */
static uint64_t polls;

static int
port_setup(struct rte_mempool *mp)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(0, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(0, 0, 256, rte_socket_id(), NULL, mp) != 0 ||
	    rte_eth_tx_queue_setup(0, 0, 256, rte_socket_id(), NULL) != 0)
		return -1;
	return 0;
}

static bool
link_up(void)
{
	struct rte_eth_link l;

	return rte_eth_link_get_nowait(0, &l) == 0 &&
	       l.link_status == RTE_ETH_LINK_UP;
}

static void
sleep_ms(long ms)
{
	struct timespec d = {.tv_sec = ms / 1000,
			     .tv_nsec = ms % 1000 * 1000000};

	nanosleep(&d, NULL);
}

static int
poller(void *arg)
{
	struct rte_mbuf *pkts[32];

	(void)arg;
	while (!stop) {
		uint16_t n;

		if (slot != NULL && !gate_enter(slot))
			continue;
		n = rte_eth_rx_burst(0, 0, pkts, 32);
		if (slot != NULL)
			gate_leave(slot);
		rte_pktmbuf_free_bulk(pkts, n);
		polls++;
	}
	return 0;
}

/* Put the EAL interrupt thread on cpu (found by its name). */
static int
intr_thread_to(unsigned cpu)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int found = -1;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		char path[300], comm[32] = "";
		FILE *f;
		cpu_set_t set;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 e->d_name);
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(comm, sizeof(comm), f) == NULL)
			comm[0] = '\0';
		fclose(f);
		if (strncmp(comm, "eal-intr-thread", 15) != 0 &&
		    strncmp(comm, "dpdk-intr", 9) != 0)
			continue;
		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		found = sched_setaffinity(atoi(e->d_name), sizeof(set), &set);
	}
	closedir(d);
	return found;
}

static int
run_cycle(unsigned rounds)
{
	unsigned done = 0;

	for (unsigned r = 0; r < rounds; r++) {
		if (rte_eth_dev_start(0) != 0) {
			printf("memif_race cycle: %u rounds connected, then no "
			       "server\n",
			       done);
			return 1;
		}
		for (int i = 0; i < 2000 && !link_up(); i++)
			sleep_ms(1);
		if (link_up())
			done++;
		sleep_ms(20); /* the client polls a connected ring */
		if (rte_eth_dev_stop(0) != 0)
			return 1;
		sleep_ms(5);
	}
	printf("memif_race cycle: %u of %u rounds connected\n", done, rounds);
	return done == rounds ? 0 : 1;
}

static int
run_poll(void)
{
	unsigned worker = rte_get_next_lcore(-1, 1, 0), ups = 0, idle = 0;
	bool was_up = false;

	if (worker == RTE_MAX_LCORE) {
		fprintf(stderr, "memif_race poll: wants 2 lcores (-l 0,1)\n");
		return 1;
	}
	if (intr_thread_to(rte_lcore_to_cpu_id((int)worker)) != 0) {
		fprintf(stderr, "memif_race poll: no EAL interrupt thread\n");
		return 1;
	}
	if (rte_eth_dev_start(0) != 0)
		return 1;
	rte_eal_remote_launch(poller, NULL, worker);
	/* Until no client for 3 s (after its last round). */
	while (idle < 3000) {
		bool up = link_up();

		ups += up && !was_up;
		was_up = up;
		idle = up ? 0 : idle + 1;
		sleep_ms(1);
	}
	stop = true;
	rte_eal_wait_lcore(worker);
	printf("memif_race poll: %u connections, %llu polls, %s: alive\n", ups,
	       (unsigned long long)polls, slot != NULL ? "gated" : "no gate");
	return ups > 0 ? 0 : 1;
}

int
main(int argc, char **argv)
{
	struct rte_mempool *mp;
	int n = rte_eal_init(argc, argv), ret;

	if (n < 0)
		return 1;
	argc -= n;
	argv += n;
	if (argc < 2 ||
	    (strcmp(argv[1], "poll") != 0 && strcmp(argv[1], "cycle") != 0)) {
		fprintf(stderr, "usage: memif_race [EAL] -- poll [gate] | "
				"cycle ROUNDS\n");
		return 2;
	}
	mp = rte_pktmbuf_pool_create(
		"mp", 4095, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
	if (mp == NULL || rte_eth_dev_count_avail() != 1 || port_setup(mp))
		return 1;
	if (strcmp(argv[1], "cycle") == 0) {
		ret = run_cycle(argc > 2 ? (unsigned)atoi(argv[2]) : 50);
	} else {
		if (argc > 2 && strcmp(argv[2], "gate") == 0) {
			gate_set_racer(rte_thread_is_intr);
			slot = gate_slot_get();
		}
		ret = run_poll();
	}
	rte_eth_dev_close(0);
	rte_eal_cleanup();
	return ret;
}
