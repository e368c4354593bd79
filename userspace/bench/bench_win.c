// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the time-window families on a timed stream against the
 * SBF, after quiet spells, and what their packet touches
 * (--save-window, --trace-window).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../module/core/timewin.h"
#include "bench.h"

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
	pd_tw_req(&req)->window_ns = wp->window_ns;
	pd_tw_req(&req)->rate = wp->rate;
	req.fps_ppb = WIN_FPS_PPB;
	if (pd_filter_create(f, &req, pl, &why)) {
		fprintf(stderr, "bench: %s %s: %s\n", ops->name, wp->name, why);
		exit(1);
	}
	pd_filter_set_seeds(f, 0x1234567, 0x89abcdef, 99);
}

void bench_windows(void)
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

static noinline double qb_burst(struct pd_filter *f,
				u64 *next, u64 t)
{
	return qb_run(f, next, QB_BURST, t, 100);
}

void bench_quiet_burst(void)
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
 * for eval/bench/lines-touched.sh as --trace-filter, reads that state (by
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

int save_window(const char *name, const char *plan, const char *path)
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

int trace_window(const char *name, const char *plan, u32 n, const char *path)
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

