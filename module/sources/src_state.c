// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: what the module learns about source and destination addresses
 * in a recent time window, per network namespace.
 *
 * Each CPU keeps a jumping window (core/srcwin.c) of HyperLogLog sketches
 * of the sources and of the destinations and, if `counters` is not 0, of
 * Space-Saving summaries of the sources (top talkers); addresses are
 * hashed with a cheap keyed hash (core/addrhash.h), one key per state,
 * drawn when it is built. Readers merge the
 * sketches and summaries of every CPU and of the sub-windows asked about:
 * distinct counts are the cardinality of the union, never a sum of
 * per-CPU counts; top-talker bounds are those of the merged summary.
 *
 * Optionally, a Stable Bloom Filter per CPU keyed on the source address
 * reports addresses it considers new. Each report goes into a bounded ring
 * of this CPU's (oldest overwritten): pd_srcs_drain() hands what the rings
 * gained to a consumer (the event worker of src_events.c) through a filter
 * of its own, so an address new to two CPUs is handed over once, and
 * counts what the rings lost; the rare-source query reads the same rings
 * as the candidates BFSS's Algorithm 2 examines. Nothing here knows how
 * events leave the kernel.
 *
 * The whole state is built for one configuration, admitted to the
 * namespace's memory budget first, and replaced under RCU. The per-CPU
 * parts exist for the CPUs online when it is built, and for those that
 * come up while it is in force, admitted to the budget then (../cpus.c);
 * a CPU without them counts nothing here, and readers skip it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpu.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/timekeeping.h>

#include "src_internal.h"

bool pd_sources_on = true;
module_param_named(sources, pd_sources_on, bool, 0444);
MODULE_PARM_DESC(sources,
		 "keep source windows (distinct counts, top talkers, new sources) in namespaces that enable de-duplication; per namespace: dedupctl sources on|off (Y)");

static unsigned int pd_distinct_window_s = 60;
module_param_named(distinct_window, pd_distinct_window_s, uint, 0444);
MODULE_PARM_DESC(distinct_window,
		 "seconds over which distinct addresses are counted, 1..3600 (60)");

static unsigned int pd_distinct_subwindows = 12;
module_param_named(distinct_subwindows, pd_distinct_subwindows, uint, 0444);
MODULE_PARM_DESC(distinct_subwindows,
		 "sub-windows of that window, 1..64 (12); memory: 2 x this x 16 KiB per online CPU");

DEFINE_STATIC_KEY_DEFERRED_FALSE(pd_srcs_used, HZ);

/* The module parameters of the analytics: 0, or -EINVAL (said why). */
int pd_srcs_params_check(void)
{
	if (pd_distinct_window_s < 1 || pd_distinct_window_s > 3600 ||
	    pd_distinct_subwindows < 1 ||
	    pd_distinct_subwindows > PD_SRCWIN_MAX_SUB) {
		pr_err("distinct_window=%u distinct_subwindows=%u: 1..3600 s and 1..%u\n",
		       pd_distinct_window_s, pd_distinct_subwindows,
		       PD_SRCWIN_MAX_SUB);
		return -EINVAL;
	}
	return 0;
}

/* At unload, every namespace gone: the key's delayed turning off done. */
void pd_srcs_module_exit(void)
{
	static_key_deferred_flush(&pd_srcs_used);
}

void pd_srcs_defaults(struct pd_src_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->window_ms = pd_distinct_window_s * 1000;
	c->nsub = pd_distinct_subwindows;
	c->counters = PD_SRC_DEFAULT_COUNTERS;
	c->newsrc_mem = PD_SRC_DEFAULT_NEW_MEM;
	c->newsrc_gap = PD_SRC_DEFAULT_NEW_GAP;
	c->event_rate = PD_SRC_DEFAULT_EVENT_RATE;
	c->ring = PD_SRC_DEFAULT_RING;
	c->enabled = pd_sources_on;
}

static void pd_src_cpu_free(const struct pd_srcs *s, struct pd_src_cpu *c)
{
	if (!c)
		return;
	pd_mem_free(c->mem, pd_srcwin_bytes(s->cfg.nsub, s->cfg.counters));
	pd_mem_free(c->ring, (size_t)s->cfg.ring * sizeof(*c->ring));
	pd_mem_free(c->newsrc.words, s->plan.bytes);
	pd_mem_free(c, sizeof(*c));
}

void pd_srcs_free(struct pd_srcs *s)
{
	int cpu;

	if (!s)
		return;
	pd_cpus_leave(&s->cpus);
	for_each_possible_cpu(cpu)
		pd_src_cpu_free(s, s->cpu[cpu]);
	pd_mem_free(s->ev_sbf.words, s->plan.bytes);
	pd_mem_free(s, struct_size(s, cpu, nr_cpu_ids));
}

/* Bytes of one CPU's part for cfg (and the new-source filter plan). */
static u64 pd_src_cpu_bytes(const struct pd_src_cfg *c,
			    const struct pd_filter_plan *plan)
{
	u64 b = pd_mem_size(sizeof(struct pd_src_cpu)) +
		pd_mem_size(pd_srcwin_bytes(c->nsub, c->counters));

	if (c->newsrc)
		b += pd_mem_size(plan->bytes) +
		     pd_mem_size((size_t)c->ring * sizeof(struct pd_src_event));
	return b;
}

/*
 * Bytes the whole state takes from the allocator for cfg, with the parts
 * of ncpus CPUs: the state with its per-CPU pointers, the CPUs' parts and
 * the worker's filter. What pd_srcs_build() allocates, to the byte
 * (../mem.c).
 */
u64 pd_srcs_bytes_n(const struct pd_src_cfg *c,
		    const struct pd_filter_plan *plan, u32 ncpus)
{
	if (!c->enabled)
		return 0;
	return pd_mem_size(struct_size((struct pd_srcs *)NULL, cpu,
				       nr_cpu_ids)) +
	       pd_src_cpu_bytes(c, plan) * ncpus +
	       (c->newsrc ? pd_mem_size(plan->bytes) : 0);
}

/* The same for the CPUs online now. */
u64 pd_srcs_bytes(const struct pd_src_cfg *c, const struct pd_filter_plan *plan)
{
	return pd_srcs_bytes_n(c, plan, num_online_cpus());
}

/* Validate and plan cfg; 0, or an error with an extack message. */
int pd_srcs_check(const struct pd_src_cfg *c, struct pd_filter_plan *plan,
		  struct netlink_ext_ack *extack)
{
	struct pd_filter_req req;
	const char *why = NULL;

	if (c->window_ms < 1000 || c->window_ms > 3600 * 1000) {
		NL_SET_ERR_MSG(extack, "the window must be 1 s to 1 h");
		return -ERANGE;
	}
	if (!c->nsub || c->nsub > PD_SRCWIN_MAX_SUB) {
		NL_SET_ERR_MSG(extack, "sub-windows must be 1 to 64");
		return -ERANGE;
	}
	if (c->counters &&
	    (c->counters < PD_SS_MIN_CAP || c->counters > PD_SS_MAX_CAP)) {
		NL_SET_ERR_MSG(extack, "top-talker counters must be 0 (off) or 8 to 4096");
		return -ERANGE;
	}
	if (!c->event_rate || c->event_rate > 1000000) {
		NL_SET_ERR_MSG(extack, "the event rate must be 1 to 1000000 per second");
		return -ERANGE;
	}
	if (c->ring < 16 || c->ring > 65536 || !is_power_of_2(c->ring)) {
		NL_SET_ERR_MSG(extack, "the ring must be a power of two from 16 to 65536");
		return -ERANGE;
	}
	memset(plan, 0, sizeof(*plan));
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, c->newsrc_mem);
	pd_sbf_req(&req)->gap = c->newsrc_gap;
	if (c->newsrc && pd_filter_plan(&req, plan, &why)) {
		pd_set_err_msg(extack, why);
		return -EINVAL;
	}
	return 0;
}

static struct pd_src_cpu *pd_src_cpu_alloc(const struct pd_srcs *s, int cpu)
{
	const struct pd_filter_plan *plan = &s->plan;
	const struct pd_src_cfg *c = &s->cfg;
	int node = cpu_to_node(cpu);
	struct pd_src_cpu *pc;
	const char *why;

	/* a slab object of a few KiB: its first line is the window's hot one */
	pc = pd_mem_zalloc(sizeof(*pc), node);
	if (!pc)
		return NULL;
	pc->mem = pd_mem_zalloc(pd_srcwin_bytes(c->nsub, c->counters), node);
	if (!pc->mem || pd_srcwin_init(&pc->win, c->nsub, c->counters, s->tick_j,
				       &s->key, pc->mem))
		goto fail;
	if (c->newsrc) {
		u64 *words = pd_mem_zalloc(plan->bytes, node);

		pc->ring = pd_mem_zalloc((size_t)c->ring * sizeof(*pc->ring),
					 node);
		if (!words || !pc->ring ||
		    pd_sbf_init_plan(&pc->newsrc, plan, words, &why)) {
			pd_mem_free(words, plan->bytes);
			pc->newsrc.words = NULL;
			goto fail;
		}
	}
	return pc;
fail:
	pd_src_cpu_free(s, pc);
	return NULL;
}

/* A CPU came up (../cpus.c): its windows, then the pointer to them. */
static int pd_srcs_cpu_up(struct pd_cpus *c, unsigned int cpu)
{
	struct pd_srcs *s = container_of(c, struct pd_srcs, cpus);
	struct pd_src_cpu *pc = pd_src_cpu_alloc(s, cpu);

	if (!pc)
		return -ENOMEM;
	/* the whole state before its pointer: pairs with pd_src_of() */
	smp_store_release(&s->cpu[cpu], pc);
	return 0;
}

static bool pd_srcs_cpu_has(struct pd_cpus *c, unsigned int cpu)
{
	return pd_src_of(container_of(c, struct pd_srcs, cpus), cpu);
}

/*
 * The phase that puts the sub-windows' boundaries at multiples of their
 * length since the epoch, and the real time of the windows' time 0.
 */
static void pd_srcs_align(struct pd_srcs *s)
{
	u64 j0 = get_jiffies_64(), r0 = ktime_get_real_ns();
	u64 len = jiffies64_to_nsecs(s->tick_j), jn = jiffies64_to_nsecs(1);
	u64 rem, jrem;

	/* now is this far into its sub-window, in real time */
	div64_u64_rem(r0, len, &rem);
	/* in jiffies (nearest): so far past a boundary j0 + phase must be */
	rem = div64_u64(rem + jn / 2, jn);
	div64_u64_rem(j0, s->tick_j, &jrem);
	div64_u64_rem(rem + s->tick_j - jrem, s->tick_j, &s->phase);
	s->real_base = r0 - jiffies64_to_nsecs(j0 + s->phase);
}

/*
 * The state for cfg, with the parts of at most ncpus of the CPUs online
 * now (those that come up get theirs once it is in force); the caller
 * admitted pd_srcs_bytes_n(cfg, plan, ncpus). s->cpus.bytes is what it
 * holds.
 */
struct pd_srcs *pd_srcs_build(const struct pd_src_cfg *cfg, u32 ncpus,
			      struct netlink_ext_ack *extack)
{
	struct pd_srcs *s;
	struct pd_filter_plan plan;
	int cpu, err;

	err = pd_srcs_check(cfg, &plan, extack);
	if (err)
		return ERR_PTR(err);
	s = pd_mem_zalloc(struct_size(s, cpu, nr_cpu_ids), NUMA_NO_NODE);
	if (!s)
		goto nomem;
	refcount_set(&s->ref, 1);
	s->cfg = *cfg;
	s->plan = plan;
	s->cpus.up = pd_srcs_cpu_up;
	s->cpus.has = pd_srcs_cpu_has;
	s->cpus.cpu_bytes = pd_src_cpu_bytes(cfg, &plan);
	s->tick_j = max_t(u64, 1, div_u64((u64)cfg->window_ms * HZ,
					  1000 * cfg->nsub));
	pd_srcs_align(s);
	if (cfg->key_set)
		s->key = cfg->key;
	else
		pd_akey_random(&s->key);
	/* the CPUs online now, none coming or going meanwhile */
	cpus_read_lock();
	for_each_online_cpu(cpu) {
		if (s->cpus.ncpus == ncpus)
			break;
		s->cpu[cpu] = pd_src_cpu_alloc(s, cpu);
		if (!s->cpu[cpu]) {
			cpus_read_unlock();
			goto nomem;
		}
		s->cpus.ncpus++;
		cond_resched();
	}
	cpus_read_unlock();
	if (cfg->newsrc) {
		u64 *words = pd_mem_zalloc(plan.bytes, NUMA_NO_NODE);
		const char *why;

		if (!words || pd_sbf_init_plan(&s->ev_sbf, &plan, words, &why)) {
			pd_mem_free(words, plan.bytes);
			s->ev_sbf.words = NULL;
			goto nomem;
		}
	}
	s->cpus.bytes = pd_srcs_bytes_n(cfg, &plan, s->cpus.ncpus);
	return s;
nomem:
	pd_srcs_free(s);
	NL_SET_ERR_MSG(extack, "out of memory for the source windows");
	return ERR_PTR(-ENOMEM);
}

u64 pd_srcs_mem(const struct pd_srcs *s)
{
	return READ_ONCE(s->cpus.bytes);
}

u64 pd_srcs_tick(const struct pd_srcs *s)
{
	return div64_u64(get_jiffies_64() + s->phase, s->tick_j);
}

/* When sub-window tick began: CLOCK_REALTIME, ns. */
u64 pd_srcs_tick_start(const struct pd_srcs *s, u64 tick)
{
	return s->real_base + jiffies64_to_nsecs(tick * s->tick_j);
}

/* The hash the packet path gave a source (pd_srcwin_add()). */
u64 pd_srcs_hash(const struct pd_srcs *s, const u8 *addr, u8 len)
{
	return pd_addr_hash(&s->key, addr, len);
}

/*
 * Remember a new source in this CPU's ring. Each slot carries a sequence
 * number, odd while it is written, so a reader on another CPU can tell a
 * whole entry from one being overwritten (pd_srcs_ring_read()).
 */
static void pd_ring_push(struct pd_src_cpu *c, u32 ring, const u8 *addr,
			 u8 len)
{
	u32 h = c->head;
	struct pd_src_event *e = &c->ring[h & (ring - 1)];

	WRITE_ONCE(e->seq, 2 * h + 1);
	smp_wmb();	/* the odd sequence before the new contents */
	memcpy(e->addr, addr, len);
	e->len = len;
	e->when = get_jiffies_64();
	smp_wmb();	/* the contents before the even sequence */
	WRITE_ONCE(e->seq, 2 * h + 2);
	/* pairs with pd_srcs_ring_head(): the entry before the new head */
	smp_store_release(&c->head, h + 1);
}

/*
 * The packet path's way to this CPU's windows is two dependent loads from
 * the namespace's line, each a miss when the kernel between two packets
 * has evicted them: pd_srcs_ask_slow() asks for both lines before the
 * packet is parsed (their addresses need nothing but s, on the namespace's
 * line the hook has read), pd_srcs_find_slow() reads them once it is
 * parsed and asks for the window's first line, which pd_srcs_add_slow()
 * reads after the key's hash. BHs are off, RCU read side held, from the
 * first call to the last.
 */
void pd_srcs_ask_slow(const struct pd_net *pn)
{
	const struct pd_srcs *s = rcu_dereference(pn->srcs);

	if (s) {
		prefetch(s);
		prefetch(&s->cpu[smp_processor_id()]);
	}
}

void pd_srcs_find_slow(const struct pd_net *pn, struct pd_src_ref *r)
{
	struct pd_srcs *s = rcu_dereference(pn->srcs);
	struct pd_src_cpu *c;

	if (!s)
		return;
	c = READ_ONCE(s->cpu[smp_processor_id()]);
	if (unlikely(!c))	/* a CPU without windows (cpus.c) */
		return;
	prefetchw(c);
	r->s = s;
	r->c = c;
}

/*
 * Count pkt's addresses in r's windows. Lines: s's first, the window's
 * first and the batch's (the sketches' registers every PD_SRCWIN_BATCH
 * packets; with top talkers or the new-source filter on, theirs too); the
 * time is jiffies, divided into ticks once per tick.
 */
void pd_srcs_add_slow(const struct pd_src_ref *r, const struct pd_pkt *pkt)
{
	const struct pd_srcs *s = r->s;
	struct pd_src_cpu *c = r->c;
	u64 hs;

	hs = pd_srcwin_add(&c->win, get_jiffies_64() + s->phase, pkt->src,
			   pkt->dst, pkt->addr_len);
	/* the address hash's halves serve as the filter's two hashes */
	if (s->cfg.newsrc && !pd_sbf_step(&c->newsrc, (u32)hs, (u32)(hs >> 32)))
		pd_ring_push(c, s->cfg.ring, pkt->src, pkt->addr_len);
}

/*
 * Copy entry i of a CPU's ring into *out, if it is still there: false if
 * the writer has overwritten it (or is doing so).
 */
bool pd_srcs_ring_read(const struct pd_srcs *s, int cpu, u32 i,
		       struct pd_src_event *out)
{
	const struct pd_src_cpu *c = pd_src_of(s, cpu);
	const struct pd_src_event *e;
	u32 seq;

	if (!c)
		return false;
	e = &c->ring[i & (s->cfg.ring - 1)];
	seq = READ_ONCE(e->seq);
	if (seq != 2 * i + 2)
		return false;
	smp_rmb();	/* the sequence before the contents */
	/* racing with the ring's CPU: the sequence check below decides */
	data_race(memcpy(out, e, sizeof(*out)));
	smp_rmb();	/* the contents before the second look */
	if (out->len != 4 && out->len != 16)
		return false;
	return READ_ONCE(e->seq) == seq;
}

/* Entries CPU cpu pushed into its ring; 0 for a CPU without one. */
u32 pd_srcs_ring_head(const struct pd_srcs *s, int cpu)
{
	const struct pd_src_cpu *c = pd_src_of(s, cpu);

	/* pairs with pd_ring_push(): entries below head are written */
	return c ? smp_load_acquire(&c->head) : 0;
}

/*
 * The sketches of the sources (u[0]) and destinations (u[1]) of ticks
 * now - last + 1 .. now, all CPUs merged into u. The CPUs may be writing
 * their sketches: a register is a byte, read whole; at worst a reader
 * misses the newest few additions.
 */
void pd_srcs_merge(struct pd_srcs *s, u64 now, u32 last, struct pd_hll *u)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct pd_src_cpu *c = pd_src_of(s, cpu);

		if (!c)
			continue;
		/* racing with the sketches' CPU is benign, as said above */
		data_race(pd_srcwin_collect(&c->win, now, last, PD_SRCWIN_SRC, &u[0]));
		/* and here too */
		data_race(pd_srcwin_collect(&c->win, now, last, PD_SRCWIN_DST, &u[1]));
		cond_resched();
	}
}

/* Distinct sources and destinations over the last `last` sub-windows. */
int pd_srcs_distinct(struct pd_srcs *s, u32 last, u64 *src, u64 *dst)
{
	struct pd_hll *u = kvzalloc(2 * sizeof(*u), PD_GFP);

	if (!u)
		return -ENOMEM;
	pd_srcs_merge(s, pd_srcs_tick(s), last, u);
	*src = pd_hll_estimate(&u[0]);
	*dst = pd_hll_estimate(&u[1]);
	kvfree(u);
	return 0;
}

/*
 * The merged top-talker summary over the last `last` sub-windows, keeping
 * `keep` addresses (top talkers must be on: cfg.counters). A summary being
 * written by its CPU is copied first: the merge then reads a consistent
 * (if a packet or two old) summary.
 */
struct pd_ss_agg *pd_srcs_top(struct pd_srcs *s, u32 last, u32 keep)
{
	u32 cap = s->cfg.counters, slot;
	size_t sb = pd_ss_bytes(cap);
	struct pd_ss_agg *a;
	struct pd_ss copy;
	void *mem, *tmp;
	u64 now;
	int cpu;

	a = kvzalloc(sizeof(*a) + pd_ss_agg_bytes(keep, cap), PD_GFP);
	tmp = kvmalloc(sb, PD_GFP);
	if (!a || !tmp)
		goto fail;
	mem = a + 1;
	if (pd_ss_agg_init(a, keep, cap, mem))
		goto fail;
	now = pd_srcs_tick(s);
	for_each_possible_cpu(cpu) {
		const struct pd_src_cpu *c = pd_src_of(s, cpu);
		const struct pd_srcwin *w;

		if (!c)
			continue;
		w = &c->win;
		for (slot = 0; w->cap && slot < w->nsub; slot++) {
			const struct pd_ss *ss = &w->ss[slot];

			if (!pd_srcwin_within(READ_ONCE(w->stamp[slot]), now, last))
				continue;
			/* racing with the summary's CPU: see above */
			data_race(memcpy(tmp, ss->it, sb));
			pd_ss_init(&copy, cap, tmp);
			/* the same race: n and total may be a packet behind */
			copy.n = min(data_race(ss->n), cap);
			/* likewise */
			copy.total = data_race(ss->total);
			if (pd_ss_agg_merge(a, &copy))
				goto fail;
		}
		cond_resched();
	}
	kvfree(tmp);
	return a;
fail:
	kvfree(tmp);
	kvfree(a);
	return NULL;
}

static int pd_cand_cmp(const void *x, const void *y)
{
	const struct pd_src_event *a = x, *b = y;

	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return memcmp(a->addr, b->addr, a->len);
}

/*
 * The sources the new-source filters reported within the last `last`
 * sub-windows and the rings still hold, each once: the candidates of the
 * rare-source query. Returns how many, in a kvmalloc'ed *out, or < 0.
 */
int pd_srcs_candidates(struct pd_srcs *s, u32 last,
		       struct pd_src_event **out)
{
	u32 ring = s->cfg.ring, i, n = 0, k, rings = READ_ONCE(s->cpus.ncpus);
	u64 now = pd_srcs_tick(s);
	struct pd_src_event *v;
	int cpu;

	/* the rings of the CPUs with windows now (more may come up) */
	v = kvmalloc_array((size_t)ring * rings, sizeof(*v), PD_GFP);
	if (!v)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		u32 head = pd_srcs_ring_head(s, cpu);
		u32 first = head > ring ? head - ring : 0;

		if (!pd_src_of(s, cpu))
			continue;
		if (!rings--)
			break;

		for (i = first; i != head; i++)
			if (pd_srcs_ring_read(s, cpu, i, &v[n]) &&
			    pd_srcwin_within(div64_u64(v[n].when + s->phase,
						       s->tick_j) + 1,
					     now, last))
				n++;
		cond_resched();
	}
	sort(v, n, sizeof(*v), pd_cand_cmp, NULL);
	for (i = 0, k = 0; i < n; i++)
		if (!k || pd_cand_cmp(&v[k - 1], &v[i]))
			v[k++] = v[i];
	*out = v;
	return k;
}

/* The number of sub-windows that cover at least `ms` (0: all). */
u32 pd_srcs_span(const struct pd_srcs *s, u32 ms)
{
	u64 w = s->cfg.window_ms;

	if (!ms)
		return s->cfg.nsub;
	return max_t(u32, 1, (u32)div64_u64((u64)ms * s->cfg.nsub + w - 1, w));
}

/*
 * Hand emit() every source the CPUs' rings gained since the last call, each
 * once per namespace: the worker's own filter takes a source new to a
 * second CPU for a repeat (counted, not handed over). Entries overwritten
 * before they were read are counted as overruns. Process context, pn->lock
 * held, s the state in force.
 */
void pd_srcs_drain(struct pd_net *pn, struct pd_srcs *s, pd_src_emit_t emit,
		   void *arg)
{
	struct pd_src_event ev;
	int cpu;
	u64 h;

	lockdep_assert_held(&pn->lock);
	for_each_possible_cpu(cpu) {
		struct pd_src_cpu *c = pd_src_of(s, cpu);
		u32 head, i;

		if (!c)
			continue;
		head = pd_srcs_ring_head(s, cpu);
		i = c->tail;

		if (head - i > s->cfg.ring) {
			atomic64_add(head - i - s->cfg.ring, &pn->src.ev_overrun);
			i = head - s->cfg.ring;
		}
		for (; i != head; i++) {
			if (!pd_srcs_ring_read(s, cpu, i, &ev)) {
				atomic64_inc(&pn->src.ev_overrun);
				continue;
			}
			h = pd_srcs_hash(s, ev.addr, ev.len);
			if (pd_sbf_step(&s->ev_sbf, (u32)h, (u32)(h >> 32))) {
				atomic64_inc(&pn->src.ev_repeat);
				continue;
			}
			emit(pn, &ev, cpu, arg);
		}
		c->tail = head;
	}
}

u64 pd_ev_dropped(struct pd_net *pn)
{
	return atomic64_read(&pn->src.ev_overrun) +
	       atomic64_read(&pn->src.ev_ratelimited) +
	       atomic64_read(&pn->src.ev_failed);
}

/* Withdraw the source state: no packet uses or will use it. */
static void pd_srcs_drop(struct pd_net *pn)
{
	struct pd_srcs *old;

	old = rcu_replace_pointer(pn->srcs, NULL, lockdep_is_held(&pn->lock));
	if (!old)
		return;
	static_branch_slow_dec_deferred(&pd_srcs_used);
	synchronize_rcu();
	pd_cpus_leave(&old->cpus);
	pd_srcs_put(old);
	pd_budget_held(pn, PD_PART_SOURCES, 0);
}

/*
 * Every path that gives the namespace new source state comes here (a
 * sources change, SET_CONFIG's sources nest, an activation, a rebuild
 * after a failure): the new-source worker starts with it.
 */
static void pd_srcs_publish(struct pd_net *pn, struct pd_srcs *s)
{
	struct pd_srcs *old;

	old = rcu_replace_pointer(pn->srcs, s, lockdep_is_held(&pn->lock));
	pn->src.cfg = s->cfg;
	if (!old)
		static_branch_deferred_inc(&pd_srcs_used);
	if (old) {
		synchronize_rcu();	/* no packet is using the old state */
		pd_cpus_leave(&old->cpus);
		pd_srcs_put(old);
	}
	pd_budget_held(pn, PD_PART_SOURCES, pd_srcs_mem(s));
	pn->src.off_need = 0;
	/* CPUs that come up get windows of s from now on (../cpus.c) */
	pd_cpus_live(&s->cpus, pn, PD_PART_SOURCES);
	pd_events_start(pn);
}

/*
 * Replace the source state with one for cfg, admitted to the budget first
 * (built in the old state's room if both would not fit), or with none if
 * cfg turns them off; pn->lock held.
 */
int pd_srcs_apply(struct pd_net *pn, const struct pd_src_cfg *cfg,
		  struct netlink_ext_ack *extack)
{
	struct pd_filter_plan plan;
	/* the CPUs online now (../cpus.c) */
	u32 ncpus = num_online_cpus();
	struct pd_srcs *s;
	u64 need;
	int way, err;

	lockdep_assert_held(&pn->lock);
	err = pd_srcs_check(cfg, &plan, extack);
	if (err)
		return err;
	if (!cfg->enabled) {	/* the other settings kept for later */
		pd_srcs_drop(pn);
		pn->src.cfg = *cfg;
		pn->src.off_need = 0;
		return 0;
	}
	need = pd_srcs_bytes_n(cfg, &plan, ncpus);
	if (!pn->active) {	/* kept for the next activation */
		err = pd_budget_check_alone(pn, PD_PART_SOURCES, need, extack);
		if (!err)
			pn->src.cfg = *cfg;
		return err;
	}
	way = pd_budget_admit(pn, PD_PART_SOURCES, need, extack);
	if (way < 0) {
		pn->src.off_why = pn->budget.why;
		pn->src.off_need = need;
		return way;
	}
	if (way == PD_BUDGET_IN_PLACE)
		pd_srcs_drop(pn);
	s = pd_srcs_build(cfg, ncpus, extack);
	if (IS_ERR(s)) {
		/* the old settings again, in the room just freed */
		if (way == PD_BUDGET_IN_PLACE) {
			struct pd_srcs *back = pd_srcs_build(&pn->src.cfg,
							     ncpus, NULL);

			if (!IS_ERR(back))
				pd_srcs_publish(pn, back);
		}
		pd_budget_settle(pn);
		pn->src.off_why = PKTDEDUP_REFUSAL_NOMEM;
		pn->src.off_need = need;
		return PTR_ERR(s);
	}
	pd_srcs_publish(pn, s);
	return 0;
}

/* How many online CPUs have no windows of the state in force; pn->lock. */
u32 pd_srcs_cpus_without(struct pd_net *pn)
{
	struct pd_srcs *s;
	u32 n = 0;
	int cpu;

	s = rcu_dereference_protected(pn->srcs, lockdep_is_held(&pn->lock));
	if (!s)
		return 0;
	for_each_online_cpu(cpu)
		n += !pd_src_of(s, cpu);
	return n;
}

/*
 * The source windows are on in an active namespace but hold nothing: the
 * bytes they needed, and what refused them in *why; else 0. pn->lock.
 */
u64 pd_srcs_refused(struct pd_net *pn, u8 *why)
{
	lockdep_assert_held(&pn->lock);
	if (!pn->active || !pn->src.cfg.enabled ||
	    rcu_access_pointer(pn->srcs))
		return 0;
	*why = pn->src.off_why;
	return pn->src.off_need;
}

/* The instance goes idle: its source state is freed, its settings kept. */
void pd_srcs_withdraw(struct pd_net *pn)
{
	lockdep_assert_held(&pn->lock);
	pd_srcs_drop(pn);
}

void pd_srcs_teardown(struct pd_net *pn)
{
	struct pd_srcs *s = rcu_dereference_protected(pn->srcs, true);

	RCU_INIT_POINTER(pn->srcs, NULL);
	if (s) {
		static_branch_slow_dec_deferred(&pd_srcs_used);
		pd_cpus_leave(&s->cpus);
		pd_srcs_put(s);
	}
}

/* A new namespace's: the default settings, nothing held. */
void pd_srcs_net_init(struct pd_net *pn)
{
	mutex_init(&pn->src.read_lock);
	pd_srcs_defaults(&pn->src.cfg);
	pd_events_init(pn);
}

/* After the namespace's grace period: nothing reaches the state. */
void pd_srcs_net_teardown(struct pd_net *pn)
{
	pd_srcs_teardown(pn);
	mutex_destroy(&pn->src.read_lock);
}

/*
 * The source state in force, for a reader that takes no namespace lock
 * and may sleep while it walks it: a reference, or NULL if there is none.
 * A change meanwhile publishes new state; the reader's copy is freed
 * when it puts it (pd_srcs_put()), at most one read later.
 */
struct pd_srcs *pd_srcs_get(struct pd_net *pn)
{
	struct pd_srcs *s;

	rcu_read_lock();
	s = rcu_dereference(pn->srcs);
	if (s && !refcount_inc_not_zero(&s->ref))
		s = NULL;
	rcu_read_unlock();
	return s;
}

void pd_srcs_put(struct pd_srcs *s)
{
	if (refcount_dec_and_test(&s->ref))
		pd_srcs_free(s);
}
