/* SPDX-License-Identifier: GPL-2.0 */
/*
 * make bench: what its files share (bench.c: the helpers, the JSON rows
 * and main(); bench_sbf.c, bench_scope.c, bench_fam.c, bench_src.c,
 * bench_win.c, bench_decap.c, bench_bound.c: one concern each).
 */
#ifndef PD_BENCH_H
#define PD_BENCH_H

#include <stdbool.h>
#include <stddef.h>

#include "../../module/core/bitf.h"
#include "../../module/core/defer.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"

#define STEPS 1048576u	/* 2^20 */
#define REPEAT 3
#define JSON_NONE -1.0

/* bench.c: the helpers */
double now_ns(void);
/* Results stored where the compiler cannot drop them. */
void keep(u32 v);
/* The trace's per-packet marker (lines-touched.sh). */
void mark(u32 i);
extern u32 trace_marker;
/* Flow i's addresses, and its key's two hashes under f's key. */
void flow_addrs(u8 *src, u8 *dst, u64 i);
void flow_hashes(const struct pd_sbf *f, u8 *src, const u8 *dst, u32 i,
		 u32 *h1, u32 *h2);
/* The hash key of the benches' flow keys. */
extern const struct pd_hkey bench_hkey;
/* A row of --json FILE; lines or bytes JSON_NONE where they do not apply. */
void json_row(const char *name, double ns, double lines, double bytes);
int json_write(const char *path);
int cmp_double(const void *a, const void *b);
/* An address range, for lines-touched.sh. */
void print_range(const char *name, const void *p, size_t len);
void fmt_bytes(char *buf, size_t len, u64 b);
void fmt_ns(char *buf, size_t len, u64 ns);

/* bench_fam.c: the families; what the other benches share of it */
#define FAM_GAP_NS 1000			/* pd_pktinfo.now: 1 Mpps */
/* What a run does with each packet's key. */
enum run_mode {
	RUN_STEP,	/* the hook's path: hash, prefetch, pd_filter_step() */
	/*
	 * action count's: hash, prefetch, the step kept a packet before
	 * (core/defer.h)
	 */
	RUN_DEFER,
	RUN_DIRECT,	/* hash, then pd_sbf_step() without the interface */
	RUN_HASH,	/* the hash alone */
};

double fam_run(struct pd_filter *f, u64 *next, u32 n, enum run_mode mode,
	       u64 *distinct, bool trace);
void fam_create(struct pd_filter *f, struct pd_filter_plan *pl,
		unsigned int kind, u64 mem, u8 layout);
/* A bit-array filter's arrays at its plan's stable load (RSBF: phase 3). */
void fam_prefill(struct pd_filter *f, const struct pd_filter_plan *pl);
const char *mem_name(u64 mem);
void bench_families(void);
int trace_filter(const char *name, u64 mem, u32 n);
void bench_occupancy(void);

/* bench_sbf.c */
void bench_filters(void);
void bench_layouts(void);
void bench_size_ratio(void);
void bench_payload(void);

/* bench_scope.c */
/* The most threads of the scope tables (--threads N); 0: the default. */
void scope_set_threads(unsigned int n);
void bench_scope(void);
void bench_shards(void);
void bench_atomics(void);
int scope_cpu(unsigned int i);
void scope_start_wait(void);
void scope_threads_run(unsigned int n, void *(*fn)(void *), void *arg,
		       size_t size);
unsigned int scope_cpus_n(void);
double scope_line_move(void);
/* ns per packet per thread: a step a packet late (count), and at once */
struct scope_pair_ns {
	double percpu, shared, percpu_now, shared_now;
};

void scope_pair(unsigned int t, struct scope_pair_ns *ns);
void bench_placement(void);

/* bench_src.c */
void src_read_lines(const char *path);
void bench_sources(void);
int trace_sources(u32 n);

/* bench_decap.c */
void bench_decap(void);
int trace_decap(u32 n);
void decap_read_lines(const char *path);

/* bench_bound.c */
void bench_step_bound(void);

/* bench_win.c */
void bench_windows(void);
void bench_quiet_burst(void);
int save_window(const char *name, const char *plan, const char *path);
int trace_window(const char *name, const char *plan, u32 n, const char *path);

#endif /* PD_BENCH_H */
