// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: a filter's plan as it prints it, from the kernel's reply or
 * from the local planner (show, plan), and the family a reply names.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/config.h"
#include "../../module/core/filter.h"
#include "../../module/core/fixed.h"
#include "../../module/core/rate.h"
#include "../../module/core/timewin.h"
#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"
/* The nest attribute of family ops in the filter set (by its name). */
uint16_t family_nest(const struct pd_filter_ops *ops)
{
	uint16_t t;

	for (t = 1; t <= nls_filter.max; t++)
		if (nls_filter.attrs[t].name &&
		    !strcmp(nls_filter.attrs[t].name, ops->name))
			return t;
	fprintf(stderr, "dedupctl: the protocol has no nest for filter %s\n",
		ops->name);
	dedupctl_exit(EXIT_REFUSED);
}

const struct pd_filter_ops *kind_family(uint32_t kind)
{
	const struct pd_filter_ops *ops = pd_filter_family(kind);

	if (!ops) {
		fprintf(stderr, "dedupctl: the kernel's filter %u is unknown to this dedupctl\n",
			kind);
		dedupctl_exit(EXIT_REFUSED);
	}
	return ops;
}

/* A time in ns as people write it: "2 ms", "500 us", "1.5 s". */
const char *time_str(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "h", 3600e9 }, { "min", 60e9 }, { "s", 1e9 }, { "ms", 1e6 },
		{ "us", 1e3 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (ns >= units[i].ns) {
			snprintf(buf, len, "%.4g %s", ns / units[i].ns,
				 units[i].unit);
			return buf;
		}
	snprintf(buf, len, "%llu ns", (unsigned long long)ns);
	return buf;
}

void plan_view_nl(const struct nlattr *nest, struct plan_view *v)
{
	const struct nlattr *p[PKTDEDUP_A_FILTER_PLAN_MAX + 1];
	static const struct {
		uint16_t attr;
		uint32_t given;
	} model[] = {
		{ PKTDEDUP_A_FILTER_PLAN_FP_BOUND, PD_PLAN_HAS_FP },
		{ PKTDEDUP_A_FILTER_PLAN_STABLE_ZERO, PD_PLAN_HAS_ZERO },
		{ PKTDEDUP_A_FILTER_PLAN_STABLE_LOAD, PD_PLAN_HAS_LOAD },
		{ PKTDEDUP_A_FILTER_PLAN_FN, PD_PLAN_HAS_FN },
	};
	unsigned int i;

	nl_nest(nest, &nls_filter_plan, p);
	memset(v, 0, sizeof(*v));
	v->ops = kind_family(u32a(p, PKTDEDUP_A_FILTER_PLAN_KIND));
	v->k = u32a(p, PKTDEDUP_A_FILTER_PLAN_K);
	v->cells = u64a(p, PKTDEDUP_A_FILTER_PLAN_CELLS);
	v->max = u32a(p, PKTDEDUP_A_FILTER_PLAN_CELL_MAX);
	v->bits = u32a(p, PKTDEDUP_A_FILTER_PLAN_BITS);
	v->p = u32a(p, PKTDEDUP_A_FILTER_PLAN_P);
	v->p_star = u32a(p, PKTDEDUP_A_FILTER_PLAN_P_STAR);
	for (i = 0; i < sizeof(model) / sizeof(model[0]); i++)
		if (p[model[i].attr])
			v->given |= model[i].given;
	v->fp = u32a(p, PKTDEDUP_A_FILTER_PLAN_FP_BOUND);
	v->zero = u32a(p, PKTDEDUP_A_FILTER_PLAN_STABLE_ZERO);
	v->load = u32a(p, PKTDEDUP_A_FILTER_PLAN_STABLE_LOAD);
	v->fn = u32a(p, PKTDEDUP_A_FILTER_PLAN_FN);
	v->fn_low = u32a(p, PKTDEDUP_A_FILTER_PLAN_FN_LOW);
	v->gap = u64a(p, PKTDEDUP_A_FILTER_PLAN_GAP);
	if (p[PKTDEDUP_A_FILTER_PLAN_CAPACITY])
		v->given |= PD_PLAN_HAS_WINDOW;
	v->window_ns = u64a(p, PKTDEDUP_A_FILTER_PLAN_WINDOW_NS);
	v->window_pkts = u64a(p, PKTDEDUP_A_FILTER_PLAN_WINDOW_PACKETS);
	v->capacity = u64a(p, PKTDEDUP_A_FILTER_PLAN_CAPACITY);
	v->rate = u64a(p, PKTDEDUP_A_FILTER_PLAN_RATE);
	v->subwindows = u32a(p, PKTDEDUP_A_FILTER_PLAN_SUBWINDOWS);
	v->warn_below = u32a(p, PKTDEDUP_A_FILTER_PLAN_WARN_BELOW);
	v->layout = p[PKTDEDUP_A_FILTER_PLAN_LAYOUT] ?
		    u8a(p, PKTDEDUP_A_FILTER_PLAN_LAYOUT) : -1;
	v->step_lines = u32a(p, PKTDEDUP_A_FILTER_PLAN_STEP_LINES);
}

void plan_view_local(const struct pd_filter_ops *ops,
		     const struct pd_filter_plan *pl, struct plan_view *v)
{
	*v = (struct plan_view){
		.ops = ops, .k = pl->k, .max = pl->max, .bits = pl->bits,
		.p = pl->p, .p_star = pl->p_star_ppb, .given = pl->given,
		.cells = pl->cells, .gap = pl->gap,
		.p_exact_q32 = pl->p_exact_q32,
		.fp = pd_q62_to_ppb(pl->fp_bound),
		.zero = pd_q62_to_ppb(pl->stable_zero),
		.load = pd_q62_to_ppb(pl->stable_load),
		.fn = pd_q62_to_ppb(pl->fn_rate),
		.fn_low = pd_q62_to_ppb(pl->fn_low),
		.window_ns = pl->window_ns, .window_pkts = pl->window_pkts,
		.capacity = pl->capacity, .rate = pl->rate,
		.subwindows = pl->subwindows, .warn_below = pl->warn_below,
		.layout = pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_LAYOUT) ?
			  pl->layout : -1,
		.step_lines = pl->step_lines,
	};
}

/*
 * The bound of a packet's step (core/step.h): a JSON member, or a line of
 * text; nothing if the kernel does not say it.
 */
static void print_step(const struct plan_view *v)
{
	char b1[32], b2[32];

	if (!v->step_lines)
		return;
	if (json) {
		printf(",\"step_lines\":%llu",
		       (unsigned long long)v->step_lines);
		return;
	}
	printf("step     at most %llu line%s (%s) of the filter a packet, of the %u (%s) any may\n",
	       (unsigned long long)v->step_lines,
	       v->step_lines == 1 ? "" : "s",
	       size_str(b1, sizeof(b1), v->step_lines * PD_STEP_LINE_BYTES),
	       PD_STEP_MAX_LINES,
	       size_str(b2, sizeof(b2),
			(uint64_t)PD_STEP_MAX_LINES * PD_STEP_LINE_BYTES));
}

/* Packets per second as people write them: "2.5 Mpps", "100 pps". */
static const char *rate_str(char *buf, size_t len, uint64_t pps)
{
	if (pps >= 1000000)
		snprintf(buf, len, "%.4g Mpps", pps / 1e6);
	else if (pps >= 1000)
		snprintf(buf, len, "%.4g kpps", pps / 1e3);
	else
		snprintf(buf, len, "%llu pps", (unsigned long long)pps);
	return buf;
}

/* A window family's plan: JSON members, or its lines of text. */
static void print_window_view(const struct plan_view *v)
{
	const char *what = v->ops->counting ? "packets" : "keys";
	char b1[32];

	if (json) {
		printf(",\"k\":%u,\"cells\":%llu,\"capacity\":%llu,\"subwindows\":%u,\"warn_below\":%u,\"fp_bound\":%.9g",
		       v->k, (unsigned long long)v->cells,
		       (unsigned long long)v->capacity, v->subwindows,
		       v->warn_below, v->fp / 1e9);
		if (v->window_ns)
			printf(",\"window_ns\":%llu,\"rate_pps\":%llu",
			       (unsigned long long)v->window_ns,
			       (unsigned long long)v->rate);
		else
			printf(",\"window_packets\":%llu",
			       (unsigned long long)v->window_pkts);
		return;
	}
	if (v->window_ns)
		printf("window   %s", time_str(b1, sizeof(b1), v->window_ns));
	else
		printf("window   the last %llu packets",
		       (unsigned long long)v->window_pkts);
	if (v->subwindows > 1)
		printf(" in %u subwindows", v->subwindows);
	printf("; holds %llu %s per %s", (unsigned long long)v->capacity,
	       what, v->subwindows > 1 ? "subwindow" :
	       v->ops->counting ? "window" : "period");
	if (v->window_ns)
		printf(" (%s over the window)", rate_str(b1, sizeof(b1), v->rate));
	printf("\n");
	printf("cells    %llu %s, k %u\n", (unsigned long long)v->cells,
	       v->ops->counting ?
	       (pd_tw_slide_narrow(v->cells, v->capacity) ?
		"16-bit packet stamps (and a ring of the times of the last packets)" :
		"32-bit packet stamps (and a ring of the times of the last packets)") :
	       v->subwindows > 1 ? "positions of one bit per subwindow and a spare" :
	       "positions of two bits (the filter and its spare)", v->k);
	printf("model    fp bound %s at capacity", pct(b1, sizeof(b1), v->fp));
	if (v->window_ns)
		printf("; beyond it the window shortens (early expiries)");
	if (v->window_ns && v->warn_below)
		printf(", logged below %u%% of the window", v->warn_below);
	printf("\n");
}

/* JSON members (each after a comma), or the lines of text of a plan. */
void print_plan_view(const struct plan_view *v)
{
	const struct pd_filter_ops *ops = v->ops;
	bool fn_low = (v->given & PD_PLAN_HAS_FN) &&
		      pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_IMPORTANCE);
	char b1[32], b2[32];

	if (v->given & PD_PLAN_HAS_WINDOW) {
		print_window_view(v);
		print_step(v);
		return;
	}
	if (json) {
		printf(",\"k\":%u,\"cells\":%llu", v->k,
		       (unsigned long long)v->cells);
		if (ops->counting)
			printf(",\"max\":%u,\"bits\":%u,\"p\":%u", v->max,
			       v->bits, v->p);
		if (v->p_exact_q32)
			printf(",\"p_exact\":%.6f",
			       (double)v->p_exact_q32 / 4294967296.0);
		printf(",\"fp_bound\":%.9g", v->fp / 1e9);
		if (v->given & PD_PLAN_HAS_ZERO)
			printf(",\"stable_point\":%.9g", v->zero / 1e9);
		if (v->given & PD_PLAN_HAS_LOAD)
			printf(",\"stable_load\":%.9g", v->load / 1e9);
		if (v->given & PD_PLAN_HAS_FN)
			printf(",\"gap_packets\":%llu,\"fn_at_gap\":%.9g",
			       (unsigned long long)v->gap, v->fn / 1e9);
		if (fn_low)
			printf(",\"fn_low_at_gap\":%.9g", v->fn_low / 1e9);
		if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_P_STAR))
			printf(",\"p_star\":%.9g", v->p_star / 1e9);
		if (v->layout >= 0)
			printf(",\"layout\":\"%s\"", pd_sbf_layout_name(v->layout));
		print_step(v);
		return;
	}
	if (ops->counting) {
		printf("cells    %llu of %u bits: max %u, k %u, p %u",
		       (unsigned long long)v->cells, v->bits, v->max, v->k,
		       v->p);
		if (v->p_exact_q32)
			printf(" (Eq. 17: %.2f)",
			       (double)v->p_exact_q32 / 4294967296.0);
		if (v->layout >= 0)
			printf(", layout %s", pd_sbf_layout_name(v->layout));
		printf("\n");
	} else {
		printf("arrays   %u of %llu bits\n", v->k,
		       (unsigned long long)v->cells);
	}
	if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_P_STAR))
		printf("p*       %s (phase 3 after bits / p* packets)\n",
		       pct(b1, sizeof(b1), v->p_star));
	printf("model    fp bound %s", pct(b1, sizeof(b1), v->fp));
	if (v->given & PD_PLAN_HAS_ZERO)
		printf(", stable zeros %s", pct(b2, sizeof(b2), v->zero));
	if ((v->given & PD_PLAN_HAS_LOAD) && v->load >= PD_PPB_ONE)
		printf(", no stable load: the load and fp rise towards 100%% (our model)");
	else if (v->given & PD_PLAN_HAS_LOAD)
		printf(", stable load %s (our model: the paper gives none)",
		       pct(b2, sizeof(b2), v->load));
	if (v->given & PD_PLAN_HAS_FN)
		printf(", fn at gap %llu: %s", (unsigned long long)v->gap,
		       pct(b2, sizeof(b2), v->fn));
	if (fn_low)
		printf(" (most important), %s (least)",
		       pct(b2, sizeof(b2), v->fn_low));
	printf("\n");
	print_step(v);
}

/*
 * What a filter remembers by its family's model, in the stream's packets
 * (gap: pd_filter_memory_gap(), 0 when the family has no model): a JSON
 * member "memory_packets", or a line.
 */
void print_memory_gap(uint64_t gap)
{
	if (!gap)
		return;
	if (json)
		printf(",\"memory_packets\":%llu", (unsigned long long)gap);
	else if (gap == UINT64_MAX)
		printf("memory   copies at any distance are caught (no decrements)\n");
	else
		printf("memory   copies up to %llu packets apart are caught (99%%)\n",
		       (unsigned long long)gap);
}

/* The kernel's plan: the plan nest of a reply, its filter-plan within. */
void print_plan(const struct nlattr *nest, const struct nlattr *plan_top)
{
	const struct nlattr *t[PKTDEDUP_A_PLAN_MAX + 1];
	struct pd_filter_plan fp = { 0 };
	struct plan_view v;
	char b1[32], b2[32];

	plan_view_nl(nest, &v);
	nl_nest(plan_top, &nls_plan, t);
	if (json) {
		printf("\"kind\":\"%s\",\"filters\":%u,\"shards\":%u,"
		       "\"lock_free\":%s,\"mem_total_bytes\":%llu",
		       v.ops->name, u32a(t, PKTDEDUP_A_PLAN_FILTERS),
		       u32a(t, PKTDEDUP_A_PLAN_SHARDS) ?: 1,
		       t[PKTDEDUP_A_PLAN_LOCK_FREE] ? "true" : "false",
		       (unsigned long long)u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL));
	} else if (t[PKTDEDUP_A_PLAN_LOCK_FREE]) {
		printf("filters  1 (%s, shared), %s in all, lock-free: every CPU steps it at once, each with its own generator\n",
		       v.ops->name,
		       size_str(b1, sizeof(b1),
				u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL)));
	} else if (u32a(t, PKTDEDUP_A_PLAN_SHARDS) > 1) {
		printf("filters  1 (%s, shared), %s in all, in %u shards of %s, each with its own lock\n",
		       v.ops->name,
		       size_str(b1, sizeof(b1),
				u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL)),
		       u32a(t, PKTDEDUP_A_PLAN_SHARDS),
		       size_str(b2, sizeof(b2),
				u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL) /
				u32a(t, PKTDEDUP_A_PLAN_SHARDS)));
	} else {
		printf("filters  %u (%s), %s in all\n",
		       u32a(t, PKTDEDUP_A_PLAN_FILTERS), v.ops->name,
		       size_str(b1, sizeof(b1),
				u64a(t, PKTDEDUP_A_PLAN_MEM_TOTAL)));
	}
	print_plan_view(&v);
	/*
	 * the model's memory, as stats reports it: a shard sees one packet
	 * in n, so n times its own gap in the stream's packets
	 */
	fp.kind = v.ops->kind;
	fp.k = v.k;
	fp.cells = v.cells;
	fp.max = v.max;
	fp.bits = v.bits;
	fp.p = v.p;
	print_memory_gap(pd_mul_sat(pd_filter_memory_gap(&fp),
				    u32a(t, PKTDEDUP_A_PLAN_SHARDS) ?: 1));
}
