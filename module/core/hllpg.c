// SPDX-License-Identifier: GPL-2.0
/* HyperLogLog sketches in PostgreSQL hll's storage format: see hllpg.h. */
#include "hllpg.h"

#define PD_HLLPG_VERSION 1
#define PD_HLLPG_EMPTY 1
#define PD_HLLPG_SPARSE 3
#define PD_HLLPG_FULL 4
#define PD_HLLPG_CHUNK (PD_HLL_P + PD_HLLPG_WIDTH)	/* a sparse entry */
/* width - 1 and log2m; sparse on, explicit threshold auto (63) */
#define PD_HLLPG_PARAMS (((PD_HLLPG_WIDTH - 1) << 5) | PD_HLL_P)
#define PD_HLLPG_CUTOFF ((1 << 6) | 63)

/* Append the n low bits of v at bit *pos of out, most significant first. */
static void pd_hllpg_put(u8 *out, u32 *pos, u32 v, u32 n)
{
	while (n--) {
		if ((v >> n) & 1)
			out[*pos >> 3] |= (u8)(0x80 >> (*pos & 7));
		(*pos)++;
	}
}

/* The n bits at bit *pos of in, most significant first. */
static u32 pd_hllpg_get(const u8 *in, u32 *pos, u32 n)
{
	u32 v = 0;

	while (n--) {
		v = (v << 1) | ((in[*pos >> 3] >> (7 - (*pos & 7))) & 1);
		(*pos)++;
	}
	return v;
}

static u8 pd_hllpg_reg(const struct pd_hll *h, u32 i)
{
	return h->reg[i] > PD_HLLPG_MAXREG ? PD_HLLPG_MAXREG : h->reg[i];
}

u32 pd_hllpg_encode(const struct pd_hll *h, u8 *out)
{
	u32 i, set = 0, pos = 0;
	u8 type;

	for (i = 0; i < PD_HLL_M; i++)
		set += h->reg[i] != 0;
	/* the extension's choice: sparse when strictly fewer bits */
	if (!set)
		type = PD_HLLPG_EMPTY;
	else if (set * PD_HLLPG_CHUNK < PD_HLL_M * PD_HLLPG_WIDTH)
		type = PD_HLLPG_SPARSE;
	else
		type = PD_HLLPG_FULL;
	out[0] = (PD_HLLPG_VERSION << 4) | type;
	out[1] = PD_HLLPG_PARAMS;
	out[2] = PD_HLLPG_CUTOFF;
	out += PD_HLLPG_HDR;
	if (type == PD_HLLPG_EMPTY)
		return PD_HLLPG_HDR;
	if (type == PD_HLLPG_SPARSE) {
		memset(out, 0, (set * PD_HLLPG_CHUNK + 7) / 8);
		for (i = 0; i < PD_HLL_M; i++)
			if (h->reg[i])
				pd_hllpg_put(out, &pos, (i << PD_HLLPG_WIDTH) |
					     pd_hllpg_reg(h, i), PD_HLLPG_CHUNK);
	} else {
		memset(out, 0, PD_HLLPG_MAX - PD_HLLPG_HDR);
		for (i = 0; i < PD_HLL_M; i++)
			pd_hllpg_put(out, &pos, pd_hllpg_reg(h, i),
				     PD_HLLPG_WIDTH);
	}
	return PD_HLLPG_HDR + (pos + 7) / 8;
}

int pd_hllpg_decode(const u8 *in, u32 len, struct pd_hll *h)
{
	u32 i, n, v, pos = 0, prev = 0;
	u8 type;

	if (len < PD_HLLPG_HDR || in[0] >> 4 != PD_HLLPG_VERSION ||
	    in[1] != PD_HLLPG_PARAMS || in[2] != PD_HLLPG_CUTOFF)
		return -EINVAL;
	type = in[0] & 0xf;
	pd_hll_clear(h);
	in += PD_HLLPG_HDR;
	len -= PD_HLLPG_HDR;
	switch (type) {
	case PD_HLLPG_EMPTY:
		return len ? -EINVAL : 0;
	case PD_HLLPG_FULL:
		if (len != PD_HLLPG_MAX - PD_HLLPG_HDR)
			return -EINVAL;
		for (i = 0; i < PD_HLL_M; i++)
			h->reg[i] = (u8)pd_hllpg_get(in, &pos, PD_HLLPG_WIDTH);
		return 0;
	case PD_HLLPG_SPARSE:
		/* whole entries, padded by fewer than 8 bits */
		n = len * 8 / PD_HLLPG_CHUNK;
		if (len * 8 - n * PD_HLLPG_CHUNK >= 8)
			return -EINVAL;
		for (i = 0; i < n; i++) {
			v = pd_hllpg_get(in, &pos, PD_HLLPG_CHUNK);
			/* in index order, each once; no register of 0 */
			if ((i && (v >> PD_HLLPG_WIDTH) <= prev) ||
			    !(v & PD_HLLPG_MAXREG))
				return -EINVAL;
			prev = v >> PD_HLLPG_WIDTH;
			h->reg[prev] = v & PD_HLLPG_MAXREG;
		}
		return 0;
	}
	return -EINVAL;
}
