// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: every filter family through filter.h against the SBF,
 * what a family's packet touches (--trace-filter), and what a reader of
 * the statistics pays for the occupancy.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench.h"

/*
 * n new flows from *next on (IPv4 flow keys); flow id arrives at (id + 1)
 * FAM_GAP_NS ns (read by the window families only). distinct, if given,
 * adds the packets called new; trace marks each packet.
 */
double fam_run(struct pd_filter *f, u64 *next, u32 n, enum run_mode mode,
	       u64 *distinct, bool trace)
{
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	/* action count's queue, as deep as the module's for f */
	static union {
		struct pd_defer q;
		u8 room[PD_DEFER_BYTES(PD_DEFER_DEEP)];
	} qb;
	struct pd_defer *q = &qb.q;
	struct pd_defer_ent out;
	bool full;
	u32 i, dups = 0;
	u64 acc = 0;
	double t0;

	pd_defer_init(q, f->defer_depth);
	t0 = now_ns();
	for (i = 0; i < n; i++) {
		u64 id = *next + i;
		struct pd_pktinfo pi = { .dscp = (u8)(id & 63),
					 .now = (id + 1) * FAM_GAP_NS };
		struct pd_key key;
		u64 h;

		if (trace)
			mark(i);
		flow_addrs(src, dst, id);
		pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
			     IPPROTO_TCP, (u16)(id * 40503u), 443);
		h = pd_filter_hash(f, &key);
		if (mode == RUN_HASH) {
			acc += h;
		} else if (mode == RUN_DIRECT) {
			dups += pd_sbf_step(pd_sbf_of(f), (u32)h, (u32)(h >> 32));
		} else if (mode == RUN_DEFER) {
			/* as the module's hook takes it (hook.c) */
			struct pd_defer_ent *e = pd_defer_slot(q, &full);

			pd_filter_prefetch(f, h);
			if (full)
				dups += pd_filter_step_hash(f, e->h, &e->pi);
			pd_defer_fill(e, h, pi.dscp, pi.mark, pi.now, -1);
			pd_defer_commit(q, full);
		} else {
			pd_filter_prefetch(f, h);
			dups += pd_filter_step_hash(f, h, &pi);
		}
	}
	while (pd_defer_pop(q, &out))
		dups += pd_filter_step_hash(f, out.h, &out.pi);
	*next += n;
	keep((u32)acc);
	if (distinct)
		*distinct += n - dups;
	return (now_ns() - t0) / n;
}

/*
 * Every family through the interface, at the module's defaults for it
 * (pd_filter_req_defaults: the planner's choices for fps 1% where a
 * family plans), as the module runs it: flow key, two seeded hashes,
 * pd_filter_step(). Each packet is a new flow. The bit families start at
 * their stable state, as a filter that has run for a while: arrays filled
 * to the plan's stable load (a 64 KiB random block of that density,
 * repeated), RSBF in phase 3; BSBFSD, which has no stable load below 1,
 * at its load after 16 s distinct elements, 1 - 2/(16 (k + 1)). The SBF
 * and the IBFs do the same work whatever their state.
 */
#define FAM_ROWS (PD_FILTER_NKINDS + 1)	/* and the SBF stepped directly */
#define FAM_BLOCK 8192			/* words of the random block */

static const u64 fam_mems[] = { 64 << 10, 1 << 20, 64 << 20 };

const char *mem_name(u64 mem)
{
	return mem == 64 << 10 ? "64 KiB" : mem == 1 << 20 ? "1 MiB" :
	       "64 MiB";
}

/* A word whose bits are set with probability x (Q62) to 2^-8. */
static u64 density_word(u64 *rng, u64 x)
{
	u64 w = 0;
	int j;

	/* x's binary digits, the 8th first: w = digit ? w/2 + 1/2 : w/2 */
	for (j = 8; j >= 1; j--) {
		u64 r = pd_rng_next(rng);

		w = (x >> (62 - j)) & 1 ? (r | w) : (r & w);
	}
	return w;
}

/*
 * Each array: a block of random words of density x, repeated over it. The
 * repeats are copied by pread() from a memory file holding the block: the
 * kernel copies, so valgrind's lackey (lines-touched.sh) does not trace
 * 64 MiB of stores; the loads are the block's, counted once.
 */
void fam_prefill(struct pd_filter *f, const struct pd_filter_plan *pl)
{
	struct pd_bitf *b = pd_bitf_of(f);
	u64 x = pl->stable_load, rng = 4242, ones, head;
	int fd = memfd_create("bench-block", 0);
	unsigned int a;
	u32 w, n;

	if (fd < 0) {
		perror("bench: memfd_create");
		exit(1);
	}
	if (pl->kind == PKTDEDUP_FILTER_KIND_BSBFSD)
		x = PD_Q62_ONE - PD_Q62_ONE / (8 * (b->k + 1));
	n = b->nwords < FAM_BLOCK ? b->nwords : FAM_BLOCK;
	for (a = 0; a < b->k; a++) {
		u64 *arr = &b->words[(size_t)a * b->nwords];
		u32 rest = b->nwords % n;

		for (w = 0, ones = 0, head = 0; w < n; w++) {
			arr[w] = density_word(&rng, x);
			ones += pd_popcount64(arr[w]);
			if (w < rest)
				head += pd_popcount64(arr[w]);
		}
		if (pwrite(fd, arr, (size_t)n * 8, 0) != (ssize_t)n * 8)
			goto fail;
		for (w = n; w < b->nwords; w += n) {
			size_t len = (size_t)PD_MIN(n, b->nwords - w) * 8;

			if (pread(fd, &arr[w], len, 0) != (ssize_t)len)
				goto fail;
		}
		b->load[a] = (u32)(ones * (b->nwords / n) + head);
	}
	close(fd);
	if (pl->kind == PKTDEDUP_FILTER_KIND_RSBF)
		b->iter = b->iter3;
	return;
fail:
	perror("bench: the block's copies");
	exit(1);
}

void fam_create(struct pd_filter *f, struct pd_filter_plan *pl,
		unsigned int kind, u64 mem, u8 layout)
{
	const struct pd_setting *lay =
		pd_filter_setting(pd_filter_family(kind),
				  PKTDEDUP_A_SETTINGS_LAYOUT);
	struct pd_filter_req req;
	const char *why;

	pd_filter_req_defaults(&req, (u8)kind, mem);
	if (lay)	/* the families that have one */
		pd_setting_set(&req, lay, layout);
	if (pd_filter_create(f, &req, pl, &why)) {
		fprintf(stderr, "bench: %s: %s\n",
			pd_filter_family(kind)->name, why);
		exit(1);
	}
	pd_filter_set_seeds(f, 0x1234567, 0x89abcdef, 99);
	if (!pd_filter_family(kind)->counting)
		fam_prefill(f, pl);
}

static const char *fam_name(unsigned int row)
{
	return row == 1 ? "sbf-direct" : pd_filter_family(row ? row - 1 : 0)->name;
}

/* The window families have their own table (bench_windows()). */
static bool fam_skip(unsigned int row)
{
	return row > 1 && pd_filter_family(row - 1)->timed;
}

void bench_families(void)
{
	unsigned int mi, row, r;

	printf("\nevery filter family through filter.h, ns per packet (median of %u\n"
	       "runs of %u new flows: key + SipHash + pd_filter_step), at the\n"
	       "module's defaults; bit families from their stable state (load),\n"
	       "RSBF in phase 3; sbf-direct: the same SBF stepped by\n"
	       "pd_sbf_step(); ratio: against sbf\n", REPEAT, STEPS);
	printf("%-8s %-10s %-7s %6s %9s %8s %7s\n", "memory", "family",
	       "k/K, P", "load", "distinct", "ns", "ratio");
	for (mi = 0; mi < PD_ARRAY_SIZE(fam_mems); mi++) {
		double t[FAM_ROWS][REPEAT], med[FAM_ROWS];
		u64 dist[FAM_ROWS] = { 0 }, load[FAM_ROWS] = { 0 };
		struct pd_filter_plan pl[FAM_ROWS];
		struct pd_filter f;

		for (row = 0; row < FAM_ROWS; row++) {
			struct pd_filter_occ o;
			u64 next = 0;

			if (row == 1 || fam_skip(row))	/* 1: with row 0 */
				continue;
			fam_create(&f, &pl[row], row ? row - 1 : 0, fam_mems[mi],
				   PKTDEDUP_LAYOUT_FLAT);
			pd_filter_occupancy(&f, &o);
			if (o.set)
				load[row] = o.set * 1000 / o.units;
			fam_run(&f, &next, STEPS, RUN_STEP, NULL, false);	/* warm */
			for (r = 0; r < REPEAT; r++) {
				t[row][r] = fam_run(&f, &next, STEPS, RUN_STEP,
						    &dist[row], false);
				if (!row)
					t[1][r] = fam_run(&f, &next, STEPS, RUN_DIRECT,
							  &dist[1], false);
			}
			if (!row)
				pl[1] = pl[0];
			pd_filter_destroy(&f);
		}
		for (row = 0; row < FAM_ROWS; row++) {
			if (fam_skip(row))
				continue;
			qsort(t[row], REPEAT, sizeof(t[row][0]), cmp_double);
			med[row] = t[row][REPEAT / 2];
		}
		for (row = 0; row < FAM_ROWS; row++) {
			char par[16], ld[16] = "-";

			if (fam_skip(row))
				continue;
			if (pl[row].p || pd_filter_family(pl[row].kind)->counting)
				snprintf(par, sizeof(par), "%u, %u", pl[row].k,
					 pl[row].p);
			else
				snprintf(par, sizeof(par), "%u", pl[row].k);
			if (load[row])
				snprintf(ld, sizeof(ld), "%.3f",
					 load[row] / 1000.0);
			printf("%-8s %-10s %-7s %6s %8.1f%% %8.1f %6.2fx\n",
			       mem_name(fam_mems[mi]), fam_name(row), par, ld,
			       100.0 * dist[row] / ((double)REPEAT * STEPS),
			       med[row], med[row] / med[0]);
		}
	}
}

/*
 * bench --trace-filter FAMILY MEM N: for eval/bench/lines-touched.sh, as
 * --trace-sources: the family's memory range and the marker, 2000 packets
 * of warm-up, then N marked packets.
 */
int trace_filter(const char *name, u64 mem, u32 n)
{
	/* sbf-blocked: the sbf family with layout blocked */
	bool blocked = !strcmp(name, "sbf-blocked");
	const struct pd_filter_ops *ops =
		pd_filter_family_by_name(blocked ? "sbf" : name);
	struct pd_filter_plan pl;
	struct pd_filter f;
	u64 next = 0;

	if (!ops || ops->timed) {
		fprintf(stderr, "bench: no family %s (windows: --trace-window)\n",
			name);
		return 1;
	}
	fam_create(&f, &pl, ops->kind, mem,
		   blocked ? PKTDEDUP_LAYOUT_BLOCKED : PKTDEDUP_LAYOUT_FLAT);
	print_range(name, f.mem, pl.bytes);
	printf("marker %lx\n", (unsigned long)&trace_marker);
	fflush(stdout);
	fam_run(&f, &next, 2000, RUN_STEP, NULL, false);
	fam_run(&f, &next, n, RUN_STEP, NULL, true);
	pd_filter_destroy(&f);
	return 0;
}

/* The module's budget for one read of the statistics (pktdedup.h). */
#define OCC_READ_BYTES (1ULL << 20)

/* ns per occupancy read of the n filters f[] within max_bytes each. */
static double occ_read(struct pd_filter *f, unsigned int n, u64 max_bytes,
		       double *frac)
{
	struct pd_filter_occ o;
	double t[REPEAT], sum = 0;
	unsigned int r, i;

	for (r = 0; r < REPEAT; r++) {
		double t0 = now_ns();

		sum = 0;
		for (i = 0; i < n; i++) {
			pd_filter_occupancy_within(&f[i], &o, max_bytes);
			sum += (double)o.zero / (double)o.units;
		}
		t[r] = now_ns() - t0;
	}
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	*frac = sum / n;
	return t[REPEAT / 2];
}

void bench_occupancy(void)
{
	static const struct {
		const char *name;
		const char *row;	/* bench.json */
		unsigned int n;
		u64 mem;
		u32 steps;	/* per filter */
	} cases[] = {
		{ "a shared filter of 250 MiB", "occupancy-1x250M", 1,
		  250ULL << 20, 40000000 },
		{ "256 CPUs' filters of 256 KiB", "occupancy-256x256K", 256,
		  256 << 10, 200000 },
	};
	unsigned int c, i;

	printf("\n== The statistics' read of the occupancy: whole, and bounded to 1 MiB (SBF defaults) ==\n");
	printf("%-30s %14s %14s %8s %12s %12s %10s\n", "filters", "whole (ms)",
	       "bounded (us)", "ratio", "zero whole", "zero bounded",
	       "error");
	for (c = 0; c < PD_ARRAY_SIZE(cases); c++) {
		struct pd_filter *f = calloc(cases[c].n, sizeof(*f));
		u64 budget = OCC_READ_BYTES / cases[c].n, next = 1;
		struct pd_filter_plan pl;
		double whole, part, fw, fp;
		char name[64];
		u32 s, h1, h2;

		if (!f)
			exit(1);
		for (i = 0; i < cases[c].n; i++) {
			fam_create(&f[i], &pl, PKTDEDUP_FILTER_KIND_SBF,
				   cases[c].mem, PKTDEDUP_LAYOUT_FLAT);
			for (s = 0; s < cases[c].steps; s++) {
				u64 x = pd_rng_next(&next);

				h1 = (u32)x;
				h2 = (u32)(x >> 32);
				pd_sbf_step(pd_sbf_of(&f[i]), h1, h2);
			}
		}
		whole = occ_read(f, cases[c].n, PD_OCC_ALL, &fw);
		part = occ_read(f, cases[c].n, budget, &fp);
		printf("%-30s %14.2f %14.1f %7.0fx %12.6f %12.6f %+10.6f\n",
		       cases[c].name, whole / 1e6, part / 1e3, whole / part, fw,
		       fp, fp - fw);
		snprintf(name, sizeof(name), "%s-whole", cases[c].row);
		json_row(name, whole, JSON_NONE, JSON_NONE);
		snprintf(name, sizeof(name), "%s-bounded", cases[c].row);
		json_row(name, part, JSON_NONE, JSON_NONE);
		for (i = 0; i < cases[c].n; i++)
			pd_filter_destroy(&f[i]);
		free(f);
	}
}

