// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the source analytics' share of a packet, level by level,
 * and what each level's packet touches (--trace-sources).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/srcwin.h"
#include "bench.h"

/*
 * The source analytics' share of a packet, as module/sources/src_state.c
 * adds them between the dedup filter's prefetch and its step
 * (pd_srcs_add()): pd_srcwin_add() (two keyed address hashes, a
 * HyperLogLog register update each for sources and destinations into the
 * batch, folded every PD_SRCWIN_BATCH packets, and with counters the
 * Space-Saving update of the top talkers), then the optional new-source
 * filter step. Each level has its
 * own state, as the module builds it for those settings: `defaults` is
 * what a namespace starts with (PD_SRCWIN_DEFAULT_COUNTERS top-talker
 * counters, no new-source filter). Sources follow a skewed population of
 * 100000 addresses (id = x y / U for uniform x, y); 16 sub-windows of
 * 65536 packets over a run.
 */
enum src_level {
	SRC_NONE, SRC_DISTINCT, SRC_DEFAULTS, SRC_TOP, SRC_NEW, SRC_NLEVELS
};

#define SRC_NSUB 12
#define SRC_TOPCAP 128		/* the counters of the top and newsrc levels */
#define SRC_TICK 65536		/* packets per sub-window */
#define SRC_ROUNDS 31		/* runs of each level, interleaved */
#define SRC_RUN 131072		/* packets per run */

static const char *const src_rows[SRC_NLEVELS] = {
	"dedup-step", "analytics-distinct", "analytics-defaults",
	"analytics-top", "analytics-newsrc",
};

/* What a CPU's pd_src_cpu holds for a level: the window first. */
struct src_cpu {
	struct pd_srcwin win;
	struct pd_sbf nf;		/* new-source filter */
	void *mem;
};

/*
 * What the module's pd_srcs holds for a level, laid out as pd_srcs_add()
 * reads it: the per-CPU pointers and the new-source switch in the first
 * line, the pointers themselves in an array of their own.
 */
struct src_state {
	struct src_cpu **cpu;		/* one CPU here */
	u32 newsrc;
};

struct src_bench {
	struct pd_sbf f;		/* the dedup filter */
	struct src_state *lv[SRC_NLEVELS];	/* NULL for SRC_NONE */
	u32 cap[SRC_NLEVELS];
};

static const struct pd_akey src_akey = {
	{ 0x0123456789abcdefULL, 0xfedcba9876543210ULL, 0x0f1e2d3c4b5a6978ULL,
	  0x8796a5b4c3d2e1f0ULL }, 0x5555aaaa3333ccccULL
};

/* n packets from `first` on (ns per packet); trace: mark each packet */
static double src_run(struct src_bench *b, enum src_level level, u32 first,
		      u32 n, u32 *marker)
{
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	u64 rng = 42 + first;
	u32 i, dups = 0;
	double t0;

	t0 = now_ns();
	for (i = first; i < first + n; i++) {
		u64 x = pd_rng_below(&rng, 100000), y = pd_rng_below(&rng, 100000);
		u32 id = (u32)(x * y / 100000), h1, h2;
		struct src_state *s;
		struct src_cpu *c;
		u64 hs;

		if (marker)
			__atomic_store_n(marker, i, __ATOMIC_RELAXED);
		flow_addrs(src, dst, id);
		flow_hashes(&b->f, src, dst, i, &h1, &h2);
		pd_sbf_prefetch(&b->f, h1);
		/* pd_srcs_add(): rcu_dereference(pn->srcs), its CPU's part */
		s = __atomic_load_n(&b->lv[level], __ATOMIC_RELAXED);
		if (s) {
			c = s->cpu[0];
			hs = pd_srcwin_add(&c->win, i, src, dst, 4);
			if (s->newsrc)
				dups += pd_sbf_step(&c->nf, (u32)hs,
						    (u32)(hs >> 32));
		}
		dups += pd_sbf_step(&b->f, h1, h2);
	}
	keep(dups);
	return (now_ns() - t0) / n;
}

/*
 * The module's settings: a 1 MiB dedup filter (layout auto: blocked, P
 * 12), 12 sub-windows; top
 * talkers with 128 counters, a 64 KiB new-source filter planned for gap
 * 1000 where the level has them.
 */
static void src_setup(struct src_bench *b)
{
	struct pd_sbf_params prm = { .cells = 8 << 20, .max = 1, .k = 3,
				     .p = 12, .layout = PKTDEDUP_LAYOUT_BLOCKED };
	struct pd_plan_req req = { .mem_bytes = 64 << 10, .max = PD_PLAN_AUTO,
				   .k = PD_PLAN_AUTO, .p = PD_PLAN_AUTO,
				   .gap = 1000 };
	struct pd_sbf_params nprm;
	struct pd_plan np;
	const char *why = "no memory";
	unsigned int l;

	memset(b, 0, sizeof(*b));
	if (pd_plan(&req, &np, &why) || pd_sbf_create(&b->f, &prm, &why))
		goto fail;
	pd_plan_params(&np, &nprm);
	b->cap[SRC_DEFAULTS] = PD_SRCWIN_DEFAULT_COUNTERS;
	b->cap[SRC_TOP] = SRC_TOPCAP;
	b->cap[SRC_NEW] = SRC_TOPCAP;
	for (l = SRC_DISTINCT; l < SRC_NLEVELS; l++) {
		/* cache-line aligned, as the module's allocations are */
		struct src_state *st = aligned_alloc(64, 64);
		struct src_cpu *c = aligned_alloc(64, sizeof(*c));

		why = "no memory";
		if (!st || !c)
			goto fail;
		memset(c, 0, sizeof(*c));
		memset(st, 0, sizeof(*st));
		b->lv[l] = st;
		st->cpu = aligned_alloc(64, 64);
		if (!st->cpu)
			goto fail;
		st->cpu[0] = c;
		c->mem = aligned_alloc(64, pd_srcwin_bytes(SRC_NSUB, b->cap[l]));
		if (!c->mem)
			goto fail;
		memset(c->mem, 0, pd_srcwin_bytes(SRC_NSUB, b->cap[l]));
		why = "bad window";
		if (pd_srcwin_init(&c->win, SRC_NSUB, b->cap[l], SRC_TICK, &src_akey,
				c->mem))
			goto fail;
		st->newsrc = l == SRC_NEW;
		if (st->newsrc && pd_sbf_create(&c->nf, &nprm, &why))
			goto fail;
	}
	return;
fail:
	fprintf(stderr, "bench: cannot set up the source windows: %s\n", why);
	exit(1);
}

static void src_teardown(struct src_bench *b)
{
	unsigned int l;

	pd_sbf_destroy(&b->f);
	for (l = 0; l < SRC_NLEVELS; l++) {
		struct src_state *st = b->lv[l];

		if (!st)
			continue;
		if (st->newsrc)
			pd_sbf_destroy(&st->cpu[0]->nf);
		free(st->cpu[0]->mem);
		free(st->cpu[0]);
		free(st->cpu);
		free(st);
	}
}

/*
 * Lines per packet of each level, as eval/bench/lines-touched.sh measured
 * them (its file: "LEVEL MEAN" per line); JSON_NONE where unknown.
 */
static double src_lines[SRC_NLEVELS] = {
	JSON_NONE, JSON_NONE, JSON_NONE, JSON_NONE, JSON_NONE,
};

void src_read_lines(const char *path)
{
	char name[64];
	double v;
	FILE *in = fopen(path, "r");
	unsigned int l;

	if (!in) {
		perror(path);
		exit(1);
	}
	while (fscanf(in, "%63s %lf", name, &v) == 2)
		for (l = 0; l < SRC_NLEVELS; l++)
			if (!strcmp(name, src_rows[l]))
				src_lines[l] = v;
	fclose(in);
}

/* Bytes of a level's state for one CPU: the window's, the filter's. */
static size_t src_bytes(const struct src_bench *b, unsigned int l)
{
	const struct src_state *st = b->lv[l];
	size_t n = sizeof(struct src_cpu) + pd_srcwin_bytes(SRC_NSUB, b->cap[l]);

	if (st->newsrc)
		n += (size_t)st->cpu[0]->nf.nwords * 8;
	return n;
}

void bench_sources(void)
{
	static const char *const names[SRC_NLEVELS] = {
		"dedup step only (baseline)", "+ distinct src/dst",
		"defaults", "+ top talkers (128 counters)",
		"+ new-source filter",
	};
	static double t[SRC_NLEVELS][SRC_ROUNDS], d[SRC_NLEVELS][SRC_ROUNDS];
	struct src_bench b;
	unsigned int r, l;

	src_setup(&b);
	for (l = 0; l < SRC_NLEVELS; l++)	/* warm: pages, caches */
		src_run(&b, l, 0, STEPS, NULL);
	/*
	 * Short runs, the levels interleaved, so that a busy moment of this
	 * shared machine hits every level alike; each level's cost over the
	 * baseline is the median of its differences with the baseline's run
	 * of the same round.
	 */
	for (r = 0; r < SRC_ROUNDS; r++)
		for (l = 0; l < SRC_NLEVELS; l++)
			t[l][r] = src_run(&b, l, (r * SRC_NLEVELS + l) * SRC_RUN,
					  SRC_RUN, NULL);
	for (l = 0; l < SRC_NLEVELS; l++) {
		for (r = 0; r < SRC_ROUNDS; r++)
			d[l][r] = t[l][r] - t[0][r];
		qsort(t[l], SRC_ROUNDS, sizeof(t[l][0]), cmp_double);
		qsort(d[l], SRC_ROUNDS, sizeof(d[l][0]), cmp_double);
	}
	printf("\nsource analytics per packet (1 MiB dedup filter, %u sub-windows,\n"
	       "skewed sources), ns per packet: median of %u interleaved runs of\n"
	       "%u packets; +ns: median over the rounds of the difference with\n"
	       "the baseline's run (its quartiles); defaults: a namespace's\n"
	       "(%u top-talker counters, no new-source filter); lines: per\n"
	       "packet, all structures (eval/bench/lines-touched.sh)\n",
	       SRC_NSUB, SRC_ROUNDS, SRC_RUN, PD_SRCWIN_DEFAULT_COUNTERS);
	printf("%-30s %7s %7s %7s %13s %6s\n", "", "ns", "vs", "+ns",
	       "+ns quartiles", "lines");
	for (l = 0; l < SRC_NLEVELS; l++) {
		double m = t[l][SRC_ROUNDS / 2], m0 = t[0][SRC_ROUNDS / 2];

		printf("%-30s %7.1f %6.2fx %+7.1f %6.1f %6.1f", names[l], m,
		       m / m0, d[l][SRC_ROUNDS / 2], d[l][SRC_ROUNDS / 4],
		       d[l][3 * SRC_ROUNDS / 4]);
		if (src_lines[l] != JSON_NONE)
			printf(" %6.2f", src_lines[l]);
		printf("\n");
		/* bytes: the level's analytics state of one CPU */
		json_row(src_rows[l], m, src_lines[l],
			 b.lv[l] ? (double)src_bytes(&b, l) : JSON_NONE);
	}
	src_teardown(&b);
}

/*
 * One marker per level: lines-touched.sh tells the levels apart by it; a
 * store to src_idle ends a level's packets (what follows is not counted).
 */
static u32 src_marker[SRC_NLEVELS], src_idle;

/*
 * bench --trace-sources N: for eval/bench/lines-touched.sh, which runs this
 * under valgrind's lackey and counts the distinct cache lines of each
 * structure that each packet touches. Prints the structures' address
 * ranges and each level's marker, then, per level, warms up and runs N
 * packets that store to the level's marker first.
 */
int trace_sources(u32 n)
{
	struct src_bench b;
	unsigned int l;

	src_setup(&b);
	print_range("dedup-filter", b.f.words, (size_t)b.f.nwords * 8);
	for (l = SRC_DISTINCT; l < SRC_NLEVELS; l++) {
		struct src_state *st = b.lv[l];
		struct src_cpu *c = st->cpu[0];
		size_t sk = (size_t)SRC_NSUB * 2 * sizeof(struct pd_hll);

		print_range("state", st, sizeof(*st));
		print_range("state", st->cpu, sizeof(*st->cpu));
		print_range("window", &c->win, sizeof(c->win));
		print_range("sketches", c->mem, sk);
		if (b.cap[l])
			print_range("top-talkers", (u8 *)c->mem + sk,
				    pd_srcwin_bytes(SRC_NSUB, b.cap[l]) - sk);
		if (st->newsrc)
			print_range("new-source-filter", c->nf.words,
				    (size_t)c->nf.nwords * 8);
	}
	for (l = 0; l < SRC_NLEVELS; l++)
		printf("marker %s %lx\n", src_rows[l],
		       (unsigned long)&src_marker[l]);
	printf("marker - %lx\n", (unsigned long)&src_idle);
	fflush(stdout);
	for (l = 0; l < SRC_NLEVELS; l++) {
		/* counters full, filters busy */
		src_run(&b, l, 0, 20000, NULL);
		src_run(&b, l, 20000, n, &src_marker[l]);
		__atomic_store_n(&src_idle, l, __ATOMIC_RELAXED);
	}
	src_teardown(&b);
	return 0;
}

