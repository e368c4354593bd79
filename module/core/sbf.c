// SPDX-License-Identifier: GPL-2.0
/* Stable Bloom Filter: see sbf.h. */
#include "occ.h"
#include "sbf.h"
#include "rng.h"
#include "step.h"

unsigned int pd_sbf_bits_for_max(unsigned int max)
{
	unsigned int j = 0;

	if (!max || max > 255 || (max & (max + 1)))
		return 0;	/* Max must be 2^j - 1, 1 <= j <= 8 */
	while (max >> j)
		j++;
	/* Power-of-two cell widths never straddle a 64-bit word. */
	return j == 1 ? 1 : j == 2 ? 2 : j <= 4 ? 4 : 8;
}

u64 pd_sbf_usable_cells(const struct pd_sbf_params *prm)
{
	unsigned int d = pd_sbf_bits_for_max(prm->max);
	unsigned int unit = pd_sbf_lined(prm->layout) ? PD_SBF_LINE_BITS : 64;

	if (!d)
		return 0;
	return prm->cells & ~(u64)(unit / d - 1);
}

int pd_sbf_check(const struct pd_sbf_params *prm, const char **why)
{
	u64 m = pd_sbf_usable_cells(prm);

	if (!pd_sbf_bits_for_max(prm->max)) {
		*why = "max must be 2^j - 1 for j in 1..8 (1, 3, 7, 15, ... 255)";
		return -EINVAL;
	}
	if (prm->k < 1 || prm->k > PD_SBF_MAX_K) {
		*why = "k must be between 1 and 16";
		return -EINVAL;
	}
	if (m < PD_SBF_MIN_CELLS) {
		*why = "memory too small: the filter needs at least 64 cells";
		return -EINVAL;
	}
	if (m > PD_SBF_MAX_CELLS) {
		*why = "memory too large: at most 2^32 - 64 cells";
		return -ERANGE;
	}
	if (prm->p > m) {
		*why = "p must not exceed the number of cells";
		return -EINVAL;
	}
	if (prm->layout > PKTDEDUP_LAYOUT_MAX) {
		*why = "no such layout";
		return -EINVAL;
	}
	if (pd_sbf_lined(prm->layout) &&
	    prm->p > PD_SBF_LINE_BITS / pd_sbf_bits_for_max(prm->max)) {
		*why = "blocked, line: p must not exceed the cells of a line (512 / cell bits)";
		return -EINVAL;
	}
	return 0;
}

size_t pd_sbf_bytes(const struct pd_sbf_params *prm)
{
	unsigned int d = pd_sbf_bits_for_max(prm->max);

	return d ? (size_t)(pd_sbf_usable_cells(prm) * d / 8) : 0;
}

u64 pd_sbf_step_lines(const struct pd_sbf_params *prm)
{
	unsigned int d = pd_sbf_bits_for_max(prm->max);

	if (prm->layout == PKTDEDUP_LAYOUT_LINE)
		return 1;
	if (prm->layout == PKTDEDUP_LAYOUT_BLOCKED)
		return prm->p ? 2 : 1;
	return prm->k + pd_step_run_lines((u64)prm->p * d);
}

int pd_sbf_init(struct pd_sbf *f, const struct pd_sbf_params *prm, u64 *words,
		const char **why)
{
	unsigned int d, s;
	int err = pd_sbf_check(prm, why);

	if (err)
		return err;
	d = pd_sbf_bits_for_max(prm->max);
	memset(f, 0, sizeof(*f));
	f->words = words;
	f->cells = (u32)pd_sbf_usable_cells(prm);
	f->nwords = (u32)(f->cells / (64 / d));
	f->p = prm->p;
	f->k = prm->k;
	f->d = (u8)d;
	f->max = prm->max;
	for (s = 0; (1u << s) < 64 / d; s++)
		;
	f->cpw_shift = (u8)s;
	for (s = 0; s < 64; s += d)
		f->lowmask |= (u64)1 << s;
	if (pd_sbf_lined(prm->layout)) {
		f->blocked = true;
		f->oneline = prm->layout == PKTDEDUP_LAYOUT_LINE;
		f->cpl_shift = (u8)(f->cpw_shift + 3);	/* 8 words a line */
		f->lines = f->cells >> f->cpl_shift;
		f->run_word = prm->p * d <= 64;
	}
	pd_sbf_set_rng(f, pd_random_u64());
	return 0;
}

void pd_sbf_gen_init(const struct pd_sbf *f, struct pd_sbf_gen *g, u64 rng)
{
	g->rng = rng;
	g->next_dec = f->p ? pd_rng_below(&g->rng, f->cells) : 0;
}

void pd_sbf_set_rng(struct pd_sbf *f, u64 rng)
{
	pd_sbf_gen_init(f, &f->gen, rng);
}

void pd_sbf_clear(struct pd_sbf *f)
{
	memset(f->words, 0, (size_t)f->nwords * sizeof(u64));
}

void pd_sbf_reset(struct pd_sbf *f)
{
	pd_sbf_clear(f);
	pd_sbf_set_rng(f, pd_random_u64());
}

int pd_sbf_create(struct pd_sbf *f, const struct pd_sbf_params *prm,
		  const char **why)
{
	u64 *words;
	int err = pd_sbf_check(prm, why);

	if (err)
		return err;
	words = pd_zalloc_large(pd_sbf_bytes(prm));
	if (!words) {
		*why = "out of memory";
		return -ENOMEM;
	}
	return pd_sbf_init(f, prm, words, why);
}

void pd_sbf_destroy(struct pd_sbf *f)
{
	pd_free_large(f->words);
	f->words = NULL;
}

static inline u32 pd_sbf_map(const struct pd_sbf *f, u32 h)
{
	return (u32)(((u64)h * f->cells) >> 32);
}

/*
 * The K distinct cells of a key inside its line of 2^s cells, offsets
 * from the line's first: draws of s bits from h2, then from a mix of the
 * whole hash.
 */
static __always_inline void pd_sbf_line_cells(u32 h1, u32 h2, unsigned int k,
					      unsigned int s, u32 *pos)
{
	u64 z = ((u64)h2 << 32) | h1, bits = h2;
	u32 mask = (1u << s) - 1;
	unsigned int i = 0, j, left = 32;

	while (i < k) {
		u32 c;

		if (left < s) {
			bits = pd_rng_next(&z);	/* 64 more bits */
			left = 64;
		}
		c = (u32)(bits & mask);
		bits >>= s;
		left -= s;
		for (j = 0; j < i && pos[j] != c; j++)
			;
		if (j == i)
			pos[i++] = c;
	}
}

/*
 * Blocked layout: the line is map(h1) over the lines; the K cells in it
 * are distinct independent draws from the bits of h2 (and, past them, of
 * a mix of the whole hash). Double hashing inside a line was tried: its
 * arithmetic progressions made the cells of one key share other keys
 * more often, and raised the FP rate about 6% above independent cells.
 */
static __always_inline void pd_sbf_positions_blocked(const struct pd_sbf *f,
						     u32 h1, u32 h2, u32 *pos)
{
	u32 base = (u32)(((u64)h1 * f->lines) >> 32) << f->cpl_shift;
	unsigned int i;

	pd_sbf_line_cells(h1, h2, f->k, f->cpl_shift, pos);
	for (i = 0; i < f->k; i++)
		pos[i] += base;
}

/* pd_sbf_positions(), inlined into the steps */
static __always_inline void pd_sbf_positions_in(const struct pd_sbf *f,
						u32 h1, u32 h2, u32 *pos)
{
	u32 g, step;
	unsigned int i;

	if (f->blocked) {
		pd_sbf_positions_blocked(f, h1, h2, pos);
		return;
	}
	g = pd_sbf_map(f, h1);
	step = pd_sbf_map(f, h2) | 1;

	/*
	 * g_i = (map(h1) + i * step) mod m; m is even, so step < m; the sum
	 * in 64 bits (m may pass 2^31)
	 */
	for (i = 0; i < f->k; i++) {
		u64 next = (u64)g + step;

		pos[i] = g;
		g = (u32)(next >= f->cells ? next - f->cells : next);
	}
}

void pd_sbf_positions(const struct pd_sbf *f, u32 h1, u32 h2, u32 *pos)
{
	pd_sbf_positions_in(f, h1, h2, pos);
}

static inline u64 *pd_sbf_word(const struct pd_sbf *f, u32 i,
			       unsigned int *shift)
{
	*shift = (i & ((1u << f->cpw_shift) - 1)) * f->d;
	return &f->words[i >> f->cpw_shift];
}

unsigned int pd_sbf_cell(const struct pd_sbf *f, u32 i)
{
	unsigned int shift;
	u64 *w = pd_sbf_word(f, i, &shift);

	return (unsigned int)(*w >> shift) & f->max;
}

/* A cell, read whole from a word other CPUs may be writing (cc). */
static __always_inline unsigned int pd_sbf_cell_cc(const struct pd_sbf *f,
						   u32 i, bool cc)
{
	unsigned int shift;
	u64 *w = pd_sbf_word(f, i, &shift);

	return (unsigned int)((cc ? pd_load_word(w) : *w) >> shift) & f->max;
}

/* The lowest bit of each non-zero d-bit field of w (low: those bits). */
static __always_inline u64 pd_sbf_nonzero_d(u64 w, unsigned int d, u64 low)
{
	u64 high = low << (d - 1);

	if (d == 1)
		return w;
	/* a field's low bits plus all ones carry into its top bit */
	return ((((w & ~high) + ~high) | w) & high) >> (d - 1);
}

/* The lowest bit of each field of w that is non-zero. */
static inline u64 pd_sbf_nonzero(const struct pd_sbf *f, u64 w)
{
	return pd_sbf_nonzero_d(w, f->d, f->lowmask);
}

/*
 * Decrement by one the non-zero cells (d bits; low, each one's lowest
 * bit) of *w in range (a mask of whole cells); cc: other CPUs write *w
 * at the same time, so it is read and written whole (racing: sbf.h),
 * and written only if a cell in range is non-zero.
 */
static __always_inline void pd_sbf_dec_masked(u64 *w, u64 range,
					      unsigned int d, u64 low, bool cc)
{
	u64 old, dec;

	if (!cc) {
		*w -= pd_sbf_nonzero_d(*w, d, low) & range;
		return;
	}
	old = pd_load_word(w);
	dec = pd_sbf_nonzero_d(old, d, low) & range;
	if (dec)
		pd_store_word(w, old - dec);
}

/* The same with f's cell width. */
static __always_inline void pd_sbf_dec_bits(const struct pd_sbf *f, u64 *w,
					    u64 range, bool cc)
{
	pd_sbf_dec_masked(w, range, f->d, f->lowmask, cc);
}

/* Decrement by one the non-zero cells [first, first + n) of one word. */
static __always_inline void pd_sbf_dec_word(const struct pd_sbf *f, u64 *w,
					    unsigned int first, unsigned int n,
					    bool cc)
{
	unsigned int lo = first * f->d, width = n * f->d;
	u64 range = width >= 64 ? ~(u64)0 : (((u64)1 << width) - 1) << lo;

	pd_sbf_dec_bits(f, w, range, cc);
}

/*
 * Decrement by one the non-zero cells of n whole words (cc: as above), d
 * and low held in registers: the words' stores cannot change them.
 */
static __always_inline void pd_sbf_dec_words(u64 *w, u32 n, unsigned int d,
					     u64 low, bool cc)
{
	for (; n; n--, w++)
		pd_sbf_dec_masked(w, ~(u64)0, d, low, cc);
}

/* Decrement cells [start, start + count), not wrapping at m. */
static __always_inline void pd_sbf_dec_run(struct pd_sbf *f, u32 start,
					   u32 run, bool cc)
{
	u32 cpw = 1u << f->cpw_shift;
	u32 wi = start >> f->cpw_shift;
	u32 first = start & (cpw - 1), n;

	if (first) {		/* a word's tail */
		n = PD_MIN(run, cpw - first);
		pd_sbf_dec_word(f, &f->words[wi++], first, n, cc);
		run -= n;
	}
	n = run >> f->cpw_shift;	/* whole words, d a constant in each */
	switch (f->d) {
	case 1:
		pd_sbf_dec_words(&f->words[wi], n, 1, f->lowmask, cc);
		break;
	case 2:
		pd_sbf_dec_words(&f->words[wi], n, 2, f->lowmask, cc);
		break;
	case 4:
		pd_sbf_dec_words(&f->words[wi], n, 4, f->lowmask, cc);
		break;
	default:
		pd_sbf_dec_words(&f->words[wi], n, 8, f->lowmask, cc);
		break;
	}
	wi += n;
	run &= cpw - 1;
	if (run)		/* a word's head */
		pd_sbf_dec_word(f, &f->words[wi], 0, run, cc);
}

/* Decrement cells [start, start + count) wrapping at m (cc: as above). */
static __always_inline void pd_sbf_decrement_cc(struct pd_sbf *f, u32 start,
						u32 count, bool cc)
{
	u64 width = (u64)count * f->d;	/* a run may pass 2^32 bits */
	u32 lo;
	u64 *w;

	/*
	 * The common case, straight-line: a run of at most 64 bits that
	 * does not wrap spans one word or two neighbouring ones.
	 */
	if (width <= 64 && count <= f->cells - start) {
		w = &f->words[start >> f->cpw_shift];
		lo = (start & ((1u << f->cpw_shift) - 1)) * f->d;
		if (lo + width <= 64) {
			u64 range = width == 64 ? ~(u64)0 :
				    (((u64)1 << width) - 1) << lo;

			pd_sbf_dec_bits(f, w, range, cc);
		} else {
			pd_sbf_dec_bits(f, &w[0], ~(u64)0 << lo, cc);
			pd_sbf_dec_bits(f, &w[1],
					(((u64)1 << (lo + width - 64)) - 1), cc);
		}
		return;
	}
	if (count > f->cells - start) {
		pd_sbf_dec_run(f, start, f->cells - start, cc);
		count -= f->cells - start;
		start = 0;
	}
	pd_sbf_dec_run(f, start, count, cc);
}

void pd_sbf_decrement(struct pd_sbf *f, u32 start, u32 count)
{
	pd_sbf_decrement_cc(f, start, count, false);
}

void pd_sbf_prefetch(const struct pd_sbf *f, u32 h1)
{
	/*
	 * Blocked: the key's one line, one multiply away. Flat: nothing;
	 * prefetching its K cells would compute their positions twice, and
	 * the step issues their K loads back to back anyway.
	 */
	if (f->blocked)
		pd_prefetchw(&f->words[(u32)(((u64)h1 * f->lines) >> 32) *
				       PD_SBF_LINE_WORDS]);
}

bool pd_sbf_query(const struct pd_sbf *f, u32 h1, u32 h2)
{
	u32 pos[PD_SBF_MAX_K];
	unsigned int i;

	pd_sbf_positions(f, h1, h2, pos);
	for (i = 0; i < f->k; i++)	/* other CPUs may step f: whole words */
		if (!pd_sbf_cell_cc(f, pos[i], true))
			return false;
	return true;
}

/*
 * Set the k cells at pos to Max (cc: each word read and written whole,
 * racing, and written even when the cell is at Max already: a branch
 * per cell cost more than the store).
 */
static __always_inline void pd_sbf_set_cells_cc(struct pd_sbf *f,
						const u32 *pos, bool cc)
{
	unsigned int i, shift;

	for (i = 0; i < f->k; i++) {
		u64 *w = pd_sbf_word(f, pos[i], &shift);
		u64 m = (u64)f->max << shift;

		if (cc)
			pd_store_word(w, pd_load_word(w) | m);
		else
			*w |= m;
	}
}

void pd_sbf_set_cells(struct pd_sbf *f, const u32 *pos)
{
	pd_sbf_set_cells_cc(f, pos, false);
}

/* Raise the k cells at pos to at least value (1..Max). */
static void pd_sbf_raise_cells(struct pd_sbf *f, const u32 *pos,
			       unsigned int value)
{
	unsigned int i, shift;

	for (i = 0; i < f->k; i++) {
		u64 *w = pd_sbf_word(f, pos[i], &shift);

		if (((*w >> shift) & f->max) < value)
			*w = (*w & ~((u64)f->max << shift)) |
			     ((u64)value << shift);
	}
}

/*
 * Blocked layout: decrement P cells from start, wrapping inside the line
 * start is in (P is at most a line's cells).
 */
static __always_inline void pd_sbf_decrement_line(struct pd_sbf *f,
						  u32 start, u32 count,
						  bool cc)
{
	u32 cpl = 1u << f->cpl_shift, off = start & (cpl - 1);

	if (off + count <= cpl) {
		pd_sbf_decrement_cc(f, start, count, cc);
		return;
	}
	pd_sbf_decrement_cc(f, start, cpl - off, cc);
	pd_sbf_decrement_cc(f, start - off, count - (cpl - off), cc);
}

/*
 * The decrements of a step, from the start g drew one step earlier; the
 * next start is drawn now and its line prefetched for the next element.
 */
static __always_inline void pd_sbf_step_decrement(struct pd_sbf *f,
						  struct pd_sbf_gen *g,
						  bool cc)
{
	u32 start = g->next_dec;

	g->next_dec = pd_rng_below(&g->rng, f->cells);
	pd_prefetchw(&f->words[g->next_dec >> f->cpw_shift]);
	if (f->blocked)
		pd_sbf_decrement_line(f, start, f->p, cc);
	else
		pd_sbf_decrement_cc(f, start, f->p, cc);
}

/*
 * Layout line: the P decrements from a random cell of the key's own line
 * (in_line is a cell of it), wrapping inside it: the line the probes
 * brought in, so the step touches no other.
 */
static __always_inline void pd_sbf_step_decrement_line(struct pd_sbf *f,
						       struct pd_sbf_gen *g,
						       u32 in_line, bool cc)
{
	u32 cpl = 1u << f->cpl_shift;
	u32 start = (in_line & ~(cpl - 1)) +
		    (u32)pd_rng_below(&g->rng, cpl);

	pd_sbf_decrement_line(f, start, f->p, cc);
}

/* The verdict on the element at pos, then the P decrements of a step. */
static __always_inline bool pd_sbf_verdict_decrement(struct pd_sbf *f,
						     struct pd_sbf_gen *g,
						     u32 h1, u32 h2, u32 *pos,
						     bool cc)
{
	bool dup = true;
	unsigned int i;

	pd_sbf_positions_in(f, h1, h2, pos);
	/*
	 * cc, flat: the K lines asked for to be written, all at once, before
	 * the first probe: one move of each line, in parallel. Blocked: the
	 * one line, which pd_sbf_prefetch() asked for after the hash.
	 */
	for (i = 0; cc && !f->blocked && i < f->k; i++)
		pd_prefetchw(&f->words[pos[i] >> f->cpw_shift]);
	for (i = 0; i < f->k; i++)
		dup &= pd_sbf_cell_cc(f, pos[i], cc) != 0;
	if (!f->p)
		return dup;
	if (f->oneline)
		pd_sbf_step_decrement_line(f, g, pos[0], cc);
	else
		pd_sbf_step_decrement(f, g, cc);
	return dup;
}

bool pd_sbf_step_value(struct pd_sbf *f, u32 h1, u32 h2, unsigned int value)
{
	u32 pos[PD_SBF_MAX_K] __uninitialized;	/* [0, k) written */
	bool dup = pd_sbf_verdict_decrement(f, &f->gen, h1, h2, pos, false);

	pd_sbf_raise_cells(f, pos, value);
	return dup;
}

bool pd_sbf_step_ref(struct pd_sbf *f, struct pd_sbf_gen *g, u32 h1, u32 h2,
		     bool cc)
{
	u32 pos[PD_SBF_MAX_K] __uninitialized;	/* [0, k) written */
	bool dup;

	if (cc) {
		dup = pd_sbf_verdict_decrement(f, g, h1, h2, pos, true);
		pd_sbf_set_cells_cc(f, pos, true);
	} else {
		dup = pd_sbf_verdict_decrement(f, g, h1, h2, pos, false);
		pd_sbf_set_cells_cc(f, pos, false);
	}
	return dup;
}

/*
 * Decrement by one the non-zero cells of a run of P d-bit cells, P d <=
 * 64, from cell off of the 64-byte line at line, wrapping inside it: two
 * masked updates, of the word the run starts in and of the next word of
 * the line (its mask empty when the run ends in the first), with no
 * branch on where the run falls (cc: each word read and written whole,
 * written only if a cell of it changes: pd_sbf_dec_masked()).
 */
static __always_inline void pd_sbf_dec_line_word(u64 *line, u32 off, u32 p,
						 unsigned int d, u64 low,
						 bool cc)
{
	u32 bit = off * d, lo = bit & 63, width = p * d;
	u64 run = width >= 64 ? ~(u64)0 : ((u64)1 << width) - 1;
	/* the run's bits in its first word, then those past that word's end */
	u64 m0 = run << lo, m1 = (run >> 1) >> (63 - lo);
	u64 *w0 = &line[bit >> 6];
	u64 *w1 = &line[((bit >> 6) + 1) & (PD_SBF_LINE_WORDS - 1)];

	pd_sbf_dec_masked(w0, m0, d, low, cc);
	pd_sbf_dec_masked(w1, m1, d, low, cc);
}

/*
 * The step of a lined filter (blocked, line) whose run fits a word, the
 * cell width d a constant: the key's line found once and its cells
 * addressed inside it, the probes, the run (pd_sbf_dec_line_word()), the
 * sets. Cell for cell and draw for draw pd_sbf_step_ref(): the cells of
 * pd_sbf_line_cells(), the run's start as
 * pd_sbf_step_decrement() (blocked) or pd_sbf_step_decrement_line()
 * (line) draws it. What it saves is the generic step's branches on the
 * layout, the width and where the run falls (make bench: the layouts
 * table; Documentation/results/bench-kernel.md).
 */
static __always_inline bool pd_sbf_step_lined(struct pd_sbf *f,
					      struct pd_sbf_gen *g, u32 h1,
					      u32 h2, unsigned int d, bool cc)
{
	/* log2 of the cells of a line and of a word */
	const unsigned int s = d == 1 ? 9 : d == 2 ? 8 : d == 4 ? 7 : 6;
	const unsigned int cw = s - 3;
	const u32 mask = (1u << s) - 1;
	const u64 low = ~(u64)0 / ((1u << d) - 1);	/* every cell's low bit */
	u64 *line = &f->words[(u32)(((u64)h1 * f->lines) >> 32) *
			      PD_SBF_LINE_WORDS];
	u64 max = f->max, w;
	u32 pos[PD_SBF_MAX_K] __uninitialized;	/* [0, k) written */
	unsigned int i, k = f->k;
	bool dup = true;

	pd_sbf_line_cells(h1, h2, k, s, pos);
	for (i = 0; i < k; i++) {
		w = cc ? pd_load_word(&line[pos[i] >> cw]) : line[pos[i] >> cw];
		dup &= ((w >> ((pos[i] & ((1u << cw) - 1)) * d)) & max) != 0;
	}
	if (f->p) {
		if (f->oneline) {
			pd_sbf_dec_line_word(line, pd_rng_below(&g->rng, 1u << s),
					     f->p, d, low, cc);
		} else {
			u32 start = g->next_dec;

			g->next_dec = pd_rng_below(&g->rng, f->cells);
			pd_prefetchw(&f->words[g->next_dec >> cw]);
			pd_sbf_dec_line_word(&f->words[(start >> s) *
						       PD_SBF_LINE_WORDS],
					     start & mask, f->p, d, low, cc);
		}
	}
	for (i = 0; i < k; i++) {
		u64 *c = &line[pos[i] >> cw];
		u64 m = max << ((pos[i] & ((1u << cw) - 1)) * d);

		if (cc)
			pd_store_word(c, pd_load_word(c) | m);
		else
			*c |= m;
	}
	return dup;
}

/* The step with generator g: specialised (run_word) or the reference. */
static __always_inline bool pd_sbf_step_in(struct pd_sbf *f,
					   struct pd_sbf_gen *g, u32 h1,
					   u32 h2, bool cc)
{
	if (!f->run_word)
		return pd_sbf_step_ref(f, g, h1, h2, cc);
	switch (f->d) {
	case 1:
		return pd_sbf_step_lined(f, g, h1, h2, 1, cc);
	case 2:
		return pd_sbf_step_lined(f, g, h1, h2, 2, cc);
	case 4:
		return pd_sbf_step_lined(f, g, h1, h2, 4, cc);
	default:
		return pd_sbf_step_lined(f, g, h1, h2, 8, cc);
	}
}

bool pd_sbf_step(struct pd_sbf *f, u32 h1, u32 h2)
{
	return pd_sbf_step_in(f, &f->gen, h1, h2, false);
}

bool pd_sbf_step_cpu(struct pd_sbf *f, struct pd_sbf_gen *g, u32 h1, u32 h2)
{
	return pd_sbf_step_in(f, g, h1, h2, true);
}

u64 pd_sbf_zero_within(const struct pd_sbf *f, u64 max_bytes, u64 *cells)
{
	struct pd_occ_span sp;
	u64 r, i, first, len, nonzero = 0, words = 0;

	pd_occ_span_init(&sp, f->nwords, sizeof(u64), max_bytes);
	for (r = 0; r < sp.runs; r++) {
		len = pd_occ_run(&sp, r, &first);
		for (i = first; i < first + len; i++)
			nonzero += pd_popcount64(pd_sbf_nonzero(f, f->words[i]));
		words += len;
	}
	*cells = pd_occ_whole(&sp) ? f->cells : words << f->cpw_shift;
	return *cells - nonzero;
}

u64 pd_sbf_zero_cells(const struct pd_sbf *f)
{
	u64 cells;

	return pd_sbf_zero_within(f, PD_OCC_ALL, &cells);
}
