// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of hashing: the keys' SipHash-1-3 (vectors, pieces, the
 * halves used as two hashes) and double hashing.
 */
#include <kunit/test.h>

#include "../../module/core/key.h"
#include "../../module/core/sbf.h"
#include "../vectors/siphash_vectors.h"

/* The SipHash key of the vectors: the bytes 00 01 .. 0f. */
static const struct pd_hkey pd_sip_vec_key = {
	{ 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL }
};

/* SipHash-1-3 (the packet path's) and SipHash-2-4 (the paper's) vectors. */
static void pd_hash_sip_vectors(struct kunit *test)
{
	u8 in[PD_SIP_VEC_N];
	unsigned int i;

	for (i = 0; i < PD_SIP_VEC_N; i++)
		in[i] = (u8)i;
	for (i = 0; i < PD_SIP_VEC_N; i++) {
		KUNIT_EXPECT_EQ_MSG(test, pd_hash64(&pd_sip_vec_key, in, i),
				    pd_sip_vectors[i][0], "1-3, %u bytes", i);
		KUNIT_EXPECT_EQ_MSG(test,
				    pd_siphash_cd(&pd_sip_vec_key, in, i, 2, 4),
				    pd_sip_vectors[i][1], "2-4, %u bytes", i);
	}
}

/* Input in two pieces, split anywhere, hashes as in one. */
static void pd_hash_sip_pieces(struct kunit *test)
{
	u8 in[PD_SIP_VEC_N];
	unsigned int n, cut;

	for (n = 0; n < PD_SIP_VEC_N; n++)
		in[n] = (u8)(n * 37 + 1);
	for (n = 0; n < PD_SIP_VEC_N; n++)
		for (cut = 0; cut <= n; cut++) {
			struct pd_sip s;

			pd_sip_init(&s, &pd_sip_vec_key);
			pd_sip_update(&s, in, cut);
			pd_sip_update(&s, in + cut, n - cut);
			KUNIT_EXPECT_EQ_MSG(test, pd_sip_final(&s),
					    pd_hash64(&pd_sip_vec_key, in, n),
					    "%u bytes cut at %u", n, cut);
		}
}

/* A padded buffer's cheaper tail ignores the bytes past the input. */
static void pd_hash_sip_padded(struct kunit *test)
{
	u8 in[PD_SIP_VEC_N + 8];
	unsigned int n, i;

	for (n = 0; n < PD_SIP_VEC_N; n++) {
		for (i = 0; i < sizeof(in); i++)
			in[i] = i < n ? (u8)i : (u8)(0xa5 ^ n);
		KUNIT_EXPECT_EQ_MSG(test, pd_hash64_padded(&pd_sip_vec_key, in, n),
				    pd_sip_vectors[n][0], "%u bytes", n);
	}
}

/*
 * A key's hash is one SipHash-1-3 pass over its bytes and then its tail;
 * another secret key gives another hash.
 */
static void pd_hash_key_pass(struct kunit *test)
{
	static const u8 tail[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13 };
	struct pd_key key = { .len = 3, .buf = { 7, 8, 9 } };
	struct pd_hkey other = pd_sip_vec_key;
	u8 all[3 + sizeof(tail)];

	KUNIT_EXPECT_EQ(test, pd_key_hash64(&key, &pd_sip_vec_key),
			pd_hash64(&pd_sip_vec_key, key.buf, 3));
	key.tail = tail;
	key.tail_len = sizeof(tail);
	memcpy(all, key.buf, 3);
	memcpy(all + 3, tail, sizeof(tail));
	KUNIT_EXPECT_EQ(test, pd_key_hash64(&key, &pd_sip_vec_key),
			pd_hash64(&pd_sip_vec_key, all, sizeof(all)));
	other.k[1] ^= 1;
	KUNIT_EXPECT_NE(test, pd_key_hash64(&key, &pd_sip_vec_key),
			pd_key_hash64(&key, &other));
}

/*
 * The halves of one hash serve as the two hashes of double hashing: each
 * must be uniform, and they must not move together. Top 4 bits of each
 * half, and of their XOR, over 2^14 consecutive 4-byte inputs: a
 * chi-square test with 15 degrees of freedom; 60 is exceeded with
 * probability below 1e-6 by uniform bits (fixed key: deterministic).
 */
static void pd_hash_halves_uniform(struct kunit *test)
{
	u32 cnt[3][16] = { { 0 } }, i, j, b;
	const u32 n = 1 << 14;

	for (i = 0; i < n; i++) {
		u64 h = pd_hash64(&pd_sip_vec_key, &i, sizeof(i));
		u32 h1 = (u32)h, h2 = (u32)(h >> 32);

		cnt[0][h1 >> 28]++;
		cnt[1][h2 >> 28]++;
		cnt[2][(h1 ^ h2) >> 28]++;
	}
	for (j = 0; j < 3; j++) {
		u64 chi = 0;	/* x 1024, in integers: exp = n / 16 = 1024 */

		for (b = 0; b < 16; b++) {
			s64 d = (s64)cnt[j][b] - n / 16;

			chi += (u64)(d * d);
		}
		KUNIT_EXPECT_LT_MSG(test, chi, 60ULL * (n / 16),
				    "series %u: chi-square %llu/1024", j,
				    (unsigned long long)chi);
	}
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
	KUNIT_CASE(pd_hash_sip_vectors),
	KUNIT_CASE(pd_hash_sip_pieces),
	KUNIT_CASE(pd_hash_sip_padded),
	KUNIT_CASE(pd_hash_key_pass),
	KUNIT_CASE(pd_hash_halves_uniform),
	KUNIT_CASE(pd_hash_double_hashing),
	{}
};

static struct kunit_suite pd_hash_suite = {
	.name = "pktdedup-hash",
	.test_cases = pd_hash_cases,
};

kunit_test_suite(pd_hash_suite);
