// SPDX-License-Identifier: GPL-2.0
/* The importance-aware Bloom filters, IBF-2C and IBF-MC: see ibf.h. */
#include "filter.h"
#include "fixed.h"
#include "ibf.h"
#include "plan.h"

PD_FILTER_PRIV_FITS(struct pd_ibf);

/*
 * DSCP to level, by class selector (dscp >> 3): CS0 and CS1 lowest, then
 * AF1x, CS2/AF2x, CS3/AF3x, CS4/AF4x, CS5/EF/VOICE-ADMIT, CS6/CS7. CS1
 * itself (8, "lower effort" in RFC 3662) and LE (1, RFC 8622) stay at 1.
 */
unsigned int pd_ibf_dscp_level(unsigned int dscp)
{
	static const u8 by_class[8] = { 1, 2, 3, 4, 5, 6, 7, 7 };

	dscp &= 63;
	if (dscp == 8)
		return 1;
	return by_class[dscp >> 3];
}

unsigned int pd_ibf_level_value(unsigned int level, unsigned int max)
{
	return 1 + (level - 1) * (max - 1) / (PD_IBF_LEVELS - 1);
}

/*
 * Where the importance comes from: checked by the planner, so that a
 * setting the filter would refuse is refused before anything is kept
 * (an idle instance keeps a plan it does not build), and again here.
 */
static int pd_ibf_check_importance(u8 importance, u32 mask, const char **why)
{
	if (importance > PKTDEDUP_IMPORTANCE_MAX) {
		*why = "importance: dscp or mark";
		return -EINVAL;
	}
	if (importance == PKTDEDUP_IMPORTANCE_MARK && !mask) {
		*why = "importance mark needs a mask of the bits that give it";
		return -EINVAL;
	}
	return 0;
}

int pd_ibf_setup(struct pd_ibf *f, bool two_class, u8 importance, u32 mask,
		 const char **why)
{
	unsigned int max = f->sbf.max, d;
	int err = pd_ibf_check_importance(importance, mask, why);

	if (err)
		return err;
	f->two_class = two_class;
	f->importance = importance;
	f->mask = mask;
	for (f->shift = 0; mask && !(mask & 1); mask >>= 1)
		f->shift++;
	for (d = 0; d < 64; d++) {
		unsigned int level = pd_ibf_dscp_level(d);

		if (two_class)
			f->dscp_value[d] = level >= PD_IBF_IMPORTANT_LEVEL ?
					   max : (max + 1) / 2;
		else
			f->dscp_value[d] = pd_ibf_level_value(level, max);
	}
	return 0;
}

unsigned int pd_ibf_value(const struct pd_ibf *f, const struct pd_pktinfo *pi)
{
	unsigned int max = f->sbf.max;
	u32 v;

	if (f->importance == PKTDEDUP_IMPORTANCE_DSCP)
		return f->dscp_value[pi->dscp & 63];
	v = (pi->mark & f->mask) >> f->shift;
	if (f->two_class)
		return v ? max : (max + 1) / 2;
	return v < 1 ? 1 : v > max ? max : v;
}

/*
 * The values cells are raised to, if levels (DSCP) or values (mark) are
 * equally likely, as the paper's analysis assumes: vprob[1..max], Q62.
 */
static void pd_ibf_vprob(bool two_class, u8 importance, u32 max, u64 *vprob)
{
	unsigned int l, n;

	memset(vprob, 0, PD_PLAN_STATES * sizeof(*vprob));
	if (two_class) {
		vprob[(max + 1) / 2] += PD_Q62_ONE / 2;
		vprob[max] += PD_Q62_ONE / 2;
		return;
	}
	n = importance == PKTDEDUP_IMPORTANCE_DSCP ? PD_IBF_LEVELS : max;
	for (l = 1; l <= n; l++)
		vprob[importance == PKTDEDUP_IMPORTANCE_DSCP ?
		      pd_ibf_level_value(l, max) : l] += PD_Q62_ONE / n;
}

/* FP of a new key at the stable point for P, or PD_U64_MAX. */
static u64 pd_ibf_fp(const u64 *vprob, u32 max, u32 k, u32 p, u64 m,
		     u64 *zero)
{
	u64 z = pd_plan_chain_zero(max, vprob, pd_muldiv(p, PD_Q62_ONE, m),
				   pd_muldiv(k, PD_Q62_ONE, m));

	if (z == PD_U64_MAX)
		return z;
	*zero = z;
	return pd_pow_q62(PD_Q62_ONE - z, k);
}

PD_FILTER_REQ_FITS(struct pd_ibf_req);

static void pd_ibf_req_defaults(struct pd_filter_req *req)
{
	struct pd_ibf_req *ir = pd_ibf_req(req);

	ir->max = PD_FILTER_AUTO;
	ir->k = PD_FILTER_AUTO;
	ir->p = PD_FILTER_AUTO;
	ir->importance = PKTDEDUP_IMPORTANCE_DSCP;
}

static int pd_ibf_plan(const struct pd_filter_req *req,
		       struct pd_filter_plan *c, bool two_class,
		       const char **why)
{
	const struct pd_ibf_req *ir = pd_ibf_req(req);
	u64 vprob[PD_PLAN_STATES], fps, fp, zero = 0, lo, hi, pm, km;
	struct pd_sbf_params prm;
	u32 vmin;
	int err;

	memset(c, 0, sizeof(*c));
	err = pd_ibf_check_importance(ir->importance, ir->importance_mask,
				      why);
	if (err)
		return err;
	c->max = ir->max == PD_FILTER_AUTO ? PD_IBF_DEFAULT_MAX : ir->max;
	c->k = ir->k == PD_FILTER_AUTO ? PD_IBF_DEFAULT_K : ir->k;
	c->bits = pd_sbf_bits_for_max(c->max);
	if (!c->bits || c->max >= PD_PLAN_STATES || c->max < 2) {
		*why = "ibf: max must be 3, 7 or 15 (classes need room)";
		return -EINVAL;
	}
	/* before P is searched with it, and before (u8) would wrap it */
	if (c->k < 1 || c->k > PD_SBF_MAX_K) {
		*why = "k must be between 1 and 16";
		return -EINVAL;
	}
	if (req->mem_bytes > PD_U64_MAX / 8) {
		*why = "memory too large";
		return -ERANGE;
	}
	memset(&prm, 0, sizeof(prm));	/* layout flat */
	prm.max = (u8)c->max;
	prm.cells = req->mem_bytes * 8 / c->bits;
	c->cells = pd_sbf_usable_cells(&prm);
	c->importance = ir->importance;
	c->importance_mask = ir->importance_mask;
	pd_ibf_vprob(two_class, ir->importance, c->max, vprob);
	fps = pd_q62_from_ppb(req->fps_ppb);
	if (ir->p != PD_FILTER_AUTO) {
		c->p = ir->p;
	} else {
		/* the least P whose stable FP is within fps: FP falls with P */
		lo = 1;
		hi = c->cells;
		if (!c->cells || pd_ibf_fp(vprob, c->max, c->k, (u32)hi,
					   c->cells, &zero) > fps) {
			*why = "the fp target cannot be met with this memory";
			return -ERANGE;
		}
		while (lo < hi) {
			u64 mid = lo + (hi - lo) / 2;

			fp = pd_ibf_fp(vprob, c->max, c->k, (u32)mid, c->cells,
				       &zero);
			if (fp == PD_U64_MAX) {
				*why = "out of memory";
				return -ENOMEM;
			}
			if (fp <= fps)
				hi = mid;
			else
				lo = mid + 1;
		}
		c->p = (u32)lo;
	}
	prm.cells = c->cells;
	prm.p = c->p;
	prm.k = (u8)c->k;
	err = pd_sbf_check(&prm, why);
	if (err)
		return err;
	c->bytes = pd_sbf_bytes(&prm);
	c->fp_bound = pd_ibf_fp(vprob, c->max, c->k, c->p, c->cells, &zero);
	if (c->fp_bound == PD_U64_MAX) {
		*why = "out of memory";
		return -ENOMEM;
	}
	c->stable_zero = zero;
	c->gap = ir->gap ? ir->gap : PD_PLAN_DEFAULT_GAP;
	/* FN at the gap of the most and the least important class */
	for (vmin = 1; vmin < c->max && !vprob[vmin]; vmin++)
		;
	pm = pd_muldiv(c->p, PD_Q62_ONE, c->cells);
	km = pd_muldiv(c->k, PD_Q62_ONE, c->cells);
	lo = pd_plan_chain(c->max, vprob, pm, km, c->max, c->gap);
	hi = pd_plan_chain(c->max, vprob, pm, km, vmin, c->gap);
	if (lo == PD_U64_MAX || hi == PD_U64_MAX) {
		*why = "out of memory";
		return -ENOMEM;
	}
	c->fn_rate = PD_Q62_ONE - pd_pow_q62(PD_Q62_ONE - lo, c->k);
	c->fn_low = PD_Q62_ONE - pd_pow_q62(PD_Q62_ONE - hi, c->k);
	c->given = PD_PLAN_HAS_FP | PD_PLAN_HAS_ZERO | PD_PLAN_HAS_FN;
	pd_sbf_plan_step(c, ir->max, ir->k, ir->p);	/* layout flat */
	return 0;
}

static int pd_ibf2c_plan(const struct pd_filter_req *req,
			 struct pd_filter_plan *plan, const char **why)
{
	return pd_ibf_plan(req, plan, true, why);
}

static int pd_ibfmc_plan(const struct pd_filter_req *req,
			 struct pd_filter_plan *plan, const char **why)
{
	return pd_ibf_plan(req, plan, false, why);
}

static int pd_ibf_init(struct pd_filter *f, const struct pd_filter_plan *plan,
		       void *mem, const char **why)
{
	int err = pd_sbf_init_plan(&pd_ibf_of(f)->sbf, plan, mem, why);

	if (err)
		return err;
	return pd_ibf_setup(pd_ibf_of(f), plan->kind == PKTDEDUP_FILTER_KIND_IBF_2C,
			    plan->importance, plan->importance_mask, why);
}

static void pd_ibf_set_rng(struct pd_filter *f, u64 rng)
{
	pd_sbf_set_rng(&pd_ibf_of(f)->sbf, rng);
}

static bool pd_ibf_fstep(struct pd_filter *f, u32 h1, u32 h2,
			 const struct pd_pktinfo *pi)
{
	return pd_ibf_step(pd_ibf_of(f), h1, h2, pi);
}

static bool pd_ibf_query(const struct pd_filter *f, u32 h1, u32 h2)
{
	return pd_sbf_query(&pd_ibf_of(f)->sbf, h1, h2);
}

static void pd_ibf_clear(struct pd_filter *f)
{
	pd_sbf_clear(&pd_ibf_of(f)->sbf);
}

static void pd_ibf_occupancy(const struct pd_filter *f,
			     struct pd_filter_occ *o, u64 max_bytes)
{
	pd_sbf_occ(&pd_ibf_of(f)->sbf, o, max_bytes);
}

/* The SBF's, but the layout, and the importance of a packet */
static const struct pd_setting pd_ibf_settings[] = {
	PD_SETTING_FPS,
	PD_SETTING(CELL_BITS, struct pd_ibf_req, max, CELL_MAX),
	PD_SETTING(K, struct pd_ibf_req, k, AUTO_ZERO),
	PD_SETTING(P, struct pd_ibf_req, p, P_AUTO),
	PD_SETTING_COUNT(GAP, struct pd_ibf_req, gap, PLAIN),
	PD_SETTING(IMPORTANCE, struct pd_ibf_req, importance, PLAIN),
	PD_SETTING(IMPORTANCE_MASK, struct pd_ibf_req, importance_mask, PLAIN),
	{ }
};

#define PD_IBF_FAMILY(fam, nm, kd, planner)				\
const struct pd_filter_ops fam = {					\
	.name = nm,							\
	.kind = kd,							\
	.counting = true,						\
	.settings = pd_ibf_settings,				\
	.default_fps_ppb = PD_PLAN_DEFAULT_FPS_PPB,			\
	.req_defaults = pd_ibf_req_defaults,				\
	.plan = planner,						\
	.init = pd_ibf_init,						\
	.set_rng = pd_ibf_set_rng,					\
	.step = pd_ibf_fstep,						\
	.query = pd_ibf_query,						\
	.clear = pd_ibf_clear,						\
	.occupancy = pd_ibf_occupancy,					\
}

PD_IBF_FAMILY(pd_ibf_2c_family, "ibf-2c", PKTDEDUP_FILTER_KIND_IBF_2C,
	      pd_ibf2c_plan);
PD_IBF_FAMILY(pd_ibf_mc_family, "ibf-mc", PKTDEDUP_FILTER_KIND_IBF_MC,
	      pd_ibfmc_plan);
