// SPDX-License-Identifier: GPL-2.0
/* Keyed 64-bit hashing (SipHash-1-3): see hash.h. */
#include "hash.h"

static inline u64 pd_rol64(u64 w, unsigned int s)
{
	return (w << s) | (w >> (64 - s));
}

/*
 * One round over the state, kept in four locals of the caller (inlined,
 * they stay in registers).
 */
static __always_inline void pd_sipround(u64 *v0, u64 *v1, u64 *v2, u64 *v3)
{
	*v0 += *v1;
	*v1 = pd_rol64(*v1, 13);
	*v1 ^= *v0;
	*v0 = pd_rol64(*v0, 32);
	*v2 += *v3;
	*v3 = pd_rol64(*v3, 16);
	*v3 ^= *v2;
	*v0 += *v3;
	*v3 = pd_rol64(*v3, 21);
	*v3 ^= *v0;
	*v2 += *v1;
	*v1 = pd_rol64(*v1, 17);
	*v1 ^= *v2;
	*v2 = pd_rol64(*v2, 32);
}

/* "somepseudorandomlygeneratedbytes" */
#define PD_SIP_C0 0x736f6d6570736575ULL
#define PD_SIP_C1 0x646f72616e646f6dULL
#define PD_SIP_C2 0x6c7967656e657261ULL
#define PD_SIP_C3 0x7465646279746573ULL

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

/*
 * SipHash-c-d of len bytes at p. The packet path's 1-3 gets its rounds
 * written out and this inlined with constant rounds (pd_hash64()): at -O2
 * GCC keeps round loops and does not inline a function used twice.
 * padded: the word holding the last len % 8 bytes may be read whole (the
 * bytes past len are ignored), which spares the byte-by-byte tail.
 */
static __always_inline u64 pd_sip_oneshot(const struct pd_hkey *key,
					  const u8 *p, u32 len,
					  unsigned int c, unsigned int d,
					  bool padded)
{
	u64 v0 = key->k[0] ^ PD_SIP_C0, v1 = key->k[1] ^ PD_SIP_C1;
	u64 v2 = key->k[0] ^ PD_SIP_C2, v3 = key->k[1] ^ PD_SIP_C3;
	const u8 *end = p + (len & ~7u);
	bool one_three = c == 1 && d == 3;
	unsigned int i;
	u64 m;

	for (; p != end; p += 8) {
		m = pd_load_le64(p);
		v3 ^= m;
		if (one_three)
			pd_sipround(&v0, &v1, &v2, &v3);
		else
			for (i = 0; i < c; i++)
				pd_sipround(&v0, &v1, &v2, &v3);
		v0 ^= m;
	}
	if (padded)
		m = (len & 7 ? pd_load_le64(p) &
		     (((u64)1 << (8 * (len & 7))) - 1) : 0) | (u64)len << 56;
	else
		m = pd_sip_last(p, len & 7, len);
	v3 ^= m;
	for (i = 0; i < c; i++)
		pd_sipround(&v0, &v1, &v2, &v3);
	v0 ^= m;
	v2 ^= 0xff;
	if (one_three) {
		pd_sipround(&v0, &v1, &v2, &v3);
		pd_sipround(&v0, &v1, &v2, &v3);
		pd_sipround(&v0, &v1, &v2, &v3);
	} else {
		for (i = 0; i < d; i++)
			pd_sipround(&v0, &v1, &v2, &v3);
	}
	return v0 ^ v1 ^ v2 ^ v3;
}

u64 pd_hash64(const struct pd_hkey *key, const void *data, u32 len)
{
	return pd_sip_oneshot(key, data, len, 1, 3, false);
}

u64 pd_hash64_padded(const struct pd_hkey *key, const void *data, u32 len)
{
	return pd_sip_oneshot(key, data, len, 1, 3, true);
}

u64 pd_siphash_cd(const struct pd_hkey *key, const void *data, u32 len,
		  unsigned int c, unsigned int d)
{
	return pd_sip_oneshot(key, data, len, c, d, false);
}

/* One SipHash-1-3 compression of word m into a stored state. */
static void pd_sip_compress(struct pd_sip *s, u64 m)
{
	u64 v0 = s->v[0], v1 = s->v[1], v2 = s->v[2], v3 = s->v[3] ^ m;

	pd_sipround(&v0, &v1, &v2, &v3);
	s->v[0] = v0 ^ m;
	s->v[1] = v1;
	s->v[2] = v2;
	s->v[3] = v3;
}

void pd_sip_init(struct pd_sip *s, const struct pd_hkey *key)
{
	s->v[0] = key->k[0] ^ PD_SIP_C0;
	s->v[1] = key->k[1] ^ PD_SIP_C1;
	s->v[2] = key->k[0] ^ PD_SIP_C2;
	s->v[3] = key->k[1] ^ PD_SIP_C3;
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
			pd_sip_compress(s, s->tail);
			s->tail = 0;
			have = 0;
		}
	}
	for (; len >= 8; len -= 8, p += 8)
		pd_sip_compress(s, pd_load_le64(p));
	/* len < 8 bytes remain: they start a new word (have is 0 here) */
	if (len)
		s->tail = pd_sip_last(p, len, 0);
}

void pd_sip_word(struct pd_sip *s, u64 m)
{
	pd_sip_compress(s, m);
	s->len += 8;
}

u64 pd_sip_final(struct pd_sip *s)
{
	u64 v0, v1, v2, v3;

	pd_sip_compress(s, s->tail | ((u64)s->len << 56));
	v0 = s->v[0];
	v1 = s->v[1];
	v2 = s->v[2] ^ 0xff;
	v3 = s->v[3];
	pd_sipround(&v0, &v1, &v2, &v3);
	pd_sipround(&v0, &v1, &v2, &v3);
	pd_sipround(&v0, &v1, &v2, &v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

void pd_hkey_random(struct pd_hkey *key)
{
	key->k[0] = pd_random_u64();
	key->k[1] = pd_random_u64();
}
