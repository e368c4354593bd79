/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The digest of a packet's bytes after its IP header (the packet key's
 * tail, key.h): a keyed universal hash compressed by a PRF.
 *
 * NH (Black, Halevi, Krawczyk, Krovetz, Rogaway, "UMAC: Fast and Secure
 * Message Authentication", CRYPTO '99, section 3; the NH of the kernel's
 * Adiantum, crypto/nhpoly1305.c, is its 32-bit instance) with 64-bit words
 * and 128-bit sums, over chunks of PD_NH_CHUNK bytes:
 *
 *   NH_K(m) = sum_i (m[2i] + K[2i] mod 2^64) * (m[2i+1] + K[2i+1] mod 2^64)
 *             mod 2^128
 *
 * for the little-endian words m[] of a chunk (the last zero-padded to a
 * multiple of 16 bytes), every chunk under the same PD_NH_WORDS key words.
 * A tail of one chunk (at most PD_NH_CHUNK bytes: every packet of a
 * 1500-byte MTU) gives its 128-bit NH value; a longer one the 64-bit
 * SipHash-1-3 (hash.h), under a second 128-bit key, of its chunks'
 * values in order and its length in bytes (and a zero word). The key
 * (key.h) holds the value and the length; each filter's SipHash then
 * hashes the key.
 *
 * Bound: NH[n, 64] is 2^-64-almost-universal on inputs of equal length
 * (UMAC, Theorem 3.1 with w = 64): for any two different chunks of one
 * length, chosen without knowledge of K, Pr_K[NH_K(a) = NH_K(b)] <= 2^-64.
 * Two different tails of one length differ in some chunk, so their values
 * (or the SipHash inputs of longer ones) are equal with probability at
 * most 2^-64; tails of different lengths differ in the length the key
 * holds. Two different SipHash inputs share their output with
 * probability 2^-64 if SipHash-1-3 is a PRF. So two different tails give
 * one filter hash with probability at most 3 * 2^-64 (< 2^-62), the NH
 * value, the digest and the filter's hash each failing at most 2^-64 of
 * the time, for a sender who knows none of the keys, whatever it sends:
 * NH's values are never seen, only the filters' PRF output through what
 * the filters do.
 *
 * Cost: one 64x64->128 multiplication and two adds per 16 bytes, and two
 * SipHash compressions per chunk (Documentation/design/keys.md has the
 * figures). The bytes may come in pieces of any length (a paged packet's
 * fragments): the digest is the same however they are split.
 */
#ifndef PD_NH_H
#define PD_NH_H

#include "pd_port.h"
#include "hash.h"

#define PD_NH_CHUNK 2048
#define PD_NH_WORDS (PD_NH_CHUNK / 8)

struct pd_nh_key {
	u64 k[PD_NH_WORDS];	/* NH's key words */
	struct pd_hkey sip;	/* the digest's SipHash key */
};

/* A digest in progress. */
struct pd_nh {
	const struct pd_nh_key *key;
	u64 lo, hi;		/* the chunk's sum so far, mod 2^128 */
	struct pd_sip sip;	/* the digest, from the second chunk on */
	u32 len;		/* bytes so far */
	u32 fill;		/* bytes in part */
	u8 part[16];		/* a 16-byte group begun by a piece */
};

void pd_nh_init(struct pd_nh *s, const struct pd_nh_key *key);
void pd_nh_update(struct pd_nh *s, const void *data, u32 len);
/* The tail's two words: its NH value (one chunk), or its digest and 0. */
void pd_nh_final(struct pd_nh *s, u64 out[2]);
/* The same for len bytes at data in one piece. */
void pd_nh_digest(const struct pd_nh_key *key, const void *data, u32 len,
		  u64 out[2]);

/* Random keys (pd_random_u64()); or keys drawn from a seed's generator. */
void pd_nh_key_random(struct pd_nh_key *key);
void pd_nh_key_seed(struct pd_nh_key *key, u64 seed);

#endif /* PD_NH_H */
