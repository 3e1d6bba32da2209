/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LATPROBE_SIGRULE_H
#define LATPROBE_SIGRULE_H

/*
 * The same-signal rule of SIGINT/SIGTERM (app_signals_install()): the first
 * one asks the workers to stop, the same signal again from the same process
 * within APP_SIG_REPEAT_NS is that first one delivered twice (timeout(1)
 * sends it to the command and to its process group), anything else is a
 * second request (exit at once). Pure and async-signal-safe (lock-free
 * atomics only), so that it is unit-tested apart from the handler.
 */

#include <stdatomic.h>
#include <stdbool.h>

#define APP_SIG_REPEAT_NS 1000000000ll

struct app_sig_first {
	/* The first signal's number in the low 32 bits, the pid that sent
	 * it (0: not kill(2)'s) in the high ones; 0: none yet. */
	atomic_ullong who;
	atomic_llong ns; /* when (CLOCK_MONOTONIC ns); 0 until stored */
};

enum app_sig_verdict {
	APP_SIG_FIRST,	/* the first: stop the workers */
	APP_SIG_REPEAT, /* the first delivered twice: ignore */
	APP_SIG_AGAIN,	/* a second request: exit now */
};

/* sig from pid (0: not from kill(2)) at now_ns (> 0). */
enum app_sig_verdict app_sig_rule(struct app_sig_first *f, int sig, int pid,
				  long long now_ns);

/*
 * app_sig_rule()'s first step, apart for the test of a handler preempted
 * right after it: true when this is the first signal (recorded; its time
 * not yet).
 */
bool app_sig_claim(struct app_sig_first *f, int sig, int pid);

#endif
