/* SPDX-License-Identifier: BSD-3-Clause */
#include "sigrule.h"

/* The signal and the pid that sent it in one word: never 0 (sig > 0). */
static unsigned long long
who_of(int sig, int pid)
{
	return (unsigned long long)(unsigned)pid << 32 | (unsigned)sig;
}

bool
app_sig_claim(struct app_sig_first *f, int sig, int pid)
{
	unsigned long long none = 0;

	return atomic_compare_exchange_strong(&f->who, &none, who_of(sig, pid));
}

enum app_sig_verdict
app_sig_rule(struct app_sig_first *f, int sig, int pid, long long now_ns)
{
	long long t0;

	/* One atomic step records the signal and its sender together: a
	 * duplicate on another thread never sees the one without the other. */
	if (app_sig_claim(f, sig, pid)) {
		atomic_store(&f->ns, now_ns);
		return APP_SIG_FIRST;
	}
	t0 = atomic_load(&f->ns);
	if (pid != 0 && atomic_load(&f->who) == who_of(sig, pid) &&
	    (t0 == 0 || now_ns - t0 < APP_SIG_REPEAT_NS))
		return APP_SIG_REPEAT;
	return APP_SIG_AGAIN;
}
