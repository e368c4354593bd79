/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BLAKE2b (RFC 7693), unkeyed, of any digest length from 1 to 64 bytes:
 * the frame truth's digest (frametruth.h). A cryptographic hash: finding
 * two inputs with one 128-bit digest takes about 2^64 work, so two frames
 * that differ are taken for one only by a chance of about n^2 / 2^129
 * among n distinct frames. The tests check it against Python's hashlib.
 */
#ifndef PD_SIM_BLAKE2B_H
#define PD_SIM_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

struct blake2b {
	uint64_t h[8];
	uint64_t t;		/* bytes compressed so far */
	uint8_t buf[128];
	unsigned int n;		/* bytes in buf */
	unsigned int outlen;
};

/* outlen: 1 to 64 bytes. */
void blake2b_init(struct blake2b *s, unsigned int outlen);
void blake2b_update(struct blake2b *s, const void *data, size_t len);
/* Writes outlen bytes to out. */
void blake2b_final(struct blake2b *s, uint8_t *out);

#endif /* PD_SIM_BLAKE2B_H */
