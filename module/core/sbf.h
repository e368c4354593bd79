/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stable Bloom Filter (Deng & Rafiei, SIGMOD 2006, Algorithm 1).
 *
 * m cells of d bits (d in 1, 2, 4, 8; Max = 2^d - 1), packed into 64-bit
 * words. Max = 7 (and 31, 63, 127) are stored in the next power-of-two
 * width (4 or 8 bits), so that a cell never straddles two words. For each element:
 *   1. probe its K cells; the verdict is "duplicate" iff all K are non-zero;
 *   2. decrement P adjacent cells, starting at a uniformly random cell and
 *      wrapping at m (the paper's own implementation, Sec. 5.2: each cell is
 *      still picked with probability P/m, and the run touches one cache line
 *      instead of P);
 *   3. set the K cells to Max.
 * Step 2 never changes the verdict (see shared errata, item 1).
 *
 * The K positions come from two 32-bit hashes by double hashing
 * (Kirsch & Mitzenmacher): a = map(h1), b = map(h2) | 1, g_i = (a + i b)
 * mod m, where map(h) = h * m >> 32 (multiply-shift onto [0, m)).
 *
 * Layouts (PKTDEDUP_LAYOUT_*):
 *  flat     as above: K cells anywhere, so K + 1 cache lines per element
 *           (the K probes, the decrement run);
 *  blocked  the cells in 64-byte lines of c = 512 / d cells; an element's
 *           line is map(h1) over the lines, its K cells in that line by
 *           double hashing on h2 (a = h2 mod c, b odd, g_i = a + i b mod c),
 *           and the decrement run wraps inside the line it starts in
 *           (still each cell with probability P/m per element). Two lines
 *           per element; the cells of a line share its arrivals, which
 *           raises the FP rate a little (the planner models it: plan.h).
 *  line     as blocked, but the decrement run starts at a random cell of
 *           the key's own line and wraps inside it: one line per element.
 *           Each cell is still decremented with probability P/m per
 *           element, but only when a key lands in its line, so the FP
 *           rate no longer falls below the model on skewed streams the
 *           way the others' does (plan.h, pd_plan_fp_line()).
 * Flat and blocked draw the next element's decrement start one element
 * ahead and prefetch its line, so that line is in cache when needed.
 *
 * A filter is not thread-safe: one writer at a time (the kernel module gives
 * each CPU its own filter).
 */
#ifndef PD_SBF_H
#define PD_SBF_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"

#define PD_SBF_MAX_K 16
/* Cell indices are 32-bit: at most 2^32 - 64 cells (512 MiB at d = 1). */
#define PD_SBF_MAX_CELLS 0xffffffc0ULL
#define PD_SBF_MIN_CELLS 64
#define PD_SBF_LINE_BITS 512	/* a 64-byte cache line */
#define PD_SBF_LINE_WORDS (PD_SBF_LINE_BITS / 64)

struct pd_sbf_params {
	u64 cells;	/* m; rounded down to whole words (lines) by init */
	u32 p;		/* cells decremented per element; 0 = plain Bloom */
	u8 max;		/* 2^j - 1, 1 <= j <= 8: 1, 3, 7, 15, ... 255 */
	u8 k;		/* probes per element, 1..PD_SBF_MAX_K */
	u8 layout;	/* PKTDEDUP_LAYOUT_FLAT, _BLOCKED or _LINE */
};

/*
 * The decrement starts' generator: the filter's own, or (a lock-free step
 * of a filter every CPU steps: pd_sbf_step_cpu()) a CPU's.
 */
struct pd_sbf_gen {
	u64 rng;	/* generator state */
	u32 next_dec;	/* the next element's decrement start */
};

struct pd_sbf {
	/*
	 * What a step writes, first: in a shared filter's shard (shard.h)
	 * it shares the line of the shard's lock, so that one line moves
	 * between CPUs per step, not two.
	 */
	struct pd_sbf_gen gen;
	u32 cells;
	u64 *words;
	u32 nwords;
	u32 p;
	u8 k;
	u8 d;
	u8 max;
	u8 cpw_shift;	/* log2(cells per word) */
	u64 lowmask;	/* the lowest bit of every d-bit field */
	bool blocked;	/* a key's cells in one line: _BLOCKED or _LINE */
	bool oneline;	/* PKTDEDUP_LAYOUT_LINE: its run in that line too */
	u8 cpl_shift;	/* blocked: log2(cells per line) */
	/* blocked, line: the run's P cells fit a word's bits (P d <= 64) */
	bool run_word;
	u32 lines;	/* blocked: cells / cells per line */
};

/* The state of a filter of the sbf family (filter.h's pd_filter_priv()). */
#define pd_sbf_of(f) ((struct pd_sbf *)pd_filter_priv(f))

/* The sbf family's settings in a request (filter.h's pd_filter_req.fam). */
struct pd_sbf_req {
	u64 max;		/* cell maximum 2^j - 1, or PD_FILTER_AUTO */
	u64 k;			/* probes, or AUTO */
	u64 p;			/* decrements per element, or AUTO */
	u64 gap;		/* typical gap between copies; 0: unknown */
	u64 layout;		/* PKTDEDUP_LAYOUT_* */
};

#define pd_sbf_req(r) ((struct pd_sbf_req *)(r)->fam)

/* The layouts' names, the spec's entries: "flat", "blocked", "auto", "line". */
extern const char *const pd_sbf_layout_names[PKTDEDUP_LAYOUT_MAX + 1];

/* A layout's name, "?" for a number past the table. */
static inline const char *pd_sbf_layout_name(unsigned int layout)
{
	return layout <= PKTDEDUP_LAYOUT_MAX ? pd_sbf_layout_names[layout] :
	       "?";
}

/* Whether a layout puts a key's cells in one line (blocked, line). */
static inline bool pd_sbf_lined(unsigned int layout)
{
	return layout == PKTDEDUP_LAYOUT_BLOCKED ||
	       layout == PKTDEDUP_LAYOUT_LINE;
}

/* Bits per cell for a Max value, or 0 if Max is not 2^d - 1, d in 1,2,4,8. */
unsigned int pd_sbf_bits_for_max(unsigned int max);
/* Validate params; returns 0 or a negative errno, *why says what is wrong. */
int pd_sbf_check(const struct pd_sbf_params *prm, const char **why);
/*
 * The number of cells init will use (params' cells rounded down to words;
 * blocked: to lines).
 */
u64 pd_sbf_usable_cells(const struct pd_sbf_params *prm);
/* Bytes of cell memory the filter needs. */
size_t pd_sbf_bytes(const struct pd_sbf_params *prm);
/*
 * The most 64-byte lines of its cells one step of a filter of prm reads or
 * writes (filter.h's step_lines): flat, the K probes' lines and the lines
 * of a run of P cells of d bits, which may start inside a line and wrap
 * at m; blocked, the key's line and the line the run wraps inside; line,
 * the key's line alone.
 */
u64 pd_sbf_step_lines(const struct pd_sbf_params *prm);

/*
 * Set up a filter over caller-provided, zeroed memory of pd_sbf_bytes()
 * bytes (the kernel allocates per-CPU arrays on the CPU's node). Seeds are
 * drawn at random. Returns 0 or a negative errno.
 */
int pd_sbf_init(struct pd_sbf *f, const struct pd_sbf_params *prm, u64 *words,
		const char **why);
/* The decrement-start generator's state (tests, reproducible runs). */
void pd_sbf_set_rng(struct pd_sbf *f, u64 rng);
/* A new random generator state and all cells zero. */
void pd_sbf_reset(struct pd_sbf *f);
/* Every cell zero (same seeds). */
void pd_sbf_clear(struct pd_sbf *f);

/* Userspace and test convenience: init plus allocation; free. */
int pd_sbf_create(struct pd_sbf *f, const struct pd_sbf_params *prm,
		  const char **why);
void pd_sbf_destroy(struct pd_sbf *f);

/*
 * One step of Algorithm 1 for an element with hashes h1, h2. A lined
 * filter whose run fits a word (run_word: the default plans, P 11 or 12
 * of 1-bit cells) takes a step specialised on its cell width; the
 * others take pd_sbf_step_ref(). Both change the same cells the same
 * way.
 */
bool pd_sbf_step(struct pd_sbf *f, u32 h1, u32 h2);
/*
 * The step for any layout, cell width and P, with generator g (cc: as
 * pd_sbf_step_cpu(), else as pd_sbf_step()): what the specialised steps
 * must equal, cell for cell (the tests compare them).
 */
bool pd_sbf_step_ref(struct pd_sbf *f, struct pd_sbf_gen *g, u32 h1, u32 h2,
		     bool cc);
/*
 * The same step on cells that other CPUs step at the same time, without a
 * lock and without a locked instruction: every word read and written
 * whole (the K probes; each word the decrements change, a word none
 * changes only read; the K cells set to Max), the decrement start from g,
 * the stepping CPU's own generator. The races, all tolerated and measured
 * (Documentation/design/shared-scope.md): a word two CPUs rewrite within
 * the same few ns keeps one CPU's writes, so a set can be lost (about
 * 1e-5 of new keys with two CPUs stepping one 1 MiB filter flat out; a
 * lost decrement only raises a cell), and two copies of one key stepped
 * on two CPUs within the same step's time (tens of ns) can both be
 * judged first copies, which a lock would have ordered; any other
 * element sees one of its cells change under its probes with probability
 * about (CPUs - 1)(K + P)/m. Atomic read-modify-writes (tried: an OR
 * each set, compare-and-swap each decrement) lose nothing but cost a
 * stall for the line on every one a CPU does not own, where a plain
 * store waits in the store buffer. With g a copy of f's own generator and
 * no other CPU stepping, it is pd_sbf_step() word for word.
 */
bool pd_sbf_step_cpu(struct pd_sbf *f, struct pd_sbf_gen *g, u32 h1, u32 h2);
/* A generator for pd_sbf_step_cpu() from state rng (as pd_sbf_set_rng()). */
void pd_sbf_gen_init(const struct pd_sbf *f, struct pd_sbf_gen *g, u64 rng);
/*
 * The same, but step 3 raises each of the K cells to at least value
 * (1..Max) instead of setting it to Max: the insert of the importance-aware
 * filters (ibf.h).
 */
bool pd_sbf_step_value(struct pd_sbf *f, u32 h1, u32 h2, unsigned int value);
/*
 * Blocked layout: prefetch the line an element's step will probe, as soon
 * as its hashes are known (the flat layout's K loads need no hint).
 */
void pd_sbf_prefetch(const struct pd_sbf *f, u32 h1);
/* The verdict step 1 would give, without changing the filter. */
bool pd_sbf_query(const struct pd_sbf *f, u32 h1, u32 h2);
/* Step 1 positions of an element (k of them), for tests and tools. */
void pd_sbf_positions(const struct pd_sbf *f, u32 h1, u32 h2, u32 *pos);
/* Value of one cell. */
unsigned int pd_sbf_cell(const struct pd_sbf *f, u32 i);
/* Set the k cells at pos to Max (step 3). */
void pd_sbf_set_cells(struct pd_sbf *f, const u32 *pos);
/* Decrement cells [start, start + count) wrapping at m (step 2). */
void pd_sbf_decrement(struct pd_sbf *f, u32 start, u32 count);
/* The number of zero cells now. */
u64 pd_sbf_zero_cells(const struct pd_sbf *f);
/*
 * The zero cells among those a read of at most max_bytes examines (all of
 * them if the filter fits, else evenly spaced lines: occ.h); how many it
 * examined in *cells.
 */
u64 pd_sbf_zero_within(const struct pd_sbf *f, u64 max_bytes, u64 *cells);

#endif /* PD_SBF_H */
