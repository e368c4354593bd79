// SPDX-License-Identifier: GPL-2.0
/* Keyed 64-bit hashing (SipHash-1-3): see hash.h. */
#include "hash.h"

static inline u64 pd_rol64(u64 w, unsigned int s)
{
	return (w << s) | (w >> (64 - s));
}

static inline void pd_sipround(u64 *v)
{
	v[0] += v[1];
	v[1] = pd_rol64(v[1], 13);
	v[1] ^= v[0];
	v[0] = pd_rol64(v[0], 32);
	v[2] += v[3];
	v[3] = pd_rol64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = pd_rol64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = pd_rol64(v[1], 17);
	v[1] ^= v[2];
	v[2] = pd_rol64(v[2], 32);
}

static inline void pd_sip_start(u64 *v, const struct pd_hkey *key)
{
	/* "somepseudorandomlygeneratedbytes" */
	v[0] = key->k[0] ^ 0x736f6d6570736575ULL;
	v[1] = key->k[1] ^ 0x646f72616e646f6dULL;
	v[2] = key->k[0] ^ 0x6c7967656e657261ULL;
	v[3] = key->k[1] ^ 0x7465646279746573ULL;
}

static inline void pd_sip_compress(u64 *v, u64 m, unsigned int c)
{
	unsigned int i;

	v[3] ^= m;
	for (i = 0; i < c; i++)
		pd_sipround(v);
	v[0] ^= m;
}

static inline u64 pd_sip_finish(u64 *v, u64 last, unsigned int c,
				unsigned int d)
{
	unsigned int i;

	pd_sip_compress(v, last, c);
	v[2] ^= 0xff;
	for (i = 0; i < d; i++)
		pd_sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The last 0..7 bytes of p, little-endian, under the length byte. */
static inline u64 pd_sip_last(const u8 *p, u32 left, u32 len)
{
	u64 b = (u64)len << 56;

	switch (left) {
	case 7:
		b |= (u64)p[6] << 48;
		fallthrough;
	case 6:
		b |= (u64)p[5] << 40;
		fallthrough;
	case 5:
		b |= (u64)p[4] << 32;
		fallthrough;
	case 4:
		b |= (u64)pd_load_le32(p);
		break;
	case 3:
		b |= (u64)p[2] << 16;
		fallthrough;
	case 2:
		b |= (u64)p[1] << 8;
		fallthrough;
	case 1:
		b |= p[0];
		break;
	default:
		break;
	}
	return b;
}

static inline u64 pd_sip_oneshot(const struct pd_hkey *key, const u8 *p,
				 u32 len, unsigned int c, unsigned int d)
{
	const u8 *end = p + (len & ~7u);
	u64 v[4];

	pd_sip_start(v, key);
	for (; p != end; p += 8)
		pd_sip_compress(v, pd_load_le64(p), c);
	return pd_sip_finish(v, pd_sip_last(p, len & 7, len), c, d);
}

u64 pd_hash64(const struct pd_hkey *key, const void *data, u32 len)
{
	return pd_sip_oneshot(key, data, len, 1, 3);
}

u64 pd_siphash_cd(const struct pd_hkey *key, const void *data, u32 len,
		  unsigned int c, unsigned int d)
{
	return pd_sip_oneshot(key, data, len, c, d);
}

void pd_sip_init(struct pd_sip *s, const struct pd_hkey *key)
{
	pd_sip_start(s->v, key);
	s->tail = 0;
	s->len = 0;
}

void pd_sip_update(struct pd_sip *s, const void *data, u32 len)
{
	const u8 *p = data;
	u32 have = s->len & 7;

	s->len += len;
	/* complete a word left over from the previous piece */
	while (have && len) {
		s->tail |= (u64)*p++ << (8 * have);
		len--;
		if (++have == 8) {
			pd_sip_compress(s->v, s->tail, 1);
			s->tail = 0;
			have = 0;
		}
	}
	for (; len >= 8; len -= 8, p += 8)
		pd_sip_compress(s->v, pd_load_le64(p), 1);
	/* len < 8 bytes remain: they start a new word (have is 0 here) */
	if (len)
		s->tail = pd_sip_last(p, len, 0);
}

u64 pd_sip_final(struct pd_sip *s)
{
	return pd_sip_finish(s->v, s->tail | ((u64)s->len << 56), 1, 3);
}

void pd_hkey_random(struct pd_hkey *key)
{
	key->k[0] = ((u64)pd_random_u32() << 32) | pd_random_u32();
	key->k[1] = ((u64)pd_random_u32() << 32) | pd_random_u32();
}
