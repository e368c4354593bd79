// SPDX-License-Identifier: GPL-2.0
/* The filter families behind one interface: see filter.h. */
#include "filter.h"
#include "defer.h"
#include "plan.h"
#include "rate.h"
#include "rng.h"

/* Every family, by its uAPI number: the spec's list (families.h). */
const struct pd_filter_ops *const pd_filter_families[PD_FILTER_NKINDS] = {
#define PD_FAMILY(KIND, id) \
	[PKTDEDUP_FILTER_KIND_##KIND] = &pd_##id##_family,
#include "families.h"
#undef PD_FAMILY
};

const struct pd_filter_ops *pd_filter_family(unsigned int kind)
{
	return kind < PD_FILTER_NKINDS ? pd_filter_families[kind] : NULL;
}

const struct pd_filter_ops *pd_filter_family_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < PD_FILTER_NKINDS; i++)
		if (pd_filter_families[i] &&
		    !strcmp(pd_filter_families[i]->name, name))
			return pd_filter_families[i];
	return NULL;
}

static size_t pd_names_add(char *buf, size_t len, size_t at, const char *s)
{
	size_t n = strlen(s);

	if (n > len - 1 - at)
		n = len - 1 - at;
	memcpy(buf + at, s, n);
	return at + n;
}

void pd_filter_family_names(char *buf, size_t len, const char *sep)
{
	size_t at = 0;
	unsigned int i;

	if (!len)
		return;
	for (i = 0; i < PD_FILTER_NKINDS; i++) {
		if (!pd_filter_families[i])
			continue;
		if (at)
			at = pd_names_add(buf, len, at, sep);
		at = pd_names_add(buf, len, at, pd_filter_families[i]->name);
	}
	buf[at] = 0;
}

void pd_filter_req_defaults(struct pd_filter_req *req, u8 kind, u64 mem)
{
	memset(req, 0, sizeof(*req));
	req->kind = kind;
	req->mem_bytes = mem;
	if (pd_filter_family(kind) && pd_filter_family(kind)->req_defaults)
		pd_filter_family(kind)->req_defaults(req);
}

int pd_filter_plan(const struct pd_filter_req *req,
		   struct pd_filter_plan *plan, const char **why)
{
	const struct pd_filter_ops *ops = pd_filter_family(req->kind);
	struct pd_filter_req r = *req;
	int err;

	if (!ops) {
		*why = "no such filter family";
		return -EINVAL;
	}
	if (!r.fps_ppb)
		r.fps_ppb = ops->default_fps_ppb;
	if (r.fps_ppb >= 1000000000u) {
		*why = "fps must be below 1";
		return -EINVAL;
	}
	memset(plan, 0, sizeof(*plan));
	err = ops->plan(&r, plan, why);
	if (err)
		return err;
	plan->kind = req->kind;
	plan->shards = 1;
	/* a step cannot touch more lines than the filter has */
	plan->step_lines = PD_MIN(plan->step_lines,
				  (plan->bytes + PD_STEP_LINE_BYTES - 1) /
				  PD_STEP_LINE_BYTES);
	if (plan->step_lines > PD_STEP_MAX_LINES) {
		/* the words of PD_STEP_MAX_LINES; pd_filter_refusal()'s say more */
		static_assert(PD_STEP_MAX_LINES * PD_STEP_LINE_BYTES == 16384,
			      "the message's 256 lines of 64 bytes");
		*why = "one packet's step would touch more than 256 lines (16 KiB) of the filter";
		return -EFBIG;
	}
	return 0;
}

const char *pd_filter_refusal(const struct pd_filter_req *req,
			      const struct pd_filter_plan *plan, int err,
			      const char *why, char *buf, size_t len)
{
	const struct pd_filter_ops *ops = pd_filter_family(req->kind);
	char val[PD_SETTING_VALUE_LEN];

	if (err != -EFBIG || !ops || !len)
		return why;
	pd_setting_value(ops, req, plan->step_attr, val, sizeof(val));
	snprintf(buf, len,
		 "%s %s: one packet would touch up to %llu lines (%llu bytes) of the filter %s; at most %u lines (%u bytes) a packet: %s",
		 pd_setting_name(plan->step_attr), val,
		 (unsigned long long)plan->step_lines,
		 (unsigned long long)plan->step_lines * PD_STEP_LINE_BYTES,
		 plan->step_what ?: "in a step", PD_STEP_MAX_LINES,
		 PD_STEP_MAX_LINES * PD_STEP_LINE_BYTES,
		 plan->step_hint ?: "change it");
	return buf;
}

/* A new random hash key and generator state. */
static void pd_filter_reseed(struct pd_filter *f)
{
	pd_hkey_random(&f->hkey);
	f->ops->set_rng(f, pd_random_u64());
}

int pd_filter_init(struct pd_filter *f, const struct pd_filter_plan *plan,
		   void *mem, const char **why)
{
	const struct pd_filter_ops *ops = pd_filter_family(plan->kind);
	int err;

	if (!ops) {
		*why = "no such filter family";
		return -EINVAL;
	}
	memset(f, 0, sizeof(*f));
	f->ops = ops;
	f->mem = mem;
	err = ops->init(f, plan, mem, why);
	if (err) {
		/* mem stays the caller's, who frees it */
		f->mem = NULL;
		return err;
	}
	f->defer_depth = (u8)pd_defer_depth(plan);
	pd_filter_reseed(f);
	return 0;
}

void pd_filter_set_seeds(struct pd_filter *f, u64 k0, u64 k1, u64 rng)
{
	f->hkey.k[0] = k0;
	f->hkey.k[1] = k1;
	f->ops->set_rng(f, rng);
}

void pd_filter_seed(struct pd_filter *f, u64 *state)
{
	u64 rng = pd_rng_next(state);
	u64 k1 = pd_rng_next(state);
	u64 k0 = pd_rng_next(state);

	pd_filter_set_seeds(f, k0, k1, rng);
}

void pd_filter_reset(struct pd_filter *f)
{
	f->ops->clear(f);
	pd_filter_reseed(f);
}

int pd_filter_create(struct pd_filter *f, const struct pd_filter_req *req,
		     struct pd_filter_plan *plan, const char **why)
{
	void *mem;
	int err = pd_filter_plan(req, plan, why);

	if (err)
		return err;
	mem = pd_zalloc_large(plan->bytes);
	if (!mem) {
		*why = "out of memory";
		return -ENOMEM;
	}
	err = pd_filter_init(f, plan, mem, why);
	if (err)
		pd_free_large(mem);
	return err;
}

void pd_filter_destroy(struct pd_filter *f)
{
	pd_free_large(f->mem);
	f->mem = NULL;
}

void pd_filter_occupancy_within(const struct pd_filter *f,
				struct pd_filter_occ *o, u64 max_bytes)
{
	memset(o, 0, sizeof(*o));
	f->ops->occupancy(f, o, max_bytes);
}

void pd_filter_occupancy(const struct pd_filter *f, struct pd_filter_occ *o)
{
	pd_filter_occupancy_within(f, o, PD_OCC_ALL);
}

bool pd_filter_window(const struct pd_filter *f, struct pd_filter_win *w)
{
	if (!f->ops->window)
		return false;
	memset(w, 0, sizeof(*w));
	f->ops->window(f, w);
	return true;
}

u64 pd_filter_memory_gap(const struct pd_filter_plan *plan)
{
	const struct pd_filter_ops *ops = pd_filter_family(plan->kind);

	return ops && ops->memory_gap ? ops->memory_gap(plan) : 0;
}

bool pd_filter_memory(const struct pd_filter_win *w, u64 gap, u64 pps,
		      struct pd_filter_mem *m)
{
	memset(m, 0, sizeof(*m));
	if (w && w->timed) {
		m->ns = w->effective;
		m->packets = pd_rate_ns_pkts(w->effective, pps);
	} else {
		m->packets = w ? w->effective : gap;
		m->ns = pd_rate_pkts_ns(m->packets, pps);
	}
	return m->packets || m->ns;
}

bool pd_filter_kind_lockfree(unsigned int kind)
{
	const struct pd_filter_ops *ops = pd_filter_family(kind);

	return ops && ops->step_cpu;
}

u32 pd_defer_depth(const struct pd_filter_plan *plan)
{
	return plan->prefetch_whole && plan->bytes >= PD_PLAN_LINE_BYTES ?
	       PD_DEFER_DEEP : 1;
}

bool pd_filter_plan_timed(const struct pd_filter_plan *plan)
{
	const struct pd_filter_ops *ops = pd_filter_family(plan->kind);

	return ops && ops->timed && plan->window_ns;
}
