/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keyed hash of one address (4 or 16 bytes) for the source analytics:
 * every packet hashes its source and its destination, so the hash must
 * cost little. With SipHash-1-3 (hash.h), a PRF, for both addresses the
 * distinct counts cost 25 ns per packet over the de-duplication step
 * (make bench), with this 10 ns: the always-on analytics' budget is 15.
 *
 * An address is a pair of 64-bit words x1, x2 (its 16 bytes read
 * little-endian; an IPv4 address as the IPv4-mapped IPv6 address
 * ::ffff:a.b.c.d, so x1 = 0: the two spellings of one host are one
 * address), and
 *
 *   h = fmix64(floor(((a1 x1 + a2 x2) mod 2^128) / 2^64) + b  mod 2^64)
 *
 * with a key of two uniformly random 128-bit multipliers a1, a2 and a
 * 64-bit offset b: Dietzfelbinger's multiply-shift for vectors plus the
 * offset, then MurmurHash3's 64-bit finalizer, a fixed bijection, to
 * spread the bits (HyperLogLog reads the top 14 bits and the run of zeros
 * after them, the Space-Saving index the low bits). Over the key, two
 * different addresses get the same hash with probability below 2^-63 and
 * each address's hash is uniform (b): an adversary who does not know the
 * key cannot choose addresses that collide, in a sketch register or
 * anywhere else, more often than chance. It is not a PRF: its values are
 * linear in the key before the public finalizer, so one who can watch the
 * estimates while choosing addresses may learn the key
 * (Documentation/user/security.md).
 */
#ifndef PD_ADDRHASH_H
#define PD_ADDRHASH_H

#include "hash.h"

struct pd_akey {
	u64 a[4];	/* a1 = a[1] 2^64 + a[0], a2 = a[3] 2^64 + a[2] */
	u64 b;
};

/* A key as bytes (a file a fleet shares): a[0..3] then b, little-endian. */
#define PD_AKEY_BYTES 40

static inline void pd_akey_from_bytes(struct pd_akey *k, const u8 *bytes)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		k->a[i] = pd_load_le64(bytes + 8 * i);
	k->b = pd_load_le64(bytes + 32);
}

/*
 * The key's fingerprint, to tell keys apart (sketches of different keys
 * must not be merged): SipHash-1-3 of its 40 bytes under a public key.
 * Not secret and no help in finding the key: 64 bits of a 320-bit key.
 */
static inline u64 pd_akey_fingerprint(const struct pd_akey *k)
{
	/* "pktdedup" and "fleetkey", little-endian */
	static const struct pd_hkey pub = {
		{ 0x7075646564746b70ULL, 0x79656b7465656c66ULL }
	};
	u8 b[PD_AKEY_BYTES];
	unsigned int i;

	for (i = 0; i < 4; i++)
		pd_store_le64(b + 8 * i, k->a[i]);
	pd_store_le64(b + 32, k->b);
	return pd_hash64(&pub, b, sizeof(b));
}

/* A random key (pd_random_u64() underneath). */
static inline void pd_akey_random(struct pd_akey *k)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		k->a[i] = pd_random_u64();
	k->b = pd_random_u64();
}

/* The 128-bit product of x and y, portably (the fallback, and tests). */
static inline void pd_ah_mul_portable(u64 x, u64 y, u64 *hi, u64 *lo)
{
	const u64 m32 = 0xffffffffULL;
	u64 xl = x & m32, xh = x >> 32, yl = y & m32, yh = y >> 32;
	u64 ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
	u64 mid = (ll >> 32) + (lh & m32) + (hl & m32);

	*lo = (mid << 32) | (ll & m32);
	*hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}

static inline void pd_ah_mul(u64 x, u64 y, u64 *hi, u64 *lo)
{
#ifdef __SIZEOF_INT128__
	__uint128_t p = (__uint128_t)x * y;

	*hi = (u64)(p >> 64);
	*lo = (u64)p;
#else
	pd_ah_mul_portable(x, y, hi, lo);
#endif
}

/* MurmurHash3's fmix64: a bijection of 64-bit words. */
static inline u64 pd_ah_fmix(u64 z)
{
	z ^= z >> 33;
	z *= 0xff51afd7ed558ccdULL;
	z ^= z >> 33;
	z *= 0xc4ceb9fe1a85ec53ULL;
	return z ^ (z >> 33);
}

/* The words of an address: 4 bytes as ::ffff:a.b.c.d; others zero-padded. */
static inline void pd_ah_words(const u8 *addr, u32 len, u64 *x1, u64 *x2)
{
	u8 buf[16] = { 0 };

	if (len == 4) {
		*x1 = 0;
		*x2 = ((u64)pd_load_le32(addr) << 32) | 0xffff0000ULL;
		return;
	}
	if (len != 16) {
		memcpy(buf, addr, len < 16 ? len : 16);
		addr = buf;
	}
	*x1 = pd_load_le64(addr);
	*x2 = pd_load_le64(addr + 8);
}

/* The hash of an address of len bytes (4 or 16; others zero-padded). */
static inline u64 pd_addr_hash(const struct pd_akey *k, const u8 *addr,
			       u32 len)
{
	u64 x1, x2, h1, l1, h2, l2, lo;

	pd_ah_words(addr, len, &x1, &x2);
	pd_ah_mul(k->a[2], x2, &h2, &l2);
	h2 += k->a[3] * x2;
	if (!x1)	/* IPv4: a1 x1 = 0 */
		return pd_ah_fmix(h2 + k->b);
	pd_ah_mul(k->a[0], x1, &h1, &l1);
	lo = l1 + l2;
	return pd_ah_fmix(h1 + h2 + (lo < l1) + k->a[1] * x1 + k->b);
}

#endif /* PD_ADDRHASH_H */
