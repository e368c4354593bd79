// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the Stable Bloom Filter's step against the textbook
 * baseline, the cache lines it touches, the layouts, and packet-mode keys
 * by payload (the scopes: bench_scope.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* The step with P independent random single-cell decrements. */
static bool step_scattered(struct pd_sbf *f, u32 h1, u32 h2)
{
	u32 pos[PD_SBF_MAX_K], j;
	bool dup = true;
	unsigned int i;

	pd_sbf_positions(f, h1, h2, pos);
	for (i = 0; i < f->k; i++)
		dup &= pd_sbf_cell(f, pos[i]) != 0;
	for (j = 0; j < f->p; j++)
		pd_sbf_decrement(f, pd_rng_below(&f->gen.rng, f->cells), 1);
	pd_sbf_set_cells(f, pos);
	return dup;
}

enum mode { HASH_ONLY, ADJACENT, SCATTERED };

/* ns per element over STEPS flow keys; the key varies like real traffic */
static double run(struct pd_sbf *f, enum mode mode)
{
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	u32 i, dups = 0;
	double t0;

	t0 = now_ns();
	for (i = 0; i < STEPS; i++) {
		u32 h1, h2;

		flow_addrs(src, dst, i);
		flow_hashes(f, src, dst, i, &h1, &h2);
		if (mode == ADJACENT)
			dups += pd_sbf_step(f, h1, h2);
		else if (mode == SCATTERED)
			dups += step_scattered(f, h1, h2);
		else
			dups += h1 ^ h2;
	}
	keep(dups);
	return (now_ns() - t0) / STEPS;
}

static double median_run(struct pd_sbf *f, enum mode mode)
{
	double t[REPEAT];
	unsigned int r;

	for (r = 0; r < REPEAT; r++)
		t[r] = run(f, mode);
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

/* Distinct 64-byte lines holding cells [start, start+p) (wrapping). */
static unsigned int lines_adjacent(const struct pd_sbf *f, u32 start, u32 p)
{
	u64 bits = (u64)f->d, first, last, n = 0;

	if (start + (u64)p <= f->cells) {
		first = start * bits / 512;
		last = (start + (u64)p - 1) * bits / 512;
		return (unsigned int)(last - first + 1);
	}
	n = lines_adjacent(f, start, f->cells - start);
	return (unsigned int)n + lines_adjacent(f, 0, p - (f->cells - start));
}

static unsigned int lines_scattered(const struct pd_sbf *f, u64 *rng, u32 p)
{
	u64 seen[512];
	unsigned int n = 0, i, j;

	for (j = 0; j < p && j < 512; j++) {
		u64 line = pd_rng_below(rng, f->cells) * (u64)f->d / 512;

		for (i = 0; i < n && seen[i] != line; i++)
			;
		if (i == n)
			seen[n++] = line;
	}
	return n;
}

/*
 * Distinct 64-byte lines one step touches (its K cells, its decrement
 * run), from the addresses it computes; eval/bench/lines-touched.sh checks
 * the same under valgrind.
 */
static unsigned int lines_step(const struct pd_sbf *f, u32 h1, u32 h2,
			       u32 start)
{
	u32 pos[PD_SBF_MAX_K], cpl = 1u << f->cpl_shift, base;
	u64 seen[PD_SBF_MAX_K + 2];
	unsigned int n = 0, i, j;

	pd_sbf_positions(f, h1, h2, pos);
	for (j = 0; j < f->k; j++) {
		u64 line = pos[j] * (u64)f->d / 512;

		for (i = 0; i < n && seen[i] != line; i++)
			;
		if (i == n)
			seen[n++] = line;
	}
	/*
	 * the run's lines: its first and last cell (a run spans <= 2); a
	 * lined layout's run wraps inside its line, layout line's is the
	 * key's line (start: a random cell, so the same cell of it)
	 */
	if (f->oneline)
		start = (pos[0] & ~(cpl - 1)) + (start & (cpl - 1));
	base = start & ~(cpl - 1);
	for (j = 0; j < 2; j++) {
		u64 cell = !j ? start : f->blocked ?
			   base + (start - base + f->p - 1) % cpl :
			   ((u64)start + f->p - 1) % f->cells;
		u64 line = cell * f->d / 512;

		if (!f->p)
			break;
		for (i = 0; i < n && seen[i] != line; i++)
			;
		if (i == n)
			seen[n++] = line;
	}
	return n;
}

/* Mean lines per step over n random elements. */
static double mean_lines_step(const struct pd_sbf *f, u32 n)
{
	u64 rng = 77, sum = 0;
	u32 i;

	for (i = 0; i < n; i++) {
		u64 h = pd_rng_next(&rng);

		sum += lines_step(f, (u32)h, (u32)(h >> 32),
				  pd_rng_below(&rng, f->cells));
	}
	return (double)sum / n;
}

void bench_filters(void)
{
	static const u64 mems[] = { 64 << 10, 1 << 20, 64 << 20 };
	static const u32 maxes[] = { 1, 3 };
	unsigned int mi, xi, k;
	const char *why;

	printf("SBF step, ns per element (median of %u runs of %u flow keys),\n"
	       "P from Eq. 17 for fps 1%%\n"
	       "hash: key + one SipHash-1-3 pass; adjacent: hash + the module's step\n"
	       "(P adjacent decrements); scattered: hash + the baseline step\n"
	       "(P independent random decrements); ratio = scattered / adjacent;\n"
	       "lines: 64-byte cache lines the decrements touch per element\n",
	       REPEAT, STEPS);
	printf("%-8s %-4s %-2s %-4s %7s %9s %10s %7s %10s %11s\n", "memory",
	       "max", "k", "p", "hash", "adjacent", "scattered", "ratio",
	       "lines(adj)", "lines(scat)");
	for (mi = 0; mi < 3; mi++)
		for (xi = 0; xi < 2; xi++)
			for (k = 2; k <= 4; k++) {
				struct pd_plan_req req = {
					.mem_bytes = mems[mi],
					.fps_ppb = 10000000, .max = maxes[xi],
					.k = k, .p = PD_PLAN_AUTO,
				};
				struct pd_sbf_params prm;
				struct pd_plan pl;
				struct pd_sbf f;
				double h, a, s, la = 0, ls = 0;
				u64 rng = 99;
				unsigned int i;

				if (pd_plan(&req, &pl, &why))
					goto fail;
				pd_plan_params(&pl, &prm);
				if (pd_sbf_create(&f, &prm, &why))
					goto fail;
				run(&f, ADJACENT);	/* warm: pages, caches */
				h = median_run(&f, HASH_ONLY);
				a = median_run(&f, ADJACENT);
				s = median_run(&f, SCATTERED);
				for (i = 0; i < 100000; i++) {
					la += lines_adjacent(&f, pd_rng_below(&rng, f.cells),
							     f.p);
					ls += lines_scattered(&f, &rng, f.p);
				}
				printf("%-8s %-4u %-2u %-4u %7.1f %9.1f %10.1f ",
				       mems[mi] >= 1 << 20 ?
				       (mems[mi] == 1 << 20 ? "1 MiB" : "64 MiB") :
				       "64 KiB", pl.max, pl.k, pl.p, h, a, s);
				printf("%6.2fx %10.3f %11.3f\n", s / a,
				       la / 100000, ls / 100000);

				pd_sbf_destroy(&f);
			}
	return;
fail:
	fprintf(stderr, "bench: %s\n", why);
	exit(1);
}

/* The median of REPEAT runs of STEPS new flows through f in mode. */
static double fam_median(struct pd_filter *f, u64 *next, enum run_mode mode)
{
	double t[REPEAT];
	unsigned int r;

	for (r = 0; r < REPEAT; r++)
		t[r] = fam_run(f, next, STEPS, mode, NULL, false);
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

/*
 * The SBF's layouts: flat (the paper's), blocked and line (sbf.h), K 3
 * and P planned for fps 1%, at 64 KiB, 1 MiB and 64 MiB, median of REPEAT
 * runs of STEPS new flows after a warm-up run, each step taken at once
 * (mark, drop) and kept (count: a packet, or PD_DEFER_DEEP packets from
 * 4 MiB, core/defer.h); lines from the step's
 * addresses. JSON rows flow-hash, sbf-<mem>, sbf-blocked-<mem>,
 * sbf-line-<mem> (at once), and the same with -late.
 */
void bench_layouts(void)
{
	static const u64 mems[] = { 64 << 10, 1 << 20, 64 << 20 };
	static const char *const mnames[] = { "64k", "1m", "64m" };
	static const u8 lays[] = { PKTDEDUP_LAYOUT_FLAT,
				   PKTDEDUP_LAYOUT_BLOCKED, PKTDEDUP_LAYOUT_LINE };
	unsigned int mi, li;
	double hash = 0;

	printf("\nSBF layouts, the module's path per packet (IPv4 flow key, one\n"
	       "SipHash-1-3 pass, prefetch, step; K 3, P for fps 1%%), ns (median\n"
	       "of %u runs of %u new flows), the step at once (mark, drop) and\n"
	       "late (count: a packet, %u from 4 MiB); lines: 64-byte lines a\n"
	       "step touches\n",
	       REPEAT, STEPS, PD_DEFER_DEEP);
	printf("%-8s %-8s %-3s %-8s %8s %8s %8s %11s\n", "memory", "layout",
	       "p", "fp", "at once", "late", "lines", "vs flat");
	for (mi = 0; mi < PD_ARRAY_SIZE(mems); mi++) {
		double flat_ns = 0, flat_late = 0;

		for (li = 0; li < PD_ARRAY_SIZE(lays); li++) {
			bool lay = lays[li] != PKTDEDUP_LAYOUT_FLAT;
			struct pd_filter_plan pl;
			struct pd_filter_req req;
			double ns, late, lines;
			struct pd_filter f;
			const char *why;
			char name[32];
			u64 next = 0;

			pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
					       mems[mi]);
			pd_sbf_req(&req)->k = 3;
			pd_sbf_req(&req)->layout = lays[li];
			if (pd_filter_create(&f, &req, &pl, &why)) {
				fprintf(stderr, "bench: %s\n", why);
				exit(1);
			}
			pd_filter_set_seeds(&f, 0x1234567, 0x89abcdef, 99);
			fam_run(&f, &next, STEPS, RUN_STEP, NULL, false);	/* warm */
			if (!mi && !lay)
				hash = fam_median(&f, &next, RUN_HASH);
			ns = fam_median(&f, &next, RUN_STEP);
			late = fam_median(&f, &next, RUN_DEFER);
			lines = mean_lines_step(pd_sbf_of(&f), 100000);
			if (!lay) {
				flat_ns = ns;
				flat_late = late;
			}
			printf("%-8s %-8s %-3u %7.3f%% %8.1f %8.1f %8.3f %5.2fx %5.2fx\n",
			       mem_name(mems[mi]), pd_sbf_layout_name(lays[li]),
			       pl.p,
			       100.0 * (double)pl.fp_bound / (double)PD_Q62_ONE,
			       ns, late, lines, ns / flat_ns, late / flat_late);
			if (lay)
				snprintf(name, sizeof(name), "sbf-%s-%s",
					 pd_sbf_layout_name(lays[li]),
					 mnames[mi]);
			else
				snprintf(name, sizeof(name), "sbf-%s",
					 mnames[mi]);
			json_row(name, ns, lines, (double)pl.bytes);
			strncat(name, "-late", sizeof(name) - strlen(name) - 1);
			json_row(name, late, lines, (double)pl.bytes);
			pd_filter_destroy(&f);
		}
	}
	printf("flow key + hash alone: %.1f ns\n", hash);
	json_row("flow-hash", hash, JSON_NONE, JSON_NONE);
}

#define SIZE_ROUNDS 31

/* An SBF of mem bytes with the defaults (layout auto), seeded, warm. */
static void size_filter(struct pd_filter *f, u64 mem, u64 *next,
			struct pd_filter_plan *pl)
{
	struct pd_filter_req req;
	const char *why;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, mem);
	if (pd_filter_create(f, &req, pl, &why)) {
		fprintf(stderr, "bench: %s\n", why);
		exit(1);
	}
	pd_filter_set_seeds(f, 0x1234567, 0x89abcdef, 99);
	fam_run(f, next, STEPS, RUN_STEP, NULL, false);	/* warm */
}

/*
 * One path's rounds (mode: RUN_DEFER, action count's; RUN_STEP, mark's
 * and drop's): in round r, 64 MiB and 1 MiB in alternating order, the
 * small filter's timed run after an untimed run that brings it back into
 * the caches; t1, t64 and their ratio q, sorted.
 */
static void size_rounds(struct pd_filter *f1, u64 *n1, struct pd_filter *f64,
			u64 *n64, enum run_mode mode, unsigned int r,
			double *t1, double *t64, double *q)
{
	if (r & 1)
		t64[r] = fam_run(f64, n64, STEPS / 16, mode, NULL, false);
	/* the 64 MiB run evicted the small one: back in cache first */
	fam_run(f1, n1, STEPS / 2, mode, NULL, false);
	t1[r] = fam_run(f1, n1, STEPS / 16, mode, NULL, false);
	if (!(r & 1))
		t64[r] = fam_run(f64, n64, STEPS / 16, mode, NULL, false);
	q[r] = t64[r] / t1[r];
}

static void size_report(const char *what, const char *json, double *t1,
			double *t64, double *q, double lines, u64 bytes)
{
	qsort(q, SIZE_ROUNDS, sizeof(q[0]), cmp_double);
	qsort(t1, SIZE_ROUNDS, sizeof(t1[0]), cmp_double);
	qsort(t64, SIZE_ROUNDS, sizeof(t64[0]), cmp_double);
	printf("%-40s %.2fx (quartiles %.2f-%.2f; medians %.1f against %.1f ns)\n",
	       what, q[SIZE_ROUNDS / 2], q[SIZE_ROUNDS / 4],
	       q[3 * SIZE_ROUNDS / 4], t64[SIZE_ROUNDS / 2],
	       t1[SIZE_ROUNDS / 2]);
	json_row(json, q[SIZE_ROUNDS / 2], lines, (double)bytes);
}

/*
 * What a filter beyond the caches costs against one within them, with
 * the defaults (layout auto): 64 MiB against 1 MiB, the module's path
 * per packet as in the layouts table, for action count (the default: each
 * step kept, a packet at 1 MiB, PD_DEFER_DEEP at 64 MiB, core/defer.h) and
 * for mark and drop (the step taken at once), in SIZE_ROUNDS rounds of a
 * run of STEPS / 16 new flows of each size and path, interleaved, so that all see the machine
 * as it is in that round (this shared machine's speed drifts by 2x
 * between runs of a minute); the median of the rounds' ratios and their
 * quartiles, and the lines a packet touches. JSON rows
 * sbf-auto-64m-over-1m (action count) and sbf-auto-64m-over-1m-at-once:
 * the median ratio in the ns field.
 */
void bench_size_ratio(void)
{
	double t1[2][SIZE_ROUNDS], t64[2][SIZE_ROUNDS], q[2][SIZE_ROUNDS];
	static const enum run_mode modes[2] = { RUN_DEFER, RUN_STEP };
	struct pd_filter_plan p1, p64;
	struct pd_filter f1, f64;
	u64 n1 = 0, n64 = 0;
	unsigned int r, m;
	double lines;

	size_filter(&f1, 1 << 20, &n1, &p1);
	size_filter(&f64, 64 << 20, &n64, &p64);
	for (r = 0; r < SIZE_ROUNDS; r++)
		for (m = 0; m < 2; m++)
			size_rounds(&f1, &n1, &f64, &n64, modes[(m + r) & 1],
				    r, t1[(m + r) & 1], t64[(m + r) & 1],
				    q[(m + r) & 1]);
	lines = PD_MAX(mean_lines_step(pd_sbf_of(&f1), 100000),
		       mean_lines_step(pd_sbf_of(&f64), 100000));
	printf("\n64 MiB against 1 MiB, the defaults (layout auto: %s, P %u), %u rounds of %u new flows each, interleaved; at most %.3f lines a packet:\n",
	       pd_sbf_layout_name(p64.layout), p64.p, SIZE_ROUNDS, STEPS / 16,
	       lines);
	size_report("action count (the steps kept):",
		    "sbf-auto-64m-over-1m", t1[0], t64[0], q[0], lines,
		    p64.bytes);
	size_report("mark, drop (the step at once):",
		    "sbf-auto-64m-over-1m-at-once", t1[1], t64[1], q[1], lines,
		    p64.bytes);
	pd_filter_destroy(&f1);
	pd_filter_destroy(&f64);
}

/* Packet-mode key: extraction + two hashes, by payload bytes N. */
/* ns of SipHash-1-3 over len bytes (median of REPEAT). */
static double bench_sip_ns(const u8 *p, u32 len)
{
	double t[REPEAT], t0;
	u32 j, r, steps = STEPS / 32;
	u64 acc = 0;

	for (r = 0; r < REPEAT; r++) {
		t0 = now_ns();
		for (j = 0; j < steps; j++)
			acc += pd_hash64(&bench_hkey, p, len - (j & 1));
		t[r] = (now_ns() - t0) / steps;
	}
	keep((u32)acc);
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

/* The bench's NH key (any: the cost does not depend on it), seeded first. */
static struct pd_nh_key bench_nh_key;

static const struct pd_nh_key *bench_nh(void)
{
	return &bench_nh_key;
}

/* A TCP/IPv4 packet of len bytes (20 + 20 + payload). */
static void bench_tcp4(u8 *pkt, u32 len)
{
	memset(pkt, 0x5a, len);
	pkt[0] = 0x45;
	pkt[2] = (u8)(len >> 8);
	pkt[3] = (u8)len;
	pkt[6] = 0x40;	/* DF, offset 0: a whole packet, not a fragment */
	pkt[7] = 0;
	pkt[8] = 64;
	pkt[9] = IPPROTO_TCP;
	pkt[20 + 12] = 5 << 4;
}

/* ns per key (extraction and hash) of pkt with payload n, one run of steps. */
static double bench_key_once(u8 *pkt, u32 len, u16 n, u32 steps)
{
	struct pd_key_opts o = { .nh = bench_nh(), .mode = PKTDEDUP_KEY_PACKET,
				 .payload = n };
	struct pd_key key;
	u32 acc = 0, j;
	double t0;

	t0 = now_ns();
	for (j = 0; j < steps; j++) {
		pkt[4] = (u8)j;	/* IP ID varies */
		pd_key_extract(pkt, len, &o, &key);
		acc += (u32)pd_key_hash64(&key, &bench_hkey);
	}
	keep(acc);
	return (now_ns() - t0) / steps;
}

#define KEY_ROUNDS 9

/*
 * Keys of pkt with payload a and with payload b, in turn KEY_ROUNDS times
 * (the machine's drift falls on both): their median ns in ta, tb, and the
 * median of the rounds' ratios tb / ta.
 */
static double bench_key_pair(u8 *pkt, u32 len, u16 a, u16 b, double *ta,
			     double *tb)
{
	double x[KEY_ROUNDS], y[KEY_ROUNDS], q[KEY_ROUNDS];
	u32 steps = STEPS / 16 / (len > 2000 ? 8 : 1), r;

	for (r = 0; r < KEY_ROUNDS; r++) {
		x[r] = bench_key_once(pkt, len, a, steps);
		y[r] = bench_key_once(pkt, len, b, steps);
		q[r] = y[r] / x[r];
	}
	qsort(x, KEY_ROUNDS, sizeof(x[0]), cmp_double);
	qsort(y, KEY_ROUNDS, sizeof(y[0]), cmp_double);
	qsort(q, KEY_ROUNDS, sizeof(q[0]), cmp_double);
	*ta = x[KEY_ROUNDS / 2];
	*tb = y[KEY_ROUNDS / 2];
	return q[KEY_ROUNDS / 2];
}

/* ns per byte of the tail digest alone (NH, and SipHash of the chunks). */
static double bench_nh_ns(const u8 *p, u32 len)
{
	double t[REPEAT], t0;
	u32 j, r, steps = STEPS / 32;
	u64 w[2], acc = 0;

	for (r = 0; r < REPEAT; r++) {
		t0 = now_ns();
		for (j = 0; j < steps; j++) {
			pd_nh_digest(bench_nh(), p, len, w);
			acc += w[0];
		}
		t[r] = (now_ns() - t0) / steps;
	}
	keep((u32)acc);
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

void bench_payload(void)
{
	static const u16 ns[] = { 0, 16, 32, 64, 128, 256, 1500 };
	static const u32 sizes[] = { 64, 512, 1500, 9000 };
	static u8 pkt[9000];
	double base, t, p64, q, b, a;
	unsigned int i;
	char name[40];

	pd_nh_key_seed(&bench_nh_key, 1);
	bench_tcp4(pkt, 1500);
	printf("\npacket key of a 1500-byte TCP/IPv4 packet by payload N: extraction\n"
	       "+ hash, ns per packet (each against N=0, in turn)\n");
	printf("%-9s %10s %8s\n", "payload N", "ns", "vs N=0");
	for (i = 0; i < PD_ARRAY_SIZE(ns); i++) {
		q = bench_key_pair(pkt, 1500, 0, ns[i], &base, &t);
		printf("%-9u %10.1f %7.2fx\n", ns[i], t, q);
		snprintf(name, sizeof(name), "packet-hash-%u", ns[i]);
		json_row(name, t, JSON_NONE, JSON_NONE);
	}
	printf("\nthe packet key of every byte (the default) by packet size, each\n"
	       "against payload 64 (the headers and 64 payload bytes through SipHash:\n"
	       "the key before every byte was covered) in turn, and against payload\n"
	       "64 of a 1500-byte packet: ns per packet\n");
	printf("%-6s %10s %10s %9s %12s %9s\n", "bytes", "payload 64", "every",
	       "ratio", "vs 1500 p64", "ns/byte");
	bench_tcp4(pkt, 1500);
	bench_key_pair(pkt, 1500, 64, 64, &p64, &t);
	for (i = 0; i < PD_ARRAY_SIZE(sizes); i++) {
		bench_tcp4(pkt, sizes[i]);
		q = bench_key_pair(pkt, sizes[i], 64, PKTDEDUP_PAYLOAD_ALL, &b, &a);
		printf("%-6u %10.1f %10.1f %8.2fx %11.2fx %9.3f\n", sizes[i], b, a,
		       q, a / p64, a / sizes[i]);
		snprintf(name, sizeof(name), "packet-key-all-%u", sizes[i]);
		json_row(name, a, JSON_NONE, JSON_NONE);
		snprintf(name, sizeof(name), "packet-key-64-%u", sizes[i]);
		json_row(name, b, JSON_NONE, JSON_NONE);
	}
	/* where the per-byte cost goes */
	t = bench_nh_ns(pkt, 8960) / 8960;
	printf("tail digest alone (NH and the chunks' SipHash): %.3f ns/byte;\n"
	       "SipHash-1-3 of the same bytes: %.3f ns/byte\n", t,
	       bench_sip_ns(pkt, 8960) / 8960);
	json_row("nh-ns-per-byte", t, JSON_NONE, JSON_NONE);
}
