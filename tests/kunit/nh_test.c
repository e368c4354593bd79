// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the packet key's tail digest (core/nh.h): known answers
 * from an independent reference, pieces of any length, every byte and
 * every length counted, keys drawn from a seed.
 */
#include <kunit/test.h>

#include "../../module/core/rng.h"
#include "nh_test.h"
#include "../vectors/nh_vectors.h"

static struct pd_nh_key pd_kt_nh_key;
static bool pd_kt_nh_ready;

const struct pd_nh_key *pd_kt_nh(void)
{
	if (!pd_kt_nh_ready) {
		pd_nh_key_seed(&pd_kt_nh_key, 42);
		pd_kt_nh_ready = true;
	}
	return &pd_kt_nh_key;
}

/* The vectors' input: the bytes (i * 131 + 7) mod 256. */
static void pd_nh_msg(u8 *b, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		b[i] = (u8)(i * 131 + 7);
}

#define PD_NH_TEST_MAX 65535

/* The digest equals nh_ref.py's, the construction written independently. */
static void pd_nh_known_answers(struct kunit *test)
{
	struct pd_nh_key *key = kunit_kzalloc(test, sizeof(*key), GFP_KERNEL);
	u8 *msg = kunit_kzalloc(test, PD_NH_TEST_MAX, GFP_KERNEL);
	unsigned int i;
	u64 w[2];

	KUNIT_ASSERT_NOT_NULL(test, key);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	pd_nh_msg(msg, PD_NH_TEST_MAX);
	for (i = 0; i < PD_ARRAY_SIZE(pd_nh_vectors); i++) {
		const struct pd_nh_vec *v = &pd_nh_vectors[i];

		pd_nh_key_seed(key, v->seed);
		pd_nh_digest(key, msg, v->len, w);
		KUNIT_EXPECT_EQ_MSG(test, w[0], v->w[0], "seed %llx, %u bytes",
				    (unsigned long long)v->seed, v->len);
		KUNIT_EXPECT_EQ_MSG(test, w[1], v->w[1], "seed %llx, %u bytes",
				    (unsigned long long)v->seed, v->len);
	}
}

/* Bytes given in pieces of any length (fragments) digest as in one. */
static void pd_nh_pieces(struct kunit *test)
{
	const struct pd_nh_key *key = pd_kt_nh();
	u32 lens[] = { 17, 1500, 2048, 2049, 9000 };
	u8 *msg = kunit_kzalloc(test, 9000, GFP_KERNEL);
	u64 rng = 7, one[2], many[2];
	unsigned int i, round;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	pd_nh_msg(msg, 9000);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		pd_nh_digest(key, msg, lens[i], one);
		for (round = 0; round < 50; round++) {
			struct pd_nh s;
			u32 at = 0, n;

			pd_nh_init(&s, key);
			while (at < lens[i]) {
				/* mostly short pieces, some long */
				n = round % 5 ? 1 + pd_rng_below(&rng, 40) :
						1 + pd_rng_below(&rng, 3000);
				n = PD_MIN(n, lens[i] - at);
				pd_nh_update(&s, msg + at, n);
				at += n;
			}
			pd_nh_final(&s, many);
			KUNIT_EXPECT_EQ(test, many[0], one[0]);
			KUNIT_EXPECT_EQ(test, many[1], one[1]);
		}
	}
}

/*
 * Every byte counts: changing any one byte of a 1500- or 5000-byte input
 * changes its words (the chunk's NH value, or the digest), and so does
 * appending a zero byte (the padding's length is in the key or digest).
 */
static void pd_nh_every_byte(struct kunit *test)
{
	const struct pd_nh_key *key = pd_kt_nh();
	u32 lens[] = { 1500, 5000 };
	u8 *msg = kunit_kzalloc(test, 5001, GFP_KERNEL);
	u64 base[2], w[2];
	unsigned int i;
	u32 at;

	KUNIT_ASSERT_NOT_NULL(test, msg);
	for (i = 0; i < PD_ARRAY_SIZE(lens); i++) {
		pd_nh_msg(msg, lens[i] + 1);
		pd_nh_digest(key, msg, lens[i], base);
		for (at = 0; at < lens[i]; at++) {
			msg[at] ^= 0x20;
			pd_nh_digest(key, msg, lens[i], w);
			msg[at] ^= 0x20;
			KUNIT_EXPECT_TRUE_MSG(test, w[0] != base[0] ||
					      w[1] != base[1], "byte %u of %u",
					      at, lens[i]);
		}
		msg[lens[i]] = 0;
		pd_nh_digest(key, msg, lens[i] + 1, w);
		if (lens[i] < PD_NH_CHUNK) {
			/* one chunk: the words are NH's; its length is the key's */
			KUNIT_EXPECT_TRUE(test, w[0] == base[0] && w[1] == base[1]);
		} else {
			KUNIT_EXPECT_TRUE(test, w[0] != base[0]);
		}
	}
}

/* Seeded keys are the seed's; random ones differ. */
static void pd_nh_keys(struct kunit *test)
{
	struct pd_nh_key *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct pd_nh_key *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	pd_nh_key_seed(a, 9);
	pd_nh_key_seed(b, 9);
	KUNIT_EXPECT_EQ(test, memcmp(a, b, sizeof(*a)), 0);
	pd_nh_key_seed(b, 10);
	KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(*a)), 0);
	pd_nh_key_random(a);
	pd_nh_key_random(b);
	KUNIT_EXPECT_NE(test, memcmp(a, b, sizeof(*a)), 0);
}

static struct kunit_case pd_nh_cases[] = {
	KUNIT_CASE(pd_nh_known_answers),
	KUNIT_CASE(pd_nh_pieces),
	KUNIT_CASE(pd_nh_every_byte),
	KUNIT_CASE(pd_nh_keys),
	{}
};

static struct kunit_suite pd_nh_suite = {
	.name = "pktdedup-nh",
	.test_cases = pd_nh_cases,
};

kunit_test_suite(pd_nh_suite);
