// SPDX-License-Identifier: GPL-2.0
/* BLAKE2b, RFC 7693: see blake2b.h. */
#include <string.h>

#include "blake2b.h"

static const uint64_t iv[8] = {
	0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL,
	0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
	0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
	0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static const uint8_t sigma[12][16] = {
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
	{ 11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4 },
	{ 7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8 },
	{ 9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13 },
	{ 2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9 },
	{ 12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11 },
	{ 13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10 },
	{ 6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5 },
	{ 10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0 },
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15 },
	{ 14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3 },
};

static uint64_t ror64(uint64_t x, unsigned int n)
{
	return x >> n | x << (64 - n);
}

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

#define G(a, b, c, d, x, y) do {			\
		v[a] = v[a] + v[b] + (x);		\
		v[d] = ror64(v[d] ^ v[a], 32);		\
		v[c] = v[c] + v[d];			\
		v[b] = ror64(v[b] ^ v[c], 24);		\
		v[a] = v[a] + v[b] + (y);		\
		v[d] = ror64(v[d] ^ v[a], 16);		\
		v[c] = v[c] + v[d];			\
		v[b] = ror64(v[b] ^ v[c], 63);		\
	} while (0)

#define ROUND(r) do {						\
		G(0, 4, 8, 12, m[sigma[r][0]], m[sigma[r][1]]);		\
		G(1, 5, 9, 13, m[sigma[r][2]], m[sigma[r][3]]);		\
		G(2, 6, 10, 14, m[sigma[r][4]], m[sigma[r][5]]);	\
		G(3, 7, 11, 15, m[sigma[r][6]], m[sigma[r][7]]);	\
		G(0, 5, 10, 15, m[sigma[r][8]], m[sigma[r][9]]);	\
		G(1, 6, 11, 12, m[sigma[r][10]], m[sigma[r][11]]);	\
		G(2, 7, 8, 13, m[sigma[r][12]], m[sigma[r][13]]);	\
		G(3, 4, 9, 14, m[sigma[r][14]], m[sigma[r][15]]);	\
	} while (0)

/* F: one 128-byte block; last: the final block's flag. */
static void compress(struct blake2b *s, const uint8_t *block, int last)
{
	uint64_t v[16], m[16];
	unsigned int i;

	for (i = 0; i < 16; i++)
		m[i] = le64(block + 8 * i);
	for (i = 0; i < 8; i++) {
		v[i] = s->h[i];
		v[i + 8] = iv[i];
	}
	v[12] ^= s->t;		/* the counter's high word: inputs < 2^64 */
	if (last)
		v[14] = ~v[14];
	/* unrolled: the message schedule's indices are constants */
	ROUND(0);
	ROUND(1);
	ROUND(2);
	ROUND(3);
	ROUND(4);
	ROUND(5);
	ROUND(6);
	ROUND(7);
	ROUND(8);
	ROUND(9);
	ROUND(10);
	ROUND(11);
	for (i = 0; i < 8; i++)
		s->h[i] ^= v[i] ^ v[i + 8];
}

void blake2b_init(struct blake2b *s, unsigned int outlen)
{
	memset(s, 0, sizeof(*s));
	memcpy(s->h, iv, sizeof(s->h));
	/* parameter block: digest length, no key, fanout 1, depth 1 */
	s->h[0] ^= 0x01010000ULL | outlen;
	s->outlen = outlen;
}

void blake2b_update(struct blake2b *s, const void *data, size_t len)
{
	const uint8_t *p = data;
	size_t take;

	while (len) {
		/* a full buffer is compressed only once more input follows */
		if (s->n == sizeof(s->buf)) {
			s->t += sizeof(s->buf);
			compress(s, s->buf, 0);
			s->n = 0;
		}
		take = sizeof(s->buf) - s->n;
		if (take > len)
			take = len;
		memcpy(s->buf + s->n, p, take);
		s->n += (unsigned int)take;
		p += take;
		len -= take;
	}
}

void blake2b_final(struct blake2b *s, uint8_t *out)
{
	unsigned int i;

	s->t += s->n;
	memset(s->buf + s->n, 0, sizeof(s->buf) - s->n);
	compress(s, s->buf, 1);
	for (i = 0; i < s->outlen; i++)
		out[i] = (uint8_t)(s->h[i / 8] >> (8 * (i % 8)));
}
