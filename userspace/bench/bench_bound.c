// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the worst packet the step's bound allows (core/step.h). A
 * plan whose step would touch more than PD_STEP_MAX_LINES lines of its
 * filter is refused; this measures what the largest settings allowed
 * cost a packet against the defaults, in the same run: the SBF's largest
 * P (found by asking the planner: the bound decides, not a number here)
 * with 1-bit and 8-bit cells, the IBF's, RSBF with 16 arrays in its
 * phase 3, a sliding window at fps 10^-9, in a filter that fits the
 * caches and in one of 64 MiB; and a jumping window whose spare is
 * emptied over few packets, its worst packet alone (a jump waiting for
 * the spare: nine steps of cleaning at once), each timed by itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "../../module/core/ibf.h"
#include "../../module/core/timewin.h"

#define BOUND_STEPS 16384u	/* packets of a run at the largest settings */
#define BOUND_WORST 2000u	/* the jumping window's worst packets timed */

struct bound_case {
	const char *name;	/* bench.json: bound-NAME-MEM */
	const char *what;	/* the table's */
	u8 kind;
	u32 max, k;		/* PD_FILTER_AUTO: the family's choice */
	bool largest_p;		/* the largest P the bound allows */
};

static const struct bound_case bound_cases[] = {
	{ "default", "sbf, the defaults", PKTDEDUP_FILTER_KIND_SBF,
	  PD_FILTER_AUTO, PD_FILTER_AUTO, false },
	{ "sbf-d1", "sbf max 1 k 3, the largest p", PKTDEDUP_FILTER_KIND_SBF,
	  1, 3, true },
	{ "sbf-d8", "sbf max 255 k 16, the largest p",
	  PKTDEDUP_FILTER_KIND_SBF, 255, 16, true },
	{ "ibf-mc", "ibf-mc max 15 k 16, the largest p",
	  PKTDEDUP_FILTER_KIND_IBF_MC, 15, 16, true },
	{ "rsbf", "rsbf k 16, phase 3", PKTDEDUP_FILTER_KIND_RSBF, 0, 16,
	  false },
	{ "sliding", "sliding 2 ms at 1 Mpps, fps 1e-9",
	  PKTDEDUP_FILTER_KIND_SLIDING, 0, PD_FILTER_AUTO, false },
};

static const u64 bound_mems[] = { 256 << 10, 64 << 20 };

/* The request of case c over mem bytes, P auto. */
static void bound_req(const struct bound_case *c, u64 mem,
		      struct pd_filter_req *req)
{
	pd_filter_req_defaults(req, c->kind, mem);
	switch (c->kind) {
	case PKTDEDUP_FILTER_KIND_SBF:
		pd_sbf_req(req)->max = c->max;
		pd_sbf_req(req)->k = c->k;
		pd_sbf_req(req)->layout = PKTDEDUP_LAYOUT_FLAT;
		break;
	case PKTDEDUP_FILTER_KIND_IBF_MC:
		pd_ibf_req(req)->max = c->max;
		pd_ibf_req(req)->k = c->k;
		break;
	case PKTDEDUP_FILTER_KIND_RSBF:
		pd_bitf_req(req)->k = c->k;
		break;
	case PKTDEDUP_FILTER_KIND_SLIDING:
		pd_tw_req(req)->window_ns = 2000000;
		pd_tw_req(req)->rate = 1000000;
		req->fps_ppb = 1;
		break;
	}
}

/* Set P of an SBF or IBF request. */
static void bound_set_p(struct pd_filter_req *req, u64 p)
{
	if (req->kind == PKTDEDUP_FILTER_KIND_SBF)
		pd_sbf_req(req)->p = p;
	else
		pd_ibf_req(req)->p = p;
}

/* The largest P the planner takes for req (the step's bound decides). */
static u64 bound_largest_p(struct pd_filter_req *req)
{
	struct pd_filter_plan pl;
	const char *why;
	u64 lo = 1, hi = 1ULL << 32;

	while (lo + 1 < hi) {
		u64 mid = lo + (hi - lo) / 2;

		bound_set_p(req, mid);
		if (pd_filter_plan(req, &pl, &why))
			hi = mid;
		else
			lo = mid;
	}
	bound_set_p(req, lo);
	return lo;
}

static void bound_create(struct pd_filter *f, struct pd_filter_plan *pl,
			 const struct pd_filter_req *req)
{
	char msg[PD_FILTER_REFUSAL_LEN];
	const char *why;
	int err = pd_filter_create(f, req, pl, &why);

	if (err) {
		fprintf(stderr, "bench: %s: %s\n", pd_filter_family(req->kind)->name,
			pd_filter_refusal(req, pl, err, why, msg, sizeof(msg)));
		exit(1);
	}
	pd_filter_set_seeds(f, 0x1234567, 0x89abcdef, 99);
	if (req->kind == PKTDEDUP_FILTER_KIND_RSBF)
		fam_prefill(f, pl);	/* its stable load, phase 3 */
}

/* ns per packet of case c over mem: the median of REPEAT runs. */
static double bound_run(const struct bound_case *c, u64 mem,
			struct pd_filter_plan *pl)
{
	struct pd_filter_req req;
	double t[REPEAT];
	struct pd_filter f;
	u32 n = c->largest_p || c->kind != PKTDEDUP_FILTER_KIND_SBF ?
		BOUND_STEPS : STEPS;
	u64 next = 0;
	unsigned int r;

	bound_req(c, mem, &req);
	if (c->largest_p)
		bound_largest_p(&req);
	bound_create(&f, pl, &req);
	fam_run(&f, &next, n / 4, RUN_STEP, NULL, false);	/* warm */
	for (r = 0; r < REPEAT; r++)
		t[r] = fam_run(&f, &next, n, RUN_STEP, NULL, false);
	pd_filter_destroy(&f);
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

/*
 * A jumping window of 63 subwindows at fps 10^-6, planned for 1 Mpps over
 * 1.671 ms: 26 packets a subwindow, its spare emptied over 13. Packets
 * at 1 Mpps each timed alone, the median of BOUND_WORST; wait: each the
 * window's worst, a due jump that waits for a spare not yet emptied at
 * all (nine steps of cleaning), the spare made dirty again before it.
 */
static double bound_jump(struct pd_filter_plan *pl, bool wait)
{
	struct pd_filter_req req;
	struct pd_filter f;
	struct pd_jump *j;
	double *t, med;
	u64 id = 1, x;
	u32 i;

	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_JUMPING, 0);
	pd_tw_req(&req)->window_ns = 1671000;
	pd_tw_req(&req)->rate = 1000000;
	pd_tw_req(&req)->subwindows = 63;
	req.fps_ppb = 1000;
	bound_create(&f, pl, &req);
	j = pd_jump_of(&f);
	t = calloc(BOUND_WORST, sizeof(*t));
	if (!t)
		exit(1);
	for (i = 0; i < BOUND_WORST; i++) {
		struct pd_pktinfo pi = { .now = (i + 1) * 1000ULL };
		double t0;

		x = pd_rng_next(&id);
		if (wait) {
			pd_filter_step(&f, (u32)x, (u32)(x >> 32), &pi);
			memset(j->words, 0xff, (size_t)j->nwords * sizeof(u64));
			j->clean_pos = 0;
			j->slot[j->cur].start = j->w.now - j->sub;
			j->slot[j->cur].keys = 1;
			x = pd_rng_next(&id);
		}
		t0 = now_ns();
		pd_filter_step(&f, (u32)x, (u32)(x >> 32), &pi);
		t[i] = now_ns() - t0;
	}
	qsort(t, BOUND_WORST, sizeof(t[0]), cmp_double);
	med = t[BOUND_WORST / 2];
	free(t);
	pd_filter_destroy(&f);
	return med;
}

void bench_step_bound(void)
{
	unsigned int mi, ci;
	char name[48], b[32], m[32];

	printf("\n== The worst packet the step's bound allows (%u lines of 64 bytes), against the defaults ==\n",
	       PD_STEP_MAX_LINES);
	printf("ns per packet: flow key + SipHash + pd_filter_step(), median of %u runs of new\n"
	       "flows (%u at the defaults, %u at the largest settings); lines: the\n"
	       "plan's bound; ratio: against the SBF's defaults at the same memory\n",
	       REPEAT, STEPS, BOUND_STEPS);
	printf("%-8s %-38s %7s %6s %9s %8s\n", "memory", "filter", "P", "lines",
	       "ns", "ratio");
	for (mi = 0; mi < PD_ARRAY_SIZE(bound_mems); mi++) {
		double base = 0;

		for (ci = 0; ci < PD_ARRAY_SIZE(bound_cases); ci++) {
			const struct bound_case *c = &bound_cases[ci];
			struct pd_filter_plan pl;
			double ns;

			/* the bit arrays and the window: in cache only */
			if (mi && (c->kind == PKTDEDUP_FILTER_KIND_RSBF ||
				   c->kind == PKTDEDUP_FILTER_KIND_SLIDING))
				continue;
			ns = bound_run(c, bound_mems[mi], &pl);
			if (!ci)
				base = ns;
			snprintf(b, sizeof(b), "%u", pl.p);
			fmt_bytes(m, sizeof(m), bound_mems[mi]);
			printf("%-8s %-38s %7s %6llu %9.1f %7.1fx\n", m, c->what,
			       pd_filter_family(pl.kind)->counting &&
			       !pd_filter_family(pl.kind)->window ? b : "-",
			       (unsigned long long)pl.step_lines, ns, ns / base);
			snprintf(name, sizeof(name), "bound-%s-%s", c->name,
				 mi ? "64m" : "256k");
			json_row(name, ns, (double)pl.step_lines,
				 (double)bound_mems[mi]);
		}
	}
	{
		struct pd_filter_plan pl;
		double worst = bound_jump(&pl, true), plain = bound_jump(&pl, false);

		printf("jumping, 63 subwindows at fps 1e-6, one packet timed alone: %.1f ns when a\n"
		       "jump waits for its spare (%llu lines by the bound), %.1f ns otherwise\n",
		       worst, (unsigned long long)pl.step_lines, plain);
		json_row("bound-jumping-wait", worst, (double)pl.step_lines,
			 (double)pl.bytes);
		json_row("bound-jumping-plain", plain, JSON_NONE,
			 (double)pl.bytes);
	}
}
