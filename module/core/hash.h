/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Keyed 64-bit hashing of keys: SipHash-1-3 (Aumasson & Bernstein,
 * "SipHash: a fast short-input PRF", 2012; 1 compression and 3
 * finalization rounds, the variant the kernel's hsiphash() uses on 64-bit
 * machines), with a 128-bit secret key per filter.
 *
 * One pass over a key gives 64 bits: their halves are the two hashes of
 * the filters' double hashing (filter.h): a packet costs one pass. Unlike
 * jhash, SipHash is a pseudo-random function of its key: a sender who does
 * not know the key cannot compute or search for inputs that collide in a
 * filter.
 *
 * Input words are read little-endian (the reference definition), so every
 * machine gives the same values; tests/vectors/siphash_vectors.h holds
 * reference values, checked natively and against the kernel's own
 * siphash()/hsiphash() in KUnit.
 */
#ifndef PD_HASH_H
#define PD_HASH_H

#include "pd_port.h"

struct pd_hkey {
	u64 k[2];
};

/* Incremental state: input may come in pieces (a key's buffer and tail). */
struct pd_sip {
	u64 v[4];
	u64 tail;	/* bytes not yet compressed, little-endian */
	u32 len;	/* bytes so far */
};

void pd_sip_init(struct pd_sip *s, const struct pd_hkey *key);
void pd_sip_update(struct pd_sip *s, const void *data, u32 len);
/*
 * The same as update with the 8 little-endian bytes of m, where the
 * bytes so far are whole words (s->len % 8 == 0).
 */
void pd_sip_word(struct pd_sip *s, u64 m);
/* SipHash-1-3 of everything passed to update; rounds are 1 and 3. */
u64 pd_sip_final(struct pd_sip *s);

/* SipHash-1-3 of data in one piece. */
u64 pd_hash64(const struct pd_hkey *key, const void *data, u32 len);
/*
 * The same, where the 8 bytes from data + (len & ~7) may be read although
 * fewer belong to the input (a buffer padded to whole words, e.g. a
 * key's): a cheaper tail.
 */
u64 pd_hash64_padded(const struct pd_hkey *key, const void *data, u32 len);

/*
 * SipHash-c-d, any rounds: the tests check the implementation against the
 * paper's SipHash-2-4 values with it. Not for the packet path.
 */
u64 pd_siphash_cd(const struct pd_hkey *key, const void *data, u32 len,
		  unsigned int c, unsigned int d);

/* A random key (pd_random_u64() underneath). */
void pd_hkey_random(struct pd_hkey *key);

#endif /* PD_HASH_H */
