// SPDX-License-Identifier: GPL-2.0
/* A filter in shards by key hash, for every CPU at once: see shard.h. */
#include "shard.h"
#include "rng.h"

#define PD_SHARD_LINE 64

u32 pd_shards_auto(u32 ncpus, u64 mem)
{
	u32 n = 1;

	while (n < ncpus && n < PD_SHARDS_MAX)
		n <<= 1;
	n = (u32)PD_MIN((u64)n * PD_SHARDS_PER_CPU, (u64)PD_SHARDS_MAX);
	while (n > 1 && mem / n < PD_SHARD_AUTO_BYTES)
		n >>= 1;
	return n;
}

/* Settings that count elements, and the memory, for one of n shards. */
static void pd_shard_req(const struct pd_filter_req *req, u32 n,
			 struct pd_filter_req *r)
{
	const struct pd_filter_ops *ops = pd_filter_family(req->kind);
	const struct pd_setting *s;

	*r = *req;
	/* whole lines: n strides then fit in the memory asked */
	r->mem_bytes = (req->mem_bytes / n) & ~(u64)(PD_SHARD_LINE - 1);
	for (s = ops->settings; s && s->attr; s++) {
		u64 v = pd_setting_get(req, s);

		if (!(s->flags & PD_SF_COUNT) || !v || v == PD_FILTER_AUTO)
			continue;
		/* at least 1: a count of 0 means "none" to its family */
		pd_setting_set(r, s, PD_MIN(v, PD_MAX((v + n / 2) / n, 1ULL)));
	}
}

/* Whether each of n shards would get at least a window's least share. */
static bool pd_shard_windows_fit(const struct pd_filter_req *req, u32 n)
{
	const struct pd_filter_ops *ops = pd_filter_family(req->kind);
	const struct pd_setting *s;

	for (s = ops->settings; s && s->attr; s++) {
		u64 v = pd_setting_get(req, s);

		if ((s->flags & PD_SF_WINDOW) && v && v != PD_FILTER_AUTO &&
		    v / n < PD_SHARD_MIN_WINDOW)
			return false;
	}
	return true;
}

static u64 pd_stride(const struct pd_filter_plan *shard)
{
	return (shard->bytes + PD_SHARD_LINE - 1) & ~(u64)(PD_SHARD_LINE - 1);
}

/* The whole's plan: a shard's, its sizes and counts n times. */
static void pd_shards_whole(const struct pd_filter_plan *shard, u32 n,
			    struct pd_filter_plan *whole)
{
	*whole = *shard;
	whole->cells = shard->cells * n;
	whole->bytes = pd_shards_mem_bytes(shard, n);
	whole->gap = shard->gap * n;
	whole->window_pkts = shard->window_pkts * n;
	whole->capacity = shard->capacity * n;
	whole->rate = shard->rate * n;
	whole->clean_pkts = shard->clean_pkts * n;
	whole->shards = n;
}

int pd_shards_plan(const struct pd_filter_req *req, u32 *n,
		   struct pd_filter_plan *shard, struct pd_filter_plan *whole,
		   const char **why)
{
	struct pd_filter_req r;
	u32 k = PD_MIN(PD_MAX(*n, 1U), (u32)PD_SHARDS_MAX);
	int err;

	/*
	 * the request itself must stand: its refusal is the user's (and its
	 * plan the whole's, for pd_filter_refusal())
	 */
	err = pd_filter_plan(req, shard, why);
	if (err) {
		*whole = *shard;
		return err;
	}
	while (k & (k - 1))
		k &= k - 1;
	for (; k > 1; k >>= 1) {
		const char *w = NULL;

		if (req->mem_bytes / k < PD_SHARD_MIN_BYTES ||
		    !pd_shard_windows_fit(req, k))
			continue;
		pd_shard_req(req, k, &r);
		if (!pd_filter_plan(&r, shard, &w))
			break;
	}
	if (k == 1)
		pd_filter_plan(req, shard, why);
	*n = k;
	pd_shards_whole(shard, k, whole);
	return 0;
}

int pd_shards_plan_shared(const struct pd_filter_req *req, u32 asked,
			  u32 ncpus, struct pd_filter_plan *shard,
			  struct pd_filter_plan *whole, const char **why)
{
	bool lockfree = !asked && pd_filter_kind_lockfree(req->kind);
	u32 n = lockfree ? 1 : asked ?: pd_shards_auto(ncpus, req->mem_bytes);
	struct pd_filter_req r = *req;
	int err;

	r.shared = true;
	err = pd_shards_plan(&r, &n, shard, whole, why);

	if (!err) {
		shard->lockfree = lockfree;
		whole->lockfree = lockfree;
	}
	return err;
}

u64 pd_shards_mem_bytes(const struct pd_filter_plan *shard, u32 n)
{
	/* the last shard ends where its filter does: one shard is one filter */
	return pd_stride(shard) * (n - 1) + shard->bytes;
}

int pd_shards_init(struct pd_shards *s, struct pd_shard *sh, u32 n,
		   const struct pd_filter_plan *shard, void *mem,
		   const char **why)
{
	u32 i;
	int err;

	if (!n || (n & (n - 1))) {
		*why = "shards: a power of two";
		return -EINVAL;
	}
	s->sh = sh;
	s->mem = mem;
	s->stride = pd_stride(shard);
	s->n = n;
	s->lockfree = n == 1 && shard->lockfree;
	for (s->bits = 0; (1U << s->bits) < n; s->bits++)
		;
	for (i = 0; i < n; i++) {
		pd_lock_init(&sh[i].lock);
		err = pd_filter_init(&sh[i].f, shard,
				     (u8 *)mem + (u64)i * s->stride, why);
		if (err)
			return err;
		/* one hash per element, whichever shard it goes to */
		sh[i].f.hkey = sh[0].f.hkey;
	}
	s->hkey = sh[0].f.hkey;
	return 0;
}

void pd_shards_seed(struct pd_shards *s, u64 *state)
{
	const struct pd_hkey *hk = &s->sh[0].f.hkey;
	u32 i;

	pd_filter_seed(&s->sh[0].f, state);
	for (i = 1; i < s->n; i++)
		pd_filter_set_seeds(&s->sh[i].f, hk->k[0], hk->k[1],
				    pd_rng_next(state));
	s->hkey = *hk;
}

/* Allocate and init s for a plan of n shards of shard. */
static int pd_shards_alloc(struct pd_shards *s, u32 n,
			   const struct pd_filter_plan *shard, const char **why)
{
	struct pd_shard *sh;
	void *mem;
	int err;

	sh = pd_zalloc_large(sizeof(*sh) * n);
	mem = pd_zalloc_large(pd_shards_mem_bytes(shard, n));
	if (!sh || !mem) {
		pd_free_large(sh);
		pd_free_large(mem);
		*why = "out of memory";
		return -ENOMEM;
	}
	err = pd_shards_init(s, sh, n, shard, mem, why);
	if (err) {
		pd_free_large(sh);
		pd_free_large(mem);
		memset(s, 0, sizeof(*s));
	}
	return err;
}

int pd_shards_create(struct pd_shards *s, const struct pd_filter_req *req,
		     u32 n, struct pd_filter_plan *whole, const char **why)
{
	struct pd_filter_plan shard;
	int err;

	memset(s, 0, sizeof(*s));
	err = pd_shards_plan(req, &n, &shard, whole, why);
	return err ?: pd_shards_alloc(s, n, &shard, why);
}

int pd_shards_create_shared(struct pd_shards *s,
			    const struct pd_filter_req *req, u32 asked,
			    u32 ncpus, struct pd_filter_plan *whole,
			    const char **why)
{
	struct pd_filter_plan shard;
	int err;

	memset(s, 0, sizeof(*s));
	err = pd_shards_plan_shared(req, asked, ncpus, &shard, whole, why);
	return err ?: pd_shards_alloc(s, whole->shards, &shard, why);
}

void pd_shards_destroy(struct pd_shards *s)
{
	pd_free_large(s->sh);
	pd_free_large(s->mem);
	memset(s, 0, sizeof(*s));
}

void pd_shards_occupancy(const struct pd_shards *s, struct pd_filter_occ *o,
			 u64 max_bytes)
{
	u64 each = PD_MAX(max_bytes / s->n, (u64)PD_SHARD_LINE);
	struct pd_filter_occ one;
	u32 i, j;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < s->n; i++) {
		pd_filter_occupancy_within(&s->sh[i].f, &one, each);
		o->units += one.units;
		o->zero += one.zero;
		o->set += one.set;
		o->arrays = one.arrays;
		for (j = 0; j < one.arrays && j < PD_FILTER_MAX_LOADS; j++)
			o->load[j] += one.load[j];
	}
}

void pd_shards_window_add(struct pd_filter_win *sum,
			  const struct pd_filter_win *w, u32 n, bool first)
{
	u32 x = w->timed ? 1 : n;

	if (first) {
		*sum = *w;
		sum->window = w->window * x;
		sum->effective = w->effective * x;
		sum->shortest = w->shortest * x;
		return;
	}
	sum->entries += w->entries;
	sum->early += w->early;
	sum->stuck += w->stuck;
	sum->capacity += w->capacity;
	sum->effective = PD_MIN(sum->effective, w->effective * x);
	sum->shortest = PD_MIN(sum->shortest, w->shortest * x);
}
