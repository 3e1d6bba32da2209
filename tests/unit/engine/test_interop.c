/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * STAMP interop over the fake wire (tests/support/io_fake.c) with peers laid
 * out as RFC 5357 §4.1.2/§4.2.1 (TWAMP-Light) and RFC 8762 §4.2/§4.3 (STAMP)
 * draw them, not as latprobe builds them:
 * - the prober against a foreign reflector (a peer hook that answers each
 *   probe by hand: any length, own sequence numbers, Error Estimate with or
 *   without the S and Z bits, padding);
 * - latprobe's reflector against TWAMP-Light senders (14 bytes and up,
 *   random padding), stateless and stateful.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "latprobe/byteorder.h"
#include "latprobe/codec.h"
#include "latprobe/prober.h"
#include "latprobe/reflector.h"
#include "latprobe/stamp.h"
#include "engine_wire.h"

#define N_MBUFS	     256
#define TURNAROUND   5000 /* ns between T2 and T3 of the foreign reflector */
#define RANDOM_SEED  0x5eed
#define PROBES	     40
#define WARMUP	     3
#define SENDER_PORT  40000
#define FOREIGN_SEQ0 1000

/* How the foreign reflector answers. */
struct foreign {
	size_t len;   /* answer payload bytes, whatever the request's */
	uint16_t ee;  /* its Error Estimate (Z: PTP timestamps) */
	uint16_t ee2; /* from answer switch_at on (0: never) */
	unsigned switch_at;
	uint8_t pad;	 /* padding byte after the 41-byte layout; */
	bool pad_random; /* or pseudo-random padding */
	uint32_t seq;	 /* its own numbering */
	uint64_t rng;
	unsigned answered;
	struct io_fake *f;
};

struct wire {
	struct io_fake *f;
	struct tsc_clock clock;
	struct prober_conf pc;
	struct prober_worker pw;
	bool prober_ready;
	struct reflector_conf rc;
	struct reflector_worker rw;
	bool reflector_ready;
	struct foreign fr;
};

static int
setup(void **state)
{
	struct wire *w = tw_fixture_alloc(sizeof(*w));

	if (w == NULL)
		return -1;
	if (tw_wire_open(&w->f, &w->clock, N_MBUFS) != 0)
		goto fail;
	tw_prober_conf_stamp(&w->pc, &w->clock, SENDER_PORT);
	w->pc.count = PROBES;
	w->pc.warmup = WARMUP;
	w->pc.timeout_cycles = 10000;

	tw_reflector_conf(&w->rc, &w->clock);
	*state = w;
	return 0;
fail:
	tw_fixture_free(w, w->f, NULL, NULL);
	return -1;
}

static int
teardown(void **state)
{
	struct wire *w = *state;

	tw_fixture_free(w, w->f, w->prober_ready ? &w->pw : NULL,
			w->reflector_ready ? &w->rw : NULL);
	return 0;
}

/* Foreign reflector ------------------------------------------------------- */

static void
put_ts(uint8_t *p, uint64_t ns, uint16_t ee)
{
	util_put_be64(p, stamp_ts_from_ns(ns, ee));
}

/*
 * The answer to the probe waiting on side 1, laid out as RFC 5357 §4.2.1:
 * seq(4) T3(8) EE(2) MBZ(2) T2(8) sender seq(4) sender T1(8) sender EE(2)
 * MBZ(2) sender TTL(1), then padding; cut or padded to fr->len.
 */
static void
foreign_hook(void *arg)
{
	struct foreign *fr = arg;
	uint8_t req[1600], frame[1600], pl[1500];
	struct codec_frame f;
	struct codec_flow back;
	size_t n = tw_take_one(fr->f, 1, req, sizeof(req));
	const uint8_t *q;
	uint64_t t2 = TW_ANCHOR_NS + 1000000 + 100000ull * fr->answered;
	uint16_t ee = fr->switch_at != 0 && fr->answered >= fr->switch_at
			      ? fr->ee2
			      : fr->ee;

	assert_int_equal(codec_parse_frame(req, n, &f), 0);
	q = req + f.payload_off;
	assert_true(f.payload_len >= 14);
	memset(pl, 0, sizeof(pl));
	util_put_be32(pl, fr->seq++);
	put_ts(pl + 4, t2 + TURNAROUND, ee);
	util_put_be16(pl + 12, ee);
	put_ts(pl + 16, t2, ee);
	memcpy(pl + 24, q, 14); /* sender seq, T1, sender EE */
	pl[40] = f.ttl;
	for (size_t i = 41; i < fr->len; i++)
		pl[i] = fr->pad_random ? (uint8_t)util_splitmix64(&fr->rng)
				       : fr->pad;
	back = tw_flow4(&tw_refl_mac, &tw_prober_mac, TW_REFL_IP, TW_PROBER_IP,
			STAMP_PORT, f.sport);
	n = tw_build_udp(frame, sizeof(frame), &back, pl, fr->len);
	tw_inject(fr->f, 0, frame, n);
	fr->answered++;
}

static void
foreign_run(struct wire *w, size_t len, uint16_t ee, bool pad_random)
{
	static const atomic_bool no_stop;

	w->fr.len = len;
	w->fr.ee = ee;
	w->fr.pad = 0;
	w->fr.pad_random = pad_random;
	w->fr.seq = FOREIGN_SEQ0;
	w->fr.rng = RANDOM_SEED;
	w->fr.answered = 0;
	w->fr.f = w->f;
	io_fake_set_peer(w->f, 0, foreign_hook, &w->fr);
	assert_int_equal(
		prober_worker_init(&w->pw, &w->pc, io_fake_queue(w->f, 0), 0),
		0);
	w->prober_ready = true;
	assert_int_equal(prober_worker_run(&w->pw, &no_stop), 0);
	assert_int_equal(w->fr.answered, PROBES + WARMUP);
}

/* Every probe answered and measured, nothing ignored. */
static void
assert_all_taken(const struct wire *w)
{
	assert_int_equal(w->pw.st.received, PROBES);
	assert_int_equal(w->pw.st.lost, 0);
	assert_int_equal(w->pw.st.rx_ignored, 0);
	assert_int_equal(w->pw.rtt.total, PROBES);
	assert_int_equal(w->pw.turnaround.total, PROBES);
}

/* twampy's responder: 24 + 14 bytes (no TTL), own numbering from 0 per
 * session, EE 0x0001 (S=0, scale 0, multiplier 1), T3 = T2. Here its
 * length with the own numbering from 1000. */
static void
test_prober_twampy_layout(void **state)
{
	struct wire *w = *state;

	foreign_run(w, 38, 0x0001, false);
	assert_all_taken(w);
	assert_int_equal(w->pw.st.reflector_ee, 0x0001);
	assert_int_equal(w->pw.st.reflector_ee_answers, PROBES + WARMUP);
	assert_int_equal(w->pw.st.reflector_ee_changes, 0);
	/* NTP timestamps: T3 - T2 within rounding of 5 us. */
	assert_true(w->pw.turnaround.min + 2 >= TURNAROUND);
	assert_true(w->pw.turnaround.max <= TURNAROUND + 2 + 40);
}

/* RFC 5357's 41-byte minimum, and a padded answer longer than the request
 * (random padding), S bit set (synchronised), scale 10 multiplier 3. */
static void
test_prober_twamp_light_padded(void **state)
{
	struct wire *w = *state;
	uint16_t ee = (uint16_t)(STAMP_EE_S | 10u << 8 | 3u);

	foreign_run(w, 41, ee, false);
	assert_all_taken(w);
	assert_int_equal(w->pw.st.reflector_ee, ee);
	prober_worker_fini(&w->pw);
	w->prober_ready = false;
	foreign_run(w, 300, ee, true);
	assert_all_taken(w);
}

/* Z bit: T2/T3 are truncated PTPv2 (seconds, nanoseconds): read as such the
 * turnaround is 5 us exactly; read as NTP it would be about 1.16 us. */
static void
test_prober_ptp_timestamps(void **state)
{
	struct wire *w = *state;
	uint16_t ee = (uint16_t)(STAMP_EE_Z | 1u);

	foreign_run(w, 44, ee, false);
	assert_all_taken(w);
	assert_int_equal(w->pw.turnaround.min, TURNAROUND);
	assert_int_equal(w->pw.turnaround.sum, (uint64_t)TURNAROUND * PROBES);
	assert_int_equal(w->pw.st.reflector_ee, ee);
}

/* 28 bytes hold the sender sequence number: usable. 27 do not: every
 * answer counted too_short, every probe lost. */
static void
test_prober_answer_too_short(void **state)
{
	struct wire *w = *state;

	foreign_run(w, 28, 0x0001, false);
	assert_all_taken(w);
	prober_worker_fini(&w->pw);
	w->prober_ready = false;

	foreign_run(w, 27, 0x0001, false);
	assert_int_equal(w->pw.st.received, 0);
	assert_int_equal(w->pw.st.answered, 0);
	assert_int_equal(w->pw.st.lost, PROBES);
	assert_int_equal(w->pw.st.ignored[PROBER_IGN_TOO_SHORT],
			 PROBES + WARMUP);
	assert_int_equal(w->pw.st.rx_ignored, PROBES + WARMUP);
	assert_int_equal(w->pw.st.reflector_ee_answers, 0);
}

/* The Error Estimate changes between answers (the reflector's clock got
 * synchronised midway): the last one is reported and the change counted. */
static void
test_prober_ee_changes(void **state)
{
	struct wire *w = *state;
	uint16_t synced = (uint16_t)(STAMP_EE_S | 1u);

	w->fr.ee2 = synced;
	w->fr.switch_at = 10;
	foreign_run(w, 44, 0x0001, false);
	assert_all_taken(w);
	assert_int_equal(w->pw.st.reflector_ee, synced);
	assert_int_equal(w->pw.st.reflector_ee_changes, 1);
	assert_int_equal(w->pw.st.reflector_ee_answers, PROBES + WARMUP);
}

/* latprobe reflect against TWAMP-Light senders --------------------------- */

static void
reflector_start(struct wire *w)
{
	assert_int_equal(
		reflector_worker_init(&w->rw, &w->rc, io_fake_queue(w->f, 1)),
		0);
	w->reflector_ready = true;
}

/*
 * An RFC 5357 §4.1.2 unauthenticated Session-Sender packet: seq(4) T1(8)
 * EE(2), then len - 14 bytes of padding (random, or zero), from sport.
 * The answer comes back in ans (its UDP payload); returns its length.
 */
static size_t
twamp_exchange(struct wire *w, size_t len, uint32_t seq, uint16_t sport,
	       uint64_t *rng, uint8_t *sent, uint8_t *ans)
{
	uint8_t frame[1600], back[1600];
	struct codec_flow fl =
		tw_flow4(&tw_prober_mac, &tw_refl_mac, TW_PROBER_IP, TW_REFL_IP,
			 sport, STAMP_PORT);
	struct codec_frame f;
	size_t n;

	util_put_be32(sent, seq);
	util_put_be64(sent + 4, stamp_ntp_from_ns(TW_ANCHOR_NS + seq));
	util_put_be16(sent + 12, 0x3fff); /* twampy's sender EE */
	for (size_t i = 14; i < len; i++)
		sent[i] = rng != NULL ? (uint8_t)util_splitmix64(rng) : 0;
	fl.ttl = 61;
	n = tw_build_udp(frame, sizeof(frame), &fl, sent, len);
	tw_inject(w->f, 1, frame, n);
	assert_int_equal(reflector_poll(&w->rw), 1);
	n = tw_take_one(w->f, 0, back, sizeof(back));
	assert_int_equal(codec_parse_frame(back, n, &f), 0);
	assert_true(codec_l4_csum_ok(back, &f));
	assert_int_equal(f.sport, STAMP_PORT);
	assert_int_equal(f.dport, sport);
	memcpy(ans, back + f.payload_off, f.payload_len);
	return f.payload_len;
}

/* 14 bytes (RFC 5357 §4.1.2's whole unauthenticated packet, twampy's
 * default): a 14-byte answer with what fits: seq (stateless: the
 * sender's), T3, our Error Estimate. */
static void
test_reflect_twamp_14(void **state)
{
	struct wire *w = *state;
	uint8_t sent[64], ans[64];

	reflector_start(w);
	assert_int_equal(
		twamp_exchange(w, 14, 77, SENDER_PORT, NULL, sent, ans), 14);
	assert_int_equal(util_get_be32(ans), 77);
	assert_true(util_get_be64(ans + 4) != 0);
	assert_int_equal(util_get_be16(ans + 12), w->rc.error_estimate);
}

/* 41 bytes with random padding (RFC 5357's reflector minimum) and up to 1000
 * bytes: same length back, every RFC 5357 §4.2.1 reflector field in
 * place, and the padding beyond the 44-byte base returned as it came (not
 * read as RFC 8972 TLVs). */
static void
test_reflect_twamp_random_padding(void **state)
{
	struct wire *w = *state;
	static const size_t lens[] = {41,  43,	44,  45,  60,
				      100, 200, 300, 500, 1000};
	uint64_t rng = RANDOM_SEED;
	uint8_t sent[1024], ans[1024];

	reflector_start(w);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		size_t len = lens[i];
		uint32_t seq = (uint32_t)(100 + i);

		assert_int_equal(twamp_exchange(w, len, seq, SENDER_PORT, &rng,
						sent, ans),
				 len);
		assert_int_equal(util_get_be32(ans), seq);
		assert_int_equal(util_get_be16(ans + 12), w->rc.error_estimate);
		assert_true(util_get_be64(ans + 16) != 0); /* T2 */
		assert_true(util_get_be64(ans + 4) >=
			    util_get_be64(ans + 16));	     /* T3 >= T2 */
		assert_memory_equal(ans + 24, sent, 4);	     /* sender seq */
		assert_memory_equal(ans + 28, sent + 4, 8);  /* sender T1 */
		assert_memory_equal(ans + 36, sent + 12, 2); /* sender EE */
		assert_int_equal(ans[40], 61);		     /* sender TTL */
		/* RFC 5357 MBZ where STAMP has the SSID: the sender's
		 * padding is not echoed there */
		assert_int_equal(util_get_be16(ans + 14), 0);
		if (len > STAMP_BASE_LEN)
			assert_memory_equal(ans + STAMP_BASE_LEN,
					    sent + STAMP_BASE_LEN,
					    len - STAMP_BASE_LEN);
	}
}

/* Stateful (RFC 8762 §4.3.2): a TWAMP-Light sender's random padding where
 * STAMP has the SSID must not make each packet a session of its own: one
 * sender port, one session, answers numbered 0, 1, 2, ...; another port,
 * another session. */
static void
test_reflect_twamp_stateful(void **state)
{
	struct wire *w = *state;
	uint64_t rng = RANDOM_SEED;
	uint8_t sent[128], ans[128];

	w->rc.stateful = true;
	reflector_start(w);
	for (uint32_t i = 0; i < 6; i++) {
		assert_int_equal(twamp_exchange(w, 64, 500 + i, SENDER_PORT,
						&rng, sent, ans),
				 64);
		assert_int_equal(util_get_be32(ans), i);
		assert_int_equal(util_get_be32(ans + 24), 500 + i);
	}
	assert_int_equal(
		twamp_exchange(w, 41, 9, SENDER_PORT + 1, &rng, sent, ans), 41);
	assert_int_equal(util_get_be32(ans), 0);
	assert_int_equal(w->rw.n_sessions, 2);
}

int
main(void)
{
#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_prober_twampy_layout),
		T(test_prober_twamp_light_padded),
		T(test_prober_ptp_timestamps),
		T(test_prober_answer_too_short),
		T(test_prober_ee_changes),
		T(test_reflect_twamp_14),
		T(test_reflect_twamp_random_padding),
		T(test_reflect_twamp_stateful),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
