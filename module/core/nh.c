// SPDX-License-Identifier: GPL-2.0
/* The packet key's tail digest (NH, then SipHash-1-3): see nh.h. */
#include "nh.h"
#include "rng.h"

/*
 * The sum of n16 16-byte groups of p under the key words from k on, added
 * to *lo, *hi (mod 2^128). Four sums in turn, so that one's carry chain
 * does not wait for the others' multiplications (measured: 4 sums take
 * 0.07 ns a byte, 2 sums 0.10, on the bench's machine).
 */
#if defined(__SIZEOF_INT128__) && !defined(PD_NH_PORTABLE)
/* One 16-byte group's product under its two key words. */
static __always_inline __uint128_t pd_nh_pair(const u8 *p, const u64 *k)
{
	return (__uint128_t)(pd_load_le64(p) + k[0]) *
	       (pd_load_le64(p + 8) + k[1]);
}

static __always_inline void pd_nh_groups(u64 *lo, u64 *hi, const u64 *k,
					 const u8 *p, u32 n16)
{
	__uint128_t a = (__uint128_t)*hi << 64 | *lo, b = 0, c = 0, d = 0;

	for (; n16 >= 4; n16 -= 4, k += 8, p += 64) {
		a += pd_nh_pair(p, k);
		b += pd_nh_pair(p + 16, k + 2);
		c += pd_nh_pair(p + 32, k + 4);
		d += pd_nh_pair(p + 48, k + 6);
	}
	for (; n16; n16--, k += 2, p += 16)
		a += pd_nh_pair(p, k);
	a += b + c + d;
	*lo = (u64)a;
	*hi = (u64)(a >> 64);
}
#else
/* The same with 32-bit halves, where the compiler has no 128-bit type. */
static void pd_nh_groups(u64 *lo, u64 *hi, const u64 *k, const u8 *p,
			 u32 n16)
{
	const u64 m32 = 0xffffffffULL;

	for (; n16; n16--, k += 2, p += 16) {
		u64 x = pd_load_le64(p) + k[0], y = pd_load_le64(p + 8) + k[1];
		u64 xl = x & m32, xh = x >> 32, yl = y & m32, yh = y >> 32;
		u64 ll = xl * yl, lh = xl * yh, hl = xh * yl, hh = xh * yh;
		u64 mid = (ll >> 32) + (lh & m32) + (hl & m32);
		u64 plo = (mid << 32) | (ll & m32);

		*hi += hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
		*lo += plo;
		*hi += *lo < plo;
	}
}
#endif

void pd_nh_init(struct pd_nh *s, const struct pd_nh_key *key)
{
	s->key = key;
	s->lo = 0;
	s->hi = 0;
	s->len = 0;
	s->fill = 0;
}

/* A chunk's value into the digest (begun with the first): low word first. */
static void pd_nh_chunk_out(struct pd_nh *s, bool first)
{
	if (first)
		pd_sip_init(&s->sip, &s->key->sip);
	pd_sip_word(&s->sip, s->lo);
	pd_sip_word(&s->sip, s->hi);
	s->lo = 0;
	s->hi = 0;
}

/*
 * n16 whole groups at p, the first at byte pos of the tail (pos % 16 is
 * 0). A chunk's value goes out when the next chunk begins: a tail of one
 * chunk never begins the digest.
 */
static void pd_nh_run(struct pd_nh *s, u32 pos, const u8 *p, u32 n16)
{
	while (n16) {
		u32 at = pos % PD_NH_CHUNK;
		u32 n = PD_MIN(n16, (PD_NH_CHUNK - at) / 16);

		if (!at && pos)
			pd_nh_chunk_out(s, pos == PD_NH_CHUNK);
		pd_nh_groups(&s->lo, &s->hi, s->key->k + at / 8, p, n);
		p += 16 * n;
		pos += 16 * n;
		n16 -= n;
	}
}

void pd_nh_update(struct pd_nh *s, const void *data, u32 len)
{
	const u8 *p = data;
	u32 pos = s->len - s->fill, n;

	s->len += len;
	if (s->fill) {
		n = PD_MIN(len, 16 - s->fill);
		memcpy(s->part + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill < 16)
			return;
		pd_nh_run(s, pos, s->part, 1);
		pos += 16;
		s->fill = 0;
	}
	pd_nh_run(s, pos, p, len / 16);
	n = len % 16;
	if (n) {
		memcpy(s->part, p + len - n, n);
		s->fill = n;
	}
}

void pd_nh_final(struct pd_nh *s, u64 out[2])
{
	if (s->fill) {
		memset(s->part + s->fill, 0, 16 - s->fill);
		pd_nh_run(s, s->len - s->fill, s->part, 1);
	}
	if (s->len <= PD_NH_CHUNK) {
		out[0] = s->lo;
		out[1] = s->hi;
		return;
	}
	pd_nh_chunk_out(s, false);	/* the last chunk */
	pd_sip_word(&s->sip, s->len);
	out[0] = pd_sip_final(&s->sip);
	out[1] = 0;
}

void pd_nh_digest(const struct pd_nh_key *key, const void *data, u32 len,
		  u64 out[2])
{
	struct pd_nh s;

	pd_nh_init(&s, key);
	pd_nh_update(&s, data, len);
	pd_nh_final(&s, out);
}

void pd_nh_key_random(struct pd_nh_key *key)
{
	unsigned int i;

	for (i = 0; i < PD_NH_WORDS; i++)
		key->k[i] = pd_random_u64();
	pd_hkey_random(&key->sip);
}

/* "nh-tail!": a generator of its own, apart from the filters' draws */
#define PD_NH_SEED_TWEAK 0x216c6961742d686eULL

void pd_nh_key_seed(struct pd_nh_key *key, u64 seed)
{
	u64 state = seed ^ PD_NH_SEED_TWEAK;
	unsigned int i;

	for (i = 0; i < PD_NH_WORDS; i++)
		key->k[i] = pd_rng_next(&state);
	key->sip.k[0] = pd_rng_next(&state);
	key->sip.k[1] = pd_rng_next(&state);
}
