// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the packet key's tail digest (module/core/nh.h).
 *
 * Input: byte 0 and 1 pick the key's seed and how the rest is cut into
 * pieces (as a paged skb's fragments or an XDP frame's buffers give it);
 * the rest, repeated up to 3 times (tails of several 2048-byte chunks),
 * is the tail. Checked: the digest is the same in one piece and in the
 * pieces; the portable NH (32-bit halves) gives the 128-bit one's words;
 * a tail with one byte flipped gets other words, and so does a tail of
 * several chunks one zero byte longer (its length is in the digest),
 * while a tail of one chunk whose last group had room for that byte
 * keeps its NH words (the key holds the length); with a fixed seed:
 * NH's 2^-64 aside, which no input here reaches.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../module/core/nh.h"
#include "../../module/core/rng.h"

/* nh_portable.c: the same functions with the portable NH */
void pd_nhp_init(struct pd_nh *s, const struct pd_nh_key *key);
void pd_nhp_update(struct pd_nh *s, const void *data, u32 len);
void pd_nhp_final(struct pd_nh *s, u64 out[2]);

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: %s\n", \
	__FILE__, __LINE__, #c); abort(); } } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static struct pd_nh_key key;
	u64 one[2], many[2], port[2], w[2], rng;
	struct pd_nh s, p;
	u32 len, at, n, reps;
	u8 *t;

	if (size < 2 || size > 4096)
		return 0;
	pd_nh_key_seed(&key, in[0]);
	rng = in[1];
	reps = 1 + in[1] % 3;
	in += 2;
	size -= 2;
	len = (u32)size * reps;
	t = malloc(len + 1);
	if (!t)
		return 0;
	for (at = 0; at < len; at += (u32)size)
		memcpy(t + at, in, size);
	pd_nh_digest(&key, t, len, one);
	/* in pieces, and the portable NH alongside */
	pd_nh_init(&s, &key);
	pd_nhp_init(&p, &key);
	for (at = 0; at < len; at += n) {
		n = PD_MIN(len - at, 1 + pd_rng_below(&rng, 3000));
		if (rng & 1)
			n = PD_MIN(n, 1 + (u32)(rng >> 60));
		pd_nh_update(&s, t + at, n);
		pd_nhp_update(&p, t + at, n);
	}
	pd_nh_final(&s, many);
	pd_nhp_final(&p, port);
	CHECK(many[0] == one[0] && many[1] == one[1]);
	CHECK(port[0] == one[0] && port[1] == one[1]);
	if (len) {
		/* one byte flipped */
		at = (u32)(rng % len);
		t[at] ^= 0x80;
		pd_nh_digest(&key, t, len, w);
		CHECK(w[0] != one[0] || w[1] != one[1]);
		t[at] ^= 0x80;
		/* a zero byte appended: the length tells them apart */
		t[len] = 0;
		pd_nh_digest(&key, t, len + 1, w);
		/* one chunk whose last group had room: NH's words, same padding */
		if (len < PD_NH_CHUNK && len % 16)
			CHECK(w[0] == one[0] && w[1] == one[1]);
		else if (len >= PD_NH_CHUNK)
			CHECK(w[0] != one[0]);
	}
	free(t);
	return 0;
}
