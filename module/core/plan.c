// SPDX-License-Identifier: GPL-2.0
/* Parameter planner for the Stable Bloom Filter: see plan.h. */
#include "plan.h"
#include "fixed.h"
#include "sbf.h"
#include "step.h"

u64 pd_plan_p_exact(u64 fps_q62, u32 max, u32 k, u64 m)
{
	u64 c, r1, t;

	/* c = (1 - FPS^(1/K))^(1/Max); P = c/(1-c) * mK/(m-K) */
	if (!fps_q62 || fps_q62 >= PD_Q62_ONE || m <= k)
		return 0;
	c = pd_root_q62(PD_Q62_ONE - pd_root_q62(fps_q62, k), max);
	if (c >= PD_Q62_ONE)
		return 0;
	r1 = pd_muldiv(c, PD_Q32_ONE, PD_Q62_ONE - c);	/* Q32.32 */
	t = pd_muldiv(r1, k, 1);
	return t + pd_muldiv(t, k, m - k);
}

/* q/(q+1) with q = P(1/K - 1/m) = P(m-K)/(mK): one cell's stable P(zero). */
static u64 pd_plan_cell_zero(u32 max, u32 k, u32 p, u64 m)
{
	u64 num = (u64)p * (m - k), den = num + m * k;

	return pd_pow_q62(pd_muldiv(num, PD_Q62_ONE, den), max);
}

u64 pd_plan_stable_zero(u32 max, u32 k, u32 p, u64 m)
{
	return pd_plan_cell_zero(max, k, p, m);
}

u64 pd_plan_fp_bound(u32 max, u32 k, u32 p, u64 m)
{
	return pd_pow_q62(PD_Q62_ONE - pd_plan_cell_zero(max, k, p, m), k);
}

/*
 * The look back of the lined layouts' FP models (Q62): with u of a new
 * key's K probe cells undecided, the next event in their line that
 * decides some is a key setting j of them, the rest left undecided with
 * probability stay each (B-like terms C(u, j) q^j stay^(u - j)), or a run
 * that zeroes one (1 - nr^u; nr = 1: no runs apart from the keys):
 *   S(u) = sum_j C(u, j) q^j stay^(u - j) S(u - j)
 *          / ((1 - stay^u) + (1 - nr^u)),
 * S(0) = 1, FP = S(K). The terms are positive (no cancellation in fixed
 * point).
 */
static u64 pd_plan_fp_look_back(u32 k, u64 q, u64 stay, u64 nr)
{
	u64 s[PD_SBF_MAX_K + 1];
	u32 u, j;

	s[0] = PD_Q62_ONE;
	for (u = 1; u <= k; u++) {
		u64 binom = 1, num = 0, den;

		for (j = 1; j <= u; j++) {
			u64 t;

			binom = binom * (u - j + 1) / j;	/* C(u, j) */
			t = pd_mul_q62(pd_pow_q62(q, j), pd_pow_q62(stay, u - j));
			num += pd_mul_q62(binom * t, s[u - j]);
		}
		/* at most 2 in Q62: fits */
		den = (PD_Q62_ONE - pd_pow_q62(stay, u)) +
		      (PD_Q62_ONE - pd_pow_q62(nr, u));
		s[u] = PD_MIN(pd_muldiv(num, PD_Q62_ONE, den), PD_Q62_ONE);
	}
	return s[k];
}

/*
 * The FP rate of a lined layout's filter (Q62): blocked, a line's keys
 * and runs are events apart (stay 1 - q, nr 1 - r); line, one (below).
 */
static u64 pd_plan_fp_lined(u8 layout, u32 k, u32 p, u32 cpl)
{
	u64 q, r;

	if (!k || k > PD_SBF_MAX_K || k > cpl || p > cpl)
		return PD_Q62_ONE;
	q = pd_muldiv(k, PD_Q62_ONE, cpl);
	r = pd_muldiv(p, PD_Q62_ONE, cpl);
	if (layout == PKTDEDUP_LAYOUT_LINE)
		return pd_plan_fp_look_back(k, q, pd_mul_q62(PD_Q62_ONE - q,
							     PD_Q62_ONE - r),
					    PD_Q62_ONE);
	return pd_plan_fp_look_back(k, q, PD_Q62_ONE - q, PD_Q62_ONE - r);
}

/*
 * A new key's K cells are distinct random cells of one line of c cells;
 * the key is called a duplicate iff all K are non-zero. Look back in time
 * from its arrival: a probe cell is non-zero iff a key landing in the line
 * set it more recently than a decrement reached it (Max 1). Per element,
 * a key lands in the line with probability 1/L and sets each of its cells
 * with probability q = K/c; a decrement run starts in the line with
 * probability 1/L and covers each of its cells with probability r = P/c
 * (all P decrements of an element fall in one line: they come in
 * batches). Treating the cells a key or a run covers as independent,
 * with u probe cells undecided the next event that decides some is a key
 * setting j >= 1 of them (probability B(u, j; q) per key in the line) or
 * a run covering one (1 - (1 - r)^u: a zero, so no FP):
 *   S(u) = sum_j B(u, j; q) S(u - j) / ((1 - (1 - q)^u) + (1 - (1 - r)^u)),
 * S(0) = 1, FP = S(K). The terms are positive (no cancellation in fixed
 * point). S(1) = K/(K + P), a cell's own stable P(non-zero); the cells of
 * a line share its keys and its runs, so S(K) is above the flat filter's
 * (K/(K + P))^K. Checked against simulation to about 1% (KUnit
 * pd_sbf_blocked_fp); with decrements spread over the whole filter and
 * no batches it would be (1 - (1 - r)^u) -> u r: about 3% lower.
 */
u64 pd_plan_fp_blocked(u32 k, u32 p, u32 cpl)
{
	return pd_plan_fp_lined(PKTDEDUP_LAYOUT_BLOCKED, k, p, cpl);
}

/*
 * Layout line: every key landing in a line runs its P decrements there
 * too, before it sets its K cells, so the line's arrivals are its only
 * events. Looking back from a new key's arrival, each earlier arrival in
 * the line sets an undecided probe cell with probability q = K/c (the set
 * comes after the run), else zeroes it with probability r = P/c, else
 * leaves it undecided. With u probe cells undecided, an arrival that
 * zeroes any ends the look (no FP); one that sets j of them and zeroes
 * none leaves u - j:
 *   S(u) = sum_j C(u, j) q^j ((1 - q)(1 - r))^(u - j) S(u - j)
 *          / (1 - ((1 - q)(1 - r))^u),
 * S(0) = 1, FP = S(K). A cell's own stable P(non-zero) is again
 * q / (q + (1 - q) r), about K/(K + P). Checked against simulation by
 * KUnit pd_sbf_line_fp. A line's arrivals over G elements are
 * Poisson(G/L), each decrementing a given cell with probability P/c:
 * thinned, Poisson(G P/m), the flat filter's, so the FN rate is the flat
 * filter's to first order.
 */
u64 pd_plan_fp_line(u32 k, u32 p, u32 cpl)
{
	return pd_plan_fp_lined(PKTDEDUP_LAYOUT_LINE, k, p, cpl);
}

struct pd_mat {
	u64 a[PD_PLAN_STATES][PD_PLAN_STATES];
};

static void pd_mat_mul(struct pd_mat *r, const struct pd_mat *x,
		       const struct pd_mat *y, unsigned int n)
{
	unsigned int i, j, l;

	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++) {
			u64 s = 0;

			for (l = 0; l < n; l++)
				s += pd_mul_q62(x->a[i][l], y->a[l][j]);
			r->a[i][j] = PD_MIN(s, PD_Q62_ONE);
		}
}

/*
 * The step matrix of one cell over one element: decrement with probability
 * pdec (if non-zero), then with probability pset raise to at least v, v
 * drawn from vprob[1..max] (Q62). The SBF's is vprob all on Max.
 */
static void pd_chain_step(struct pd_mat *w, u32 max, const u64 *vprob,
			  u64 pdec, u64 pset)
{
	unsigned int n = max + 1, i, v;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		u64 keep = PD_Q62_ONE - pset;
		unsigned int down = i ? i - 1 : 0;
		/* after the decrement the cell is `down` or `i` */
		u64 from[2] = { pdec, PD_Q62_ONE - pdec };

		w->a[i][down] += pd_mul_q62(from[0], keep);
		w->a[i][i] += pd_mul_q62(from[1], keep);
		for (v = 1; v <= max; v++) {
			u64 set = pd_mul_q62(pset, vprob[v]);

			w->a[i][down > v ? down : v] += pd_mul_q62(from[0], set);
			w->a[i][i > v ? i : v] += pd_mul_q62(from[1], set);
		}
	}
}

/* w[1] = w[0]^gap, by repeated squaring; w[0] and w[2] are scratch. */
static void pd_chain_pow(struct pd_mat *w, unsigned int n, u64 gap)
{
	unsigned int i;

	memset(&w[1], 0, sizeof(w[1]));
	for (i = 0; i < n; i++)
		w[1].a[i][i] = PD_Q62_ONE;
	while (gap) {
		if (gap & 1) {
			pd_mat_mul(&w[2], &w[1], &w[0], n);
			w[1] = w[2];
		}
		gap >>= 1;
		if (gap) {
			pd_mat_mul(&w[2], &w[0], &w[0], n);
			w[0] = w[2];
		}
	}
}

u64 pd_plan_chain(u32 max, const u64 *vprob, u64 pdec, u64 pset, u32 from,
		  u64 gap)
{
	struct pd_mat *w;
	u64 pr0;

	if (max >= PD_PLAN_STATES || from > max)
		return PD_U64_MAX;
	w = pd_zalloc(3 * sizeof(*w));	/* step, result, scratch */
	if (!w)
		return PD_U64_MAX;
	pd_chain_step(&w[0], max, vprob, pdec, pset);
	pd_chain_pow(w, max + 1, gap);
	pr0 = w[1].a[from][0];
	pd_free(w);
	return pr0;
}

/*
 * The chain goes down one value at a time, so at the stable point the flow
 * down across the cut between i - 1 and i (from i only: decremented, then
 * not raised to i or more) equals the flow up (from below i: raised to
 * i or more): pi_i pdec (1 - pset T_i) = pset T_i S_{i-1}, with
 * T_i = P(v >= i) and S_{i-1} = pi_0 + ... + pi_{i-1}. So S_i = S_{i-1}
 * (1 + r_i), r_i = pset T_i / (pdec (1 - pset T_i)), and P(zero) = pi_0 /
 * S_max is the product of 1 / (1 + r_i). For the SBF (v = Max) this is
 * Theorem 3.
 */
u64 pd_plan_chain_zero(u32 max, const u64 *vprob, u64 pdec, u64 pset)
{
	u64 z = PD_Q62_ONE, t = 0;
	u32 i;

	if (max >= PD_PLAN_STATES)
		return PD_U64_MAX;
	for (i = max; i >= 1; i--) {
		u64 up, down;

		t += vprob[i];			/* T_i, built from the top */
		up = pd_mul_q62(pset, PD_MIN(t, PD_Q62_ONE));
		down = pd_mul_q62(pdec, PD_Q62_ONE - up);
		if (!down && !up)
			continue;
		/* 1 / (1 + r_i) = down / (down + up) */
		z = pd_muldiv(z, down, down + up);
	}
	return z;
}

/*
 * PR0(gap, k) of Eq. 9-13 is the probability that a cell set to Max when
 * the predecessor arrived is zero gap iterations later, when each
 * iteration decrements it with probability p = P/m and then sets it to Max
 * with probability k = K/m. That is a Markov chain on the values 0..Max;
 * its gap-th power is computed by repeated squaring in O(Max^3 log gap).
 */
u64 pd_plan_fn_rate(u32 max, u32 k, u32 p, u64 m, u64 gap)
{
	u64 vprob[PD_PLAN_STATES] = { 0 }, pr0;

	if (max >= PD_PLAN_STATES || !gap)
		return 0;
	vprob[max] = PD_Q62_ONE;
	pr0 = pd_plan_chain(max, vprob, pd_muldiv(p, PD_Q62_ONE, m),
			    pd_muldiv(k, PD_Q62_ONE, m), max, gap);
	if (pr0 == PD_U64_MAX)
		return PD_U64_MAX;
	return PD_Q62_ONE - pd_pow_q62(PD_Q62_ONE - pr0, k);
}

u64 pd_plan_memory_gap(u32 max, u32 k, u32 p, u64 m, u64 fn)
{
	u64 lo = 0, hi = 1, f;

	/* lo: FN at most fn (FN(0) = 0); hi: the first doubling above it */
	for (;;) {
		f = pd_plan_fn_rate(max, k, p, m, hi);
		if (f == PD_U64_MAX)
			return 0;
		if (f > fn)
			break;
		lo = hi;
		if (hi >= PD_PLAN_MEMORY_TOP)
			return PD_U64_MAX;
		hi <<= 1;
	}
	while (hi - lo > 1) {
		u64 mid = lo + (hi - lo) / 2;

		f = pd_plan_fn_rate(max, k, p, m, mid);
		if (f == PD_U64_MAX)
			return 0;
		if (f <= fn)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

static u64 pd_plan_cells(u64 mem_bytes, u32 max, u8 layout)
{
	struct pd_sbf_params prm = { .max = (u8)max, .layout = layout };
	u64 bits = pd_sbf_bits_for_max(max);

	if (!bits || mem_bytes > PD_U64_MAX / 8)
		return 0;
	prm.cells = mem_bytes * 8 / bits;
	return pd_sbf_usable_cells(&prm);
}

void pd_plan_params(const struct pd_plan *p, struct pd_sbf_params *prm)
{
	memset(prm, 0, sizeof(*prm));
	prm->cells = p->cells;
	prm->max = (u8)p->max;
	prm->k = (u8)p->k;
	prm->p = p->p;
	prm->layout = p->layout;
}

/* Fill *c for one (Max, K); returns 0 or a negative errno. */
static int pd_plan_one(const struct pd_plan_req *req, u64 fps, u32 max, u32 k,
		       struct pd_plan *c, const char **why)
{
	u32 cpl = PD_SBF_LINE_BITS / pd_sbf_bits_for_max(max);
	struct pd_sbf_params prm;
	int err;

	memset(c, 0, sizeof(*c));
	c->max = max;
	c->bits = pd_sbf_bits_for_max(max);
	c->k = k;
	c->layout = req->layout;
	c->cells = pd_plan_cells(req->mem_bytes, max, req->layout);
	c->gap = req->gap ? req->gap : PD_PLAN_DEFAULT_GAP;
	c->p_exact_q32 = pd_plan_p_exact(fps, max, k, c->cells);
	if (req->p != PD_PLAN_AUTO) {
		c->p = req->p;
	} else {
		u64 p = (c->p_exact_q32 + PD_Q32_ONE - 1) >> 32;

		if (!c->p_exact_q32 || p > c->cells) {
			*why = "the fp target cannot be met with this memory";
			return -ERANGE;
		}
		/* lined: more decrements make up for the shared lines */
		while (pd_sbf_lined(req->layout) && p <= cpl &&
		       pd_plan_fp_lined(req->layout, k, (u32)p, cpl) > fps)
			p++;
		if (pd_sbf_lined(req->layout) && p > cpl) {
			*why = "fps needs more decrements than a line has cells";
			return -ERANGE;
		}
		c->p = (u32)p;
	}
	prm.cells = c->cells;
	prm.p = c->p;
	prm.max = (u8)max;
	prm.k = (u8)k;
	prm.layout = req->layout;
	err = pd_sbf_check(&prm, why);
	if (err)
		return err;
	c->stable_zero = pd_plan_stable_zero(max, k, c->p, c->cells);
	if (pd_sbf_lined(req->layout))
		c->fp_bound = pd_plan_fp_lined(req->layout, k, c->p, cpl);
	else
		c->fp_bound = pd_plan_fp_bound(max, k, c->p, c->cells);
	c->fn_rate = pd_plan_fn_rate(max, k, c->p, c->cells, c->gap);
	if (c->fn_rate == PD_U64_MAX) {
		*why = "out of memory";
		return -ENOMEM;
	}
	return 0;
}

static int pd_plan_layout(const struct pd_plan_req *req, struct pd_plan *out,
			  const char **why);

/*
 * Layout auto: blocked (a step touches two lines, the key's and the
 * decrement run's, against K + 1 flat: in a kernel, where the stack
 * evicts the filter between packets, and for a filter beyond the caches
 * or one every CPU steps, the lines are the cost) when the flat plan has
 * cell maximum 1 (blocked has no other; with a gap the planner may find a
 * larger maximum better for the FN rate, and that stays flat) and fps can
 * be met blocked; flat otherwise. A filter every CPU steps, and one of
 * PD_PLAN_LINE_BYTES or more, are planned line instead: each line a step
 * writes is one the other CPUs may have to give up, and no core's own
 * cache holds the large one, so each line it touches is a trip to the
 * shared cache or to memory; line makes one. A smaller filter of one
 * CPU, blocked: its run's line is fetched a packet ahead and costs no
 * wait, line's run waits for the key's line, and blocked's FP rate falls
 * further below fps on skewed traffic.
 */
int pd_plan(const struct pd_plan_req *req, struct pd_plan *out,
	    const char **why)
{
	struct pd_plan_req r = *req;
	struct pd_plan flat;
	const char *w = NULL;
	int err;

	if (req->layout != PKTDEDUP_LAYOUT_AUTO)
		return pd_plan_layout(req, out, why);
	r.layout = PKTDEDUP_LAYOUT_FLAT;
	err = pd_plan_layout(&r, &flat, why);
	if (err)
		return err;
	r.layout = req->shared || req->mem_bytes >= PD_PLAN_LINE_BYTES ?
		   PKTDEDUP_LAYOUT_LINE : PKTDEDUP_LAYOUT_BLOCKED;
	if (flat.max != 1 || pd_plan_layout(&r, out, &w))
		*out = flat;
	return 0;
}

/* Whether a step of plan c would touch more lines than a packet may. */
static bool pd_plan_step_over(const struct pd_plan *c)
{
	struct pd_sbf_params prm;

	pd_plan_params(c, &prm);
	return pd_sbf_step_lines(&prm) > PD_STEP_MAX_LINES;
}

static int pd_plan_layout(const struct pd_plan_req *req, struct pd_plan *out,
			  const char **why)
{
	static const u32 maxes[] = { 1, 3, 7, 15 };
	u64 fps = pd_q62_from_ppb(req->fps_ppb ? req->fps_ppb :
				  PD_PLAN_DEFAULT_FPS_PPB);
	struct pd_plan best, c;
	unsigned int mi, nmax;
	bool have = false, best_over = false;
	int err = -EINVAL;

	if (req->fps_ppb >= 1000000000u) {
		*why = "fps must be below 1";
		return -EINVAL;
	}
	if (req->max != PD_PLAN_AUTO && !pd_sbf_bits_for_max(req->max)) {
		*why = "max must be 2^j - 1 for j in 1..8 (1, 3, 7, 15, ... 255)";
		return -EINVAL;
	}
	if (req->max != PD_PLAN_AUTO && req->max >= PD_PLAN_STATES &&
	    (req->k == PD_PLAN_AUTO || req->p == PD_PLAN_AUTO)) {
		*why = "max above 15 needs explicit k and p";
		return -EINVAL;
	}
	if (req->k != PD_PLAN_AUTO && (req->k < 1 || req->k > PD_SBF_MAX_K)) {
		*why = "k must be between 1 and 16";
		return -EINVAL;
	}
	if (req->layout > PKTDEDUP_LAYOUT_MAX) {
		*why = "no such layout";
		return -EINVAL;
	}
	if (pd_sbf_lined(req->layout) && req->max != PD_PLAN_AUTO &&
	    req->max != 1) {
		*why = "layouts blocked and line take cell maximum 1 (cell-bits 1) only";
		return -EINVAL;
	}
	/* With no known gap the paper advises Max = 1. */
	nmax = req->max != PD_PLAN_AUTO ? 1 : req->gap ? PD_ARRAY_SIZE(maxes) : 1;
	if (pd_sbf_lined(req->layout))
		nmax = 1;	/* Max 1, maxes[0] */
	for (mi = 0; mi < nmax; mi++) {
		u32 max = req->max != PD_PLAN_AUTO ? req->max : maxes[mi];
		u32 k, k0 = req->k != PD_PLAN_AUTO ? req->k : 1;
		u32 k1 = req->k != PD_PLAN_AUTO ? req->k : PD_PLAN_MAX_K;

		for (k = k0; k <= k1; k++) {
			/* K is chosen with P from Eq. 17, then P may be forced. */
			struct pd_plan_req r = *req;
			bool over;

			r.p = PD_PLAN_AUTO;
			if (req->p != PD_PLAN_AUTO && req->k != PD_PLAN_AUTO)
				r.p = req->p;
			err = pd_plan_one(&r, fps, max, k, &c, why);
			if (err == -ENOMEM)
				return err;
			if (err)
				continue;
			/*
			 * A larger K or Max costs work per packet: it must
			 * lower the FN rate by more than 1% (relative) to win.
			 * A candidate whose P makes a step touch more than a
			 * packet may (step.h; a small K or a large Max at a
			 * tiny fps) loses to any that does not, and is kept
			 * only if none does, for pd_filter_plan() to refuse
			 * with its numbers.
			 */
			over = pd_plan_step_over(&c);
			if (!have || (best_over && !over) ||
			    (best_over == over &&
			     c.fn_rate < best.fn_rate - best.fn_rate / 100)) {
				best = c;
				have = true;
				best_over = over;
			}
		}
	}
	if (!have)
		return err;
	if (req->p != PD_PLAN_AUTO && best.p != req->p) {
		err = pd_plan_one(req, fps, best.max, best.k, &best, why);
		if (err)
			return err;
	}
	*out = best;
	return 0;
}
