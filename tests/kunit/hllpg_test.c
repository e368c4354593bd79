// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the sketches in PostgreSQL hll's storage format
 * (core/hllpg.h): known answers for each type, the extension's choice
 * between sparse and full, the cap of a register at 31, and decoding that
 * refuses what the format does not allow. The known answers were printed
 * by the extension itself (hll 2.17, PostgreSQL 15); tests/pg checks the
 * encoder against it on sketches of many elements.
 */
#include <kunit/test.h>

#include "../../module/core/hllpg.h"
#include "../../module/core/rng.h"

struct pd_t_pg {
	struct pd_hll h, back;
	u8 buf[PD_HLLPG_MAX];
};

static struct pd_t_pg *pd_t_pg(struct kunit *test)
{
	struct pd_t_pg *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	return t;
}

/* The extension's hll_empty(14, 5, -1, 1) and one element. */
static void pd_hllpg_empty_and_one(struct kunit *test)
{
	static const u8 empty[] = { 0x11, 0x8e, 0x7f };
	/* register 5 at 2: hll_hashval(32773) added, as the extension prints it */
	static const u8 one[] = { 0x13, 0x8e, 0x7f, 0x00, 0x14, 0x40 };
	struct pd_t_pg *t = pd_t_pg(test);
	u32 n;

	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_ASSERT_EQ(test, n, (u32)sizeof(empty));
	KUNIT_EXPECT_EQ(test, memcmp(t->buf, empty, n), 0);
	pd_hll_add(&t->h, (2ULL << PD_HLL_P) | 5);
	KUNIT_EXPECT_EQ(test, t->h.reg[5], 2);
	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_ASSERT_EQ(test, n, (u32)sizeof(one));
	KUNIT_EXPECT_EQ(test, memcmp(t->buf, one, n), 0);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->back.reg, t->h.reg, PD_HLL_M), 0);
}

/*
 * Sparse while strictly fewer bits than full: 4311 registers set take
 * 81,909 bits against 81,920, 4312 take more. Full: register 0 first, 5
 * bits each from the first byte's top bit.
 */
static void pd_hllpg_sparse_or_full(struct kunit *test)
{
	static const u8 full[] = { 0x14, 0x8e, 0x7f, 0x08, 0x86, 0x42, 0x98, 0xe8 };
	struct pd_t_pg *t = pd_t_pg(test);
	u32 i, n;

	for (i = 0; i < 4311; i++)
		t->h.reg[i] = (u8)(i % 31 + 1);
	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_EXPECT_EQ(test, t->buf[0], 0x13);
	KUNIT_EXPECT_EQ(test, n, 3u + (4311u * 19 + 7) / 8);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->back.reg, t->h.reg, PD_HLL_M), 0);
	t->h.reg[4311] = 1;
	for (i = 0; i < 8; i++)		/* 00001 00010 ... 01000 */
		t->h.reg[i] = (u8)(i + 1);
	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_EXPECT_EQ(test, n, (u32)PD_HLLPG_MAX);
	KUNIT_EXPECT_EQ(test, memcmp(t->buf, full, sizeof(full)), 0);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
	KUNIT_EXPECT_EQ(test, memcmp(t->back.reg, t->h.reg, PD_HLL_M), 0);
}

/* Registers above 31 are written as 31, sparse and full alike. */
static void pd_hllpg_cap(struct kunit *test)
{
	struct pd_t_pg *t = pd_t_pg(test);
	u32 i, n;

	pd_hll_add(&t->h, 7);	/* no 1 bit above the index: Q + 1 */
	KUNIT_EXPECT_EQ(test, t->h.reg[7], PD_HLL_Q + 1);
	t->h.reg[9] = 32;
	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_EXPECT_EQ(test, t->buf[0], 0x13);
	KUNIT_ASSERT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
	KUNIT_EXPECT_EQ(test, t->back.reg[7], 31);
	KUNIT_EXPECT_EQ(test, t->back.reg[9], 31);
	for (i = 0; i < PD_HLL_M; i++)
		t->h.reg[i] = (u8)(i % 52);
	n = pd_hllpg_encode(&t->h, t->buf);
	KUNIT_EXPECT_EQ(test, t->buf[0], 0x14);
	KUNIT_ASSERT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
	for (i = 0; i < PD_HLL_M; i++)
		KUNIT_EXPECT_EQ(test, t->back.reg[i], (u8)(i % 52 > 31 ? 31 : i % 52));
}

/* Sketches of random streams come back as written, at any size. */
static void pd_hllpg_round_trip(struct kunit *test)
{
	static const u32 ns[] = { 1, 100, 3000, 5000, 100000 };
	struct pd_t_pg *t = pd_t_pg(test);
	u64 rng = 38;
	u32 k, i, n;

	for (k = 0; k < PD_ARRAY_SIZE(ns); k++) {
		pd_hll_clear(&t->h);
		for (i = 0; i < ns[k]; i++)
			pd_hll_add(&t->h, pd_rng_next(&rng));
		n = pd_hllpg_encode(&t->h, t->buf);
		KUNIT_EXPECT_LE(test, n, (u32)PD_HLLPG_MAX);
		KUNIT_ASSERT_EQ(test, pd_hllpg_decode(t->buf, n, &t->back), 0);
		KUNIT_EXPECT_EQ(test, memcmp(t->back.reg, t->h.reg, PD_HLL_M), 0);
		KUNIT_EXPECT_EQ(test, pd_hll_estimate(&t->back),
				pd_hll_estimate(&t->h));
	}
}

/* What the format does not allow, or other parameters: -EINVAL. */
static void pd_hllpg_refused(struct kunit *test)
{
	struct pd_t_pg *t = pd_t_pg(test);
	u8 *b = t->buf;
	u32 n;

	pd_hll_add(&t->h, (2ULL << PD_HLL_P) | 5);
	pd_hll_add(&t->h, (1ULL << PD_HLL_P) | 9);
	n = pd_hllpg_encode(&t->h, b);
	KUNIT_ASSERT_EQ(test, n, 3u + 5);	/* two entries: 38 bits */
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), 0);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, 2, &t->back), -EINVAL);
	/* one byte more: 8 bits of padding */
	b[n] = 0;
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n + 1, &t->back), -EINVAL);
	b[0] = 0x23;			/* version 2 */
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), -EINVAL);
	b[0] = 0x12;			/* explicit */
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), -EINVAL);
	b[0] = 0x13;
	b[1] = 0xab;			/* log2m 11, width 6 */
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), -EINVAL);
	b[1] = 0x8e;
	b[2] = 0x40;			/* explicit threshold 0 */
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), -EINVAL);
	b[2] = 0x7f;
	/* two entries in order: (5, 2), (9, 1); then swapped */
	KUNIT_EXPECT_EQ(test, memcmp(b + 3, "\x00\x14\x40\x04\x84", 5), 0);
	memcpy(b + 3, "\x00\x24\x20\x02\x88", 5);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, n, &t->back), -EINVAL);
	/* (5, 0): a register of 0 written out */
	memcpy(b + 3, "\x00\x14\x00", 3);
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, 6, &t->back), -EINVAL);
	/* empty with data, full a byte short */
	b[0] = 0x11;
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, 4, &t->back), -EINVAL);
	b[0] = 0x14;
	KUNIT_EXPECT_EQ(test, pd_hllpg_decode(b, PD_HLLPG_MAX - 1, &t->back),
			-EINVAL);
}

static struct kunit_case pd_hllpg_cases[] = {
	KUNIT_CASE(pd_hllpg_empty_and_one),
	KUNIT_CASE(pd_hllpg_sparse_or_full),
	KUNIT_CASE(pd_hllpg_cap),
	KUNIT_CASE(pd_hllpg_round_trip),
	KUNIT_CASE(pd_hllpg_refused),
	{}
};

static struct kunit_suite pd_hllpg_suite = {
	.name = "pktdedup-hllpg",
	.test_cases = pd_hllpg_cases,
};

kunit_test_suite(pd_hllpg_suite);
