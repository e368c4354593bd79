// SPDX-License-Identifier: GPL-2.0
/* The bit-array filters of Bera et al.: see bitf.h. */
#include "bitf.h"
#include "filter.h"
#include "fixed.h"
#include "rng.h"
#include "step.h"

PD_FILTER_PRIV_FITS(struct pd_bitf);

static bool pd_bitf_kind_ok(u8 kind)
{
	return kind == PKTDEDUP_FILTER_KIND_RSBF ||
	       kind == PKTDEDUP_FILTER_KIND_BSBF ||
	       kind == PKTDEDUP_FILTER_KIND_BSBFSD ||
	       kind == PKTDEDUP_FILTER_KIND_RLBSBF;
}

u64 pd_bitf_usable_bits(const struct pd_bitf_params *prm)
{
	return prm->bits & ~(u64)63;
}

int pd_bitf_check(const struct pd_bitf_params *prm, const char **why)
{
	u64 s = pd_bitf_usable_bits(prm);

	if (!pd_bitf_kind_ok(prm->kind)) {
		*why = "not a bit-array filter family";
		return -EINVAL;
	}
	if (prm->k < 1 || prm->k > PD_BITF_MAX_K) {
		*why = "k (bit arrays) must be between 1 and 16";
		return -EINVAL;
	}
	if (s < PD_BITF_MIN_BITS) {
		*why = "memory too small: each of the k arrays needs at least 64 bits";
		return -EINVAL;
	}
	if (s > PD_BITF_MAX_BITS) {
		*why = "memory too large: at most 2^32 - 64 bits per array";
		return -ERANGE;
	}
	if (prm->kind == PKTDEDUP_FILTER_KIND_RSBF &&
	    (!prm->p_star_ppb || prm->p_star_ppb >= 1000000000u)) {
		*why = "p-star must be between 0 and 1";
		return -EINVAL;
	}
	return 0;
}

size_t pd_bitf_bytes(const struct pd_bitf_params *prm)
{
	return (size_t)(pd_bitf_usable_bits(prm) / 8) * prm->k;
}

int pd_bitf_init(struct pd_bitf *f, const struct pd_bitf_params *prm,
		 u64 *words, const char **why)
{
	int err = pd_bitf_check(prm, why);

	if (err)
		return err;
	memset(f, 0, sizeof(*f));
	f->words = words;
	f->s = (u32)pd_bitf_usable_bits(prm);
	f->nwords = f->s / 64;
	f->k = (u8)prm->k;
	f->kind = prm->kind;
	if (f->kind == PKTDEDUP_FILTER_KIND_RSBF) {
		/* phase 3 from the first iter with s / iter <= p* */
		u64 q = pd_div64(((u64)f->s * 1000000000ULL) +
				 prm->p_star_ppb - 1, prm->p_star_ppb);

		f->iter3 = q;
	}
	pd_bitf_set_rng(f, pd_random_u64());
	return 0;
}

void pd_bitf_set_rng(struct pd_bitf *f, u64 rng)
{
	f->rng = rng;
}

void pd_bitf_clear(struct pd_bitf *f)
{
	memset(f->words, 0, (size_t)f->nwords * f->k * sizeof(u64));
	memset(f->load, 0, sizeof(f->load));
	f->iter = 0;
}

static inline u32 pd_bitf_map(const struct pd_bitf *f, u32 h)
{
	return (u32)(((u64)h * f->s) >> 32);
}

void pd_bitf_positions(const struct pd_bitf *f, u32 h1, u32 h2, u32 *pos)
{
	u32 g = pd_bitf_map(f, h1), step = pd_bitf_map(f, h2) | 1;
	unsigned int i;

	/* s is a multiple of 64: step < s; the sum in 64 bits (s > 2^31) */
	for (i = 0; i < f->k; i++) {
		u64 next = (u64)g + step;

		pos[i] = g;
		g = (u32)(next >= f->s ? next - f->s : next);
	}
}

u64 pd_bitf_step_lines(u8 kind, u32 k)
{
	/* the probes' lines, which the element's own bits are set in */
	u64 probes = k;

	switch (kind) {
	case PKTDEDUP_FILTER_KIND_RSBF:
		/*
		 * phase 2: a reset in each array; phase 3: in each array a
		 * search of PD_BITF_SEARCH words, wrapping in the array
		 * (which starts anywhere in a line), and a reset inside it
		 */
		return probes + k * pd_step_run_lines(64 * PD_BITF_SEARCH);
	case PKTDEDUP_FILTER_KIND_BSBFSD:
		return probes + 1;	/* one reset */
	default:
		return probes + k;	/* a reset in each array */
	}
}

static inline u64 *pd_bitf_word(const struct pd_bitf *f, unsigned int a,
				u32 i)
{
	return &f->words[(size_t)a * f->nwords + (i >> 6)];
}

bool pd_bitf_bit(const struct pd_bitf *f, unsigned int a, u32 i)
{
	return (*pd_bitf_word(f, a, i) >> (i & 63)) & 1;
}

/* Set bit i of array a, counting it if it was clear. */
static inline void pd_bitf_set(struct pd_bitf *f, unsigned int a, u32 i)
{
	u64 *w = pd_bitf_word(f, a, i), b = (u64)1 << (i & 63);

	if (!(*w & b)) {
		*w |= b;
		f->load[a]++;
	}
}

/* Reset bit i of array a, counting it if it was set. */
static inline void pd_bitf_reset(struct pd_bitf *f, unsigned int a, u32 i)
{
	u64 *w = pd_bitf_word(f, a, i), b = (u64)1 << (i & 63);

	if (*w & b) {
		*w &= ~b;
		f->load[a]--;
	}
}

/*
 * RSBF phase 3: reset a set bit of array a, the first one at or after a
 * random bit, within PD_BITF_SEARCH words (wrapping in the array). With
 * half or more of the bits set, finding none in those 449 to 512 bits has
 * probability below 2^-449; then nothing is reset.
 */
static void pd_bitf_reset_some(struct pd_bitf *f, unsigned int a)
{
	u32 r = pd_rng_below(&f->rng, f->s), wi = r >> 6, n;
	u64 *arr = &f->words[(size_t)a * f->nwords];
	u64 w = arr[wi] & (~(u64)0 << (r & 63));

	for (n = 0; n < PD_BITF_SEARCH; n++) {
		if (w) {
			arr[wi] &= ~(w & -w);	/* the lowest set bit */
			f->load[a]--;
			return;
		}
		wi = wi + 1 == f->nwords ? 0 : wi + 1;
		w = arr[wi];
	}
}

/* The element's bits: reset, per the family, then set. */
static void pd_bitf_insert(struct pd_bitf *f, const u32 *pos)
{
	unsigned int i;

	switch (f->kind) {
	case PKTDEDUP_FILTER_KIND_BSBF:
	case PKTDEDUP_FILTER_KIND_RSBF:		/* phase 2 */
		for (i = 0; i < f->k; i++)
			pd_bitf_reset(f, i, pd_rng_below(&f->rng, f->s));
		break;
	case PKTDEDUP_FILTER_KIND_BSBFSD:
		i = pd_rng_below(&f->rng, f->k);
		pd_bitf_reset(f, i, pd_rng_below(&f->rng, f->s));
		break;
	case PKTDEDUP_FILTER_KIND_RLBSBF:
		for (i = 0; i < f->k; i++) {
			u32 r = pd_rng_below(&f->rng, f->s);

			/* with probability L_i / s */
			if (pd_rng_below(&f->rng, f->s) < f->load[i])
				pd_bitf_reset(f, i, r);
		}
		break;
	}
	for (i = 0; i < f->k; i++)
		pd_bitf_set(f, i, pos[i]);
}

/* RSBF: what this element does, by phase. */
static void pd_bitf_rsbf(struct pd_bitf *f, const u32 *pos, bool dup)
{
	unsigned int i;

	if (f->iter < f->iter3)
		f->iter++;
	if (f->iter <= f->s) {			/* phase 1: insert all */
		for (i = 0; i < f->k; i++)
			pd_bitf_set(f, i, pos[i]);
		return;
	}
	if (dup)
		return;
	if (f->iter < f->iter3) {		/* phase 2: with prob. s/iter */
		if (pd_rng_next(&f->rng) >> 32 <
		    pd_div64((u64)f->s << 32, f->iter))
			pd_bitf_insert(f, pos);
		return;
	}
	for (i = 0; i < f->k; i++) {		/* phase 3 */
		if (pd_bitf_bit(f, i, pos[i]))
			continue;
		pd_bitf_reset_some(f, i);
		pd_bitf_set(f, i, pos[i]);
	}
}

bool pd_bitf_step(struct pd_bitf *f, u32 h1, u32 h2)
{
	u32 pos[PD_BITF_MAX_K] __uninitialized;	/* [0, k) written */
	bool dup = true;
	unsigned int i;

	pd_bitf_positions(f, h1, h2, pos);
	for (i = 0; i < f->k; i++)
		dup &= pd_bitf_bit(f, i, pos[i]);
	if (f->kind == PKTDEDUP_FILTER_KIND_RSBF)
		pd_bitf_rsbf(f, pos, dup);
	else if (!dup)
		pd_bitf_insert(f, pos);
	return dup;
}

bool pd_bitf_query(const struct pd_bitf *f, u32 h1, u32 h2)
{
	u32 pos[PD_BITF_MAX_K];
	unsigned int i;

	pd_bitf_positions(f, h1, h2, pos);
	for (i = 0; i < f->k; i++)
		if (!pd_bitf_bit(f, i, pos[i]))
			return false;
	return true;
}

u64 pd_bitf_count(const struct pd_bitf *f, unsigned int a)
{
	const u64 *arr = &f->words[(size_t)a * f->nwords];
	u64 n = 0;
	u32 i;

	for (i = 0; i < f->nwords; i++)
		n += pd_popcount64(arr[i]);
	return n;
}

u64 pd_bitf_set_bits(const struct pd_bitf *f)
{
	u64 n = 0;
	unsigned int i;

	for (i = 0; i < f->k; i++)
		n += f->load[i];
	return n;
}

/* ---- the families, for filter.h ---- */

/* Q62 constants, to double precision */
#define PD_Q62_1_1E 2915141543110166528ULL	/* 1 - 1/e */
#define PD_Q62_LN2 3196577161300663808ULL	/* ln 2 */
#define PD_RSBF_ODE_STEPS 512			/* see pd_bitf_load() */

#define PD_BITF_DEFAULT_K 2		/* the paper's, after its Tables 1-3 */

/*
 * k for RSBF: the mean of 1 and Eq. 6.1's ln(FPR_t) / ln(1 - 1/e), the
 * paper's choice, rounded to nearest.
 */
static u32 pd_rsbf_k(u32 fps_ppb)
{
	u64 a = pd_neglog2_q62(pd_q62_from_ppb(fps_ppb));
	u64 b = pd_neglog2_q62(PD_Q62_1_1E);
	u64 r = pd_muldiv(a, PD_Q32_ONE, b);		/* Q32.32 */
	u64 k = (PD_Q32_ONE + r + PD_Q32_ONE) >> 33;	/* (1 + r)/2 + 1/2 */

	return (u32)(k < 1 ? 1 : k > PD_BITF_MAX_K ? PD_BITF_MAX_K : k);
}

/*
 * The fraction of set bits x a family settles at on a stream of distinct
 * elements (our derivation; the paper gives none but RSBF's 1 - 1/e, its
 * load after phase 1). Only an element reported DISTINCT is inserted, and
 * such an element has at least one zero bit: given that, its bit in an
 * array is zero with probability (1 - x) / (1 - x^k), not 1 - x. Per
 * insertion and array a set bit is cleared with probability r(x) = x
 * (BSBF), x/k (BSBFSD) or x^2 (RLBSBF: a set bit, kept with probability
 * L/s = x), so the load is stable where
 *
 *   r(x) (1 - x^k) = 1 - x,  i.e.  r(x) (1 + x + ... + x^(k-1)) = 1:
 *
 * BSBF  x + ... + x^k = 1        (k = 2: (sqrt 5 - 1)/2; k = 3: 0.5437)
 * RLBSBF x^2 + ... + x^(k+1) = 1 (k = 2: 0.7549; k = 3: 0.6823)
 * BSBFSD (x + ... + x^k) / k = 1: only x = 1. It has no stable load below
 *       1: the load keeps rising (1 - x is about 2s / ((k + 1) n) after n
 *       distinct elements) and so does the FP rate.
 *
 * RSBF ends phase 1 at 1 - 1/e. In phase 2 element iter is inserted with
 * probability (s / iter)(1 - x^k), clearing one random bit per array as
 * BSBF does, so with u = ln(iter / s), dx/du = 1 - 2x + x^(k+1) (BSBF's
 * balance), from u = 0 to ln(1/p*); phase 3 keeps the load it ends at.
 * That is integrated here (the midpoint rule, PD_RSBF_ODE_STEPS steps):
 * for k = 3 and p* = 0.03, 0.5446 (k = 1: 0.8394; k = 2: 0.6188).
 */

/* The largest x in [0, 1] (Q62) with x^first + ... + x^(first+k-1) <= 1. */
static u64 pd_bitf_root(u32 first, u32 k)
{
	u64 lo = 0, hi = PD_Q62_ONE;

	while (lo < hi) {
		u64 mid = lo + (hi - lo + 1) / 2, t = pd_pow_q62(mid, first);
		u64 sum = 0;
		u32 j;

		for (j = 0; j < k && sum <= PD_Q62_ONE; j++) {
			sum += t;
			t = pd_mul_q62(t, mid);
		}
		if (sum <= PD_Q62_ONE)
			lo = mid;
		else
			hi = mid - 1;
	}
	return lo;
}

/* x + h (1 - 2y + y^(k+1)), Q62 */
static u64 pd_rsbf_ode(u64 x, u64 h, u64 y, u32 k)
{
	u64 up = PD_Q62_ONE + pd_pow_q62(y, k + 1), down = 2 * y;

	if (up >= down)
		return x + pd_mul_q62(h, up - down);
	return x - pd_mul_q62(h, down - up);
}

static u64 pd_bitf_load(u8 kind, u32 k, u32 p_star_ppb)
{
	u64 x = PD_Q62_1_1E, h;
	u32 i;

	switch (kind) {
	case PKTDEDUP_FILTER_KIND_BSBFSD:
		return PD_Q62_ONE;
	case PKTDEDUP_FILTER_KIND_RLBSBF:
		return pd_bitf_root(2, k);
	case PKTDEDUP_FILTER_KIND_RSBF:
		/* h = ln(1/p*) / steps: -log2(p*) (Q32.32) times ln 2 */
		h = pd_muldiv(pd_neglog2_q62(pd_q62_from_ppb(p_star_ppb)),
			      PD_Q62_LN2, PD_Q32_ONE * PD_RSBF_ODE_STEPS);
		for (i = 0; i < PD_RSBF_ODE_STEPS; i++)
			x = pd_rsbf_ode(x, h, pd_rsbf_ode(x, h / 2, x, k), k);
		return PD_MIN(x, PD_Q62_ONE);
	default:
		return pd_bitf_root(1, k);
	}
}

/*
 * BSBF, BSBFSD and RLBSBF, whose paper gives no planner, with a target:
 * the least k whose FP at the stable load (load^k, our model) meets it.
 * BSBF's tends to 2^-k, RLBSBF's to ((sqrt 5 - 1)/2)^k; where no k up to
 * 16 meets the target (BSBFSD never does: its load tends to 1), the k of
 * the lowest FP, the paper's 2 on a tie. Best effort, unlike the SBF's
 * planner, which more memory always satisfies: here memory does not move
 * the stable load, and the plan reports the FP it reaches.
 */
static u32 pd_bitf_k_for_fps(u8 kind, u32 fps_ppb)
{
	u64 fps = pd_q62_from_ppb(fps_ppb), best_fp;
	u32 k, best = PD_BITF_DEFAULT_K;

	best_fp = pd_pow_q62(pd_bitf_load(kind, best, 0), best);
	for (k = 1; k <= PD_BITF_MAX_K; k++) {
		u64 fp = pd_pow_q62(pd_bitf_load(kind, k, 0), k);

		if (fp <= fps)
			return k;
		if (fp < best_fp) {
			best = k;
			best_fp = fp;
		}
	}
	return best;
}

PD_FILTER_REQ_FITS(struct pd_bitf_req);

static void pd_bitf_req_defaults(struct pd_filter_req *req)
{
	pd_bitf_req(req)->k = PD_FILTER_AUTO;
}

static int pd_bitf_plan(const struct pd_filter_req *req,
			struct pd_filter_plan *c, const char **why)
{
	const struct pd_bitf_req *br = pd_bitf_req(req);
	struct pd_bitf_params prm;
	int err;

	memset(c, 0, sizeof(*c));
	if (br->k != PD_FILTER_AUTO)
		c->k = br->k;
	else if (req->kind == PKTDEDUP_FILTER_KIND_RSBF)
		c->k = pd_rsbf_k(req->fps_ppb);
	else if (req->fps_ppb)
		c->k = pd_bitf_k_for_fps(req->kind, req->fps_ppb);
	else
		c->k = PD_BITF_DEFAULT_K;
	if (c->k < 1 || c->k > PD_BITF_MAX_K) {
		*why = "k (bit arrays) must be between 1 and 16";
		return -EINVAL;
	}
	if (req->mem_bytes > PD_U64_MAX / 8) {
		*why = "memory too large";
		return -ERANGE;
	}
	prm.bits = req->mem_bytes * 8 / c->k;
	prm.k = c->k;
	prm.kind = req->kind;
	prm.p_star_ppb = br->p_star_ppb ? br->p_star_ppb :
			 PD_BITF_DEFAULT_PSTAR_PPB;
	err = pd_bitf_check(&prm, why);
	if (err)
		return err;
	c->cells = pd_bitf_usable_bits(&prm);
	c->bytes = pd_bitf_bytes(&prm);
	if (req->kind == PKTDEDUP_FILTER_KIND_RSBF)
		c->p_star_ppb = prm.p_star_ppb;
	c->stable_load = pd_bitf_load(req->kind, c->k, prm.p_star_ppb);
	c->fp_bound = pd_pow_q62(c->stable_load, c->k);
	c->given = PD_PLAN_HAS_FP | PD_PLAN_HAS_LOAD;
	c->step_lines = pd_bitf_step_lines(req->kind, c->k);
	c->step_attr = PKTDEDUP_A_SETTINGS_K;
	c->step_what = "in its probes and resets";
	c->step_hint = "fewer arrays (k)";
	c->step_msg = PD_STEP_OVER
		"in its probes and resets: fewer arrays (k)"
		PD_STEP_ASK;
	return 0;
}

static int pd_bitf_finit(struct pd_filter *f, const struct pd_filter_plan *plan,
			 void *mem, const char **why)
{
	struct pd_bitf_params prm = {
		.bits = plan->cells, .k = plan->k, .kind = plan->kind,
		.p_star_ppb = plan->p_star_ppb ? plan->p_star_ppb :
			      PD_BITF_DEFAULT_PSTAR_PPB,
	};

	return pd_bitf_init(pd_bitf_of(f), &prm, mem, why);
}

static void pd_bitf_fset_rng(struct pd_filter *f, u64 rng)
{
	pd_bitf_set_rng(pd_bitf_of(f), rng);
}

static bool pd_bitf_fstep(struct pd_filter *f, u32 h1, u32 h2,
			  const struct pd_pktinfo *pi)
{
	return pd_bitf_step(pd_bitf_of(f), h1, h2);
}

static bool pd_bitf_fquery(const struct pd_filter *f, u32 h1, u32 h2)
{
	return pd_bitf_query(pd_bitf_of(f), h1, h2);
}

static void pd_bitf_fclear(struct pd_filter *f)
{
	pd_bitf_clear(pd_bitf_of(f));
}

/* Exact at any budget: the loads are counted as bits are set and reset. */
static void pd_bitf_occupancy(const struct pd_filter *f,
			      struct pd_filter_occ *o, u64 max_bytes)
{
	const struct pd_bitf *b = pd_bitf_of(f);
	unsigned int i;

	o->units = (u64)b->s * b->k;
	o->arrays = b->k;
	for (i = 0; i < b->k; i++)
		o->load[i] = b->load[i];
	o->set = pd_bitf_set_bits(b);
}

/* RSBF: its FPR threshold (fps), k, and its insertion floor */
static const struct pd_setting pd_rsbf_settings[] = {
	PD_SETTING_FPS,
	PD_SETTING(K, struct pd_bitf_req, k, AUTO_ZERO),
	PD_SETTING(P_STAR, struct pd_bitf_req, p_star_ppb, PLAIN),
	{ }
};

/* the others: a target (none by default), k */
static const struct pd_setting pd_bitf_settings[] = {
	PD_SETTING_FPS,
	PD_SETTING(K, struct pd_bitf_req, k, AUTO_ZERO),
	{ }
};

#define PD_BITF_FAMILY(fam, nm, kd, sets, fps)				\
const struct pd_filter_ops fam = {					\
	.name = nm,							\
	.kind = kd,							\
	.settings = sets,							\
	.default_fps_ppb = fps,						\
	.req_defaults = pd_bitf_req_defaults,				\
	.plan = pd_bitf_plan,						\
	.init = pd_bitf_finit,						\
	.set_rng = pd_bitf_fset_rng,					\
	.step = pd_bitf_fstep,						\
	.query = pd_bitf_fquery,					\
	.clear = pd_bitf_fclear,					\
	.occupancy = pd_bitf_occupancy,					\
}

/* RSBF's FPR threshold, Eq. 6.1: the paper's 0.1 */
PD_BITF_FAMILY(pd_rsbf_family, "rsbf", PKTDEDUP_FILTER_KIND_RSBF,
	       pd_rsbf_settings, 100000000u);
/* no target by default: k is the paper's 2 */
PD_BITF_FAMILY(pd_bsbf_family, "bsbf", PKTDEDUP_FILTER_KIND_BSBF,
	       pd_bitf_settings, 0);
PD_BITF_FAMILY(pd_bsbfsd_family, "bsbfsd", PKTDEDUP_FILTER_KIND_BSBFSD,
	       pd_bitf_settings, 0);
PD_BITF_FAMILY(pd_rlbsbf_family, "rlbsbf", PKTDEDUP_FILTER_KIND_RLBSBF,
	       pd_bitf_settings, 0);
