/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HyperLogLog sketches (hll.h) in the storage format of PostgreSQL's
 * hll extension (Aggregate Knowledge's "hll storage specification", the
 * format Citus distributes), so that sketches of many hosts merge in the
 * database: hll_union_agg() of them is the sketch of the union of their
 * elements, when every host hashed its elements with one key.
 *
 * The parameters are fixed: log2m 14 (the sketch's 2^14 registers), a
 * register width of 5 bits, the explicit threshold "auto" (-1) and sparse
 * on: the column type hll(14, 5, -1, 1), which the extension requires of
 * every sketch a union takes. A register above 31 is written as 31: such
 * a value needs 31 zero bits in a row of a uniform hash (probability
 * 2^-31 an element), and the extension's own hll_add() caps it the same.
 *
 * The encoding is the one the extension prints for the same registers: a
 * 3-byte header (version 1 and the type; width - 1 and log2m; sparse and
 * the threshold), then EMPTY (no register set, nothing more), SPARSE
 * (each set register as 19 bits, its index then its value, in index
 * order) when that is fewer bits than FULL, else FULL (every register's
 * 5 bits, register 0 first). Bits are packed from each byte's most
 * significant bit on, the last byte padded with zeros. EXPLICIT (the
 * elements' hashes themselves) cannot be written from registers.
 */
#ifndef PD_HLLPG_H
#define PD_HLLPG_H

#include "hll.h"

#define PD_HLLPG_WIDTH 5
#define PD_HLLPG_MAXREG ((1u << PD_HLLPG_WIDTH) - 1)
#define PD_HLLPG_HDR 3
/* The longest encoding: FULL, 10,243 bytes. */
#define PD_HLLPG_MAX (PD_HLLPG_HDR + (PD_HLL_M * PD_HLLPG_WIDTH + 7) / 8)

/* Encode h into out (PD_HLLPG_MAX bytes); returns the bytes written. */
u32 pd_hllpg_encode(const struct pd_hll *h, u8 *out);

/*
 * Decode len bytes of the format (any of its types but EXPLICIT, with
 * these parameters) into h; 0, or -EINVAL for anything else.
 */
int pd_hllpg_decode(const u8 *in, u32 len, struct pd_hll *h);

#endif /* PD_HLLPG_H */
