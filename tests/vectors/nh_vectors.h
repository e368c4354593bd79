/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Known answers of the packet key's tail digest (core/nh.h), from
 * tests/vectors/nh_ref.py, a reference written from the construction
 * as nh.h states it (Python integers, not our C). Input of length n:
 * the bytes (i * 131 + 7) mod 256; keys: pd_nh_key_seed(seed).
 * Regenerate: tests/vectors/nh_ref.py, its output here.
 */
#ifndef PD_NH_VECTORS_H
#define PD_NH_VECTORS_H

struct pd_nh_vec {
	u64 seed;
	u32 len;
	u64 w[2];
};

static const struct pd_nh_vec pd_nh_vectors[] = {
	{ 0x1ULL, 1, { 0x6dd4bcbfbceb1670ULL, 0x2b07ed2887017808ULL } },
	{ 0x1ULL, 15, { 0x0d9d157dba9d1661ULL, 0x1958a2a5bd97148eULL } },
	{ 0x1ULL, 16, { 0x199d157dba9d1661ULL, 0x7cfcc0ea6417e132ULL } },
	{ 0x1ULL, 17, { 0x57b863e41aa6390bULL, 0x164eb88250129799ULL } },
	{ 0x1ULL, 31, { 0x3b193b9533549721ULL, 0xf1f93b0a3a96f73cULL } },
	{ 0x1ULL, 32, { 0x23193b9533549721ULL, 0xdfec6aecb2146f67ULL } },
	{ 0x1ULL, 65, { 0x38bdf0729a429b23ULL, 0x627a9dffe22f4465ULL } },
	{ 0x1ULL, 100, { 0xf7b98e32f2780940ULL, 0x5d596d9e63545b2eULL } },
	{ 0x1ULL, 1024, { 0x4a433de4625c7e26ULL, 0x497760941b870f21ULL } },
	{ 0x1ULL, 1472, { 0xd93e09e4ab800c64ULL, 0xa7fb785d62a23123ULL } },
	{ 0x1ULL, 2047, { 0x6860140e2662f1aeULL, 0x0ee772964be7ab58ULL } },
	{ 0x1ULL, 2048, { 0x0860140e2662f1aeULL, 0xf1f92df33b8ac67bULL } },
	{ 0x1ULL, 2049, { 0x99e153872de9317eULL, 0x0000000000000000ULL } },
	{ 0x1ULL, 4095, { 0x60adf3d7ef83dadfULL, 0x0000000000000000ULL } },
	{ 0x1ULL, 4096, { 0x455f54b13a1e33f9ULL, 0x0000000000000000ULL } },
	{ 0x1ULL, 4100, { 0x9b228cb50323b961ULL, 0x0000000000000000ULL } },
	{ 0x1ULL, 9000, { 0xcc6c782cbdf204b1ULL, 0x0000000000000000ULL } },
	{ 0x1ULL, 65535, { 0xf1217fb50e7672daULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 1, { 0x1304022b71cff2a4ULL, 0x67de925d36395d28ULL } },
	{ 0x123456789abcdefULL, 15, { 0x844807f002bcc1daULL, 0x31724f8e2000afdeULL } },
	{ 0x123456789abcdefULL, 16, { 0x8c4807f002bcc1daULL, 0x1692656c05380863ULL } },
	{ 0x123456789abcdefULL, 17, { 0x7197b7c9e3524050ULL, 0x1cd36591e07ad12bULL } },
	{ 0x123456789abcdefULL, 31, { 0x56d2573152334f7aULL, 0xde959397d0f9f73fULL } },
	{ 0x123456789abcdefULL, 32, { 0x6ed2573152334f7aULL, 0xc78494cbe8b687c7ULL } },
	{ 0x123456789abcdefULL, 65, { 0x71e4091ffd3c9f64ULL, 0xbf137d53aded0f4eULL } },
	{ 0x123456789abcdefULL, 100, { 0x0827dc2b17e8c0faULL, 0xcef60d9964064cbaULL } },
	{ 0x123456789abcdefULL, 1024, { 0x6d8af18eec2a38b4ULL, 0xa017a0e7d3929355ULL } },
	{ 0x123456789abcdefULL, 1472, { 0x9a24aa88d8ce21e4ULL, 0xf9e0dcbad74db208ULL } },
	{ 0x123456789abcdefULL, 2047, { 0x1533c6d8ed2ccb0fULL, 0xa63df3612aeb0c2cULL } },
	{ 0x123456789abcdefULL, 2048, { 0xc133c6d8ed2ccb0fULL, 0x832582f20dba91c7ULL } },
	{ 0x123456789abcdefULL, 2049, { 0xd1f62af535e8ea91ULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 4095, { 0x22809583e25c0480ULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 4096, { 0x61761c5cbb46f816ULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 4100, { 0xd9e7943e77466405ULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 9000, { 0xa83062eeab3429b2ULL, 0x0000000000000000ULL } },
	{ 0x123456789abcdefULL, 65535, { 0xcc159f27c1fb3ca6ULL, 0x0000000000000000ULL } },
};

#endif /* PD_NH_VECTORS_H */
