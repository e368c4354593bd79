// SPDX-License-Identifier: GPL-2.0
/*
 * The Stable Bloom Filter as a filter family (filter.h): the filter of
 * sbf.c with the planner of plan.c.
 */
#include "filter.h"
#include "fixed.h"
#include "plan.h"
#include "sbf.h"

PD_FILTER_PRIV_FITS(struct pd_sbf);

PD_FILTER_REQ_FITS(struct pd_sbf_req);

const char *const pd_sbf_layout_names[PKTDEDUP_LAYOUT_MAX + 1] = {
	[PKTDEDUP_LAYOUT_FLAT] = "flat",
	[PKTDEDUP_LAYOUT_BLOCKED] = "blocked",
	[PKTDEDUP_LAYOUT_AUTO] = "auto",
	[PKTDEDUP_LAYOUT_LINE] = "line",
};

static void pd_sbf_req_defaults(struct pd_filter_req *req)
{
	struct pd_sbf_req *sr = pd_sbf_req(req);

	sr->max = PD_FILTER_AUTO;
	sr->k = PD_FILTER_AUTO;
	sr->p = PD_FILTER_AUTO;
	sr->layout = PKTDEDUP_LAYOUT_AUTO;
}

static int pd_sbf_fplan(const struct pd_filter_req *req,
			struct pd_filter_plan *c, const char **why)
{
	const struct pd_sbf_req *sr = pd_sbf_req(req);
	struct pd_plan_req pr = {
		.mem_bytes = req->mem_bytes, .fps_ppb = (u32)req->fps_ppb,
		.max = (u32)sr->max, .k = (u32)sr->k, .p = (u32)sr->p,
		.gap = sr->gap, .layout = (u8)sr->layout,
		.shared = req->shared,
	};
	struct pd_sbf_params prm;
	struct pd_plan p;
	int err = pd_plan(&pr, &p, why);

	if (err)
		return err;
	memset(c, 0, sizeof(*c));
	c->k = p.k;
	c->cells = p.cells;
	c->max = p.max;
	c->bits = p.bits;
	c->p = p.p;
	c->p_exact_q32 = p.p_exact_q32;
	c->fp_bound = p.fp_bound;
	c->stable_zero = p.stable_zero;
	c->gap = p.gap;
	c->fn_rate = p.fn_rate;
	c->layout = p.layout;
	/* line: the run in the key's own line, which the prefetch asks for */
	c->prefetch_whole = p.layout == PKTDEDUP_LAYOUT_LINE;
	c->given = PD_PLAN_HAS_FP | PD_PLAN_HAS_ZERO | PD_PLAN_HAS_FN;
	pd_plan_params(&p, &prm);
	c->bytes = pd_sbf_bytes(&prm);
	pd_sbf_plan_step(c, sr->max, sr->k, sr->p);
	return 0;
}

void pd_sbf_plan_step(struct pd_filter_plan *c, u64 max, u64 k, u64 p)
{
	struct pd_sbf_params prm = {
		.cells = c->cells, .max = (u8)c->max, .k = (u8)c->k,
		.p = c->p, .layout = c->layout,
	};

	c->step_lines = pd_sbf_step_lines(&prm);
	if (p != PD_FILTER_AUTO) {
		c->step_attr = PKTDEDUP_A_SETTINGS_P;
		c->step_what = "in its P decrements";
		c->step_hint = "lower p, or leave it auto";
		c->step_msg = PD_STEP_OVER
			"in its P decrements: lower p, or leave it auto"
			PD_STEP_ASK;
	} else if (k != PD_FILTER_AUTO) {
		c->step_attr = PKTDEDUP_A_SETTINGS_K;
		c->step_what = "in the P decrements fps needs with so few probes";
		c->step_hint = "raise k or fps, or leave k auto";
		c->step_msg = PD_STEP_OVER
			"in the P decrements fps needs with so few probes: raise k or fps, or leave k auto"
			PD_STEP_ASK;
	} else if (max != PD_FILTER_AUTO) {
		c->step_attr = PKTDEDUP_A_SETTINGS_CELL_BITS;
		c->step_what = "in the P decrements fps needs with this cell maximum";
		c->step_hint = "lower max, or raise fps";
		c->step_msg = PD_STEP_OVER
			"in the P decrements fps needs with this cell maximum: lower max, or raise fps"
			PD_STEP_ASK;
	} else {
		c->step_attr = PKTDEDUP_A_SETTINGS_FPS;
		c->step_what = "in the P decrements it needs";
		c->step_hint = "raise fps";
		c->step_msg = PD_STEP_OVER
			"in the P decrements it needs: raise fps"
			PD_STEP_ASK;
	}
}

int pd_sbf_init_plan(struct pd_sbf *s, const struct pd_filter_plan *plan,
		     void *mem, const char **why)
{
	struct pd_sbf_params prm = {
		.cells = plan->cells, .max = (u8)plan->max, .k = (u8)plan->k,
		.p = plan->p, .layout = plan->layout,
	};

	return pd_sbf_init(s, &prm, mem, why);
}

void pd_sbf_occ(const struct pd_sbf *s, struct pd_filter_occ *o,
		u64 max_bytes)
{
	o->zero = pd_sbf_zero_within(s, max_bytes, &o->units);
}

static int pd_sbf_finit(struct pd_filter *f, const struct pd_filter_plan *plan,
			void *mem, const char **why)
{
	return pd_sbf_init_plan(pd_sbf_of(f), plan, mem, why);
}

static void pd_sbf_fset_rng(struct pd_filter *f, u64 rng)
{
	pd_sbf_set_rng(pd_sbf_of(f), rng);
}

static bool pd_sbf_fstep(struct pd_filter *f, u32 h1, u32 h2,
			 const struct pd_pktinfo *pi)
{
	return pd_sbf_step(pd_sbf_of(f), h1, h2);
}

static_assert(sizeof(struct pd_sbf_gen) <= sizeof(struct pd_filter_cpu),
	      "struct pd_sbf_gen does not fit in pd_filter_cpu");

static bool pd_sbf_fstep_cpu(struct pd_filter *f, struct pd_filter_cpu *c,
			     u32 h1, u32 h2, const struct pd_pktinfo *pi)
{
	return pd_sbf_step_cpu(pd_sbf_of(f), (struct pd_sbf_gen *)c, h1, h2);
}

static void pd_sbf_fcpu_init(const struct pd_filter *f,
			     struct pd_filter_cpu *c, const u64 *rng)
{
	const struct pd_sbf *s = pd_sbf_of(f);
	struct pd_sbf_gen *g = (struct pd_sbf_gen *)c;

	if (rng)
		pd_sbf_gen_init(s, g, *rng);
	else
		*g = s->gen;
}

static bool pd_sbf_fquery(const struct pd_filter *f, u32 h1, u32 h2)
{
	return pd_sbf_query(pd_sbf_of(f), h1, h2);
}

static void pd_sbf_fclear(struct pd_filter *f)
{
	pd_sbf_clear(pd_sbf_of(f));
}

static void pd_sbf_occupancy(const struct pd_filter *f,
			     struct pd_filter_occ *o, u64 max_bytes)
{
	pd_sbf_occ(pd_sbf_of(f), o, max_bytes);
}

/* Copies up to this many packets apart are caught with 99%. */
static u64 pd_sbf_memory_gap(const struct pd_filter_plan *plan)
{
	return pd_plan_memory_gap(plan->max, plan->k, plan->p, plan->cells,
				  pd_q62_from_ppb(PD_PLAN_MEMORY_FN_PPB));
}

static const struct pd_setting pd_sbf_settings[] = {
	PD_SETTING_FPS,
	PD_SETTING(CELL_BITS, struct pd_sbf_req, max, CELL_MAX),
	PD_SETTING(K, struct pd_sbf_req, k, AUTO_ZERO),
	PD_SETTING(P, struct pd_sbf_req, p, P_AUTO),
	PD_SETTING_COUNT(GAP, struct pd_sbf_req, gap, PLAIN),
	PD_SETTING(LAYOUT, struct pd_sbf_req, layout, PLAIN),
	{ }
};

const struct pd_filter_ops pd_sbf_family = {
	.name = "sbf",
	.kind = PKTDEDUP_FILTER_KIND_SBF,
	.counting = true,
	.settings = pd_sbf_settings,
	.default_fps_ppb = PD_PLAN_DEFAULT_FPS_PPB,
	.req_defaults = pd_sbf_req_defaults,
	.plan = pd_sbf_fplan,
	.init = pd_sbf_finit,
	.set_rng = pd_sbf_fset_rng,
	.step = pd_sbf_fstep,
	.step_cpu = pd_sbf_fstep_cpu,
	.cpu_init = pd_sbf_fcpu_init,
	.query = pd_sbf_fquery,
	.clear = pd_sbf_fclear,
	.occupancy = pd_sbf_occupancy,
	.memory_gap = pd_sbf_memory_gap,
};
