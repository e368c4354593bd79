// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the scopes by threads, and what contention is made of.
 *
 * T threads (1, 2, 4, ... and the most: the CPUs this process may run on,
 * at most SCOPE_THREADS unless --threads N says more), each pinned to a
 * CPU of its own, step new flows (IPv4 flow key, one SipHash-1-3 pass,
 * the prefetch, the step; every thread its own flows) all at once:
 *  percpu    each thread its own filter (a struct pd_filter on lines of
 *            its own, as alloc_percpu() places the module's);
 *  shared    the module's scope shared for this filter (an SBF: one
 *            filter that every thread steps at once without a lock,
 *            each with its own generator: filter.h's step_cpu), stepped
 *            as the module's hook steps it;
 *  sharded   one filter in pd_shards_auto(CPUs online) shards (shard.h),
 *            what scope shared builds for the families without a
 *            lock-free step (and `shards N` for any): hash once, the
 *            shard, its lock, the step, unlock;
 *  one lock  the same in one shard: one filter behind one lock, the
 *            shared scope as it was before the shards.
 * The filter is the module's default (pd_filter_req_defaults(): an SBF,
 * fps 1%, the planner's K, P, cell maximum and layout) at 1 MiB, each
 * CPU's or the whole shared one's (layout auto: blocked for both); then
 * with one layout for all, flat and blocked (K cells in one line: two
 * lines a packet, which is what CPUs sharing a filter pass between them;
 * the same filters as the defaults'), and at 64 MiB, for one thread and
 * the most. Each figure: ns per packet per thread (the mean of the
 * threads' own times), the median of REPEAT runs of STEPS packets per
 * thread, the columns' runs interleaved, after a warm-up run of each;
 * Mpps in all is T * 1000 / ns.
 *
 * bench --shards: the shared scope at 1 MiB by shard count (1 to 256,
 * and the automatic one) against percpu, for one thread and the most.
 *
 * The contention model's parts: an atomic add on a line of its own (one
 * thread), the same line's adds from two threads at once, a line written
 * in turn by two threads (ping-pong: the time of a round trip over 2,
 * one move of the line), and a lock (pd_lock_t) taken and released, alone
 * and by two threads at once with nothing inside.
 */
#define _GNU_SOURCE	/* pthread_attr_setaffinity_np, CPU_SET */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../module/core/shard.h"
#include "bench.h"

/* The most threads unless --threads says more. */
#define SCOPE_THREADS 16
/* Room for T = 1, 2, 4, ... and the most. */
#define SCOPE_MAX_TS 16
#define SCOPE_MAX_COLS 8

static unsigned int scope_threads_asked;
/*
 * The table's filters: the SBF's layout (auto, the default: blocked where
 * cell maximum 1 serves; or flat or blocked for all).
 */
static u8 scope_layout = PKTDEDUP_LAYOUT_AUTO;

void scope_set_threads(unsigned int n)
{
	scope_threads_asked = n;
}

/* The CPUs this process may run on, in order: thread i runs on cpus[i]. */
static int scope_cpus[CPU_SETSIZE];
static unsigned int scope_ncpus;

static void scope_cpus_read(void)
{
	cpu_set_t set;
	int c;

	if (scope_ncpus)
		return;
	if (sched_getaffinity(0, sizeof(set), &set)) {
		perror("bench: sched_getaffinity");
		exit(1);
	}
	for (c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			scope_cpus[scope_ncpus++] = c;
}

/* The most threads: the CPUs we have, at most SCOPE_THREADS or asked. */
static unsigned int scope_max_threads(void)
{
	unsigned int max = scope_threads_asked ? scope_threads_asked :
			   SCOPE_THREADS;

	scope_cpus_read();
	return PD_MIN(max, scope_ncpus);
}

/* T = 1, 2, 4, ... below the most, and the most; how many. */
static unsigned int scope_ts(unsigned int *ts)
{
	unsigned int max = scope_max_threads(), n = 0, t;

	for (t = 1; t < max && n < SCOPE_MAX_TS - 1; t <<= 1)
		ts[n++] = t;
	ts[n++] = max;
	return n;
}

static u32 scope_online(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (u32)n : 1;
}

enum scope_mode { SC_PERCPU, SC_SHARED, SC_LOCKFREE, SC_SHARED_CPURNG };

/* A per-CPU filter on lines of its own. */
struct scope_filter {
	struct pd_filter f;
} PD_LINE_ALIGNED;

/* A column of the table: what the threads step. */
struct scope_col {
	enum scope_mode mode;
	bool blocked;			/* layout blocked, whatever scope_layout */
	/*
	 * percpu, lock-free: each step kept, as action count keeps it (a
	 * packet, deeper beyond the caches: core/defer.h); at once
	 * otherwise, as mark and drop
	 */
	bool defer;
	u32 shards;			/* shared: as asked; then as planned */
	struct scope_filter *pcpu;	/* percpu: one per thread */
	struct pd_shards s;		/* shared, lock-free */
	struct pd_filter_plan plan;	/* a filter's (shared: a shard's) */
	u64 bytes;			/* a thread's filter, or the whole */
	double ns[SCOPE_MAX_TS];	/* the median by T */
};

/* A thread's own state, on lines of its own. */
struct scope_thread {
	struct scope_col *col;
	unsigned int i;		/* its index: its filter, its flows */
	u64 next;		/* its next flow */
	struct pd_filter_cpu cpu;	/* lock-free: its generator */
	u64 rng;		/* cpu-rng: its decrement starts */
	struct pd_defer *q;	/* action count: its steps kept */
	double ns;
} PD_LINE_ALIGNED;

static inline bool scope_cpurng_step(struct pd_shard *sh,
				     struct scope_thread *th, u64 h)
{
	struct pd_sbf *f = pd_sbf_of(&sh->f);
	u32 pos[PD_SBF_MAX_K], start = pd_rng_below(&th->rng, f->cells);
	bool dup = true;
	unsigned int i;

	pd_prefetchw(&f->words[start >> f->cpw_shift]);
	pd_lock(&sh->lock);
	pd_sbf_positions(f, (u32)h, (u32)(h >> 32), pos);
	for (i = 0; i < f->k; i++)
		dup &= pd_sbf_cell(f, pos[i]) != 0;
	pd_sbf_decrement(f, start, f->p);
	pd_sbf_set_cells(f, pos);
	pd_unlock(&sh->lock);
	return dup;
}

/* One packet of flow id, as the column's scope steps it. */
static inline bool scope_step(struct scope_col *c, struct scope_thread *th,
			      u64 id)
{
	u8 src[4], dst[4];
	struct pd_pktinfo pi = { 0 };
	struct pd_shard *sh;
	struct pd_filter *f;
	struct pd_key key;
	bool dup, full;
	u64 h;

	flow_addrs(src, dst, id);
	/* the thread's own flows: its index in the destination port */
	pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
		     IPPROTO_TCP, (u16)(id * 40503u), (u16)(1024 + th->i));
	if (c->defer) {
		/* as the module's hook takes it (hook.c) */
		struct pd_defer_ent *e = pd_defer_slot(th->q, &full);

		if (c->mode == SC_PERCPU) {
			f = &c->pcpu[th->i].f;
			h = pd_filter_hash(f, &key);
			pd_filter_prefetch(f, h);
			dup = full && pd_filter_step_hash(f, e->h, &e->pi);
		} else {
			h = pd_shards_hash(&c->s, &key);
			pd_filter_prefetch(&pd_shard_of(&c->s, h)->f, h);
			dup = full &&
			      pd_filter_step_cpu(&pd_shard_of(&c->s, e->h)->f,
						 &th->cpu, e->h, &e->pi);
		}
		pd_defer_fill(e, h, 0, 0, 0, -1);
		pd_defer_commit(th->q, full);
		return dup;
	}
	switch (c->mode) {
	case SC_PERCPU:
		f = &c->pcpu[th->i].f;
		h = pd_filter_hash(f, &key);
		pd_filter_prefetch(f, h);
		return pd_filter_step_hash(f, h, &pi);
	case SC_SHARED:
		h = pd_shards_hash(&c->s, &key);
		sh = pd_shard_of(&c->s, h);
		pd_filter_prefetch(&sh->f, h);
		pd_lock(&sh->lock);
		dup = pd_filter_step_hash(&sh->f, h, &pi);
		pd_unlock(&sh->lock);
		return dup;
	case SC_SHARED_CPURNG:
		/*
		 * an experiment: the shards, each step's decrement start drawn
		 * from the stepping thread's generator (the shard's state is
		 * then only its lock), prefetched before the lock
		 */
		h = pd_shards_hash(&c->s, &key);
		sh = pd_shard_of(&c->s, h);
		return scope_cpurng_step(sh, th, h);
	default:
		/* lock-free: as the module's hook steps it */
		h = pd_shards_hash(&c->s, &key);
		sh = pd_shard_of(&c->s, h);
		pd_filter_prefetch(&sh->f, h);
		return pd_filter_step_cpu(&sh->f, &th->cpu, h, &pi);
	}
}

/* A deferring column's steps kept by th, taken at the end of its run. */
static u32 scope_drain(struct scope_col *c, struct scope_thread *th)
{
	struct pd_defer_ent e;
	u32 dups = 0;

	while (pd_defer_pop(th->q, &e))
		dups += c->mode == SC_PERCPU ?
			pd_filter_step_hash(&c->pcpu[th->i].f, e.h, &e.pi) :
			pd_filter_step_cpu(&pd_shard_of(&c->s, e.h)->f,
					   &th->cpu, e.h, &e.pi);
	return dups;
}

static void *scope_worker(void *p)
{
	struct scope_thread *th = p;
	struct scope_col *c = th->col;
	u32 i, dups = 0;
	double t0;

	scope_start_wait();
	t0 = now_ns();
	for (i = 0; i < STEPS; i++)
		dups += scope_step(c, th, th->next + i);
	dups += scope_drain(c, th);
	th->ns = (now_ns() - t0) / STEPS;
	th->next += STEPS;
	keep(dups);
	return NULL;
}

/* What every thread of a run waits on before its timed work. */
static pthread_barrier_t scope_start;

void scope_start_wait(void)
{
	pthread_barrier_wait(&scope_start);
}

/*
 * Start n threads, thread i on CPU scope_cpus[i] running fn on the i-th of
 * n arguments size bytes apart from arg, and join them; each calls
 * scope_start_wait() before its timed work.
 */
void scope_threads_run(unsigned int n, void *(*fn)(void *), void *arg,
		       size_t size)
{
	pthread_t tid[CPU_SETSIZE];
	pthread_attr_t attr;
	cpu_set_t set;
	unsigned int i;

	scope_cpus_read();
	pthread_barrier_init(&scope_start, NULL, n);
	for (i = 0; i < n; i++) {
		pthread_attr_init(&attr);
		CPU_ZERO(&set);
		CPU_SET(scope_cpus[i], &set);
		pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
		if (pthread_create(&tid[i], &attr, fn, (char *)arg + i * size)) {
			perror("bench: pthread_create");
			exit(1);
		}
		pthread_attr_destroy(&attr);
	}
	for (i = 0; i < n; i++)
		pthread_join(tid[i], NULL);
	pthread_barrier_destroy(&scope_start);
}

static void threads_run(struct scope_thread *th, unsigned int n,
			void *(*fn)(void *))
{
	scope_threads_run(n, fn, th, sizeof(*th));
}

/* n threads at once on column c: ns per packet per thread. */
static double scope_run(struct scope_col *c, struct scope_thread *th,
			unsigned int n)
{
	double sum = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		th[i].col = c;
		/* as deep as the module's for the filter the column steps */
		pd_defer_init(th[i].q, c->mode == SC_PERCPU ?
			      c->pcpu[i].f.defer_depth :
			      c->s.sh[0].f.defer_depth);
	}
	threads_run(th, n, scope_worker);
	for (i = 0; i < n; i++)
		sum += th[i].ns;
	return sum / n;
}

static void scope_fail(const char *why)
{
	fprintf(stderr, "bench: %s\n", why);
	exit(1);
}

/* Set column c up for mem bytes and up to nthreads threads. */
static void scope_col_create(struct scope_col *c, u64 mem,
			     unsigned int nthreads)
{
	struct pd_filter_plan whole;
	struct pd_filter_req req;
	const char *why = NULL;
	unsigned int i;
	u32 n;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, mem);
	pd_sbf_req(&req)->layout = c->blocked ? PKTDEDUP_LAYOUT_BLOCKED :
				    scope_layout;
	switch (c->mode) {
	case SC_PERCPU:
		c->pcpu = aligned_alloc(64, sizeof(*c->pcpu) * nthreads);
		if (!c->pcpu)
			scope_fail("out of memory");
		for (i = 0; i < nthreads; i++)
			if (pd_filter_create(&c->pcpu[i].f, &req, &c->plan,
					     &why))
				scope_fail(why);
		c->bytes = c->plan.bytes;
		break;
	case SC_SHARED:
	case SC_SHARED_CPURNG:
		/*
		 * a shard's plan, for the header; the same plan again; as
		 * scope shared shards N plans it (pd_shards_plan_shared())
		 */
		req.shared = true;
		n = c->shards;
		if (pd_shards_plan(&req, &n, &c->plan, &whole, &why) ||
		    pd_shards_create(&c->s, &req, c->shards, &whole, &why))
			scope_fail(why);
		c->shards = c->s.n;
		c->bytes = whole.bytes;
		break;
	default:
		if (pd_shards_create_shared(&c->s, &req, 0, nthreads,
					    &c->plan, &why))
			scope_fail(why);
		if (!c->s.lockfree)
			scope_fail("the default filter has no lock-free step");
		c->shards = 1;
		c->bytes = c->plan.bytes;
		break;
	}
}

static void scope_col_destroy(struct scope_col *c, unsigned int nthreads)
{
	unsigned int i;

	switch (c->mode) {
	case SC_PERCPU:
		for (i = 0; i < nthreads; i++)
			pd_filter_destroy(&c->pcpu[i].f);
		free(c->pcpu);
		break;
	default:
		pd_shards_destroy(&c->s);
		break;
	}
}

/*
 * Every column at every T of ts: a warm-up run of each (pages, caches),
 * then REPEAT rounds of them all in turn; the medians in c->ns.
 */
static void scope_measure(struct scope_col *cols, unsigned int ncols,
			  u64 mem, const unsigned int *ts, unsigned int nts)
{
	static double t[SCOPE_MAX_COLS][SCOPE_MAX_TS][REPEAT];
	unsigned int max = ts[nts - 1], ci, ti, r;
	struct scope_thread *th;

	th = aligned_alloc(64, sizeof(*th) * max);
	if (!th)
		scope_fail("out of memory");
	memset(th, 0, sizeof(*th) * max);
	for (ti = 0; ti < max; ti++) {
		th[ti].i = ti;
		th[ti].rng = 0x5eed0000ULL + ti;
		/* deep enough for any filter: each run sets its depth */
		th[ti].q = aligned_alloc(64, PD_DEFER_BYTES(PD_DEFER_DEEP));
		if (!th[ti].q)
			scope_fail("out of memory");
	}
	for (ci = 0; ci < ncols; ci++) {
		struct scope_col *c = &cols[ci];

		scope_col_create(c, mem, max);
		for (ti = 0; c->mode == SC_LOCKFREE && ti < max; ti++) {
			u64 seed = 0x5eed1000ULL + ti;

			pd_filter_cpu_init(&c->s.sh[0].f, &th[ti].cpu, &seed);
		}
		scope_run(c, th, max);	/* warm */
	}
	for (r = 0; r < REPEAT; r++)
		for (ti = 0; ti < nts; ti++)
			for (ci = 0; ci < ncols; ci++)
				t[ci][ti][r] = scope_run(&cols[ci], th, ts[ti]);
	for (ci = 0; ci < ncols; ci++) {
		for (ti = 0; ti < nts; ti++) {
			qsort(t[ci][ti], REPEAT, sizeof(double), cmp_double);
			cols[ci].ns[ti] = t[ci][ti][REPEAT / 2];
		}
		scope_col_destroy(&cols[ci], max);
	}
	for (ti = 0; ti < max; ti++)
		free(th[ti].q);
	free(th);
}

static void print_plan(const char *what, const struct pd_filter_plan *pl)
{
	char b[32];

	fmt_bytes(b, sizeof(b), pl->bytes);
	printf("%s %s: K %u, P %u, cell bits %u (max %u), layout %s, FP bound %.3f%%\n",
	       what, b, pl->k, pl->p, pl->bits, pl->max,
	       pd_sbf_layout_name(pl->layout),
	       100.0 * (double)pl->fp_bound / (double)PD_Q62_ONE);
}

static void scope_json(const char *scope, const char *mtag, unsigned int t,
		       double ns, u64 bytes)
{
	char name[48];

	snprintf(name, sizeof(name), "scope-%s%s-%uthread%s", scope, mtag, t,
		 t == 1 ? "" : "s");
	json_row(name, ns, JSON_NONE, (double)bytes);
}

/* The four scopes at mem for each T of ts; mtag names the JSON rows. */
static void scope_table(u64 mem, const char *mtag, const unsigned int *ts,
			unsigned int nts)
{
	struct scope_col cols[4] = {
		{ .mode = SC_PERCPU },
		{ .mode = SC_LOCKFREE },
		{ .mode = SC_SHARED, .shards = pd_shards_auto(scope_online(), mem) },
		{ .mode = SC_SHARED, .shards = 1 },
	};
	const struct scope_col *pc = &cols[0], *lf = &cols[1], *sh = &cols[2];
	const struct scope_col *one = &cols[3];
	unsigned int ti;
	char b[32], head[32];

	scope_measure(cols, 4, mem, ts, nts);
	fmt_bytes(b, sizeof(b), mem);
	printf("\nscopes by threads, %s (the module's default filter, fps 1%%, layout %s);\n"
	       "ns per packet per thread (median of %u runs of %u new flows per\n"
	       "thread, each thread on a CPU of its own), Mpps in all\n",
	       b, pd_sbf_layout_names[scope_layout], REPEAT, STEPS);
	print_plan("  percpu: a filter per thread of", &pc->plan);
	print_plan("  shared (lock-free): one filter of", &lf->plan);
	snprintf(head, sizeof(head), "  sharded: %u shards of", sh->shards);
	print_plan(head, &sh->plan);
	print_plan("  one lock: 1 shard of", &one->plan);
	snprintf(head, sizeof(head), "sharded(%u)", sh->shards);
	printf("%-7s %8s %7s %8s %7s %7s %11s %7s %8s %7s\n", "threads",
	       "percpu", "Mpps", "shared", "Mpps", "/percpu", head,
	       "/percpu", "1 lock", "/percpu");
	for (ti = 0; ti < nts; ti++) {
		double p = pc->ns[ti];

		printf("%-7u %8.1f %7.1f %8.1f %7.1f %6.2fx %11.1f %6.2fx %8.1f %6.2fx\n",
		       ts[ti], p, ts[ti] * 1e3 / p, lf->ns[ti],
		       ts[ti] * 1e3 / lf->ns[ti], lf->ns[ti] / p, sh->ns[ti],
		       sh->ns[ti] / p, one->ns[ti], one->ns[ti] / p);
		scope_json("percpu", mtag, ts[ti], p, pc->bytes);
		scope_json("shared", mtag, ts[ti], lf->ns[ti], lf->bytes);
		scope_json("sharded", mtag, ts[ti], sh->ns[ti], sh->bytes);
		scope_json("onelock", mtag, ts[ti], one->ns[ti], one->bytes);
	}
}

void bench_scope(void)
{
	unsigned int ts[SCOPE_MAX_TS], nts = scope_ts(ts);
	unsigned int ends[2] = { 1, ts[nts - 1] };

	/* the defaults: layout auto, blocked per CPU, line shared */
	scope_table(1 << 20, "", ts, nts);
	/*
	 * one layout for all: flat (K + 1 cell lines a packet), blocked
	 * (two: what CPUs pass between them) and line (one)
	 */
	scope_layout = PKTDEDUP_LAYOUT_FLAT;
	scope_table(1 << 20, "-flat", ends, ends[1] > 1 ? 2 : 1);
	scope_layout = PKTDEDUP_LAYOUT_BLOCKED;
	scope_table(1 << 20, "-blocked", ends, ends[1] > 1 ? 2 : 1);
	scope_layout = PKTDEDUP_LAYOUT_LINE;
	scope_table(1 << 20, "-line", ends, ends[1] > 1 ? 2 : 1);
	scope_layout = PKTDEDUP_LAYOUT_AUTO;
	scope_table(64 << 20, "-64m", ends, ends[1] > 1 ? 2 : 1);
}

/*
 * bench --shards: the shared scope at 1 MiB by shard count (1 to 256 and
 * the automatic one) against percpu; JSON rows shards-N-Tthread(s).
 */
void bench_shards(void)
{
	static const u32 counts[] = { 1, 4, 16, 64, 256 };
	unsigned int ends[2] = { 1, scope_max_threads() };
	unsigned int nts = ends[1] > 1 ? 2 : 1, ncols = 0, i, ti;
	struct scope_col cols[SCOPE_MAX_COLS];
	u32 autos = pd_shards_auto(scope_online(), 1 << 20);
	char name[48];

	memset(cols, 0, sizeof(cols));
	cols[ncols++].mode = SC_PERCPU;
	for (i = 0; i < PD_ARRAY_SIZE(counts); i++) {
		cols[ncols].mode = SC_SHARED;
		cols[ncols++].shards = counts[i];
	}
	cols[ncols].mode = SC_SHARED;
	cols[ncols++].shards = autos;
	cols[ncols].mode = SC_SHARED_CPURNG;
	cols[ncols++].shards = autos;
	scope_measure(cols, ncols, 1 << 20, ends, nts);
	printf("shared scope by shard count, 1 MiB: ns per packet per thread\n"
	       "(median of %u runs of %u new flows per thread), and against\n"
	       "percpu at the same threads\n", REPEAT, STEPS);
	snprintf(name, sizeof(name), "%u threads", ends[1]);
	printf("%-12s %10s", "shards", "1 thread");
	if (nts > 1)
		printf(" %10s %8s", name, "/percpu");
	printf("\n");
	for (i = 0; i < ncols; i++) {
		if (i)
			snprintf(name, sizeof(name), "%u%s", cols[i].shards,
				 cols[i].mode == SC_SHARED_CPURNG ? " cpu-rng" :
				 i == ncols - 2 ? " (auto)" : "");
		printf("%-12s", i ? name : "percpu");
		for (ti = 0; ti < nts; ti++) {
			printf(" %10.1f", cols[i].ns[ti]);
			if (ti)
				printf(" %7.2fx", cols[i].ns[ti] / cols[0].ns[ti]);
			if (i)
				snprintf(name, sizeof(name), "shards-%u%s-%uthread%s",
					 cols[i].shards,
					 cols[i].mode == SC_SHARED_CPURNG ?
					 "-cpurng" : "", ends[ti],
					 ends[ti] == 1 ? "" : "s");
			else
				snprintf(name, sizeof(name), "shards-percpu-%uthread%s",
					 ends[ti], ends[ti] == 1 ? "" : "s");
			json_row(name, cols[i].ns[ti], JSON_NONE,
				 (double)cols[i].bytes);
		}
		printf("\n");
	}
}

/*
 * The contention model's parts, on one line (a counter and a lock):
 * atom_n operations per thread; a thread's ns per operation.
 */
enum atom_op { AT_ADD, AT_LOCK, AT_PINGPONG };

static struct atom_line {
	u64 v;
	pd_lock_t lock;
} PD_LINE_ALIGNED atom_line;

static enum atom_op atom_op;
static u32 atom_n;

static void *atom_worker(void *p)
{
	struct scope_thread *th = p;
	struct atom_line *l = &atom_line;
	u64 k = th->i, acc = 0;
	double t0;
	u32 i;

	scope_start_wait();
	t0 = now_ns();
	switch (atom_op) {
	case AT_ADD:
		for (i = 0; i < atom_n; i++)
			acc += __atomic_fetch_add(&l->v, 1, __ATOMIC_SEQ_CST);
		break;
	case AT_LOCK:
		for (i = 0; i < atom_n; i++) {
			pd_lock(&l->lock);
			pd_unlock(&l->lock);
		}
		break;
	case AT_PINGPONG:
		/* thread k waits for 2i + k and writes 2i + k + 1 */
		for (i = 0; i < atom_n; i++) {
			while (__atomic_load_n(&l->v, __ATOMIC_ACQUIRE) !=
			       2 * (u64)i + k)
				;
			__atomic_store_n(&l->v, 2 * (u64)i + k + 1,
					 __ATOMIC_RELEASE);
		}
		break;
	}
	th->ns = (now_ns() - t0) / atom_n;
	keep((u32)acc);
	return NULL;
}

/*
 * op by n threads (1 or 2) at once, each n_ops times: the median of
 * REPEAT runs of the threads' mean ns per operation.
 */
static double atom_measure(enum atom_op op, unsigned int n, u32 n_ops)
{
	struct scope_thread th[2];
	double t[REPEAT];
	unsigned int r, i;

	atom_op = op;
	atom_n = n_ops;
	for (r = 0; r < REPEAT; r++) {
		memset(th, 0, sizeof(th));
		memset(&atom_line, 0, sizeof(atom_line));
		pd_lock_init(&atom_line.lock);
		for (i = 0; i < n; i++)
			th[i].i = i;
		threads_run(th, n, atom_worker);
		t[r] = n == 1 ? th[0].ns : (th[0].ns + th[1].ns) / 2;
	}
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

void bench_atomics(void)
{
	static const struct {
		const char *label, *json;
		enum atom_op op;
		unsigned int threads;
		u32 n;
	} rows[] = {
		{ "atomic add, a line of its own, 1 thread", "atomic-add-own",
		  AT_ADD, 1, 4 * STEPS },
		{ "atomic add, one line, 2 threads at once",
		  "atomic-add-2threads", AT_ADD, 2, STEPS },
		{ "a line's move between 2 CPUs (ping-pong / 2)",
		  "line-move", AT_PINGPONG, 2, STEPS },
		{ "lock + unlock, alone", "lock-own", AT_LOCK, 1, 4 * STEPS },
		{ "lock + unlock, one lock, 2 threads at once",
		  "lock-2threads", AT_LOCK, 2, STEPS },
	};
	unsigned int i;
	double ns;

	scope_cpus_read();
	printf("\nwhat contention costs: ns per operation per thread (median\n"
	       "of %u runs), threads on CPUs %d and %d\n", REPEAT,
	       scope_cpus[0], scope_cpus[scope_ncpus > 1 ? 1 : 0]);
	printf("%-46s %8s\n", "", "ns");
	for (i = 0; i < PD_ARRAY_SIZE(rows); i++) {
		if (rows[i].threads > scope_ncpus)
			continue;
		ns = atom_measure(rows[i].op, rows[i].threads, rows[i].n);
		/* a round trip is two moves */
		if (rows[i].op == AT_PINGPONG)
			ns /= 2;
		printf("%-46s %8.1f\n", rows[i].label, ns);
		json_row(rows[i].json, ns, JSON_NONE, JSON_NONE);
	}
}

/* The first two CPUs of this process, for bench_place.c's threads. */
int scope_cpu(unsigned int i)
{
	scope_cpus_read();
	return scope_cpus[i < scope_ncpus ? i : 0];
}

unsigned int scope_cpus_n(void)
{
	scope_cpus_read();
	return scope_ncpus;
}

/* A line's move between the first two CPUs (ping-pong / 2), ns. */
double scope_line_move(void)
{
	return atom_measure(AT_PINGPONG, 2, STEPS / 4) / 2;
}

/*
 * The default filter at 1 MiB, a filter per thread (layout auto: blocked)
 * and one shared lock-free (layout auto: line), at t threads, each step a
 * packet late (action count, the default, at 1 MiB) and at once (mark,
 * drop): ns per packet per thread, as the table's.
 */
void scope_pair(unsigned int t, struct scope_pair_ns *ns)
{
	struct scope_col cols[4] = {
		{ .mode = SC_PERCPU, .defer = true },
		{ .mode = SC_LOCKFREE, .defer = true },
		{ .mode = SC_PERCPU },
		{ .mode = SC_LOCKFREE },
	};

	scope_layout = PKTDEDUP_LAYOUT_AUTO;
	scope_measure(cols, 4, 1 << 20, &t, 1);
	ns->percpu = cols[0].ns[0];
	ns->shared = cols[1].ns[0];
	ns->percpu_now = cols[2].ns[0];
	ns->shared_now = cols[3].ns[0];
}
