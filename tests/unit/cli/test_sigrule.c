/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app/sigrule.c, the same-signal rule of SIGINT/SIGTERM: the first stops
 * the workers, the same signal from the same process within 1 s is that
 * first delivered twice, anything else exits at once. And the race the
 * rule must not lose: the duplicate arriving on another thread while the
 * first is being recorded is still a duplicate.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "sigrule.h"

static void
reset(struct app_sig_first *f)
{
	memset(f, 0, sizeof(*f));
}

static void
test_rule(void **state)
{
	struct app_sig_first f;
	const long long s = 1000000000ll;

	(void)state;
	reset(&f);
	assert_int_equal(app_sig_rule(&f, SIGINT, 42, 5 * s), APP_SIG_FIRST);
	/* The same, from the same pid, within 1 s: delivered twice. */
	assert_int_equal(app_sig_rule(&f, SIGINT, 42, 5 * s + 1000),
			 APP_SIG_REPEAT);
	/* From another process, or not from kill(2) (a second Ctrl-C). */
	assert_int_equal(app_sig_rule(&f, SIGINT, 43, 5 * s + 1000),
			 APP_SIG_AGAIN);
	assert_int_equal(app_sig_rule(&f, SIGINT, 0, 5 * s + 1000),
			 APP_SIG_AGAIN);
	/* Another signal, or the same one later. */
	assert_int_equal(app_sig_rule(&f, SIGTERM, 42, 5 * s + 1000),
			 APP_SIG_AGAIN);
	assert_int_equal(app_sig_rule(&f, SIGINT, 42, 6 * s + 1),
			 APP_SIG_AGAIN);
	/* A first one not from kill(2): any second one is a request. */
	reset(&f);
	assert_int_equal(app_sig_rule(&f, SIGTERM, 0, s), APP_SIG_FIRST);
	assert_int_equal(app_sig_rule(&f, SIGTERM, 0, s + 1), APP_SIG_AGAIN);
}

/*
 * The first one's handler preempted right after its claim (the duplicate
 * runs on another thread meanwhile): the duplicate must see who sent the
 * first, or it exits at once and the report is lost.
 */
static void
test_duplicate_while_first_recorded(void **state)
{
	struct app_sig_first f;

	(void)state;
	reset(&f);
	assert_true(app_sig_claim(&f, SIGINT, 4242));
	assert_int_equal(app_sig_rule(&f, SIGINT, 4242, 1000), APP_SIG_REPEAT);
	assert_int_equal(app_sig_rule(&f, SIGINT, 4243, 1000), APP_SIG_AGAIN);
}

/*
 * Two threads take the same signal from the same pid at the same moment
 * (timeout(1)'s two sends, each delivered to another thread), round after
 * round: one is the first, the other its repeat, never a second request.
 */
#define ROUNDS 20000

static struct app_sig_first race_f;
static atomic_uint race_round, race_done;
static atomic_uint race_first, race_repeat, race_again;

static void
spin_until(atomic_uint *v, unsigned want)
{
	for (unsigned spins = 0; atomic_load(v) != want; spins++)
		if (spins > 1000)
			sched_yield();
}

static void *
race_thread(void *arg)
{
	(void)arg;
	for (unsigned r = 1; r <= ROUNDS; r++) {
		spin_until(&race_round, r);
		switch (app_sig_rule(&race_f, SIGINT, 4242, 1000 + r)) {
		case APP_SIG_FIRST:
			atomic_fetch_add(&race_first, 1);
			break;
		case APP_SIG_REPEAT:
			atomic_fetch_add(&race_repeat, 1);
			break;
		default:
			atomic_fetch_add(&race_again, 1);
			break;
		}
		atomic_fetch_add(&race_done, 1);
	}
	return NULL;
}

static void
test_duplicate_on_another_thread(void **state)
{
	pthread_t t[2];

	(void)state;
	for (unsigned i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, race_thread, NULL),
				 0);
	for (unsigned r = 1; r <= ROUNDS; r++) {
		reset(&race_f);
		atomic_store(&race_round, r);
		spin_until(&race_done, 2 * r);
	}
	for (unsigned i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	print_message("# %u rounds: %u first, %u repeat, %u again\n", ROUNDS,
		      atomic_load(&race_first), atomic_load(&race_repeat),
		      atomic_load(&race_again));
	assert_int_equal(atomic_load(&race_first), ROUNDS);
	assert_int_equal(atomic_load(&race_repeat), ROUNDS);
	assert_int_equal(atomic_load(&race_again), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_duplicate_while_first_recorded),
		cmocka_unit_test(test_duplicate_on_another_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
