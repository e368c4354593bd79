// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: cost of one Stable Bloom Filter step per element, as the
 * module runs it (one keyed SipHash-1-3 pass over an IPv4 flow key, K probes, P
 * adjacent decrements from one random start, K sets), against a baseline
 * measured in the same run that decrements P independent random cells
 * (the textbook reading of Algorithm 1). Also: cache lines the decrements
 * touch per element (from the addresses the code touches), and the cost of
 * packet-mode key extraction plus hashing by payload bytes N. Then every
 * filter family through filter.h (pd_filter_step(), as the module runs
 * it), against the SBF in the same run, which is also stepped directly
 * (pd_sbf_step()) to show what the interface costs it; and the window
 * families on a timed stream of new flows, against the SBF on the same
 * stream.
 *
 * Last, what a reader of the statistics pays: the occupancy of a 250 MiB
 * shared filter and of 256 CPUs' 256 KiB filters read whole, against the
 * module's bounded read (1 MiB in all, evenly spaced lines), with the
 * bounded read's error against the whole one. It costs the packet path
 * nothing (no per-packet count is kept).
 *
 * Timings are native userspace ones of the same core the module compiles;
 * read the ratios, not the absolute numbers, across machines.
 */
#define _GNU_SOURCE	/* memfd_create */
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../module/core/bitf.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/timewin.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"
#include "../../module/core/srcwin.h"

#define STEPS 1048576u	/* 2^20 */
#define REPEAT 3

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

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
		pd_sbf_decrement(f, pd_rng_below(&f->rng, f->cells), 1);
	pd_sbf_set_cells(f, pos);
	return dup;
}

/*
 * Results stored where the compiler cannot drop them, and the trace's
 * per-packet marker (lines-touched.sh): stores that always happen.
 */
static u32 sink, trace_marker;

static void keep(u32 v)
{
	__atomic_store_n(&sink, v, __ATOMIC_RELAXED);
}

static void mark(u32 i)
{
	__atomic_store_n(&trace_marker, i, __ATOMIC_RELAXED);
}

/*
 * Flow i's addresses, 10.i.i.i and 192.0.(i >> 24).1, each written whole:
 * as in a received packet, whose bytes were stored long before the key
 * is built (a byte store into an address the key then loads as one word
 * would stall store forwarding and bill the harness to the key).
 */
static void flow_addrs(u8 *src, u8 *dst, u64 i)
{
	u32 s = 10 | (u32)(i & 0xffffff) << 8, d = 192 | 2 << 16 |
		(u32)((i >> 24) & 0xff) << 8 | 1u << 24;

	memcpy(src, &s, 4);
	memcpy(dst, &d, 4);
}

/* The hash key of the filters stepped directly (pd_sbf_step()). */
static const struct pd_hkey bench_hkey = { { 0x1234567, 0x89abcdef } };

/* The module's two hashes of flow key i from src to dst: one pass. */
static void flow_hashes(const struct pd_sbf *f, u8 *src, const u8 *dst,
			u32 i, u32 *h1, u32 *h2)
{
	struct pd_key key;
	u64 h;

	pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst, IPPROTO_TCP,
		     (u16)(i * 40503u), 443);
	h = pd_key_hash64(&key, &bench_hkey);
	*h1 = (u32)h;
	*h2 = (u32)(h >> 32);
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

/*
 * Machine-readable results (--json FILE): one row per measured figure,
 * {"name", "ns_per_packet", "lines_per_packet" (where measured), "bytes"
 * (memory, where it applies)}; checks and Documentation/results/ rely on
 * the names.
 */
#define JSON_MAX_ROWS 256
#define JSON_NONE -1.0

static struct json_row {
	char name[48];
	double ns, lines, bytes;
} json_rows[JSON_MAX_ROWS];
static unsigned int json_n;

/* Record a row; lines or bytes JSON_NONE where they do not apply. */
static void json_row(const char *name, double ns, double lines, double bytes)
{
	struct json_row *r;

	if (json_n == JSON_MAX_ROWS) {
		fprintf(stderr, "bench: more than %u JSON rows\n", JSON_MAX_ROWS);
		exit(1);
	}
	r = &json_rows[json_n++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ns = ns;
	r->lines = lines;
	r->bytes = bytes;
}

static int json_write(const char *path)
{
	FILE *out = fopen(path, "w");
	unsigned int i;

	if (!out) {
		perror(path);
		return 1;
	}
	fprintf(out, "[\n");
	for (i = 0; i < json_n; i++) {
		const struct json_row *r = &json_rows[i];

		fprintf(out, "  {\"name\": \"%s\", \"ns_per_packet\": %.2f",
			r->name, r->ns);
		if (r->lines != JSON_NONE)
			fprintf(out, ", \"lines_per_packet\": %.3f", r->lines);
		if (r->bytes != JSON_NONE)
			fprintf(out, ", \"bytes\": %.0f", r->bytes);
		fprintf(out, "}%s\n", i + 1 < json_n ? "," : "");
	}
	fprintf(out, "]\n");
	return fclose(out) ? 1 : 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
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
 * run), from the addresses it computes; scripts/lines-touched.sh checks
 * the same under valgrind.
 */
static unsigned int lines_step(const struct pd_sbf *f, u32 h1, u32 h2,
			       u32 start)
{
	u64 seen[PD_SBF_MAX_K + 2];
	u32 pos[PD_SBF_MAX_K];
	unsigned int n = 0, i, j;

	pd_sbf_positions(f, h1, h2, pos);
	for (j = 0; j < f->k; j++) {
		u64 line = pos[j] * (u64)f->d / 512;

		for (i = 0; i < n && seen[i] != line; i++)
			;
		if (i == n)
			seen[n++] = line;
	}
	/* the run's lines: its first and last cell (a run spans <= 2) */
	for (j = 0; j < 2; j++) {
		u64 cell = j ? ((u64)start + f->p - 1) % f->cells : start;
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

static void bench_filters(void)
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
				prm = (struct pd_sbf_params){
					.cells = pl.cells, .max = (u8)pl.max,
					.k = (u8)pl.k, .p = pl.p };
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

static const char *mem_name(u64 mem);


#define FAM_GAP_NS 1000			/* pd_pktinfo.now: 1 Mpps */

/* What a run does with each packet's key. */
enum run_mode {
	RUN_STEP,	/* the hook's path: hash, prefetch, pd_filter_step() */
	RUN_DIRECT,	/* hash, then pd_sbf_step() without the interface */
	RUN_HASH,	/* the hash alone */
};

/*
 * n new flows from *next on (IPv4 flow keys); flow id arrives at (id + 1)
 * FAM_GAP_NS ns (read by the window families only). distinct, if given,
 * adds the packets called new; trace marks each packet.
 */
static double fam_run(struct pd_filter *f, u64 *next, u32 n,
		      enum run_mode mode, u64 *distinct, bool trace)
{
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	u32 i, dups = 0;
	u64 acc = 0;
	double t0 = now_ns();

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
		} else {
			pd_filter_prefetch(f, h);
			dups += pd_filter_step_hash(f, h, &pi);
		}
	}
	*next += n;
	keep((u32)acc);
	if (distinct)
		*distinct += n - dups;
	return (now_ns() - t0) / n;
}

/*
 * The SBF's layouts: flat (the paper's) and blocked (sbf.h), K 3 and P
 * planned for fps 1%, at 64 KiB, 1 MiB and 64 MiB, median of REPEAT runs
 * of STEPS new flows after a warm-up run; lines from the step's addresses.
 * JSON rows flow-hash, sbf-<mem>, sbf-blocked-<mem>.
 */
static void bench_layouts(void)
{
	static const u64 mems[] = { 64 << 10, 1 << 20, 64 << 20 };
	static const char *const mnames[] = { "64k", "1m", "64m" };
	unsigned int mi, lay, r;
	double hash = 0;

	printf("\nSBF layouts, the module's path per packet (IPv4 flow key, one\n"
	       "SipHash-1-3 pass, prefetch, step; K 3, P for fps 1%%), ns (median\n"
	       "of %u runs of %u new flows); lines: 64-byte lines a step touches\n",
	       REPEAT, STEPS);
	printf("%-8s %-8s %-3s %-8s %8s %8s %10s\n", "memory", "layout", "p",
	       "fp", "ns", "lines", "vs flat");
	for (mi = 0; mi < PD_ARRAY_SIZE(mems); mi++) {
		double flat_ns = 0;

		for (lay = 0; lay <= PKTDEDUP_LAYOUT_MAX; lay++) {
			struct pd_filter_plan pl;
			struct pd_filter_req req;
			double t[REPEAT], ns, lines;
			struct pd_filter f;
			const char *why;
			char name[32];
			u64 next = 0;

			pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF,
					       mems[mi]);
			req.k = 3;
			req.layout = (u8)lay;
			if (pd_filter_create(&f, &req, &pl, &why)) {
				fprintf(stderr, "bench: %s\n", why);
				exit(1);
			}
			pd_filter_set_seeds(&f, 0x1234567, 0x89abcdef, 99);
			fam_run(&f, &next, STEPS, RUN_STEP, NULL, false);	/* warm */
			if (!mi && !lay) {
				for (r = 0; r < REPEAT; r++)
					t[r] = fam_run(&f, &next, STEPS, RUN_HASH,
						       NULL, false);
				qsort(t, REPEAT, sizeof(t[0]), cmp_double);
				hash = t[REPEAT / 2];
			}
			for (r = 0; r < REPEAT; r++)
				t[r] = fam_run(&f, &next, STEPS, RUN_STEP, NULL,
					       false);
			qsort(t, REPEAT, sizeof(t[0]), cmp_double);
			ns = t[REPEAT / 2];
			if (!lay)
				flat_ns = ns;
			lines = mean_lines_step(pd_sbf_of(&f), 100000);
			printf("%-8s %-8s %-3u %7.3f%% %8.1f %8.3f %9.2fx\n",
			       mem_name(mems[mi]), lay ? "blocked" : "flat", pl.p,
			       100.0 * (double)pl.fp_bound / (double)PD_Q62_ONE,
			       ns, lines, ns / flat_ns);
			snprintf(name, sizeof(name), "sbf-%s%s",
				 lay ? "blocked-" : "", mnames[mi]);
			json_row(name, ns, lines, (double)pl.bytes);
			pd_filter_destroy(&f);
		}
	}
	printf("flow key + hash alone: %.1f ns\n", hash);
	json_row("flow-hash", hash, JSON_NONE, JSON_NONE);
}

/* Packet-mode key: extraction + two hashes, by payload bytes N. */
static void bench_payload(void)
{
	static const u16 ns[] = { 0, 16, 32, 64, 128, 256, 1500 };
	static u8 pkt[1500];
	unsigned int i, r;
	double base = 0;

	memset(pkt, 0x5a, sizeof(pkt));
	pkt[0] = 0x45;
	pkt[2] = 1500 >> 8;
	pkt[3] = 1500 & 0xff;
	pkt[6] = 0x40;	/* DF, offset 0: a whole packet, not a fragment */
	pkt[7] = 0;
	pkt[8] = 64;
	pkt[9] = IPPROTO_TCP;
	pkt[20 + 12] = 5 << 4;
	printf("\npacket key of a 1500-byte TCP/IPv4 packet: extraction + hash,\n"
	       "ns per packet\n");
	printf("%-8s %10s %8s %10s\n", "payload N",
	       "ns", "vs N=0", "key bytes");
	for (i = 0; i < PD_ARRAY_SIZE(ns); i++) {
		struct pd_key_opts o = { .mode = PKTDEDUP_KEY_PACKET, .payload = ns[i] };
		struct pd_key key;
		double t[REPEAT], t0;
		u32 acc = 0, j;
		char name[32];

		for (r = 0; r < REPEAT; r++) {
			t0 = now_ns();
			for (j = 0; j < STEPS / 4; j++) {
				pkt[4] = (u8)j;	/* IP ID varies */
				pd_key_extract(pkt, sizeof(pkt), &o, &key);
				acc += (u32)pd_key_hash64(&key, &bench_hkey);
			}
			t[r] = (now_ns() - t0) / (STEPS / 4);
		}
		keep(acc);
		qsort(t, REPEAT, sizeof(t[0]), cmp_double);
		if (!i)
			base = t[REPEAT / 2];
		printf("%-8u %10.1f %7.2fx %10u\n", ns[i], t[REPEAT / 2],
		       t[REPEAT / 2] / base, key.len + key.tail_len);
		snprintf(name, sizeof(name), "packet-hash-%u", ns[i]);
		json_row(name, t[REPEAT / 2], JSON_NONE, JSON_NONE);
	}
}

/*
 * Scope percpu against scope shared: two threads (the two CPUs here) each
 * step their own 1 MiB filter, or both step one filter under a spinlock,
 * as the module does in each scope.
 */
struct scope_arg {
	struct pd_sbf *f;
	pthread_spinlock_t *lock;
	u32 base;
	double ns;
};

static void *scope_worker(void *p)
{
	struct scope_arg *a = p;
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	struct pd_key key;
	u32 i, dups = 0;
	double t0 = now_ns();

	for (i = 0; i < STEPS; i++) {
		u32 n = a->base + i;
		u64 h;

		flow_addrs(src, dst, n);
		pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
			     IPPROTO_TCP, (u16)n, 443);
		h = pd_key_hash64(&key, &bench_hkey);
		if (a->lock)
			pthread_spin_lock(a->lock);
		dups += pd_sbf_step(a->f, (u32)h, (u32)(h >> 32));
		if (a->lock)
			pthread_spin_unlock(a->lock);
	}
	keep(dups);
	a->ns = (now_ns() - t0) / STEPS;
	return NULL;
}

/* nthreads (1 or 2) at once; ns per element per thread */
static double scope_run(struct pd_sbf *f, bool shared, int nthreads)
{
	pthread_spinlock_t lock;
	struct scope_arg a[2];
	pthread_t t[2];
	int i;

	pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE);
	for (i = 0; i < nthreads; i++) {
		a[i] = (struct scope_arg){ .f = shared ? &f[0] : &f[i],
					   .lock = shared ? &lock : NULL,
					   .base = (u32)i << 24 };
		pthread_create(&t[i], NULL, scope_worker, &a[i]);
	}
	for (i = 0; i < nthreads; i++)
		pthread_join(t[i], NULL);
	pthread_spin_destroy(&lock);
	return nthreads == 1 ? a[0].ns : (a[0].ns + a[1].ns) / 2;
}

static void bench_scope(void)
{
	struct pd_sbf_params prm = { .cells = 8 << 20, .max = 1, .k = 3,
				     .p = 11 };
	double pc[REPEAT], sh[REPEAT], one[REPEAT];
	struct pd_sbf f[2];
	const char *why;
	unsigned int r;

	if (pd_sbf_create(&f[0], &prm, &why) || pd_sbf_create(&f[1], &prm, &why)) {
		fprintf(stderr, "bench: %s\n", why);
		exit(1);
	}
	scope_run(f, false, 2);	/* warm */
	for (r = 0; r < REPEAT; r++) {
		one[r] = scope_run(f, false, 1);
		pc[r] = scope_run(f, false, 2);
		sh[r] = scope_run(f, true, 2);
	}
	qsort(one, REPEAT, sizeof(one[0]), cmp_double);
	qsort(pc, REPEAT, sizeof(pc[0]), cmp_double);
	qsort(sh, REPEAT, sizeof(sh[0]), cmp_double);
	printf("\nscope (1 MiB, max 1, k 3, p 11): ns per element per thread,\n"
	       "one thread on its filter; two at once (the two CPUs), each on\n"
	       "its own filter (percpu) or both on one under a spinlock (shared)\n");
	printf("%-10s %12s %12s %10s %12s\n", "", "1 thread", "2 percpu",
	       "2 shared", "shared/pcpu");
	printf("%-10s %12.1f %12.1f %10.1f %11.2fx\n", "", one[REPEAT / 2],
	       pc[REPEAT / 2], sh[REPEAT / 2], sh[REPEAT / 2] / pc[REPEAT / 2]);
	json_row("scope-percpu-1thread", one[REPEAT / 2], JSON_NONE,
		 (double)pd_sbf_bytes(&prm));
	json_row("scope-percpu-2threads", pc[REPEAT / 2], JSON_NONE,
		 (double)pd_sbf_bytes(&prm));
	json_row("scope-shared-2threads", sh[REPEAT / 2], JSON_NONE,
		 (double)pd_sbf_bytes(&prm));
	pd_sbf_destroy(&f[0]);
	pd_sbf_destroy(&f[1]);
}

/*
 * The source analytics' share of a packet, as module/sources/src_state.c
 * adds them after the dedup step (pd_srcs_add()): pd_srcwin_add() (two keyed
 * address hashes, a HyperLogLog register each for sources and
 * destinations, and with counters the Space-Saving update of the top
 * talkers), then the optional new-source filter step. Each level has its
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
		dups += pd_sbf_step(&b->f, h1, h2);
		/* pd_srcs_add(): rcu_dereference(pn->srcs), its CPU's part */
		s = __atomic_load_n(&b->lv[level], __ATOMIC_RELAXED);
		if (!s)
			continue;
		c = s->cpu[0];
		hs = pd_srcwin_add(&c->win, i, src, dst, 4);
		if (s->newsrc)
			dups += pd_sbf_step(&c->nf, (u32)hs, (u32)(hs >> 32));
	}
	keep(dups);
	return (now_ns() - t0) / n;
}

/*
 * The module's settings: a 1 MiB dedup filter, 12 sub-windows; top
 * talkers with 128 counters, a 64 KiB new-source filter planned for gap
 * 1000 where the level has them.
 */
static void src_setup(struct src_bench *b)
{
	struct pd_sbf_params prm = { .cells = 8 << 20, .max = 1, .k = 3,
				     .p = 11 };
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
	memset(&nprm, 0, sizeof(nprm));
	nprm.cells = np.cells;
	nprm.max = (u8)np.max;
	nprm.k = (u8)np.k;
	nprm.p = np.p;
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
 * Lines per packet of each level, as scripts/lines-touched.sh measured
 * them (its file: "LEVEL MEAN" per line); JSON_NONE where unknown.
 */
static double src_lines[SRC_NLEVELS] = {
	JSON_NONE, JSON_NONE, JSON_NONE, JSON_NONE, JSON_NONE,
};

static void src_read_lines(const char *path)
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

static void bench_sources(void)
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
	       "packet, all structures (scripts/lines-touched.sh)\n",
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

static void print_range(const char *name, const void *p, size_t len)
{
	printf("range %s %lx %lx\n", name, (unsigned long)p,
	       (unsigned long)p + len);
}

/*
 * One marker per level: lines-touched.sh tells the levels apart by it; a
 * store to src_idle ends a level's packets (what follows is not counted).
 */
static u32 src_marker[SRC_NLEVELS], src_idle;

/*
 * bench --trace-sources N: for scripts/lines-touched.sh, which runs this
 * under valgrind's lackey and counts the distinct cache lines of each
 * structure that each packet touches. Prints the structures' address
 * ranges and each level's marker, then, per level, warms up and runs N
 * packets that store to the level's marker first.
 */
static int trace_sources(u32 n)
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

static const char *mem_name(u64 mem)
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
static void fam_prefill(struct pd_filter *f, const struct pd_filter_plan *pl)
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

static void fam_create(struct pd_filter *f, struct pd_filter_plan *pl,
		       unsigned int kind, u64 mem, u8 layout)
{
	struct pd_filter_req req;
	const char *why;

	pd_filter_req_defaults(&req, (u8)kind, mem);
	req.layout = layout;
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

static void bench_families(void)
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
 * bench --trace-filter FAMILY MEM N: for scripts/lines-touched.sh, as
 * --trace-sources: the family's memory range and the marker, 2000 packets
 * of warm-up, then N marked packets.
 */
static int trace_filter(const char *name, u64 mem, u32 n)
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

/*
 * The window families on a timed stream: a new flow every FAM_GAP_NS ns
 * (1 Mpps), so that every duplicate verdict is a false positive, each
 * family planned for fps 0.001 (their default) as one of these:
 */
struct win_plan {
	const char *name;	/* as the table and lines-touched.sh say */
	u64 window_ns;
	u32 rate;		/* packets/s; 0: capacity from mem */
	u64 mem;		/* and the SBF it is compared with */
};

static const struct win_plan win_plans[] = {
	/* the capacity holds the stream: nothing leaves early */
	{ "2ms@1Mpps", 2000000, 1000000, 64 << 10 },
	/* the capacity (memory) is what expires: shorter effective windows */
	{ "1s/64KiB", 1000000000, 0, 64 << 10 },
	{ "1s/1MiB", 1000000000, 0, 1 << 20 },
	{ "1s/64MiB", 1000000000, 0, 64 << 20 },
};

#define WIN_FPS_PPB 1000000	/* 0.001 */
#define WIN_FAMS 3
#define WIN_ROWS (WIN_FAMS + 1)	/* the SBF first */

static const struct pd_filter_ops *const win_fams[WIN_FAMS] = {
	&pd_sliding_family, &pd_jumping_family, &pd_landmark_family,
};

static const struct win_plan *win_plan_by_name(const char *name)
{
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(win_plans); i++)
		if (!strcmp(win_plans[i].name, name))
			return &win_plans[i];
	fprintf(stderr, "bench: no window plan %s\n", name);
	exit(1);
}

/* From the start to the steady state: 2^20 packets or 1.25 windows. */
static u32 win_warm(const struct win_plan *wp)
{
	u64 n = wp->window_ns / FAM_GAP_NS * 5 / 4;

	return (u32)(n > STEPS ? n : STEPS);
}

static void win_create(struct pd_filter *f, struct pd_filter_plan *pl,
		       const struct pd_filter_ops *ops,
		       const struct win_plan *wp)
{
	struct pd_filter_req req;
	const char *why;

	pd_filter_req_defaults(&req, ops->kind, wp->mem);
	req.window_ns = wp->window_ns;
	req.rate = wp->rate;
	req.fps_ppb = WIN_FPS_PPB;
	if (pd_filter_create(f, &req, pl, &why)) {
		fprintf(stderr, "bench: %s %s: %s\n", ops->name, wp->name, why);
		exit(1);
	}
	pd_filter_set_seeds(f, 0x1234567, 0x89abcdef, 99);
}

static void fmt_bytes(char *buf, size_t len, u64 b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%.3g MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.3g KiB", b / 1024.0);
}

static void fmt_ns(char *buf, size_t len, u64 ns)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
}

static void bench_windows(void)
{
	unsigned int pi, row, r;

	printf("\nwindow families through filter.h, ns per packet (median of %u runs\n"
	       "of %u new flows: key + SipHash + pd_filter_step), fps 0.001;\n"
	       "stream: a new flow every %u ns (1 Mpps: pd_pktinfo.now advances\n"
	       "%u ns a packet), so every duplicate verdict is a false positive\n"
	       "(fp); from the steady state (after 2^20 packets or 1.25 windows).\n"
	       "plan 2ms@1Mpps: window 2 ms planned at rate 1 Mpps;\n"
	       "plan 1s/MEM: window 1 s, capacity from memory MEM (at 1 Mpps it\n"
	       "holds less: effective, the window at the latest expiry);\n"
	       "holds: packets the window holds (jumping: subwindow's keys x s);\n"
	       "sbf: the module's default SBF at MEM (64 KiB for 2ms@1Mpps) on\n"
	       "the same stream; ratio: against it\n", REPEAT, STEPS, FAM_GAP_NS,
	       FAM_GAP_NS);
	printf("%-10s %-8s %9s %-7s %2s %8s %9s %7s %8s %7s\n", "plan",
	       "family", "memory", "k/K, P", "s", "holds", "effective", "fp",
	       "ns", "ratio");
	for (pi = 0; pi < PD_ARRAY_SIZE(win_plans); pi++) {
		const struct win_plan *wp = &win_plans[pi];
		struct pd_filter_plan pl[WIN_ROWS];
		struct pd_filter_win win[WIN_ROWS];
		double t[WIN_ROWS][REPEAT], med[WIN_ROWS];
		u64 dist[WIN_ROWS] = { 0 };
		struct pd_filter f;

		for (row = 0; row < WIN_ROWS; row++) {
			u64 next = 0;

			if (row)
				win_create(&f, &pl[row], win_fams[row - 1], wp);
			else
				fam_create(&f, &pl[row], PKTDEDUP_FILTER_KIND_SBF,
					   wp->mem, PKTDEDUP_LAYOUT_FLAT);
			fam_run(&f, &next, win_warm(wp), RUN_STEP, NULL, false);
			for (r = 0; r < REPEAT; r++)
				t[row][r] = fam_run(&f, &next, STEPS, RUN_STEP,
						    &dist[row], false);
			pd_filter_window(&f, &win[row]);
			pd_filter_destroy(&f);
			qsort(t[row], REPEAT, sizeof(t[row][0]), cmp_double);
			med[row] = t[row][REPEAT / 2];
		}
		for (row = 0; row < WIN_ROWS; row++) {
			char par[16], mem[16], s[8] = "-", holds[16] = "-",
			     eff[16] = "-";

			fmt_bytes(mem, sizeof(mem), pl[row].bytes);
			if (row) {
				snprintf(par, sizeof(par), "%u", pl[row].k);
				snprintf(s, sizeof(s), "%u", pl[row].subwindows);
				snprintf(holds, sizeof(holds), "%llu",
					 (unsigned long long)(pl[row].capacity *
							      pl[row].subwindows));
				fmt_ns(eff, sizeof(eff), win[row].effective);
			} else {
				snprintf(par, sizeof(par), "%u, %u", pl[row].k,
					 pl[row].p);
			}
			printf("%-10s %-8s %9s %-7s %2s %8s %9s %6.3f%% %8.1f %6.2fx\n",
			       wp->name, row ? win_fams[row - 1]->name : "sbf",
			       mem, par, s, holds, eff,
			       100.0 - 100.0 * dist[row] / ((double)REPEAT * STEPS),
			       med[row], med[row] / med[0]);
		}
	}
}

/*
 * After a quiet spell: a 2 ms window (sliding, jumping; planned for 1 Mpps
 * or sized by 1 MiB) takes QB_ROUNDS rounds of 20 windows of quiet, a
 * burst of QB_BURST new flows 100 ns apart, then QB_STEADY new flows at
 * 1 Mpps. ns per packet of the bursts and of the steady packets, and their
 * ratio in the same run. The bursts run in qb_burst(): valgrind
 * --tool=callgrind --toggle-collect=qb_burst bench --quiet-burst counts
 * their instructions alone.
 */
#define QB_ROUNDS 400
#define QB_BURST 200
#define QB_STEADY 2000

/* n new flows from *next, the first at t, gap ns apart; ns spent. */
static double qb_run(struct pd_filter *f, u64 *next, u32 n, u64 t, u64 gap)
{
	u8 src[4] = { 10, 0, 0, 0 }, dst[4] = { 192, 0, 2, 1 };
	double t0 = now_ns();
	u32 i, dups = 0;

	for (i = 0; i < n; i++) {
		u64 id = *next + i;
		struct pd_pktinfo pi = { .now = t + i * gap };
		struct pd_key key;

		flow_addrs(src, dst, id);
		pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
			     IPPROTO_TCP, (u16)(id * 40503u), 443);
		dups += pd_filter_step_hash(f, pd_filter_hash(f, &key), &pi);
	}
	*next += n;
	keep(dups);
	return now_ns() - t0;
}

static __attribute__((noinline)) double qb_burst(struct pd_filter *f,
						 u64 *next, u64 t)
{
	return qb_run(f, next, QB_BURST, t, 100);
}

static void bench_quiet_burst(void)
{
	static const u32 rates[] = { 1000000, 0 };
	const u64 w = 2000000;
	unsigned int fi, ri, r;

	printf("\nafter a quiet spell: a 2 ms window, fps 0.001, %u rounds of 20 ms\n"
	       "of quiet, a burst of %u new flows 100 ns apart, then %u new flows\n"
	       "at 1 Mpps; ns per packet (key + SipHash + pd_filter_step) of the\n"
	       "bursts and of the steady packets; ratio: burst against steady\n",
	       QB_ROUNDS, QB_BURST, QB_STEADY);
	printf("%-8s %-9s %9s %9s %9s %7s\n", "family", "plan", "memory",
	       "steady", "burst", "ratio");
	for (fi = 0; fi < 2; fi++) {
		for (ri = 0; ri < PD_ARRAY_SIZE(rates); ri++) {
			const struct win_plan wp = { "qb", w, rates[ri],
						     1 << 20 };
			double burst = 0, steady = 0;
			struct pd_filter_plan pl;
			struct pd_filter f;
			u64 next = 0, t = w;
			char mem[16];

			win_create(&f, &pl, win_fams[fi], &wp);
			qb_run(&f, &next, QB_STEADY, t, 1000);	/* warm */
			t += QB_STEADY * 1000ULL;
			for (r = 0; r < QB_ROUNDS; r++) {
				t += 20 * w;
				burst += qb_burst(&f, &next, t);
				t += QB_BURST * 100ULL;
				steady += qb_run(&f, &next, QB_STEADY, t, 1000);
				t += QB_STEADY * 1000ULL;
			}
			pd_filter_destroy(&f);
			burst /= (double)QB_ROUNDS * QB_BURST;
			steady /= (double)QB_ROUNDS * QB_STEADY;
			fmt_bytes(mem, sizeof(mem), pl.bytes);
			printf("%-8s %-9s %9s %9.1f %9.1f %6.2fx\n",
			       win_fams[fi]->name, rates[ri] ? "1 Mpps" : "1 MiB",
			       mem, steady, burst, burst / steady);
		}
	}
}

/*
 * The window families' steady state takes up to 1.25 s of stream (1.25M
 * packets) to reach, too many to trace under lackey: bench --save-window
 * FAMILY PLAN FILE runs them natively and saves the filter, its memory and
 * the next flow to FILE (and prints the filter's bytes and the memory of
 * the SBF it is compared with); bench --trace-window FAMILY PLAN N FILE,
 * for scripts/lines-touched.sh as --trace-filter, reads that state (by
 * pread(): the kernel copies, so lackey traces no stores) and runs 2000
 * packets, then N marked ones, from it.
 */
struct win_state {
	u64 next;
	u64 bytes;
	u32 kind;
	struct pd_filter f;	/* its pointers are the saving process's */
};

static const struct pd_filter_ops *win_family(const char *name)
{
	const struct pd_filter_ops *ops = pd_filter_family_by_name(name);

	if (!ops || !ops->timed) {
		fprintf(stderr, "bench: no window family %s\n", name);
		exit(1);
	}
	return ops;
}

static int save_window(const char *name, const char *plan, const char *path)
{
	const struct win_plan *wp = win_plan_by_name(plan);
	struct win_state st = { 0 };
	struct pd_filter_plan pl;
	FILE *out = fopen(path, "wb");

	if (!out) {
		perror(path);
		return 1;
	}
	win_create(&st.f, &pl, win_family(name), wp);
	fam_run(&st.f, &st.next, win_warm(wp), RUN_STEP, NULL, false);
	st.bytes = pl.bytes;
	st.kind = pl.kind;
	if (fwrite(&st, sizeof(st), 1, out) != 1 ||
	    fwrite(st.f.mem, pl.bytes, 1, out) != 1 || fclose(out)) {
		perror(path);
		return 1;
	}
	printf("%llu %llu\n", (unsigned long long)pl.bytes,
	       (unsigned long long)wp->mem);
	pd_filter_destroy(&st.f);
	return 0;
}

static int trace_window(const char *name, const char *plan, u32 n,
			const char *path)
{
	const struct win_plan *wp = win_plan_by_name(plan);
	const struct pd_filter_ops *ops = win_family(name);
	struct pd_filter_plan pl;
	struct win_state st;
	struct pd_filter f;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		perror(path);
		return 1;
	}
	win_create(&f, &pl, ops, wp);
	if (pread(fd, &st, sizeof(st), 0) != (ssize_t)sizeof(st) ||
	    st.bytes != pl.bytes || st.kind != ops->kind ||
	    pread(fd, f.mem, pl.bytes, sizeof(st)) != (ssize_t)pl.bytes) {
		fprintf(stderr, "bench: %s: not the state of %s %s\n", path,
			name, plan);
		return 1;
	}
	close(fd);
	/* the saved state, over this process's memory and ops */
	st.f.ops = f.ops;
	st.f.mem = f.mem;
	if (ops == &pd_sliding_family) {
		pd_slide_of(&st.f)->cell = pd_slide_of(&f)->cell;
		pd_slide_of(&st.f)->ring = pd_slide_of(&f)->ring;
	} else {
		pd_jump_of(&st.f)->slot = pd_jump_of(&f)->slot;
		pd_jump_of(&st.f)->words = pd_jump_of(&f)->words;
		pd_jump_of(&st.f)->mark = pd_jump_of(&f)->mark;
	}
	f = st.f;
	print_range(name, f.mem, pl.bytes);
	printf("marker %lx\n", (unsigned long)&trace_marker);
	fflush(stdout);
	/* while lines-touched.sh notices the marker */
	fam_run(&f, &st.next, 2000, RUN_STEP, NULL, false);
	fam_run(&f, &st.next, n, RUN_STEP, NULL, true);
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

static void bench_occupancy(void)
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

int main(int argc, char **argv)
{
	const char *json = NULL;

	if (argc >= 3 && !strcmp(argv[1], "--json")) {
		json = argv[2];
		argc -= 2;
		argv += 2;
	}
	if (argc >= 3 && !strcmp(argv[1], "--lines")) {
		src_read_lines(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--trace-sources"))
		return trace_sources((u32)strtoul(argv[2], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "--trace-filter"))
		return trace_filter(argv[2], strtoull(argv[3], NULL, 0),
				    (u32)strtoul(argv[4], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "--save-window"))
		return save_window(argv[2], argv[3], argv[4]);
	if (argc == 6 && !strcmp(argv[1], "--trace-window"))
		return trace_window(argv[2], argv[3],
				    (u32)strtoul(argv[4], NULL, 10), argv[5]);
	if (argc == 2 && !strcmp(argv[1], "--families")) {
		bench_families();
	} else if (argc == 2 && !strcmp(argv[1], "--layouts")) {
		bench_layouts();
	} else if (argc == 2 && !strcmp(argv[1], "--windows")) {
		bench_windows();
	} else if (argc == 2 && !strcmp(argv[1], "--sources")) {
		bench_sources();
	} else if (argc == 2 && !strcmp(argv[1], "--occupancy")) {
		bench_occupancy();
	} else if (argc == 2 && !strcmp(argv[1], "--quiet-burst")) {
		bench_quiet_burst();
	} else if (argc == 1) {
		bench_filters();
		bench_layouts();
		bench_payload();
		bench_scope();
		bench_sources();
		bench_families();
		bench_windows();
		bench_quiet_burst();
		bench_occupancy();
	} else {
		fprintf(stderr, "usage: bench [--json FILE] [--lines FILE] [--layouts | --families | --windows | --quiet-burst | --sources | --occupancy]\n");
		return 2;
	}
	return json ? json_write(json) : 0;
}
