// SPDX-License-Identifier: GPL-2.0
/*
 * The core's SipHash against the kernel's own (kernel only): the whole
 * SipHash-2-4 column of the shared vectors against siphash(), and the low
 * 32 bits of the SipHash-1-3 column against hsiphash(), which is
 * SipHash-1-3 on 64-bit machines; then the core's hash against both on
 * inputs of every length up to 64 bytes under a random key.
 */
#include <kunit/test.h>
#include <linux/random.h>
#include <linux/siphash.h>

#include "../../../module/core/hash.h"
#include "../../vectors/siphash_vectors.h"

static void pd_t_sip_kernel(struct kunit *test)
{
	siphash_key_t sk = { { 0x0706050403020100ULL, 0x0f0e0d0c0b0a0908ULL } };
	hsiphash_key_t hk = { { 0x0706050403020100UL, 0x0f0e0d0c0b0a0908UL } };
	struct pd_hkey key = { { sk.key[0], sk.key[1] } };
	u8 in[PD_SIP_VEC_N];
	unsigned int i;

	KUNIT_ASSERT_EQ(test, sizeof(unsigned long), sizeof(u64));
	for (i = 0; i < PD_SIP_VEC_N; i++)
		in[i] = (u8)i;
	for (i = 0; i < PD_SIP_VEC_N; i++) {
		KUNIT_EXPECT_EQ_MSG(test, siphash(in, i, &sk),
				    pd_sip_vectors[i][1], "2-4, %u bytes", i);
		KUNIT_EXPECT_EQ_MSG(test, hsiphash(in, i, &hk),
				    (u32)pd_sip_vectors[i][0], "1-3, %u bytes",
				    i);
	}
	/* any key, any input */
	get_random_bytes(&key, sizeof(key));
	get_random_bytes(in, sizeof(in));
	sk.key[0] = key.k[0];
	sk.key[1] = key.k[1];
	hk.key[0] = (unsigned long)key.k[0];
	hk.key[1] = (unsigned long)key.k[1];
	for (i = 0; i <= PD_SIP_VEC_N; i++) {
		KUNIT_EXPECT_EQ(test, pd_siphash_cd(&key, in, i, 2, 4),
				siphash(in, i, &sk));
		KUNIT_EXPECT_EQ(test, (u32)pd_hash64(&key, in, i),
				hsiphash(in, i, &hk));
	}
}

static struct kunit_case pd_t_sip_cases[] = {
	KUNIT_CASE(pd_t_sip_kernel),
	{}
};

static struct kunit_suite pd_t_sip_suite = {
	.name = "pktdedup-siphash-kernel",
	.test_cases = pd_t_sip_cases,
};

kunit_test_suite(pd_t_sip_suite);
