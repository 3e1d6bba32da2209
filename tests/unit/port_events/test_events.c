/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port events log (lib/port/events_log.c): events in order, repeats
 * refused, the time down in all and within an interval, the counts past
 * the kept events.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "latprobe/events.h"

#define S 1000000000ull

static void
test_flap(void **state)
{
	struct port_events_log *l = malloc(sizeof(*l));

	(void)state;
	assert_non_null(l);
	port_events_log_init(l, true);
	assert_int_equal(l->link_up, 1);
	assert_int_equal(port_events_note(l, PORT_EV_LINK_UP, 1 * S, 100),
			 -EALREADY);
	assert_int_equal(port_events_note(l, PORT_EV_LINK_DOWN, 2 * S, 0), 0);
	assert_int_equal(l->link_up, 0);
	assert_int_equal(port_events_note(l, PORT_EV_LINK_DOWN, 3 * S, 0),
			 -EALREADY);
	assert_int_equal(port_events_down_ns(l, 4 * S), 2 * S); /* open */
	assert_int_equal(port_events_note(l, PORT_EV_LINK_UP, 7 * S, 10000), 0);
	assert_int_equal(l->link_up, 1);
	assert_int_equal(port_events_down_ns(l, 9 * S), 5 * S);
	assert_int_equal(l->n, 2);
	assert_int_equal(l->ev[0].kind, PORT_EV_LINK_DOWN);
	assert_int_equal(l->ev[1].speed_mbps, 10000);
	assert_int_equal(l->count[PORT_EV_LINK_DOWN], 1);
	assert_int_equal(l->count[PORT_EV_LINK_UP], 1);
	/* Intervals: (0,3] holds 1 s of it, (3,6] 3 s, (6,8] 1 s. */
	assert_int_equal(port_events_down_between(l, 0, 3 * S), 1 * S);
	assert_int_equal(port_events_down_between(l, 3 * S, 6 * S), 3 * S);
	assert_int_equal(port_events_down_between(l, 6 * S, 8 * S), 1 * S);
	assert_int_equal(port_events_between(l, PORT_EV_LINK_DOWN, 0, 2 * S),
			 1);
	assert_int_equal(
		port_events_between(l, PORT_EV_LINK_DOWN, 2 * S, 9 * S), 0);
	assert_int_equal(port_events_between(l, PORT_EV_LINK_UP, 6 * S, 7 * S),
			 1);
	/* A removal, once. */
	assert_int_equal(port_events_note(l, PORT_EV_REMOVED, 8 * S, 0), 0);
	assert_int_equal(port_events_note(l, PORT_EV_REMOVED, 9 * S, 0),
			 -EALREADY);
	assert_true(l->removed);
	assert_int_equal(l->removed_at_ns, 8 * S);
	assert_int_equal(port_events_note(l, PORT_EV__COUNT, 9 * S, 0),
			 -EINVAL);
	/* Back at 12 s: the state at any time from the log, not the state
	 * now (an interval taken late, after the device came back). */
	assert_int_equal(port_events_note(l, PORT_EV_ATTACHED, 12 * S, 0), 0);
	assert_false(l->removed);
	assert_false(port_events_removed_at(l, 7 * S));
	assert_true(port_events_removed_at(l, 8 * S));
	assert_true(port_events_removed_at(l, 11 * S));
	assert_false(port_events_removed_at(l, 12 * S));
	assert_false(port_events_removed_at(l, 20 * S));
	free(l);
}

/* Down at the start: the time counts from 0; a time going back is taken
 * as the last event's. */
static void
test_down_at_start(void **state)
{
	struct port_events_log *l = malloc(sizeof(*l));

	(void)state;
	assert_non_null(l);
	port_events_log_init(l, false);
	assert_int_equal(l->link_up, 0);
	assert_int_equal(port_events_down_between(l, 0, 2 * S), 2 * S);
	assert_int_equal(port_events_note(l, PORT_EV_LINK_UP, 3 * S, 0), 0);
	assert_int_equal(port_events_down_ns(l, 10 * S), 3 * S);
	assert_int_equal(port_events_down_between(l, 2 * S, 10 * S), 1 * S);
	assert_int_equal(port_events_note(l, PORT_EV_LINK_DOWN, 1 * S, 0), 0);
	assert_int_equal(l->ev[1].t_ns, 3 * S);
	free(l);
}

/* Past PORT_EVENTS_MAX events are counted, not kept; the time down stays
 * exact. */
static void
test_many(void **state)
{
	struct port_events_log *l = malloc(sizeof(*l));
	unsigned flaps = PORT_EVENTS_MAX; /* 2 events each */

	(void)state;
	assert_non_null(l);
	port_events_log_init(l, true);
	for (unsigned i = 0; i < flaps; i++) {
		assert_int_equal(port_events_note(l, PORT_EV_LINK_DOWN,
						  (2ull * i + 1) * S, 0),
				 0);
		assert_int_equal(port_events_note(l, PORT_EV_LINK_UP,
						  (2ull * i + 1) * S + S / 2,
						  0),
				 0);
	}
	assert_int_equal(l->n, PORT_EVENTS_MAX);
	assert_int_equal(l->dropped, 2 * flaps - PORT_EVENTS_MAX);
	assert_int_equal(l->count[PORT_EV_LINK_DOWN], flaps);
	assert_int_equal(port_events_down_ns(l, 1000 * S), flaps * (S / 2));
	free(l);
}

/* A failsafe port's VF removed and the path shifting (a
 * failover): marks in the log, counted, the port's own state untouched. */
static void
test_failover_marks(void **state)
{
	struct port_events_log l;
	uint64_t ms = 1000000;

	(void)state;
	port_events_log_init(&l, true);
	assert_int_equal(port_events_note(&l, PORT_EV_VF_REMOVED, 4400 * ms, 0),
			 0);
	assert_int_equal(port_events_note(&l, PORT_EV_PATH_SHIFT, 5000 * ms, 0),
			 0);
	assert_int_equal(
		port_events_note(&l, PORT_EV_PATH_SHIFT, 11400 * ms, 0), 0);
	assert_int_equal(l.n, 3);
	assert_int_equal(l.count[PORT_EV_VF_REMOVED], 1);
	assert_int_equal(l.count[PORT_EV_PATH_SHIFT], 2);
	assert_false(l.removed);
	assert_false(l.down);
	assert_int_equal(l.link_up, 1);
	assert_int_equal(port_events_down_ns(&l, 20000 * ms), 0);
	assert_int_equal(port_events_between(&l, PORT_EV_PATH_SHIFT, 4000 * ms,
					     6000 * ms),
			 1);
	assert_string_equal(port_event_kind_name[PORT_EV_VF_REMOVED],
			    "vf_removed");
	assert_string_equal(port_event_kind_name[PORT_EV_PATH_SHIFT],
			    "path_shift");
	/* Every kind has its name (the metrics' label, JSON's event). */
	for (unsigned k = 0; k < PORT_EV__COUNT; k++)
		assert_non_null(port_event_kind_name[k]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_flap),
		cmocka_unit_test(test_down_at_start),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_failover_marks),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
