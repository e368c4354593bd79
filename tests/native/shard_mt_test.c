// SPDX-License-Identifier: GPL-2.0
/*
 * The sharded filter (shard.h) under concurrency: T threads step ONE
 * sharded filter at once, as the module's CPUs do in scope shared: each
 * hashes its key, takes its shard's lock, steps, and lets go. Each thread
 * has keys of its own (disjoint key spaces); the threads start every
 * phase together at a barrier, so their elements interleave (with more
 * threads than cores the scheduler interleaves them too).
 *
 * Beside each shard, on a line of its own, the test keeps a count of the
 * elements the shard stepped, touched only under the shard's lock: the
 * shard's own stream. A copy's gap is measured in it (the elements its
 * shard stepped between the original and the copy), which is what the
 * shard's filter forgets by; a whole-stream gap would need a shared
 * counter on every element, which would change what is measured.
 *
 * Tolerances: counts of verdicts against the model's expectation +-
 * 5 binomial standard deviations (sd), plus what the model leaves out
 * where a test says so. Seeds are fixed; the interleaving is not, and
 * nothing here depends on it beyond the measured gaps.
 *
 * Userspace only: pthreads (glibc 2.34 and later has them in libc, so
 * core-tests links without -pthread).
 */
#include <kunit/test.h>
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "../../module/core/config.h"
#include "../kunit/shard_test.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/shard.h"
#include "../../module/core/timewin.h"

#define MT_MAX_THREADS 8
#define MT_GAMMA 0x9e3779b97f4a7c15ULL	/* splitmix64's step (rng.h) */
#define MT_NO_GAP 0xffffffffu		/* a copy in another shard */
#define MT_ORIG 0x8000000000ULL		/* an original's key number */
#define MT_EPS 0.000000001		/* double against Q62: agreement */

/* A shard's stream length, under the shard's lock, on a line of its own. */
struct mt_count {
	u64 n;
} PD_LINE_ALIGNED;

/* A copy: the elements its shard stepped since its original; found? */
struct mt_copy {
	u32 gap;
	bool found;
};

struct mt_run;

struct mt_thread {
	/* lock-free: the thread's own generator, as a CPU's (filter.h) */
	struct pd_filter_cpu cpu PD_LINE_ALIGNED;
	struct mt_run *r;
	pthread_t tid;
	unsigned int id;
	u64 next;		/* the next new key's number */
	u64 steps;		/* elements stepped */
	u64 news, fp;		/* new keys of the measured span; found */
	u64 ncopies;
	struct mt_copy *copies;
	/* the originals waiting for their copy: their shard and its count */
	u32 *orig_shard;
	u64 *orig_seq;
} PD_LINE_ALIGNED;

struct mt_run {
	struct pd_shards s;
	struct pd_filter_plan whole;
	struct mt_count *cnt;
	pthread_barrier_t bar;
	unsigned int nthreads;
	/* a thread's elements: warm-up, the FP span, the copies' phase */
	u64 warm, fpq, fnq;
	/*
	 * The copies' phase, in a thread's own elements: an original every
	 * `every` elements, its copy `gap` later (gap % every == every / 2,
	 * so a copy never falls on an original), new keys between.
	 */
	u32 every, gap;
	struct mt_thread t[MT_MAX_THREADS];
};

/*
 * Thread t steps key number x of its own as a CPU does: hash, lock the
 * shard, step, count, unlock. The shard and its count after this element
 * in *shard and *seq.
 */
static bool mt_step(struct mt_thread *t, u64 x, u32 *shard, u64 *seq)
{
	struct mt_run *r = t->r;
	struct pd_pktinfo pi = { 0 };
	struct pd_key key;
	struct pd_shard *sh;
	u64 h;
	u32 i;
	bool dup;

	pd_st_key(&key, (u64)(t->id + 1) << 40 | x);
	h = pd_shards_hash(&r->s, &key);
	i = pd_shard_index(&r->s, h);
	sh = &r->s.sh[i];
	if (r->s.lockfree) {
		/*
		 * One filter, no lock: the stream's count is one atomic
		 * beside it, taken after the step (a copy's gap is then
		 * off by the elements other threads stepped meanwhile: a
		 * few, against gaps of thousands).
		 */
		dup = pd_filter_step_cpu(&sh->f, &t->cpu, h, &pi);
		*seq = __atomic_add_fetch(&r->cnt[0].n, 1, __ATOMIC_RELAXED);
		*shard = 0;
		t->steps++;
		return dup;
	}
	pd_lock(&sh->lock);
	dup = pd_filter_step_hash(&sh->f, h, &pi);
	*seq = ++r->cnt[i].n;
	pd_unlock(&sh->lock);
	*shard = i;
	t->steps++;
	return dup;
}

static bool mt_step_new(struct mt_thread *t)
{
	u64 seq;
	u32 sh;

	return mt_step(t, t->next++, &sh, &seq);
}

/*
 * A thread: warm-up with new keys; a span of new keys, each found one a
 * false positive; the copies' phase. The phases start together.
 */
static void *mt_thread_run(void *arg)
{
	struct mt_thread *t = arg;
	struct mt_run *r = t->r;
	u32 ring = r->gap / r->every + 1, sh;
	u64 i, o, seq;

	pthread_barrier_wait(&r->bar);
	for (i = 0; i < r->warm; i++)
		mt_step_new(t);
	pthread_barrier_wait(&r->bar);
	for (i = 0; i < r->fpq; i++)
		t->fp += mt_step_new(t);
	t->news = r->fpq;
	pthread_barrier_wait(&r->bar);
	for (i = 0; i < r->fnq; i++) {
		if (i % r->every == 0) {
			o = i / r->every;
			mt_step(t, MT_ORIG | o, &sh, &seq);
			t->orig_shard[o % ring] = sh;
			t->orig_seq[o % ring] = seq;
		} else if (i % r->every == r->every / 2 && i >= r->gap) {
			struct mt_copy *c = &t->copies[t->ncopies++];

			o = (i - r->gap) / r->every;
			c->found = mt_step(t, MT_ORIG | o, &sh, &seq);
			c->gap = sh == t->orig_shard[o % ring] ?
				 (u32)(seq - t->orig_seq[o % ring] - 1) :
				 MT_NO_GAP;
		} else {
			mt_step_new(t);
		}
	}
	return NULL;
}

static double mt_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Build r's shards for req in n (or the plan's fewer), seeded, and its
 * counts; the caller sets the phases.
 */
static void mt_setup(struct kunit *test, struct mt_run *r,
		     const struct pd_filter_req *req, u32 n, unsigned int nt,
		     u64 seed)
{
	const char *why = NULL;
	unsigned int i;

	/* n 0: the module's choice (shard.h): lock-free for the SBF */
	KUNIT_ASSERT_EQ_MSG(test, n ? pd_shards_create(&r->s, req, n,
						       &r->whole, &why) :
				      pd_shards_create_shared(&r->s, req, 0, nt,
							      &r->whole, &why),
			    0, "%s", why);
	pd_shards_seed(&r->s, &seed);
	/*
	 * Lock-free: thread 0 the filter's generator, the others the next
	 * draws, as the module seeds its CPUs.
	 */
	KUNIT_ASSERT_EQ(test, r->s.lockfree, !n);
	if (!n) {
		KUNIT_ASSERT_EQ(test, r->s.n, 1U);
		pd_filter_cpu_init(&r->s.sh[0].f, &r->t[0].cpu, NULL);
		for (i = 1; i < nt; i++) {
			u64 rng = pd_rng_next(&seed);

			pd_filter_cpu_init(&r->s.sh[0].f, &r->t[i].cpu, &rng);
		}
	}
	r->cnt = pd_zalloc_large(r->s.n * sizeof(*r->cnt));
	KUNIT_ASSERT_NOT_NULL(test, r->cnt);
	r->nthreads = nt;
}

/* Run r's threads to the end; the seconds it took. */
static double mt_go(struct kunit *test, struct mt_run *r)
{
	u32 ring = r->gap / r->every + 1;
	u64 ncopies = r->fnq / r->every + 1;
	double t0 = mt_now();
	unsigned int i;

	KUNIT_ASSERT_EQ(test, pthread_barrier_init(&r->bar, NULL,
						   r->nthreads), 0);
	for (i = 0; i < r->nthreads; i++) {
		struct mt_thread *t = &r->t[i];

		t->r = r;
		t->id = i;
		t->copies = kunit_kmalloc_array(test, ncopies,
						sizeof(*t->copies), GFP_KERNEL);
		t->orig_shard = kunit_kmalloc_array(test, ring, sizeof(u32),
						    GFP_KERNEL);
		t->orig_seq = kunit_kmalloc_array(test, ring, sizeof(u64),
						  GFP_KERNEL);
		KUNIT_ASSERT_TRUE(test, t->copies && t->orig_shard &&
				  t->orig_seq);
	}
	for (i = 0; i < r->nthreads; i++)
		KUNIT_ASSERT_EQ(test, pthread_create(&r->t[i].tid, NULL,
						     mt_thread_run, &r->t[i]),
				0);
	for (i = 0; i < r->nthreads; i++)
		pthread_join(r->t[i].tid, NULL);
	pthread_barrier_destroy(&r->bar);
	return mt_now() - t0;
}

static void mt_teardown(struct mt_run *r)
{
	pd_free_large(r->cnt);
	pd_shards_destroy(&r->s);
}

/*
 * No lost update: the shards' counts (each under its lock) sum to the
 * elements the threads stepped, and each shard's own filter saw as many:
 * an SBF's generator draws once a step (rng.h: its state advances by
 * splitmix64's step), a window counts its packets.
 */
static void mt_no_lost_update(struct kunit *test, struct mt_run *r,
			      const u64 *rng0)
{
	u64 sum = 0, steps = 0;
	unsigned int i;

	for (i = 0; i < r->nthreads; i++) {
		const struct pd_sbf_gen *g = (const void *)&r->t[i].cpu;

		steps += r->t[i].steps;
		/* lock-free: each thread's generator drew once a step */
		if (r->s.lockfree)
			KUNIT_EXPECT_EQ_MSG(test, g->rng,
					    rng0[i] + r->t[i].steps * MT_GAMMA,
					    "thread %u", i);
	}
	for (i = 0; i < r->s.n && !r->s.lockfree; i++) {
		const struct pd_filter *f = &r->s.sh[i].f;

		sum += r->cnt[i].n;
		if (rng0)
			KUNIT_EXPECT_EQ_MSG(test, pd_sbf_of(f)->gen.rng,
					    rng0[i] + r->cnt[i].n * MT_GAMMA,
					    "shard %u", i);
		else if (f->ops == &pd_sliding_family)
			KUNIT_EXPECT_EQ_MSG(test, pd_slide_of(f)->w.packets,
					    r->cnt[i].n, "shard %u", i);
		else
			KUNIT_EXPECT_EQ_MSG(test, pd_jump_of(f)->w.packets,
					    r->cnt[i].n, "shard %u", i);
	}
	if (r->s.lockfree)
		sum = r->cnt[0].n;
	KUNIT_EXPECT_EQ(test, sum, steps);
	KUNIT_EXPECT_EQ(test, steps, r->nthreads * (r->warm + r->fpq + r->fnq));
}

/* FN of a copy gap elements after its original in a shard of plan pl. */
static double mt_fn(const struct pd_filter_plan *pl, u64 m, u64 pset,
		    u32 gap)
{
	u64 vprob[PD_PLAN_STATES] = { 0 }, pr0;

	vprob[pl->max] = PD_Q62_ONE;
	pr0 = pd_plan_chain(pl->max, vprob, pd_muldiv(pl->p, PD_Q62_ONE, m),
			    pset, pl->max, gap);
	return 1 - pow(1 - (double)pr0 / PD_Q62_ONE, pl->k);
}

#define MT_MEMO 65536

/*
 * The SBF with the module's default request (config.c: 256 KiB, fps 1%,
 * everything else the planner's: layout auto, blocked in a shared filter;
 * or flat, asked) in the automatic count of shards for T CPUs
 * (pd_shards_auto(T, mem), fewer if a shard would be under 4 KiB), or
 * lock-free.
 *
 * FP: 10 lifetimes of a cell (m / (K + P) elements of the whole: e^-10
 * of the start is left), then 10^6 new keys in all; their FP rate is the
 * model's (plan.fp_bound, Eq. 8 for a shard's cells, which is the whole's
 * stable point too) within 5 sd plus 2% of it for the model's
 * independence assumption (tests/kunit/sbf_layout_test.c's terms).
 *
 * FN: then 640000 elements in all, each thread an original every 16 of
 * its own elements and its copy g later, g chosen so that T threads in
 * step would put m / (K + P) / 10 elements of the whole between them (an
 * FN rate near 17% for one filter of m cells; fewer cores than threads
 * put fewer, as the scheduler runs some threads and not others for a
 * while, which is why the gap is measured). Each copy's gap is measured in
 * its shard's stream, and its chance of being missed is the model's
 * (Eq. 9-16: each of its K cells, set to Max by the original, zero after
 * that many elements of its shard, each decrementing a cell with
 * probability P / m_s and setting it with K / m_s). A sixteenth of the
 * elements are copies, which set no new cell while their original is
 * remembered: the set probability is between (15/16) K / m_s and K / m_s,
 * and the expected FN count between the sums of the model at the two
 * (the lower set rate gives the higher FN). The count must lie within
 * those, 5 sd and 2% (as for FP) outside them.
 */
static void mt_sbf(struct kunit *test, unsigned int nt, bool lockfree,
		   u8 layout)
{
	struct mt_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u64 m, ms, life, fp = 0, news = 0, vp, pset, pset_lo, i, *rng0;
	double *memo, el = 0, eh = 0, var = 0, tol, secs, fpr, model, gsum = 0;
	u64 fn = 0, copies = 0, far = 0;
	struct pd_config cfg;
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, r);
	pd_config_defaults(&cfg);
	KUNIT_ASSERT_EQ(test, (unsigned int)pd_sbf_req(&cfg.filter)->layout,
			(unsigned int)PKTDEDUP_LAYOUT_AUTO);
	KUNIT_ASSERT_EQ(test, (unsigned int)cfg.filter.kind,
			(unsigned int)PKTDEDUP_FILTER_KIND_SBF);
	/* auto: blocked, as a shared filter is planned; or flat, asked */
	pd_sbf_req(&cfg.filter)->layout = layout;
	mt_setup(test, r, &cfg.filter,
		 lockfree ? 0 : pd_shards_auto(nt, cfg.filter.mem_bytes), nt,
		 1000 + nt);
	m = r->whole.cells;
	ms = m / r->s.n;
	life = m / (r->whole.k + r->whole.p);
	r->warm = 10 * life / nt;
	r->fpq = 1000000 / nt;
	r->fnq = 640000 / nt;
	r->every = 16;
	r->gap = (u32)(life / 10 / nt / 16 * 16 + 8);
	rng0 = kunit_kmalloc_array(test, PD_MAX(r->s.n, nt), sizeof(u64),
				   GFP_KERNEL);
	memo = kunit_kmalloc_array(test, 2 * MT_MEMO, sizeof(double),
				   GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, rng0 && memo);
	for (i = 0; i < r->s.n && !lockfree; i++)
		rng0[i] = pd_sbf_of(&r->s.sh[i].f)->gen.rng;
	for (i = 0; i < nt && lockfree; i++)
		rng0[i] = ((const struct pd_sbf_gen *)&r->t[i].cpu)->rng;
	secs = mt_go(test, r);
	mt_no_lost_update(test, r, rng0);

	for (j = 0; j < nt; j++) {
		fp += r->t[j].fp;
		news += r->t[j].news;
	}
	vp = pd_q62_to_ppb(r->whole.fp_bound);
	model = vp / 1e9;
	fpr = (double)fp / news;
	tol = 5 * sqrt(model * (1 - model) / news) + model / 50;
	kunit_info(test, "T %u, %s, %s %u (K %u P %u Max %u, %llu cells a shard), %.2f s: FP %.4f%% of %llu, model %.4f%% +- %.4f%%",
		   nt, r->whole.layout == PKTDEDUP_LAYOUT_BLOCKED ? "blocked" :
		   "flat", lockfree ? "lock-free, n" : "n", r->s.n, r->whole.k, r->whole.p, r->whole.max,
		   (unsigned long long)ms, secs, 100 * fpr,
		   (unsigned long long)news, 100 * model, 100 * tol);
	KUNIT_EXPECT_TRUE(test, fabs(fpr - model) <= tol);

	pset = pd_muldiv(r->whole.k, PD_Q62_ONE, ms);
	pset_lo = pd_muldiv(r->whole.k * 15ULL, PD_Q62_ONE, 16 * ms);
	/* at K / m_s the chain is the planner's Eq. 16 */
	for (i = 1; i <= 10000; i *= 10)
		KUNIT_EXPECT_LT(test,
				fabs(mt_fn(&r->whole, ms, pset, (u32)i) -
				     (double)pd_plan_fn_rate(r->whole.max,
							     r->whole.k,
							     r->whole.p, ms,
							     i) / PD_Q62_ONE),
				MT_EPS);
	for (i = 0; i < MT_MEMO; i++)
		memo[2 * i] = -1;
	for (j = 0; j < nt; j++) {
		for (i = 0; i < r->t[j].ncopies; i++) {
			const struct mt_copy *c = &r->t[j].copies[i];
			double lo, hi, p;

			if (c->gap == MT_NO_GAP) {
				far++;
				continue;
			}
			if (c->gap < MT_MEMO && memo[2 * c->gap] >= 0) {
				lo = memo[2 * c->gap];
				hi = memo[2 * c->gap + 1];
			} else {
				lo = mt_fn(&r->whole, ms, pset, c->gap);
				hi = mt_fn(&r->whole, ms, pset_lo, c->gap);
				if (c->gap < MT_MEMO) {
					memo[2 * c->gap] = lo;
					memo[2 * c->gap + 1] = hi;
				}
			}
			p = (lo + hi) / 2;
			el += lo;
			eh += hi;
			var += p * (1 - p);
			fn += !c->found;
			gsum += c->gap;
			copies++;
		}
	}
	/* a copy is its original's key: always its shard */
	KUNIT_EXPECT_EQ(test, far, 0ULL);
	KUNIT_ASSERT_GT(test, copies, 0ULL);
	tol = 5 * sqrt(var);
	gsum /= copies;
	kunit_info(test, "T %u: FN %llu of %llu copies (%.3f%%), model %.3f%%..%.3f%% (%.0f..%.0f) +- %.0f",
		   nt, (unsigned long long)fn, (unsigned long long)copies,
		   100.0 * fn / copies, 100 * el / copies, 100 * eh / copies,
		   el, eh, tol);
	/* for the record: one filter of m cells at the mean whole gap */
	kunit_info(test, "T %u: copies %u own elements on (x T: %u), %.0f of a shard's on average (x n: %.0f of the whole; one filter's FN there %.3f%%)",
		   nt, r->gap, nt * r->gap, gsum, gsum * r->s.n,
		   100.0 * pd_plan_fn_rate(r->whole.max, r->whole.k,
					   r->whole.p, m,
					   (u64)(gsum * r->s.n)) / PD_Q62_ONE);
	KUNIT_EXPECT_LE(test, (double)fn, eh * 1.02 + tol);
	KUNIT_EXPECT_GE(test, (double)fn, el * 0.98 - tol);
	mt_teardown(r);
}

static void pd_shard_mt_sbf_2(struct kunit *test)
{
	mt_sbf(test, 2, false, PKTDEDUP_LAYOUT_FLAT);
}

static void pd_shard_mt_sbf_4(struct kunit *test)
{
	mt_sbf(test, 4, false, PKTDEDUP_LAYOUT_AUTO);
}

static void pd_shard_mt_sbf_8(struct kunit *test)
{
	mt_sbf(test, 8, false, PKTDEDUP_LAYOUT_AUTO);
}

/*
 * The same, lock-free (the module's scope shared for the SBF): one filter
 * of m cells that every thread steps at once with its own generator. The
 * model is one filter's (each step still decrements P cells from a
 * uniform start; the sets and decrements that other threads' elements
 * race away are rare: pd_shard_mt_lockfree_sets_*), the gaps the whole
 * stream's.
 */
static void pd_shard_mt_lockfree_2(struct kunit *test)
{
	mt_sbf(test, 2, true, PKTDEDUP_LAYOUT_FLAT);
}

static void pd_shard_mt_lockfree_4(struct kunit *test)
{
	mt_sbf(test, 4, true, PKTDEDUP_LAYOUT_AUTO);
}

static void pd_shard_mt_lockfree_8(struct kunit *test)
{
	mt_sbf(test, 8, true, PKTDEDUP_LAYOUT_FLAT);
}

/* A thread of pd_shard_mt_lockfree_sets: its keys into the one filter. */
struct mt_set_arg {
	struct pd_filter *f;
	struct pd_filter_cpu cpu PD_LINE_ALIGNED;
	pthread_barrier_t *bar;
	pthread_t tid;
	u64 base, n;
} PD_LINE_ALIGNED;

static void *mt_set_run(void *arg)
{
	struct mt_set_arg *a = arg;
	struct pd_pktinfo pi = { 0 };
	struct pd_key key;
	u64 i;

	pthread_barrier_wait(a->bar);
	for (i = 0; i < a->n; i++) {
		pd_st_key(&key, a->base + i);
		pd_filter_step_cpu(a->f, &a->cpu, pd_filter_hash(a->f, &key),
				   &pi);
	}
	return NULL;
}

/* One round of pd_shard_mt_lockfree_sets: keys not found afterwards. */
static u64 mt_sets_round(struct kunit *test, struct mt_set_arg *a,
			 struct pd_filter *f, unsigned int threads, u64 n,
			 unsigned int round)
{
	pthread_barrier_t bar;
	unsigned int t;
	u64 lost = 0, i, rng;

	f->ops->clear(f);
	KUNIT_ASSERT_EQ(test, pthread_barrier_init(&bar, NULL, threads), 0);
	for (t = 0; t < threads; t++) {
		rng = 77 + t;
		a[t].f = f;
		a[t].bar = &bar;
		a[t].base = (u64)(round * MT_MAX_THREADS + t + 1) << 32;
		a[t].n = n;
		pd_filter_cpu_init(f, &a[t].cpu, &rng);
		KUNIT_ASSERT_EQ(test, pthread_create(&a[t].tid, NULL,
						     mt_set_run, &a[t]), 0);
	}
	for (t = 0; t < threads; t++)
		pthread_join(a[t].tid, NULL);
	pthread_barrier_destroy(&bar);
	for (t = 0; t < threads; t++) {
		for (i = 0; i < n; i++) {
			struct pd_key key;

			pd_st_key(&key, a[t].base + i);
			lost += !pd_filter_query_hash(f, pd_filter_hash(f, &key));
		}
	}
	return lost;
}

/*
 * Sets lost to the race, measured against a bound: an SBF of P 0 (a
 * Bloom filter: cells only ever set), K 3, T threads setting n keys each
 * into it at once. The lock-free step reads a word and writes it back
 * whole, so thread A's set of a word is lost only if A's store lands
 * inside another thread's read-to-write window on the same word. Each
 * other thread has K such windows a step, on words uniform over the W
 * words, each window shorter than a step; so a store lands in one with
 * probability at most K (T - 1) / W, and a key (K stores) is lost with
 * probability at most p = K^2 (T - 1) / W. The test: lost <= mu + 4
 * sqrt(mu) + 1, mu = p T n (a binomial's mean and a margin that a count
 * below p exceeds with probability under 1e-4). One thread alone loses
 * nothing: exactly 0. (Measured here, 2 threads into 1 MiB: 4e-6 to
 * 1.1e-5 of keys, a sixth to a twentieth of p; with each set an atomic
 * OR, none, at a cost: Documentation/design/shared-scope.md.)
 */
static void mt_sets(struct kunit *test, unsigned int threads, u64 bytes,
		    u64 n, unsigned int rounds)
{
	struct mt_set_arg *a = kunit_kzalloc(test, MT_MAX_THREADS * sizeof(*a),
					     GFP_KERNEL);
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	struct pd_filter f;
	const char *why = NULL;
	double p, mu, bound;
	unsigned int round;
	u64 lost = 0, words;

	KUNIT_ASSERT_NOT_NULL(test, a);
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, bytes);
	pd_sbf_req(&req)->max = 1;
	pd_sbf_req(&req)->k = 3;
	pd_sbf_req(&req)->p = 0;
	pd_sbf_req(&req)->layout = PKTDEDUP_LAYOUT_FLAT;
	KUNIT_ASSERT_EQ_MSG(test, pd_filter_create(&f, &req, &plan, &why), 0,
			    "%s", why);
	KUNIT_ASSERT_EQ(test, plan.p, 0U);
	for (round = 0; round < rounds; round++)
		lost += mt_sets_round(test, a, &f, threads, n, round);
	words = plan.cells / 64;
	p = 9.0 * (threads - 1) / (double)words;
	mu = p * threads * n * rounds;
	bound = mu + 4 * sqrt(mu) + 1;
	kunit_info(test, "%u rounds of %u threads x %llu keys into %llu cells: %llu not found (%.3g a key; bound %.0f, p %.3g)",
		   rounds, threads, (unsigned long long)n,
		   (unsigned long long)plan.cells, (unsigned long long)lost,
		   (double)lost / ((double)threads * n * rounds), bound, p);
	if (threads == 1)
		KUNIT_EXPECT_EQ(test, lost, 0ULL);
	else
		KUNIT_EXPECT_LE(test, (double)lost, bound);
	pd_filter_destroy(&f);
}

/* 2 threads (one a core here), 1 MiB: the module's default, two CPUs. */
static void pd_shard_mt_lockfree_sets_2(struct kunit *test)
{
	mt_sets(test, 2, 1 << 20, 1000000, 2);
}

/* 8 threads (four a core, interleaving) into 1 MiB. */
static void pd_shard_mt_lockfree_sets_8(struct kunit *test)
{
	mt_sets(test, 8, 1 << 20, 200000, 1);
}

/* One thread: nothing races, nothing is lost. */
static void pd_shard_mt_lockfree_sets_1(struct kunit *test)
{
	mt_sets(test, 1, 8192, 3000, 2);
}

/*
 * A window of w packets (sliding, jumping) in the automatic count of
 * shards for T CPUs: w / n packets a shard. Twice the window of new keys
 * (the windows at capacity), 5 * 10^5 new keys whose verdicts are
 * counted, then an original every 4 of a thread's elements and its copy
 * 6 later. A window of packets misses no copy within it (timewin.h:
 * sliding, any copy fewer than w / n packets of its shard after its
 * original; jumping, fewer than (s - 1) / s of that): every such copy is
 * found. The new keys' FP rate is at most the Bloom bound at capacity
 * (+ 5 sd + 5) and at least half of it (tests/kunit/timewin_test.c's
 * terms). The windows count as many packets as their shard's count
 * (nothing lost), none expires early, and ASan watches the rest.
 *
 * The jumping window's subwindows are planned by the Bloom formula, which
 * small ones exceed (one filter of 1024 packets, 147 keys a subwindow in
 * 2712 positions: 12-20% over its bound; of 256 packets: twice it): its
 * window is 2^18 packets, 4096 a shard, where the bound holds.
 */
static void mt_window(struct kunit *test, unsigned int kind, unsigned int nt,
		      u64 w)
{
	struct mt_run *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);
	u64 sure, ws, fp = 0, news = 0, np, var, lim, i;
	u64 in = 0, missed = 0, copies = 0, far = 0, early = 0;
	struct pd_filter_req req;
	double secs;
	unsigned int j;

	KUNIT_ASSERT_NOT_NULL(test, r);
	pd_filter_req_defaults(&req, (u8)kind, PD_DEFAULT_MEM);
	pd_tw_req(&req)->window_pkts = w;
	mt_setup(test, r, &req, pd_shards_auto(nt, req.mem_bytes), nt,
		 2000 + nt);
	ws = r->whole.window_pkts / r->s.n;
	KUNIT_ASSERT_EQ(test, ws * r->s.n, w);
	sure = kind == PKTDEDUP_FILTER_KIND_SLIDING ? ws :
	       ws / r->whole.subwindows * (r->whole.subwindows - 1);
	r->warm = 2 * w / nt;
	r->fpq = 500000 / nt;
	r->fnq = 200000 / nt;
	r->every = 4;
	r->gap = 6;
	secs = mt_go(test, r);
	mt_no_lost_update(test, r, NULL);

	for (j = 0; j < nt; j++) {
		fp += r->t[j].fp;
		news += r->t[j].news;
		for (i = 0; i < r->t[j].ncopies; i++) {
			const struct mt_copy *c = &r->t[j].copies[i];

			copies++;
			if (c->gap == MT_NO_GAP) {
				far++;
			} else if (c->gap + 1 < sure) {
				in++;
				missed += !c->found;
			}
		}
	}
	for (j = 0; j < r->s.n; j++) {
		struct pd_filter_win win;

		KUNIT_ASSERT_TRUE(test, pd_filter_window(&r->s.sh[j].f, &win));
		early += win.early;
		KUNIT_EXPECT_LE(test, win.entries,
				win.capacity * win.subwindows);
	}
	np = pd_muldiv(news, r->whole.fp_bound, PD_Q62_ONE);
	var = pd_muldiv(np, PD_Q62_ONE - r->whole.fp_bound, PD_Q62_ONE);
	lim = np + 5 * pd_isqrt64(var) + 5;
	kunit_info(test, "%s, T %u, n %u, %llu packets a shard, %.2f s: %llu of %llu copies inside the window missed (%llu outside); FP %llu of %llu, bound %llu",
		   pd_filter_family(kind)->name, nt, r->s.n,
		   (unsigned long long)ws, secs, (unsigned long long)missed,
		   (unsigned long long)in, (unsigned long long)(copies - in),
		   (unsigned long long)fp, (unsigned long long)news,
		   (unsigned long long)np);
	KUNIT_EXPECT_EQ(test, far, 0ULL);
	KUNIT_EXPECT_EQ(test, missed, 0ULL);
	/* all but copies whose thread slept between the two */
	KUNIT_EXPECT_GT(test, 2 * in, copies);
	KUNIT_EXPECT_LE(test, fp, lim);
	KUNIT_EXPECT_GE(test, 2 * fp, np);
	KUNIT_EXPECT_EQ(test, early, 0ULL);
	mt_teardown(r);
}

static void pd_shard_mt_sliding_2(struct kunit *test)
{
	mt_window(test, PKTDEDUP_FILTER_KIND_SLIDING, 2, 1 << 16);
}

static void pd_shard_mt_sliding_4(struct kunit *test)
{
	mt_window(test, PKTDEDUP_FILTER_KIND_SLIDING, 4, 1 << 16);
}

static void pd_shard_mt_jumping_4(struct kunit *test)
{
	mt_window(test, PKTDEDUP_FILTER_KIND_JUMPING, 4, 1 << 18);
}

static struct kunit_case pd_shard_mt_cases[] = {
	KUNIT_CASE(pd_shard_mt_sbf_2),
	KUNIT_CASE(pd_shard_mt_sbf_4),
	KUNIT_CASE(pd_shard_mt_sbf_8),
	KUNIT_CASE(pd_shard_mt_lockfree_2),
	KUNIT_CASE(pd_shard_mt_lockfree_4),
	KUNIT_CASE(pd_shard_mt_lockfree_8),
	KUNIT_CASE(pd_shard_mt_lockfree_sets_1),
	KUNIT_CASE(pd_shard_mt_lockfree_sets_2),
	KUNIT_CASE(pd_shard_mt_lockfree_sets_8),
	KUNIT_CASE(pd_shard_mt_sliding_2),
	KUNIT_CASE(pd_shard_mt_sliding_4),
	KUNIT_CASE(pd_shard_mt_jumping_4),
	{}
};

static struct kunit_suite pd_shard_mt_suite = {
	.name = "pktdedup-shard-mt",
	.test_cases = pd_shard_mt_cases,
};

kunit_test_suite(pd_shard_mt_suite);
