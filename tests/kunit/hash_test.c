// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of hashing: the shared jhash vectors (native: our copy;
 * kernel: the kernel's jhash), key hashing and double hashing.
 */
#include <kunit/test.h>

#include "../../module/core/key.h"
#include "../../module/core/sbf.h"
#include "../vectors/jhash_vectors.h"

static void pd_hash_vectors(struct kunit *test)
{
	u8 buf[256];
	unsigned int i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = PD_JHASH_VEC_BYTE(i);
	KUNIT_ASSERT_GT(test, PD_ARRAY_SIZE(pd_jhash_vectors), (size_t)100);
	for (i = 0; i < PD_ARRAY_SIZE(pd_jhash_vectors); i++)
		KUNIT_EXPECT_EQ_MSG(test, pd_jhash(buf, pd_jhash_vectors[i].len,
						   pd_jhash_vectors[i].seed),
				    pd_jhash_vectors[i].hash,
				    "len %u seed 0x%x", pd_jhash_vectors[i].len,
				    pd_jhash_vectors[i].seed);
}

/* A key's hash is jhash over its bytes, chained over the packet tail. */
static void pd_hash_key_chain(struct kunit *test)
{
	static const u8 tail[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	struct pd_key key = { .len = 3, .buf = { 7, 8, 9 } };
	u32 seed = 0x1234;

	KUNIT_EXPECT_EQ(test, pd_key_hash(&key, seed),
			pd_jhash(key.buf, 3, seed));
	key.tail = tail;
	key.tail_len = sizeof(tail);
	KUNIT_EXPECT_EQ(test, pd_key_hash(&key, seed),
			pd_jhash(tail, sizeof(tail), pd_jhash(key.buf, 3, seed)));
	KUNIT_EXPECT_NE(test, pd_key_hash(&key, seed),
			pd_key_hash(&key, seed + 1));
}

/* K positions come from two hashes: g_i = (a + i * b) mod m. */
static void pd_hash_double_hashing(struct kunit *test)
{
	struct pd_sbf_params prm = { .cells = 1 << 20, .max = 1, .k = 8 };
	struct pd_sbf f;
	const char *why = NULL;
	u32 pos[PD_SBF_MAX_K], h1 = 0x89abcdef, h2 = 0x10000000, i, j, a, b;

	KUNIT_ASSERT_EQ(test, pd_sbf_create(&f, &prm, &why), 0);
	a = (u32)(((u64)h1 * f.cells) >> 32);
	b = (u32)(((u64)h2 * f.cells) >> 32) | 1;

	pd_sbf_positions(&f, h1, h2, pos);
	for (i = 0; i < prm.k; i++) {
		KUNIT_EXPECT_EQ(test, pos[i], (u32)((a + (u64)i * b) % f.cells));
		KUNIT_EXPECT_LT(test, pos[i], f.cells);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, pos[i], pos[j]);
	}
	/* small or zero h2 must not collapse the K positions into one */
	for (h2 = 0; h2 < 4; h2++) {
		pd_sbf_positions(&f, h1, h2, pos);
		for (i = 1; i < prm.k; i++)
			KUNIT_EXPECT_NE(test, pos[i], pos[i - 1]);
	}
	pd_sbf_destroy(&f);
}

static struct kunit_case pd_hash_cases[] = {
	KUNIT_CASE(pd_hash_vectors),
	KUNIT_CASE(pd_hash_key_chain),
	KUNIT_CASE(pd_hash_double_hashing),
	{}
};

static struct kunit_suite pd_hash_suite = {
	.name = "pktdedup-hash",
	.test_cases = pd_hash_cases,
};

kunit_test_suite(pd_hash_suite);
