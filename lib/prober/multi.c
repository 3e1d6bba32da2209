/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>

#include "latprobe/prober.h"

struct turn {
	uint64_t answered;   /* st.answered before the worker's last step */
	unsigned dead;	     /* consecutive unanswered probes (warm-up too) */
	uint64_t rest_until; /* cycles; 0 = may go */
	bool done;
};

int
prober_multi_run(struct prober_worker *const *ws, unsigned n,
		 uint64_t backoff_cycles, const atomic_bool *stop)
{
	struct turn *t = calloc(n != 0 ? n : 1, sizeof(*t));
	unsigned left = n, next = 0;
	int err = 0;

	if (t == NULL)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++)
		prober_worker_begin(ws[i]);
	while (left > 0 && !atomic_load_explicit(stop, memory_order_relaxed)) {
		struct prober_worker *w = NULL;
		unsigned k = 0;
		int ret;

		/* Round robin over those that may go now. */
		for (unsigned j = 0; j < n; j++) {
			unsigned i = (next + j) % n;

			if (t[i].done)
				continue;
			if (t[i].rest_until != 0 &&
			    io_clock(ws[i]->q) < t[i].rest_until) {
				/* A resting worker still stops at -t. */
				if (ws[i]->step_deadline != 0 &&
				    io_clock(ws[i]->q) >=
					    ws[i]->step_deadline) {
					t[i].done = true;
					__atomic_store_n(&ws[i]->done, true,
							 __ATOMIC_RELEASE);
					left--;
				}
				continue;
			}
			w = ws[i];
			k = i;
			break;
		}
		if (w == NULL)
			continue; /* all resting: wait for the first */
		next = k + 1;
		t[k].rest_until = 0;
		t[k].answered = prober_stat_read(&w->st.answered);
		ret = prober_worker_step(w, stop);
		if (ret <= 0) {
			if (ret < 0 && err == 0)
				err = ret;
			t[k].done = true;
			__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
			left--;
			continue;
		}
		if (prober_stat_read(&w->st.answered) == t[k].answered)
			t[k].dead++;
		else
			t[k].dead = 0;
		if (t[k].dead >= PROBER_MULTI_DEAD && backoff_cycles != 0) {
			t[k].rest_until = io_clock(w->q) + backoff_cycles;
			/* Silent in warm-up: warm-up ends, so that its
			 * probes count as lost from now on rather than
			 * after -w tries at one per backoff. */
			if (w->step_seq < w->conf->warmup)
				w->step_seq = w->conf->warmup;
		}
	}
	for (unsigned i = 0; i < n; i++)
		if (!t[i].done)
			__atomic_store_n(&ws[i]->done, true, __ATOMIC_RELEASE);
	free(t);
	return err;
}
