/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_EXIT_H
#define LATPROBE_EXIT_H

/* Documented exit codes (docs/usage.md). */
enum {
	EXIT_OK = 0,
	EXIT_RUNTIME = 1,      /* a worker, a report write or flush failed */
	EXIT_USAGE = 2,	       /* bad flags, arguments or output paths */
	EXIT_UNREACHABLE = 3,  /* no ARP answer from the peer */
	EXIT_SETUP = 4,	       /* EAL or port set-up failed, link down */
	EXIT_ALL_LOST = 5,     /* probes were sent and none was answered */
	EXIT_TSC = 6,	       /* the TSC cannot be used as a clock */
	EXIT_SLOWER = 7,       /* compare: --fail-if-slower tripped */
	EXIT_PORT_REMOVED = 8, /* the port's device was removed mid-run */
};

/* A second SIGINT/SIGTERM exits at once with 128 + the signal's number. */

#endif /* LATPROBE_EXIT_H */
