// SPDX-License-Identifier: GPL-2.0
/*
 * dedup-sim: replay a stream through pktdedup's shared core and measure its
 * errors against exact ground truth. See `dedup-sim --help`.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/config.h"
#include "../../module/core/fixed.h"
#include "../../module/core/hll.h"
#include "../../module/core/plan.h"
#include "../../module/core/rng.h"
#include "../../module/core/sbf.h"
#include "../../module/core/ss.h"
#include "../common/args.h"
#include "sources.h"
#include "streams.h"
#include "truth.h"

#define MAX_CHECKPOINTS 64
#define MAX_CPUS 64

static const char usage[] =
"usage: dedup-sim --algo sbf --mem BYTES [--max MAX] [--k K]\n"
"                 [--p P | --fps F] [--gap G] [--window W] [--seed S]\n"
"                 --stream KIND [stream options] [--checkpoints C] [--json]\n"
"\n"
"Replays a stream through the Stable Bloom Filter of pktdedup's core and\n"
"measures its false-positive and false-negative rates against exact\n"
"ground truth (whole stream, and the last W elements with --window).\n"
"\n"
"filter:\n"
"  --algo sbf         the Stable Bloom Filter (Deng & Rafiei 2006)\n"
"  --mem BYTES        cell memory; K, M, G suffixes are powers of 1024\n"
"  --max MAX          cell maximum: 1, 3, 7, 15 (default: the planner's)\n"
"  --k K              probes per element, 1..16 (default: the planner's)\n"
"  --p P              cells decremented per element (0: plain Bloom)\n"
"  --fps F            target FP rate, 0 < F < 1 (default 0.01); with no\n"
"                     --p, P comes from the planner (Eq. 17, rounded up)\n"
"  --gap G            typical gap between copies, for the planner's choice\n"
"                     of K and Max and its FN estimate (default: unknown)\n"
"streams (--stream KIND, --n N elements, --seed S):\n"
"  uniform  --distinct F          i.i.d. uniform; F = expected distinct share\n"
"  zipf     --universe U --zipf-s S\n"
"  poisson  --lambda L --u U      SBF paper Sec. 5.1\n"
"  bmodel   --bias B --levels L --volume V --u U\n"
"  pcap     --pcap FILE --key packet|src|dst|pair|flow [--payload N]\n"
"           [--ignore-tos]\n"
"output:\n"
"  --window W         also score against a sliding window of W elements\n"
"  --checkpoints C    rates in C equal segments of the stream\n"
"  --cpus N           count distinct elements with N HyperLogLog sketches\n"
"                     (element i into sketch i mod N), merged as a union\n"
"source analytics (--sources: ids stand for source addresses, element i\n"
"on CPU i mod --cpus, as the module keeps them), against exact answers:\n"
"  --subwindows S     sub-windows of the window (default 12)\n"
"  --subwindow-elements E  elements per sub-window (default: n / S)\n"
"  --counters C       Space-Saving counters per sub-window per CPU (128)\n"
"  --hh-phi F         heavy hitters: sent more than F of the window (0.001)\n"
"  --rare-support S   rare: sent at most S of the window (0.0001)\n"
"  --ring R           new sources remembered per CPU (1024)\n"
"  --new-mem BYTES    new-source filter per CPU (64K)\n"
"  --new-gap G        its planner's gap in packets, 0: auto (1000)\n"
"  --json             one JSON object instead of the table\n";

#define usage_error(...) die_usage("dedup-sim", "dedup-sim --help", __VA_ARGS__)

static double rate(uint64_t a, uint64_t b);

struct score {
	uint64_t n, distincts, duplicates, fp, fn;
};

struct checkpoint {
	uint64_t upto;
	struct score s;
	double zero_fraction;
};

struct run {
	struct pd_hll sketch[MAX_CPUS];	/* distinct count, one per "CPU" */
	unsigned int cpus;
	u64 sketch_seed;		/* from --seed, fixed for the run */
	u64 distinct_estimate;
	struct pd_plan plan;
	struct pd_sbf f;
	struct score all, win;
	struct checkpoint cp[MAX_CHECKPOINTS];
	unsigned int ncp;
	double zero_fraction;
	struct src_sim *src;		/* --sources */
	struct src_result sres;
};

static double rate(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static double q62(u64 v)
{
	return (double)v / (double)PD_Q62_ONE;
}

static void score_add(struct score *s, bool truth_dup, bool said_dup)
{
	s->n++;
	if (truth_dup) {
		s->duplicates++;
		s->fn += !said_dup;
	} else {
		s->distincts++;
		s->fp += said_dup;
	}
}

static void json_score(const char *prefix, const struct score *s)
{
	printf("\"%sdistincts\":%llu,\"%sduplicates\":%llu,"
	       "\"%sfalse_positives\":%llu,\"%sfalse_negatives\":%llu,"
	       "\"%sfp_rate\":%.9g,\"%sfn_rate\":%.9g",
	       prefix, (unsigned long long)s->distincts, prefix,
	       (unsigned long long)s->duplicates, prefix,
	       (unsigned long long)s->fp, prefix, (unsigned long long)s->fn,
	       prefix, rate(s->fp, s->distincts), prefix,
	       rate(s->fn, s->duplicates));
}

static void json_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void json_pr(const char *name, const struct src_pr *pr)
{
	printf("\"%s\":{\"true\":%llu,\"reported\":%llu,\"correct\":%llu,"
	       "\"precision\":%.9g,\"recall\":%.9g}", name,
	       (unsigned long long)pr->truth, (unsigned long long)pr->reported,
	       (unsigned long long)pr->correct,
	       pr->reported ? rate(pr->correct, pr->reported) : 1.0,
	       pr->truth ? rate(pr->correct, pr->truth) : 1.0);
}

static void json_sources(const struct src_result *sr)
{
	unsigned int k;

	printf(",\"sources\":{\"window_elements\":%llu,\"subwindows\":[",
	       (unsigned long long)sr->window_elems);
	for (k = 0; k < sr->nsub; k++)
		printf("%s{\"last\":%u,\"distinct_exact\":%llu,"
		       "\"distinct_estimate\":%llu,\"distinct_error\":%.9g}",
		       k ? "," : "", k + 1,
		       (unsigned long long)sr->exact[k],
		       (unsigned long long)sr->estimate[k],
		       rate(sr->estimate[k], sr->exact[k]) - 1);
	printf("],\"ss_error\":%llu,\"support_count\":%llu,"
	       "\"candidates\":%llu,", (unsigned long long)sr->ss_error,
	       (unsigned long long)sr->support_count,
	       (unsigned long long)sr->candidates);
	json_pr("heavy_hitters", &sr->hh);
	printf(",");
	json_pr("rare", &sr->rare);
	printf(",");
	json_pr("rare_examined", &sr->rare_examined);
	printf("}");
}

static void print_pr(const char *what, const struct src_pr *pr)
{
	printf("%-10s %llu true, %llu reported: precision %.4f, recall %.4f\n",
	       what, (unsigned long long)pr->truth,
	       (unsigned long long)pr->reported,
	       pr->reported ? rate(pr->correct, pr->reported) : 1.0,
	       pr->truth ? rate(pr->correct, pr->truth) : 1.0);
}

static void print_sources(const struct src_result *sr)
{
	unsigned int k;

	for (k = 0; k < sr->nsub; k++)
		printf("%-10s last %u sub-window%s: %llu estimated, exact %llu: "
		       "error %+.3f%%\n", k ? "" : "window", k + 1,
		       k ? "s" : "", (unsigned long long)sr->estimate[k],
		       (unsigned long long)sr->exact[k],
		       100 * (rate(sr->estimate[k], sr->exact[k]) - 1));
	printf("%-10s %llu elements in the window, summary error <= %llu\n",
	       "top", (unsigned long long)sr->window_elems,
	       (unsigned long long)sr->ss_error);
	print_pr("heavy", &sr->hh);
	printf("%-10s at most %llu (s N); %llu candidates in the rings\n",
	       "rare", (unsigned long long)sr->support_count,
	       (unsigned long long)sr->candidates);
	print_pr("", &sr->rare);
	print_pr("examined", &sr->rare_examined);
}

/* fps < 0: P was given, so there is no target and no Eq. 17 value */
static void print_json(const struct run *r, const struct stream_cfg *sc,
		       const struct stream *st, uint64_t mem, double fps,
		       uint64_t window)
{
	const struct pd_plan *p = &r->plan;
	unsigned int i;

	printf("{\"algo\":\"sbf\",\"stream\":\"%s\",\"seed\":%llu,"
	       "\"mem_bytes\":%llu,\"n\":%llu,",
	       stream_names[sc->kind], (unsigned long long)sc->seed,
	       (unsigned long long)mem, (unsigned long long)r->all.n);
	if (fps < 0)
		printf("\"fps_target\":null,\"p_exact\":null,");
	else
		printf("\"fps_target\":%.9g,\"p_exact\":%.9g,", fps,
		       (double)p->p_exact_q32 / (double)PD_Q32_ONE);
	json_score("", &r->all);
	printf(",\"fp_bound\":%.9g,\"zero_fraction\":%.9g,"
	       "\"stable_point\":%.9g,\"max\":%u,\"bits\":%u,\"k\":%u,"
	       "\"p\":%u,\"cells\":%llu,\"gap\":%llu,\"fn_model\":%.9g",
	       q62(p->fp_bound), r->zero_fraction, q62(p->stable_zero),
	       p->max, p->bits, p->k, p->p, (unsigned long long)p->cells,
	       (unsigned long long)p->gap, q62(p->fn_rate));
	if (window) {
		printf(",\"window\":%llu,", (unsigned long long)window);
		json_score("window_", &r->win);
	}
	printf(",\"cpus\":%u,\"distinct_exact\":%llu,\"distinct_estimate\":%llu,"
	       "\"distinct_error\":%.9g", r->cpus,
	       (unsigned long long)r->all.distincts,
	       (unsigned long long)r->distinct_estimate,
	       rate(r->distinct_estimate, r->all.distincts) - 1);
	if (r->src)
		json_sources(&r->sres);
	if (sc->kind == STREAM_PCAP) {
		printf(",\"pcap\":");
		json_string(sc->pcap_path);
		printf(",\"key\":\"%s\",\"payload\":%u,\"packets\":%llu,"
		       "\"unknown_link\":%llu,\"unparsed\":{",
		       pd_key_mode_names[sc->key.mode], sc->key.payload,
		       (unsigned long long)st->npkts,
		       (unsigned long long)st->unknown_link);
		for (i = 1; i < PD_PARSE_NRESULTS; i++)
			printf("%s\"%s\":%llu", i > 1 ? "," : "",
			       pd_parse_result_names[i],
			       (unsigned long long)st->unparsed[i]);
		printf("}");
	}
	if (r->ncp) {
		printf(",\"checkpoints\":[");
		for (i = 0; i < r->ncp; i++) {
			printf("%s{\"upto\":%llu,", i ? "," : "",
			       (unsigned long long)r->cp[i].upto);
			json_score("", &r->cp[i].s);
			printf(",\"zero_fraction\":%.9g}",
			       r->cp[i].zero_fraction);
		}
		printf("]");
	}
	printf("}\n");
}

static void print_score(const char *what, const struct score *s)
{
	printf("%-10s fp %.4f%% (%llu of %llu distinct)   "
	       "fn %.4f%% (%llu of %llu duplicates)\n", what,
	       100 * rate(s->fp, s->distincts), (unsigned long long)s->fp,
	       (unsigned long long)s->distincts, 100 * rate(s->fn, s->duplicates),
	       (unsigned long long)s->fn, (unsigned long long)s->duplicates);
}

static void print_table(const struct run *r, const struct stream_cfg *sc,
			const struct stream *st, uint64_t mem, double fps,
			uint64_t window)
{
	const struct pd_plan *p = &r->plan;
	unsigned int i;
	char eq17[48] = "given";

	if (fps >= 0)
		snprintf(eq17, sizeof(eq17), "Eq. 17 for fps %g: %.2f", fps,
			 (double)p->p_exact_q32 / (double)PD_Q32_ONE);
	printf("dedup-sim: sbf over %llu bytes, %s stream, seed %llu\n",
	       (unsigned long long)mem, stream_names[sc->kind],
	       (unsigned long long)sc->seed);
	printf("%-10s max %u (%u-bit cells)  k %u  p %u (%s)  cells %llu\n",
	       "filter", p->max, p->bits, p->k, p->p, eq17,
	       (unsigned long long)p->cells);
	printf("%-10s fp bound %.4f%% (Eq. 8)  stable zeros %.2f%% (Thm 3)  "
	       "fn at gap %llu: %.4f%% (Eq. 16)\n", "model",
	       100 * q62(p->fp_bound), 100 * q62(p->stable_zero),
	       (unsigned long long)p->gap, 100 * q62(p->fn_rate));
	printf("%-10s %llu elements: %llu distinct, %llu duplicates\n",
	       "stream", (unsigned long long)r->all.n,
	       (unsigned long long)r->all.distincts,
	       (unsigned long long)r->all.duplicates);
	if (sc->kind == STREAM_PCAP) {
		uint64_t bad = st->unknown_link;

		for (i = 1; i < PD_PARSE_NRESULTS; i++)
			bad += st->unparsed[i];
		printf("%-10s %llu packets, key %s, %llu not parsed (skipped)\n",
		       "pcap", (unsigned long long)st->npkts,
		       pd_key_mode_names[sc->key.mode], (unsigned long long)bad);
	}
	print_score("measured", &r->all);
	printf("%-10s zeros %.2f%% at the end\n", "", 100 * r->zero_fraction);
	printf("%-10s %llu estimated by HyperLogLog (%u sketch%s merged), "
	       "exact %llu: error %+.3f%%\n", "distinct",
	       (unsigned long long)r->distinct_estimate, r->cpus,
	       r->cpus == 1 ? "" : "es", (unsigned long long)r->all.distincts,
	       100 * (rate(r->distinct_estimate, r->all.distincts) - 1));
	if (window) {
		char w[32];

		snprintf(w, sizeof(w), "window %llu", (unsigned long long)window);
		print_score(w, &r->win);
	}
	for (i = 0; i < r->ncp; i++) {
		char w[32];

		snprintf(w, sizeof(w), "..%llu", (unsigned long long)r->cp[i].upto);
		print_score(w, &r->cp[i].s);
	}
	if (r->src)
		print_sources(&r->sres);
}

enum opt {
	O_ALGO = 256, O_MEM, O_MAX, O_K, O_P, O_FPS, O_GAP, O_WINDOW, O_SEED,
	O_STREAM, O_N, O_DISTINCT, O_UNIVERSE, O_ZIPF_S, O_LAMBDA, O_U, O_BIAS,
	O_LEVELS, O_VOLUME, O_PCAP, O_KEY, O_PAYLOAD, O_IGNORE_TOS,
	O_CHECKPOINTS, O_JSON, O_HELP, O_CPUS, O_SOURCES, O_SUBWINDOWS,
	O_SUB_ELEMS, O_COUNTERS, O_HH_PHI, O_RARE_SUPPORT, O_RING, O_NEW_MEM,
	O_NEW_GAP,
};

static const struct option options[] = {
	{ "algo", required_argument, NULL, O_ALGO },
	{ "mem", required_argument, NULL, O_MEM },
	{ "max", required_argument, NULL, O_MAX },
	{ "k", required_argument, NULL, O_K },
	{ "p", required_argument, NULL, O_P },
	{ "fps", required_argument, NULL, O_FPS },
	{ "gap", required_argument, NULL, O_GAP },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "seed", required_argument, NULL, O_SEED },
	{ "stream", required_argument, NULL, O_STREAM },
	{ "n", required_argument, NULL, O_N },
	{ "distinct", required_argument, NULL, O_DISTINCT },
	{ "universe", required_argument, NULL, O_UNIVERSE },
	{ "zipf-s", required_argument, NULL, O_ZIPF_S },
	{ "lambda", required_argument, NULL, O_LAMBDA },
	{ "u", required_argument, NULL, O_U },
	{ "bias", required_argument, NULL, O_BIAS },
	{ "levels", required_argument, NULL, O_LEVELS },
	{ "volume", required_argument, NULL, O_VOLUME },
	{ "pcap", required_argument, NULL, O_PCAP },
	{ "key", required_argument, NULL, O_KEY },
	{ "payload", required_argument, NULL, O_PAYLOAD },
	{ "ignore-tos", no_argument, NULL, O_IGNORE_TOS },
	{ "checkpoints", required_argument, NULL, O_CHECKPOINTS },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "sources", no_argument, NULL, O_SOURCES },
	{ "subwindows", required_argument, NULL, O_SUBWINDOWS },
	{ "subwindow-elements", required_argument, NULL, O_SUB_ELEMS },
	{ "counters", required_argument, NULL, O_COUNTERS },
	{ "hh-phi", required_argument, NULL, O_HH_PHI },
	{ "rare-support", required_argument, NULL, O_RARE_SUPPORT },
	{ "ring", required_argument, NULL, O_RING },
	{ "new-mem", required_argument, NULL, O_NEW_MEM },
	{ "new-gap", required_argument, NULL, O_NEW_GAP },
	{ "json", no_argument, NULL, O_JSON },
	{ "help", no_argument, NULL, O_HELP },
	{ NULL, 0, NULL, 0 },
};

static const char *optname(int o)
{
	const struct option *p;

	for (p = options; p->name; p++)
		if (p->val == o)
			return p->name;
	return "?";
}

#define BAD(o, what) usage_error("--%s: '%s' is not %s", optname(o), optarg, what)

int main(int argc, char **argv)
{
	struct stream_cfg sc = {
		.kind = STREAM_UNIFORM, .n = 1000000, .distinct = 0.5,
		.zipf_s = 1.0, .lambda = 0.5, .bias = 0.7, .levels = 6,
		.volume = 0.1, .u = 0.001, .seed = 1,
		.key = { .mode = PKTDEDUP_KEY_PACKET, .payload = PD_KEY_DEFAULT_PAYLOAD },
	};
	struct pd_plan_req req = {
		.max = PD_PLAN_AUTO, .k = PD_PLAN_AUTO, .p = PD_PLAN_AUTO,
	};
	bool json = false, have_mem = false, have_algo = false, have_fps = false;
	bool have_stream = false, have_universe = false, sources = false;
	struct src_cfg srcc = {
		.nsub = 12, .counters = 128, .ring = 1024, .new_mem = 65536,
		.new_gap = 1000,
		.phi_ppb = 1000000, .support_ppb = 100000,
	};
	uint64_t v, window = 0, ncp = 0, cpus = 1;
	double fps = 0.01;
	struct run *r;
	struct stream st;
	struct truth truth;
	struct element e;
	const char *why = NULL;
	char err[512];
	int o;

	opterr = 0;
	while ((o = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (o) {
		case O_ALGO:
			if (strcmp(optarg, "sbf"))
				usage_error("--algo: '%s' is not an algorithm this simulator knows (sbf)",
					    optarg);
			have_algo = true;
			break;
		case O_MEM:
			if (!parse_size(optarg, &req.mem_bytes) || !req.mem_bytes)
				BAD(o, "a size (e.g. 65536, 64K, 1M, 2G)");
			have_mem = true;
			break;
		case O_MAX:
			if (!parse_u64(optarg, 1, 255, &v) ||
			    !pd_sbf_bits_for_max((unsigned int)v))
				BAD(o, "a cell maximum (1, 3, 7, 15, 31, 63, 127, 255)");
			req.max = (u32)v;
			break;
		case O_K:
			if (!parse_u64(optarg, 1, PD_SBF_MAX_K, &v))
				BAD(o, "a probe count from 1 to 16");
			req.k = (u32)v;
			break;
		case O_P:
			if (!parse_u64(optarg, 0, 0xfffffffeu, &v))
				BAD(o, "a cell count");
			req.p = (u32)v;
			break;
		case O_FPS:
			if (!parse_real(optarg, 0, 1, &fps) || fps <= 0 ||
			    fps >= 1 || llround(fps * 1e9) < 1)
				BAD(o, "a probability between 1e-9 and 1 (exclusive)");
			have_fps = true;
			break;
		case O_GAP:
			if (!parse_u64(optarg, 1, 1ULL << 48, &req.gap))
				BAD(o, "a gap of at least 1 element");
			break;
		case O_WINDOW:
			if (!parse_u64(optarg, 1, UINT64_MAX, &window))
				BAD(o, "a window of at least 1 element");
			break;
		case O_SEED:
			if (!parse_u64(optarg, 0, UINT64_MAX, &sc.seed))
				BAD(o, "a whole number");
			break;
		case O_STREAM:
			o = parse_name(optarg, stream_names, STREAM_PCAP + 1);
			if (o < 0)
				usage_error("--stream: '%s' is not a stream (uniform, zipf, poisson, bmodel, pcap)",
					    optarg);
			sc.kind = (enum stream_kind)o;
			have_stream = true;
			break;
		case O_N:
			if (!parse_u64(optarg, 1, 1ULL << 40, &sc.n))
				BAD(o, "an element count of at least 1");
			break;
		case O_DISTINCT:
			if (!parse_real(optarg, 0, 1, &sc.distinct) ||
			    sc.distinct <= 0)
				BAD(o, "a fraction in (0, 1]");
			break;
		case O_UNIVERSE:
			if (!parse_u64(optarg, 1, 1ULL << 28, &sc.universe))
				BAD(o, "a universe size from 1 to 2^28");
			have_universe = true;
			break;
		case O_ZIPF_S:
			if (!parse_real(optarg, 0, 10, &sc.zipf_s))
				BAD(o, "a Zipf exponent from 0 to 10");
			break;
		case O_LAMBDA:
			if (!parse_real(optarg, 0, 1, &sc.lambda))
				BAD(o, "a rate in [0, 1]");
			break;
		case O_U:
			if (!parse_real(optarg, 1e-9, 100, &sc.u))
				BAD(o, "a positive rate (1e-9 .. 100)");
			break;
		case O_BIAS:
			if (!parse_real(optarg, 0.5, 1, &sc.bias))
				BAD(o, "a bias in [0.5, 1]");
			break;
		case O_LEVELS:
			if (!parse_u64(optarg, 0, 40, &v))
				BAD(o, "a level count from 0 to 40");
			sc.levels = (unsigned int)v;
			break;
		case O_VOLUME:
			if (!parse_real(optarg, 0, 1, &sc.volume))
				BAD(o, "a fraction in [0, 1]");
			break;
		case O_PCAP:
			sc.pcap_path = optarg;
			break;
		case O_KEY:
			o = parse_name(optarg, pd_key_mode_names, PD_KEY_NMODES);
			if (o < 0)
				usage_error("--key: '%s' is not a key (packet, src, dst, pair, flow)",
					    optarg);
			sc.key.mode = (u8)o;
			break;
		case O_PAYLOAD:
			if (!parse_u64(optarg, 0, PD_KEY_MAX_PAYLOAD, &v))
				BAD(o, "a byte count from 0 to 1500");
			sc.key.payload = (u16)v;
			break;
		case O_IGNORE_TOS:
			sc.key.flags |= PKTDEDUP_KEY_F_IGNORE_TOS;
			break;
		case O_CHECKPOINTS:
			if (!parse_u64(optarg, 1, MAX_CHECKPOINTS, &ncp))
				BAD(o, "a count from 1 to 64");
			break;
		case O_CPUS:
			if (!parse_u64(optarg, 1, MAX_CPUS, &cpus))
				BAD(o, "a sketch count from 1 to 64");
			break;
		case O_SOURCES:
			sources = true;
			break;
		case O_SUBWINDOWS:
			if (!parse_u64(optarg, 1, SRC_MAX_SUB, &v))
				BAD(o, "a count from 1 to 64");
			srcc.nsub = (unsigned int)v;
			break;
		case O_SUB_ELEMS:
			if (!parse_u64(optarg, 1, 1ULL << 32, &srcc.sub_elems))
				BAD(o, "an element count from 1 to 2^32");
			break;
		case O_COUNTERS:
			if (!parse_u64(optarg, PD_SS_MIN_CAP, PD_SS_MAX_CAP, &v))
				BAD(o, "a count from 8 to 4096");
			srcc.counters = (unsigned int)v;
			break;
		case O_HH_PHI:
			if (pd_parse_ppb(optarg, &srcc.phi_ppb))
				BAD(o, "a fraction between 0 and 1");
			break;
		case O_RARE_SUPPORT:
			if (pd_parse_ppb(optarg, &srcc.support_ppb))
				BAD(o, "a fraction between 0 and 1");
			break;
		case O_RING:
			if (!parse_u64(optarg, 1, 1ULL << 24, &v))
				BAD(o, "a count from 1 to 2^24");
			srcc.ring = (unsigned int)v;
			break;
		case O_NEW_MEM:
			if (!parse_size(optarg, &srcc.new_mem) || !srcc.new_mem)
				BAD(o, "a size (e.g. 64K)");
			break;
		case O_NEW_GAP:
			if (!parse_u64(optarg, 0, 1ULL << 48, &srcc.new_gap))
				BAD(o, "a packet count (0: auto)");
			break;
		case O_JSON:
			json = true;
			break;
		case O_HELP:
			fputs(usage, stdout);
			return 0;
		case ':':
			usage_error("%s needs a value", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	if (!have_algo)
		usage_error("--algo is required (sbf)");
	if (!have_mem)
		usage_error("--mem is required");
	if (!have_stream)
		usage_error("--stream is required");
	if (have_fps && req.p != PD_PLAN_AUTO)
		usage_error("give either --p or --fps, not both");
	if (sc.kind == STREAM_PCAP && !sc.pcap_path)
		usage_error("--stream pcap needs --pcap FILE");
	if (sc.kind != STREAM_PCAP && sc.pcap_path)
		usage_error("--pcap needs --stream pcap");
	if (sc.kind == STREAM_UNIFORM && sc.distinct * (double)sc.n < 1)
		usage_error("--distinct %g of %llu elements is less than one element",
			    sc.distinct, (unsigned long long)sc.n);
	if (sc.kind == STREAM_ZIPF && !have_universe)
		sc.universe = PD_MIN(sc.n, 1ULL << 28);
	if (sc.kind == STREAM_BMODEL && sc.bias > 0.5 && sc.levels &&
	    sc.levels > log(sc.volume) / log(0.5 / sc.bias) + 1e-9)
		usage_error("--levels %u is infeasible: the paper's constraint is l <= ln(v) / ln(1/(2b)) = %.2f",
			    sc.levels, log(sc.volume) / log(0.5 / sc.bias));
	req.fps_ppb = (u32)llround(fps * 1e9);

	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	r->cpus = (unsigned int)cpus;
	if (pd_plan(&req, &r->plan, &why))
		usage_error("cannot build this filter: %s", why);
	{
		struct pd_sbf_params prm = {
			.cells = r->plan.cells, .max = (u8)r->plan.max,
			.k = (u8)r->plan.k, .p = r->plan.p,
		};
		u64 seed = sc.seed;

		if (pd_sbf_create(&r->f, &prm, &why))
			usage_error("cannot build this filter: %s", why);
		/* reproducible: filter seeds derive from --seed */
		pd_sbf_set_seeds(&r->f, (u32)pd_rng_next(&seed),
				 (u32)pd_rng_next(&seed), pd_rng_next(&seed));
		r->sketch_seed = pd_rng_next(&seed);
	}
	if (stream_open(&st, &sc, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		return 1;
	}
	if (sources) {
		uint64_t total = sc.kind == STREAM_PCAP ? st.npkts : sc.n;

		srcc.cpus = r->cpus;
		srcc.seed = sc.seed;
		if (!srcc.sub_elems)
			srcc.sub_elems = total > srcc.nsub ?
					 (total + srcc.nsub - 1) / srcc.nsub : 1;
		r->src = src_sim_new(&srcc, err, sizeof(err));
		if (!r->src)
			usage_error("--sources: %s", err);
	}
	if (truth_init(&truth, sc.kind == STREAM_PCAP ? st.npkts : sc.n)) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		return 1;
	}
	{
		uint64_t total = sc.kind == STREAM_PCAP ? st.npkts : sc.n;
		uint64_t next_cp = ncp ? (total + ncp - 1) / ncp : UINT64_MAX;
		struct score seg = { 0 };

		while (stream_next(&st, &e)) {
			struct truth_verdict tv;
			u32 h1, h2;
			bool said;

			if (e.key) {
				h1 = pd_key_hash(e.key, r->f.seed[0]);
				h2 = pd_key_hash(e.key, r->f.seed[1]);
			} else {
				h1 = pd_jhash(&e.id, sizeof(e.id), r->f.seed[0]);
				h2 = pd_jhash(&e.id, sizeof(e.id), r->f.seed[1]);
			}
			said = pd_sbf_step(&r->f, h1, h2);
			{
				/* 64 uniform bits of the id, seeded per run
				 * (the kernel seeds per instance) */
				u64 mix = e.id ^ r->sketch_seed;

				pd_hll_add(&r->sketch[r->all.n % r->cpus],
					   pd_rng_next(&mix));
			}
			if (truth_add(&truth, e.id, window, &tv)) {
				fprintf(stderr, "dedup-sim: out of memory\n");
				return 1;
			}
			if (r->src)
				src_sim_add(r->src, e.id);
			score_add(&r->all, tv.seen, said);
			score_add(&seg, tv.seen, said);
			if (window)
				score_add(&r->win, tv.in_window, said);
			if (r->all.n == next_cp && r->ncp < ncp) {
				struct checkpoint *c = &r->cp[r->ncp++];

				c->upto = r->all.n;
				c->s = seg;
				c->zero_fraction = (double)pd_sbf_zero_cells(&r->f) /
						   r->f.cells;
				memset(&seg, 0, sizeof(seg));
				next_cp = PD_MIN(total, next_cp + (total + ncp - 1) / ncp);
			}
		}
	}
	r->zero_fraction = (double)pd_sbf_zero_cells(&r->f) / r->f.cells;
	{
		unsigned int i;

		for (i = 1; i < r->cpus; i++)
			pd_hll_merge(&r->sketch[0], &r->sketch[i]);
		r->distinct_estimate = pd_hll_estimate(&r->sketch[0]);
	}
	if (r->src && src_sim_finish(r->src, &r->sres)) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		return 1;
	}
	if (req.p != PD_PLAN_AUTO)
		fps = -1;
	if (json)
		print_json(r, &sc, &st, req.mem_bytes, fps, window);
	else
		print_table(r, &sc, &st, req.mem_bytes, fps, window);
	truth_free(&truth);
	stream_close(&st);
	pd_sbf_destroy(&r->f);
	src_sim_free(r->src);
	free(r);
	return 0;
}
