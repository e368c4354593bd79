// SPDX-License-Identifier: GPL-2.0
/* Source analytics against exact answers: see sources.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"
#include "../../module/core/ss.h"
#include "../../module/core/srcwin.h"
#include "sources.h"

/*
 * An id stands for an IPv6 source address, 2001:db8:: plus the id; every
 * packet goes to one destination, 2001:db8::1:0:0:0 (the module hashes
 * both and counts the destinations too; the simulator reports sources).
 */
#define ADDR_LEN 16

struct ring_ent {
	uint64_t id;
	uint64_t tick;
};

struct src_cpu {
	struct pd_srcwin win;
	void *mem;
	struct pd_sbf newsrc;
	struct ring_ent *ring;
	uint64_t head;
};

/* An exact count per id: open addressing, grown at half full. */
struct countmap {
	uint64_t *key;		/* id + 1; 0: empty */
	uint64_t *val;
	uint64_t cap, used;
};

struct src_sim {
	struct src_cfg cfg;
	struct src_cpu *cpu;
	uint64_t n;		/* elements so far */
	uint64_t *recent;	/* the last nsub * sub_elems ids, a ring */
	struct pd_akey key;	/* of the address hash, from the seed */
};

static uint64_t mix(uint64_t x)
{
	return pd_rng_next(&x);
}

static int cm_init(struct countmap *m, uint64_t cap)
{
	m->cap = 16;
	while (m->cap < 2 * cap)
		m->cap <<= 1;
	m->used = 0;
	m->key = calloc(m->cap, sizeof(*m->key));
	m->val = calloc(m->cap, sizeof(*m->val));
	return m->key && m->val ? 0 : -1;
}

static void cm_free(struct countmap *m)
{
	free(m->key);
	free(m->val);
}

static uint64_t *cm_slot(struct countmap *m, uint64_t id)
{
	uint64_t i = mix(id) & (m->cap - 1);

	while (m->key[i] && m->key[i] != id + 1)
		i = (i + 1) & (m->cap - 1);
	if (!m->key[i]) {
		m->key[i] = id + 1;
		m->used++;
	}
	return &m->val[i];
}

static uint64_t cm_get(const struct countmap *m, uint64_t id)
{
	uint64_t i = mix(id) & (m->cap - 1);

	while (m->key[i] && m->key[i] != id + 1)
		i = (i + 1) & (m->cap - 1);
	return m->key[i] ? m->val[i] : 0;
}

struct src_sim *src_sim_new(const struct src_cfg *cfg, char *err,
			    unsigned int errlen)
{
	struct pd_plan_req req = { .mem_bytes = cfg->new_mem,
				   .fps_ppb = PD_PLAN_DEFAULT_FPS_PPB,
				   .max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO,
				   .p = PD_PLAN_AUTO, .gap = cfg->new_gap };
	struct pd_sbf_params prm;
	struct pd_plan plan;
	const char *why = NULL;
	struct src_sim *s;
	uint64_t seed = cfg->seed ^ 0x50c5ULL;
	unsigned int c;

	if (!cfg->cpus || !cfg->nsub || cfg->nsub > SRC_MAX_SUB ||
	    !cfg->sub_elems || !cfg->ring) {
		snprintf(err, errlen, "bad source-window settings");
		return NULL;
	}
	if (pd_plan(&req, &plan, &why)) {
		snprintf(err, errlen, "new-source filter: %s", why);
		return NULL;
	}
	pd_plan_params(&plan, &prm);
	s = calloc(1, sizeof(*s));
	if (!s)
		goto nomem;
	s->cfg = *cfg;
	for (c = 0; c < 4; c++)
		s->key.a[c] = pd_rng_next(&seed);
	s->key.b = pd_rng_next(&seed);
	s->cpu = calloc(cfg->cpus, sizeof(*s->cpu));
	s->recent = calloc(cfg->nsub * cfg->sub_elems, sizeof(*s->recent));
	if (!s->cpu || !s->recent)
		goto nomem;
	for (c = 0; c < cfg->cpus; c++) {
		struct src_cpu *p = &s->cpu[c];

		p->mem = calloc(1, pd_srcwin_bytes(cfg->nsub, cfg->counters));
		p->ring = calloc(cfg->ring, sizeof(*p->ring));
		if (!p->mem || !p->ring)
			goto nomem;
		/* time: the element count; a tick is sub_elems elements */
		if (pd_srcwin_init(&p->win, cfg->nsub, cfg->counters, cfg->sub_elems,
				&s->key, p->mem) ||
		    pd_sbf_create(&p->newsrc, &prm, &why)) {
			snprintf(err, errlen, "source windows: %s",
				 why ? why : "bad counters");
			src_sim_free(s);
			return NULL;
		}
		pd_sbf_set_rng(&p->newsrc, pd_rng_next(&seed));
	}
	return s;
nomem:
	src_sim_free(s);
	snprintf(err, errlen, "out of memory");
	return NULL;
}

void src_sim_free(struct src_sim *s)
{
	unsigned int c;

	if (!s)
		return;
	for (c = 0; s->cpu && c < s->cfg.cpus; c++) {
		free(s->cpu[c].mem);
		free(s->cpu[c].ring);
		if (s->cpu[c].newsrc.words)
			pd_sbf_destroy(&s->cpu[c].newsrc);
	}
	free(s->cpu);
	free(s->recent);
	free(s);
}

static void id_addr(uint64_t id, u8 *addr)
{
	static const u8 prefix[8] = { 0x20, 0x01, 0x0d, 0xb8 };
	int i;

	memcpy(addr, prefix, 8);
	for (i = 0; i < 8; i++)
		addr[8 + i] = (u8)(id >> (56 - 8 * i));
}

static uint64_t addr_id(const u8 *addr)
{
	uint64_t id = 0;
	int i;

	for (i = 0; i < 8; i++)
		id = id << 8 | addr[8 + i];
	return id;
}

static uint64_t id_hash(const struct src_sim *s, uint64_t id)
{
	u8 addr[ADDR_LEN];

	id_addr(id, addr);
	return pd_addr_hash(&s->key, addr, ADDR_LEN);
}

/* What the module's pd_srcs_add() does for one packet. */
void src_sim_add(struct src_sim *s, uint64_t id)
{
	static const u8 dst[ADDR_LEN] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					  0, 1 };
	struct src_cpu *p = &s->cpu[s->n % s->cfg.cpus];
	uint64_t tick = s->n / s->cfg.sub_elems, h;
	u8 addr[ADDR_LEN];

	id_addr(id, addr);
	h = pd_srcwin_add(&p->win, s->n, addr, dst, ADDR_LEN);
	if (!pd_sbf_step(&p->newsrc, (u32)h, (u32)(h >> 32))) {
		struct ring_ent *e = &p->ring[p->head++ % s->cfg.ring];

		e->id = id;
		e->tick = tick;
	}
	s->recent[s->n % (s->cfg.nsub * s->cfg.sub_elems)] = id;
	s->n++;
}

static void pr_add(struct src_pr *pr, bool truth, bool said)
{
	pr->truth += truth;
	pr->reported += said;
	pr->correct += truth && said;
}

int src_sim_finish(struct src_sim *s, struct src_result *r)
{
	const struct src_cfg *c = &s->cfg;
	uint64_t now = (s->n - 1) / c->sub_elems, first, i;
	uint64_t room = c->nsub * c->sub_elems, hh_count;
	struct countmap cnt = { 0 }, cand = { 0 };
	struct pd_hll *u = NULL;
	struct pd_ss_agg a;
	void *amem = NULL;
	unsigned int k, p;
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (!s->n)
		return -1;
	r->nsub = c->nsub;
	/* exact distinct over the last k sub-windows, newest first */
	first = (now + 1 > c->nsub ? now + 1 - c->nsub : 0) * c->sub_elems;
	if (cm_init(&cnt, s->n - first) || cm_init(&cand, 1024))
		goto out;
	k = 0;
	for (i = s->n; i-- > first;) {
		while (i < (now - k) * c->sub_elems) {
			k++;
			r->exact[k] = r->exact[k - 1];
		}
		(*cm_slot(&cnt, s->recent[i % room]))++;
		r->exact[k] = cnt.used;
	}
	while (++k < c->nsub)
		r->exact[k] = r->exact[k - 1];
	/* the same from the sketches of every CPU, merged */
	u = malloc(sizeof(*u));
	if (!u)
		goto out;
	for (k = 0; k < c->nsub; k++) {
		pd_hll_clear(u);
		for (p = 0; p < c->cpus; p++)
			pd_srcwin_collect(&s->cpu[p].win, now, k + 1,
				       PD_SRCWIN_SRC, u);
		r->estimate[k] = pd_hll_estimate(u);
	}
	r->window_elems = s->n - first;
	r->top = c->counters != 0;
	if (!r->top) {		/* top talkers off: no heavy or rare sources */
		ret = 0;
		goto out;
	}
	/* the merged summary of the whole window: no address dropped */
	amem = malloc(pd_ss_agg_bytes(c->counters * c->nsub * c->cpus,
				      c->counters));
	if (!amem || pd_ss_agg_init(&a, c->counters * c->nsub * c->cpus,
				    c->counters, amem))
		goto out;
	for (p = 0; p < c->cpus; p++)
		if (pd_srcwin_collect_top(&s->cpu[p].win, now, c->nsub, &a))
			goto out;
	r->window_elems = a.total;
	r->ss_error = a.absent;
	/*
	 * heavy hitters: the listed sources whose upper bound exceeds phi N
	 * (Space-Saving's frequent-elements query: every source that sent
	 * more than phi N and more than the merged error is among them)
	 */
	hh_count = pd_ss_support_count(a.total, c->phi_ppb);
	for (i = 0; i < cnt.cap; i++)
		r->hh.truth += cnt.key[i] && cnt.val[i] > hh_count;
	for (i = 0; i < a.n; i++) {
		uint64_t id;

		if (a.it[i].count <= hh_count)
			continue;
		id = addr_id(a.it[i].addr);
		r->hh.reported++;
		r->hh.correct += cm_get(&cnt, id) > hh_count;
	}
	/* rare: BFSS's rule over the sources the rings hold in the window */
	r->support_count = pd_ss_support_count(a.total, c->support_ppb);
	for (p = 0; p < c->cpus; p++) {
		const struct src_cpu *q = &s->cpu[p];

		for (i = q->head > c->ring ? q->head - c->ring : 0; i < q->head;
		     i++) {
			const struct ring_ent *e = &q->ring[i % c->ring];

			if (pd_srcwin_within(e->tick + 1, now, c->nsub))
				(*cm_slot(&cand, e->id))++;
			if (cand.used * 2 > cand.cap) {
				struct countmap bigger;
				uint64_t j;

				if (cm_init(&bigger, cand.cap))
					goto out;
				for (j = 0; j < cand.cap; j++)
					if (cand.key[j])
						*cm_slot(&bigger, cand.key[j] - 1) = 1;
				cm_free(&cand);
				cand = bigger;
			}
		}
	}
	r->candidates = cand.used;
	for (i = 0; i < cnt.cap; i++)
		if (cnt.key[i]) {
			uint64_t id = cnt.key[i] - 1;
			bool said = false;
			u64 lo, hi;
			u8 addr[ADDR_LEN];

			id_addr(id, addr);
			if (cm_get(&cand, id)) {
				said = pd_ss_rare(&a, id_hash(s, id), addr,
						  ADDR_LEN, c->support_ppb, &lo,
						  &hi);
				pr_add(&r->rare_examined,
				       cnt.val[i] <= r->support_count, said);
			}
			pr_add(&r->rare, cnt.val[i] <= r->support_count, said);
		}
	ret = 0;
out:
	free(u);
	free(amem);
	cm_free(&cnt);
	cm_free(&cand);
	return ret;
}
