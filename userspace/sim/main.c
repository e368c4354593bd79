// SPDX-License-Identifier: GPL-2.0
/*
 * dedup-sim: replay a stream through pktdedup's shared core and measure its
 * errors against exact ground truth. See `dedup-sim --help`.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../module/core/config.h"
#include "../../module/core/decap.h"
#include "../../module/core/filter.h"
#include "../../module/core/ibf.h"
#include "../../module/core/timewin.h"
#include "../../module/core/plan.h"
#include "../../module/core/shard.h"
#include "../../module/core/fixed.h"
#include "../../module/core/hll.h"
#include "../../module/core/rng.h"
#include "../../module/core/ss.h"
#include "../common/akeyfile.h"
#include "../common/args.h"
#include "../common/protos.h"
#include "dset.h"
#include "fpbuf.h"
#include "pcapio.h"
#include "sketches.h"
#include "sources.h"
#include "streams.h"
#include "truth.h"
#include "units.h"
#include "json_str.h"

#define MAX_CHECKPOINTS 64
#define MAX_CPUS 64

static const char usage[] =
"usage: dedup-sim --algo ALGO --mem BYTES [filter options] [--seed S]\n"
"                 --stream KIND [stream options] [--window W]\n"
"                 [--checkpoints C] [--json]\n"
"       dedup-sim --pcap FILE [--write OUT] [--write-dups DUPS]\n"
"                 [--sketches CSV [--sketch-every T] [--host NAME]\n"
"                 [--sources-key FILE]]\n"
"                 [--key K] [filter options] [--seed S] [--truth T]\n"
"\n"
"Replays a stream through a de-duplication filter of pktdedup's core (or\n"
"the SBF paper's FPBuffering baseline) and measures its false-positive and\n"
"false-negative rates against exact ground truth (whole stream, and the\n"
"last W elements with --window).\n"
"\n"
"filter (--algo):\n"
"  sbf                the Stable Bloom Filter (Deng & Rafiei 2006)\n"
"  rsbf, bsbf, bsbfsd, rlbsbf\n"
"                     the bit-array filters of Bera et al.: k arrays of\n"
"                     8 mem / k bits\n"
"  ibf-2c, ibf-mc     the importance-aware filters of Boraskar et al.\n"
"  fpbuffering        the SBF paper's baseline: an LRU buffer of element\n"
"                     fingerprints that reports an element it does not\n"
"                     hold as a duplicate with probability q (--fps)\n"
"  --mem BYTES        memory; K, M, G suffixes are powers of 1024\n"
"  --max MAX          sbf, ibf: cell maximum 1, 3, 7, 15 (ibf: 3, 7, 15;\n"
"                     default: the planner's, ibf 7)\n"
"  --k K              sbf, ibf: probes per element; rsbf, bsbf, bsbfsd,\n"
"                     rlbsbf: bit arrays (default: the planner's)\n"
"  --p P              sbf, ibf: cells decremented per element (0: plain\n"
"                     Bloom)\n"
"  --fps F            sbf, ibf: target FP rate, 0 < F < 1 (default 0.01);\n"
"                     with no --p, P comes from the planner (sbf: Eq. 17,\n"
"                     rounded up). rsbf: the threshold FPR_t of Eq. 6.1\n"
"                     that gives k (default 0.1). bsbf, bsbfsd, rlbsbf: with\n"
"                     no --k, k is the least whose FP at the stable load\n"
"                     (our model) meets F, else the k of the lowest such FP\n"
"                     (default: no target, k 2). fpbuffering: q, 0 <= q < 1\n"
"                     (default 0: plain Buffering)\n"
"  --gap G            sbf, ibf: typical gap between copies, for the\n"
"                     planner's choices and its FN estimate\n"
"  --p-star R         rsbf: the insertion floor p* (default 0.03)\n"
"  --layout L         sbf: auto (default: where Max 1 and fps allow,\n"
"                     line from 4 MiB and blocked below; else flat),\n"
"                     flat (the paper's), blocked\n"
"                     (a key's K cells in one 64-byte line, the decrements\n"
"                     in another; Max 1; P planned for the blocked FP model)\n"
"                     or line (the decrements in the key's line too: one\n"
"                     line a packet; Max 1; P planned for its FP model)\n"
"  --importance SRC   ibf: mark (default) or dscp. The simulator gives the\n"
"                     filter an element's importance (1..50, importance\n"
"                     streams) in the packet mark, the filter reading it\n"
"                     under mask 0xff: ibf-mc gets 1 + (imp - 1) Max / 50,\n"
"                     ibf-2c gets 1 (important: imp 26..50) or 0. With dscp,\n"
"                     imp maps to the 7 levels of the module's DSCP table\n"
"                     (1 + (imp - 1) 7 / 50) and a DSCP of that level; pcap\n"
"                     streams give the packet's own DSCP. Elements with no\n"
"                     importance (other streams) have mark 0 and DSCP 0.\n"
"  --entry-bits B     fpbuffering: bits per entry, 8..64 (default 32, the\n"
"                     paper's size of an IP address; 64 for its URLs)\n"
"window families (Metwally et al.): a packet is a duplicate iff its key\n"
"was seen less than the window before it (editcap -w); scored against\n"
"exactly that:\n"
"  sliding            no copy inside the window missed, none older found\n"
"                     but the Bloom filter's false positives (cells\n"
"                     stamped by packet, a ring of the packets' times)\n"
"  jumping            S subwindows of Bloom filters; no copy less than\n"
"                     (S - 1) / S of the window apart is missed; one up\n"
"                     to a subwindow more than the window old may be found\n"
"  landmark           one Bloom filter emptied every window\n"
"  --window D         the window: a time (10ns, 500us, 2ms, 1.5s; at least\n"
"                     1us) or a packet count (100000p). A time window needs\n"
"                     a stream with times (timed, pcap)\n"
"  --rate PPS         packets per second the window must hold (1M, 2.5k):\n"
"                     sizes the filter; without it --mem does (a packet\n"
"                     window holds its own count). With both, --mem is a\n"
"                     limit the plan must fit\n"
"  --fps F            FP rate at capacity (default 0.001)\n"
"  --subwindows S     jumping: 2..63 (default 7)\n"
"  --warn-below PCT   time windows: alert when the effective window falls\n"
"                     below PCT% of it (default 50; 0: never)\n"
"A setting given to a family that does not take it is an error.\n"
"  --shards N         the module's scope shared (dedupctl set scope shared\n"
"                     shards N): the filter in N shards by key hash (a power\n"
"                     of two up to 4096; fewer where a shard would hold less\n"
"                     than a 64-byte line), each over its share of --mem;\n"
"                     with --seed, the module's verdicts\n"
"  --shared           the module's scope shared with shards auto: the SBF\n"
"                     lock-free, one filter that CPU 0 steps as the module\n"
"                     steps it there (other families: --shards N)\n"
"streams (--stream KIND, --n N elements, --seed S):\n"
"  uniform  --distinct F          i.i.d. uniform; F = expected distinct share\n"
"  zipf     --universe U --zipf-s S\n"
"  poisson  --lambda L --u U      SBF paper Sec. 5.1\n"
"  bmodel   --bias B --levels L --volume V --u U\n"
"  pcap     --pcap FILE (below)\n"
"  importance --imp-dist uniform|direct|inverse --repeat F\n"
"           the IBF paper's synthetic data: importance 1..50, the same\n"
"           number of elements in each class, i.i.d. draws with an\n"
"           element's probability uniform, proportional or inversely\n"
"           proportional to its importance (default uniform), from a\n"
"           universe sized so that a share F of the stream repeats an\n"
"           element seen before (default 0.3). Scored per importance\n"
"           class, with the paper's weighted wFP and wFN.\n"
"  timed    --pps PPS --distinct F --copy-delay MAX\n"
"           [--flood PPS --flood-at T --flood-for T]\n"
"           packets with arrival times: PPS per second (default 1M), a\n"
"           share F fresh (exponential gaps); every packet is copied\n"
"           with probability 1 - F, the copy a delay uniform in [0, MAX]\n"
"           later (default 1ms). A flood replaces the fresh arrivals by\n"
"           PPS distinct packets per second during [T, T + T'), from 0\n"
"           and to the end by default\n"
"captures (--pcap FILE; - is standard input): read one record at a time,\n"
"in constant memory, by Wireshark's libwiretap (pcap, pcapng and every\n"
"format editcap reads). --stream pcap is implied; without --algo and --mem\n"
"the module's defaults (sbf, 256K). Each frame is keyed after its link\n"
"layer (Ethernet with 802.1Q/802.1ad/QinQ tags and MPLS, Linux cooked v1\n"
"and v2, raw IP, loopback); frames cut by the snaplen from what is there.\n"
"Runts, non-IP frames and frames that cannot be keyed pass, counted.\n"
"  --key K            packet (default), src, dst, pair, flow\n"
"  --payload all|N    packet key: every byte (all), or N payload bytes after\n"
"                     the L4 header (copies that differ after them are one)\n"
"  --ignore-tos       packet key: leave TOS / traffic class out\n"
"  --nonip M          pass (default): frames that are neither IPv4 nor IPv6\n"
"                     pass, counted not IP; dedup: they are keyed too, as\n"
"                     the module's nonip dedup at its L2 hooks, from their\n"
"                     innermost EtherType on (MAC addresses and VLAN tags\n"
"                     left out; at most --payload bytes after it); key\n"
"                     packet only\n"
"  --proto P[,P...]   only these upper-layer protocols (names or numbers),\n"
"                     as the module's proto setting; the others pass\n"
"  --decap E          tunnels whose inner packet is keyed in place of the\n"
"                     tunnel's, as the module's decap setting: none\n"
"                     (default), all, or a list of vxlan, geneve, gre,\n"
"                     erspan, gtpu, ip (comma-separated); up to 4 nested.\n"
"                     The report counts, per encapsulation, the frames\n"
"                     decapsulated and the tunnel headers that failed;\n"
"                     --write still writes the frames as read\n"
"  --tunnel-id T      ignore (default): a tunnelled packet has the key of\n"
"                     the packet it carries; include: the tunnels'\n"
"                     identities (VNI, GRE key, ERSPAN session, TEID) are\n"
"                     part of it, so copies from other sessions differ\n"
"  --vxlan-port N     UDP destination ports of VXLAN (4789), GENEVE\n"
"  --geneve-port N    (6081) and GTP-U (2152), 1-65535; two UDP tunnels\n"
"  --gtpu-port N      looked into may not share a port\n"
"  --write FILE       the frames the module would pass with action drop,\n"
"                     in the input's format, link types, times and lengths\n"
"                     (- : standard output; the report goes to standard\n"
"                     error); the same --seed writes the same bytes\n"
"  --write-dups FILE  the copies it would drop\n"
"                     A file is written beside itself and renamed over\n"
"                     itself when whole: a failed or interrupted run\n"
"                     leaves it as it was (a pipe or a device is written\n"
"                     directly). An output that is the input, or the\n"
"                     other output, by any path is refused\n"
"  --sketches FILE    the distinct-count sketches of the capture's sources\n"
"                     and destinations, as the module's analytics count\n"
"                     them, per interval: CSV rows host,fingerprint,start,\n"
"                     end,src,dst in PostgreSQL hll's format (hll(14,5,-1,1),\n"
"                     as \\x hex), for psql's \\copy\n"
"  --sketch-every T   the interval, from the epoch on (1m)\n"
"  --host NAME        the rows' host (this host's name)\n"
"  --sources-key FILE the fleet's 40-byte key: the addresses hashed as the\n"
"                     module hashes them with it (default: a key of\n"
"                     --seed's; sketches of different keys must not merge)\n"
"  --truth T          what each verdict is scored against, exactly: exact\n"
"                     (default) is frame for a capture: every frame\n"
"                     compared whole, its link layer stripped and every\n"
"                     tunnel decapsulated, less the IPv4 TTL and header\n"
"                     checksum and the IPv6 hop limit (not IP: from the\n"
"                     protocol field on), as 128-bit digests; key: the\n"
"                     filter's own key (--key, --payload, --decap), as\n"
"                     64-bit digests. Either way the report counts where\n"
"                     the two disagree. A generated stream's truth is its\n"
"                     elements' ids. With a window, positions or times;\n"
"                     none: verdicts only, in the filter's memory alone\n"
"output:\n"
"  --window W         counting and bit families, fpbuffering: also score\n"
"                     against a sliding window of W elements\n"
"  --checkpoints C    rates in C equal segments of the stream\n"
"  --cpus N           count distinct elements with N HyperLogLog sketches\n"
"                     (element i into sketch i mod N), merged as a union\n"
"source analytics (--sources: ids stand for source addresses, element i\n"
"on CPU i mod --cpus, as the module keeps them), against exact answers:\n"
"  --subwindows S     sub-windows of the window (default 12; with\n"
"                     --sources, not jumping's subwindows)\n"
"  --subwindow-elements E  elements per sub-window (default: n / S)\n"
"  --counters C       Space-Saving counters per sub-window per CPU (128;\n"
"                     0: top talkers off, the module's default)\n"
"  --hh-phi F         heavy hitters: sent more than F of the window (0.001)\n"
"  --rare-support S   rare: sent at most S of the window (0.0001)\n"
"  --ring R           new sources remembered per CPU (1024)\n"
"  --new-mem BYTES    new-source filter per CPU (64K)\n"
"  --new-gap G        its planner's gap in packets, 0: auto (1000)\n"
"  --json             one JSON object instead of the table\n";

#define usage_error(...) die_usage("dedup-sim", "dedup-sim --help", __VA_ARGS__)

static double rate(uint64_t a, uint64_t b);

/*
 * The process's peak resident memory, bytes: the address space's high-water
 * mark (VmHWM), which starts at exec. getrusage()'s ru_maxrss also holds
 * the image exec replaced (a Python parent's fork, 14 MiB more), so it is
 * only the fallback.
 */
static uint64_t peak_rss(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long kb = 0;
	struct rusage ru;
	char line[256];

	if (f) {
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "VmHWM: %llu kB", &kb) == 1)
				break;
		fclose(f);
		if (kb)
			return kb * 1024;
	}
	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)ru.ru_maxrss * 1024;
}

struct score {
	uint64_t n, distincts, duplicates, fp, fn;
};

struct checkpoint {
	uint64_t upto;
	struct score s;
	double zero_fraction;
};

/*
 * What the run replays the stream through: a filter family of the core,
 * through filter.h, or FPBuffering (fpbuf.h, the simulator's own).
 */
struct sim_filter {
	const char *name;
	const struct pd_filter_ops *ops;	/* NULL: FPBuffering */
	struct pd_filter f;
	struct pd_shards sh;	/* --shards: f unused */
	struct pd_filter_plan plan;
	struct fpbuf buf;
	struct pd_hkey hkey;	/* the key hash's secret, from --seed */
	double q;		/* fpbuffering */
	bool fps_used;		/* the family read --fps (or its default) */
	double fps;		/* the FP target it read */
	const char *window_arg;	/* window families: --window as given */
	u64 mem_limit;		/* window families sized by rate: --mem */
};

/* A filter of the run, for what is the same in all (a shard's plan). */
static const struct pd_filter *sim_filter_any(const struct sim_filter *sf)
{
	return sf->sh.n ? &sf->sh.sh[0].f : &sf->f;
}

/* Per importance class, and the paper's weighted sums (Sec. IV-B). */
struct imp_score {
	struct score cls[IMP_CLASSES + 1];
	uint64_t w_all, w_fp, w_fn, w_distinct, w_duplicate;
};

/*
 * A window family's run: its window, and the verdicts split by what the
 * exact time-window truth says and by the span the family guarantees.
 */
struct tw_run {
	bool on;		/* a window family */
	u64 window;		/* ticks: ns, or packets */
	bool timed;
	u32 s;			/* subwindows: the guarantee is (s-1)/s W */
	u64 seen_before;	/* seen anywhere before (whole stream) */
	u64 dup_guar, fn_guar;	/* copies inside the guaranteed span */
	u64 fresh, fp_new;	/* never seen before, and said duplicate */
	u64 stale, fp_stale;	/* seen, but a window or more before */
	u64 alerts;		/* pd_filter.alert raised */
	struct pd_filter_win win;	/* at the end */
};

/*
 * What the truth compares (--truth): every verdict is scored against it,
 * but with none.
 */
enum truth_mode {
	TRUTH_EXACT,		/* as given: the stream's own (below) */
	TRUTH_ID,		/* a generated stream's element ids */
	TRUTH_FRAME,		/* a capture's frames (frametruth.h) */
	TRUTH_KEY,		/* a capture's keys, the filter's */
	TRUTH_NONE,		/* verdicts only: memory of the filter alone */
};

static const char *const truth_names[] = {
	[TRUTH_EXACT] = "exact", [TRUTH_ID] = "id", [TRUTH_FRAME] = "frame",
	[TRUTH_KEY] = "key", [TRUTH_NONE] = "none",
};

/*
 * A truth's memory of the stream: a set of digests when a verdict needs
 * only "seen before", else where (and when) each was seen last (truth.h).
 */
struct tstore {
	bool compact;
	struct dset dset;
	struct truth truth;
};

/*
 * On a capture, the frame truth and the filter's key side by side, the
 * one --truth does not score by as well: where the key and the frames
 * disagree, each "a copy" in the truth's sense (within the window for
 * the window families).
 */
struct cross {
	bool on;
	struct tstore other;	/* the key's if the truth is the frame's */
	struct dset unkeyed;	/* the frames the filter does not key */
	u64 key_only;		/* a copy by the key, a new frame */
	u64 key_only_said;	/* of them, said a copy by the filter */
	u64 frame_only;		/* a copy by the frame, a new key */
	u64 frame_only_said;
	u64 unkeyed_n, unkeyed_copies;	/* frames passed unkeyed, copies */
	u64 keys;		/* the truth frame's: distinct keys */
};

struct run {
	enum truth_mode truth;
	bool compact;			/* the truth is a set of digests */
	struct tstore ts;		/* the truth */
	struct cross x;			/* captures: key against frame */
	u64 truth_bytes;		/* the truth's memory at the end */
	u64 said;			/* elements the filter called copies */
	struct pd_hll sketch[MAX_CPUS];	/* distinct count, one per "CPU" */
	unsigned int cpus;
	u64 sketch_seed;		/* from --seed, fixed for the run */
	u64 distinct_estimate;
	struct sim_filter sf;
	struct score all, win;
	struct imp_score imp;		/* importance streams */
	uint64_t dup_in_cap, fn_in_cap;	/* fpbuffering: gap <= capacity */
	struct checkpoint cp[MAX_CHECKPOINTS];
	unsigned int ncp;
	double zero_fraction;
	struct src_sim *src;		/* --sources */
	struct src_result sres;
	struct tw_run tw;		/* window families */
	u64 last_t;			/* the last element's time, ns */
	u64 flood_fp;			/* flood packets said duplicate */
	bool sketches;			/* --sketches: its rows, the key's */
	u64 sketch_rows, sketch_fp;
};

/*
 * Distinct keys in the stream (what the HyperLogLog sketches estimate): a
 * window family's distincts are also the copies older than the window;
 * the frame truth's are frames, so the key's count is kept beside them.
 */
static uint64_t distinct_exact(const struct run *r)
{
	if (r->truth == TRUTH_FRAME)
		return r->x.keys;
	return r->tw.on ? r->tw.fresh : r->all.distincts;
}

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

/* The filter's key, in words: "flow; decap none", "packet, every byte; ...". */
static void key_words(const struct pd_key_opts *k, char *buf, size_t len)
{
	unsigned int i;
	bool first = true;

	snprintf(buf, len, "%s", pd_key_mode_names[k->mode]);
	if (k->mode == PKTDEDUP_KEY_PACKET &&
	    k->payload == PKTDEDUP_PAYLOAD_ALL)
		snprintf(buf + strlen(buf), len - strlen(buf), ", every byte");
	else if (k->mode == PKTDEDUP_KEY_PACKET)
		snprintf(buf + strlen(buf), len - strlen(buf), ", payload %u",
			 k->payload);
	if (k->mode == PKTDEDUP_KEY_PACKET &&
	    (k->flags & PKTDEDUP_KEY_F_IGNORE_TOS))
		snprintf(buf + strlen(buf), len - strlen(buf), ", TOS ignored");
	if (k->flags & PKTDEDUP_KEY_F_NONIP)
		snprintf(buf + strlen(buf), len - strlen(buf), ", nonip dedup");
	snprintf(buf + strlen(buf), len - strlen(buf), "; decap ");
	for (i = 0; i < PD_NENCAPS; i++)
		if (k->decap & (1u << i)) {
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s",
				 first ? "" : ",", pd_encap_names[i]);
			first = false;
		}
	if (first)
		snprintf(buf + strlen(buf), len - strlen(buf), "none");
}

/* What the truth compares, in one line: the report's and the JSON's. */
static const char *truth_compares(const struct run *r,
				  const struct stream_cfg *sc)
{
	static char buf[256];
	char key[128];

	switch (r->truth) {
	case TRUTH_ID:
		return "the elements' identities (the generator's ids)";
	case TRUTH_FRAME:
		return "each frame's IP packet after its link layer and every tunnel, byte for byte less IPv4 TTL and header checksum and IPv6 hop limit (not IP: from the protocol field on); 128-bit BLAKE2b digests";
	case TRUTH_KEY:
		key_words(&sc->key, key, sizeof(key));
		snprintf(buf, sizeof(buf),
			 "the filter's key (%s); 64-bit digests", key);
		return buf;
	default:
		return "nothing (--truth none)";
	}
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
	printf("],\"top_talkers\":%s", sr->top ? "true" : "false");
	if (!sr->top) {		/* --counters 0: the module's default */
		printf("}");
		return;
	}
	printf(",\"ss_error\":%llu,\"support_count\":%llu,"
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
	if (!sr->top) {
		printf("%-10s off (--counters 0), so no heavy or rare sources\n",
		       "top");
		return;
	}
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

/* The memory the filter really uses: the core's plan, or the buffer's. */
static uint64_t sim_bytes(const struct sim_filter *sf)
{
	return sf->ops ? sf->plan.bytes : fpbuf_bytes(&sf->buf);
}

/* Zero cells (counting), zero bits (bit arrays), or empty entries. */
static double sim_zero_fraction(const struct sim_filter *sf)
{
	struct pd_filter_occ o;

	if (!sf->ops)
		return 1 - (double)sf->buf.used / (double)sf->buf.cap;
	if (sf->sh.n)
		pd_shards_occupancy(&sf->sh, &o, PD_OCC_ALL);
	else
		pd_filter_occupancy(&sf->f, &o);
	if (sf->ops->counting)
		return (double)o.zero / (double)o.units;
	return 1 - (double)o.set / (double)o.units;
}

static bool sim_is_ibf(const struct sim_filter *sf)
{
	return sf->ops && (sf->ops->kind == PKTDEDUP_FILTER_KIND_IBF_2C ||
			   sf->ops->kind == PKTDEDUP_FILTER_KIND_IBF_MC);
}

/*
 * How an element's importance (1..50; 0: none) reaches an importance-aware
 * filter, in the packet's mark (read under IMP_MARK_MASK) or DSCP:
 *  - ibf-mc, mark: 1 + (imp - 1) Max / 50, the classes 1..50 spread evenly
 *    over the cell values 1..Max;
 *  - ibf-2c, mark: 1 for the upper half (imp >= IMP_IMPORTANT), else 0;
 *  - dscp: the level 1 + (imp - 1) 7 / 50 of the module's DSCP table, as a
 *    DSCP of that level (the table then decides; ibf-2c counts levels 5-7,
 *    imp >= 30, as important);
 *  - no importance: mark 0 and the stream's DSCP (pcap: the packet's).
 */
#define IMP_MARK_MASK 0xffu
#define IMP_IMPORTANT 26

static unsigned int imp_level(unsigned int imp)
{
	return 1 + (imp - 1) * PD_IBF_LEVELS / IMP_CLASSES;
}

static void sim_pktinfo(const struct sim_filter *sf, unsigned int imp,
			unsigned int dscp, struct pd_pktinfo *pi)
{
	/* a DSCP of each level of pd_ibf_dscp_level(): CS0, AF11, AF21,
	 * AF31, AF41, EF, CS6
	 */
	static const u8 level_dscp[PD_IBF_LEVELS + 1] = {
		0, 0, 10, 18, 26, 34, 46, 48,
	};

	pi->dscp = (u8)dscp;
	pi->mark = 0;
	pi->now = 0;
	if (!imp || !sim_is_ibf(sf))
		return;
	if (sf->plan.importance == PKTDEDUP_IMPORTANCE_DSCP)
		pi->dscp = level_dscp[imp_level(imp)];
	else if (sf->ops->kind == PKTDEDUP_FILTER_KIND_IBF_2C)
		pi->mark = imp >= IMP_IMPORTANT;
	else
		pi->mark = 1 + (imp - 1) * sf->plan.max / IMP_CLASSES;
}

/* The cell value an element of importance imp raises its cells to. */
static unsigned int sim_ibf_value(const struct sim_filter *sf,
				  unsigned int imp)
{
	struct pd_pktinfo pi;

	sim_pktinfo(sf, imp, 0, &pi);
	return pd_ibf_value(pd_ibf_of(sim_filter_any(sf)), &pi);
}

/* fpbuffering: q, plus a distinct fingerprint matching a held one */
static double fpbuf_fp_bound(const struct fpbuf *b, double q)
{
	double coll = ldexp((double)b->cap, -(int)b->entry_bits);

	return q + (1 - q) * (coll < 1 ? coll : 1);
}

static void json_importance(const struct run *r, const struct stream_cfg *sc)
{
	const struct imp_score *is = &r->imp;
	unsigned int c;

	printf(",\"importance\":{\"dist\":\"%s\",\"repeat\":%.9g,"
	       "\"classes_of\":%u,\"wfp\":%.9g,\"wfn\":%.9g,"
	       "\"wfp_distinct\":%.9g,\"wfn_duplicate\":%.9g,\"classes\":[",
	       imp_dist_names[sc->imp_dist], sc->repeat, IMP_CLASSES,
	       rate(is->w_fp, is->w_all), rate(is->w_fn, is->w_all),
	       rate(is->w_fp, is->w_distinct), rate(is->w_fn, is->w_duplicate));
	for (c = 1; c <= IMP_CLASSES; c++) {
		printf("%s{\"imp\":%u,\"n\":%llu,", c > 1 ? "," : "", c,
		       (unsigned long long)is->cls[c].n);
		json_score("", &is->cls[c]);
		if (sim_is_ibf(&r->sf))
			printf(",\"value\":%u", sim_ibf_value(&r->sf, c));
		printf("}");
	}
	printf("]}");
}

/* Ticks as JSON: ms for a time window, packets for a packet window. */
static void json_ticks(const struct tw_run *tw, const char *name, u64 v)
{
	if (tw->timed)
		printf(",\"%s_ms\":%.9g", name, (double)v / 1e6);
	else
		printf(",\"%s_packets\":%llu", name, (unsigned long long)v);
}

/* The guaranteed span: no copy closer than this may be missed. */
static u64 tw_guaranteed(const struct tw_run *tw)
{
	return tw->s ? tw->window * (tw->s - 1) / tw->s : tw->window;
}

/* Is a copy gap ticks after its previous sighting inside the guarantee? */
static bool tw_in_guarantee(const struct tw_run *tw, u64 gap)
{
	if (tw->s <= 1)		/* sliding: the whole window; landmark: none */
		return tw->s == 0 && gap < tw->window;
	/* gap < (s - 1) W / s, exactly */
	return (__uint128_t)gap * tw->s < (__uint128_t)tw->window * (tw->s - 1);
}

static void json_window(const struct run *r)
{
	const struct sim_filter *sf = &r->sf;
	const struct pd_filter_plan *p = &sf->plan;
	const struct tw_run *tw = &r->tw;

	printf(",\"fp_bound\":%.9g,\"zero_fraction\":%.9g,\"k\":%u,"
	       "\"cells\":%llu,\"capacity\":%llu,\"subwindows\":%u,"
	       "\"rate\":%llu,\"warn_below\":%u",
	       q62(p->fp_bound), r->zero_fraction, p->k,
	       (unsigned long long)p->cells, (unsigned long long)p->capacity,
	       p->subwindows, (unsigned long long)p->rate, p->warn_below);
	if (tw->timed)
		printf(",\"window_ns\":%llu", (unsigned long long)tw->window);
	json_ticks(tw, "window", tw->window);
	json_ticks(tw, "window_effective", tw->win.effective);
	json_ticks(tw, "window_effective_min", tw->win.shortest);
	json_ticks(tw, "guaranteed", tw_guaranteed(tw));
	printf(",\"early_expiries\":%llu,\"stuck\":%llu,\"entries\":%llu,"
	       "\"alerts\":%llu,\"seen_before\":%llu,"
	       "\"fn_inside_window\":%llu,"
	       "\"duplicates_inside_guaranteed\":%llu,"
	       "\"fn_inside_guaranteed\":%llu,\"new\":%llu,\"fp_new\":%llu,"
	       "\"fp_new_rate\":%.9g,\"stale\":%llu,\"fp_stale\":%llu",
	       (unsigned long long)tw->win.early,
	       (unsigned long long)tw->win.stuck,
	       (unsigned long long)tw->win.entries,
	       (unsigned long long)tw->alerts,
	       (unsigned long long)tw->seen_before,
	       (unsigned long long)r->all.fn,
	       (unsigned long long)tw->dup_guar,
	       (unsigned long long)tw->fn_guar,
	       (unsigned long long)tw->fresh, (unsigned long long)tw->fp_new,
	       rate(tw->fp_new, tw->fresh), (unsigned long long)tw->stale,
	       (unsigned long long)tw->fp_stale);
}

static void print_json(const struct run *r, const struct stream_cfg *sc,
		       const struct stream *st, const struct outputs *out,
		       uint64_t mem_asked, uint64_t window)
{
	const struct sim_filter *sf = &r->sf;
	const struct pd_filter_plan *p = &sf->plan;
	unsigned int i;

	printf("{\"algo\":\"%s\",\"stream\":\"%s\",\"seed\":%llu,"
	       "\"mem_bytes\":%llu,\"n\":%llu,", sf->name,
	       stream_names[sc->kind], (unsigned long long)sc->seed,
	       (unsigned long long)sim_bytes(sf), (unsigned long long)r->all.n);
	if (sf->sh.n)
		printf("\"shards\":%u,", sf->sh.n);
	if (!sf->fps_used)
		printf("\"fps_target\":null,\"p_exact\":null,");
	else if (sf->ops && sf->ops->kind == PKTDEDUP_FILTER_KIND_SBF)
		printf("\"fps_target\":%.9g,\"p_exact\":%.9g,", sf->fps,
		       (double)p->p_exact_q32 / (double)PD_Q32_ONE);
	else
		printf("\"fps_target\":%.9g,\"p_exact\":null,", sf->fps);
	if (r->truth == TRUTH_NONE) {
		printf("\"truth\":\"none\",\"distincts\":null,"
		       "\"duplicates\":null,\"false_positives\":null,"
		       "\"false_negatives\":null,\"fp_rate\":null,"
		       "\"fn_rate\":null");
	} else {
		printf("\"truth\":\"%s\",", truth_names[r->truth]);
		json_score("", &r->all);
	}
	printf(",\"truth_compares\":");
	json_str(truth_compares(r, sc));
	if (r->x.on)
		printf(",\"truth_cross\":{\"key_only\":%llu,"
		       "\"key_only_said\":%llu,\"frame_only\":%llu,"
		       "\"frame_only_said\":%llu,\"decapsulated\":%llu,"
		       "\"unkeyed\":%llu,\"unkeyed_copies\":%llu}",
		       (unsigned long long)r->x.key_only,
		       (unsigned long long)r->x.key_only_said,
		       (unsigned long long)r->x.frame_only,
		       (unsigned long long)r->x.frame_only_said,
		       (unsigned long long)st->pc.truth_tunnelled,
		       (unsigned long long)r->x.unkeyed_n,
		       (unsigned long long)r->x.unkeyed_copies);
	else if (sc->kind == STREAM_PCAP)
		printf(",\"truth_cross\":null");
	printf(",\"said_duplicates\":%llu,\"truth_bytes\":%llu,"
	       "\"peak_rss_bytes\":%llu", (unsigned long long)r->said,
	       (unsigned long long)r->truth_bytes,
	       (unsigned long long)peak_rss());
	if (r->tw.on) {
		json_window(r);
	} else if (!sf->ops) {
		printf(",\"fp_bound\":%.9g,\"zero_fraction\":%.9g,"
		       "\"stable_point\":null,\"max\":null,\"bits\":null,"
		       "\"k\":0,\"p\":null,\"cells\":%llu,\"gap\":null,"
		       "\"fn_model\":null,\"capacity\":%llu,\"entry_bits\":%u,"
		       "\"q\":%.9g,\"duplicates_within_capacity\":%llu,"
		       "\"false_negatives_within_capacity\":%llu",
		       fpbuf_fp_bound(&sf->buf, sf->q), r->zero_fraction,
		       (unsigned long long)sf->buf.cap,
		       (unsigned long long)sf->buf.cap, sf->buf.entry_bits,
		       sf->q, (unsigned long long)r->dup_in_cap,
		       (unsigned long long)r->fn_in_cap);
	} else if (sf->ops->counting) {
		printf(",\"fp_bound\":%.9g,\"zero_fraction\":%.9g,"
		       "\"stable_point\":%.9g,\"max\":%u,\"bits\":%u,\"k\":%u,"
		       "\"p\":%u,\"cells\":%llu,\"gap\":%llu,\"fn_model\":%.9g",
		       q62(p->fp_bound), r->zero_fraction, q62(p->stable_zero),
		       p->max, p->bits, p->k, p->p, (unsigned long long)p->cells,
		       (unsigned long long)p->gap, q62(p->fn_rate));
		if (sf->ops->kind == PKTDEDUP_FILTER_KIND_SBF)
			printf(",\"layout\":\"%s\",\"fp_bound_flat\":%.9g",
			       pd_sbf_layout_name(p->layout),
			       q62(pd_plan_fp_bound(p->max, p->k, p->p,
						    p->cells)));
		if (sim_is_ibf(sf))
			printf(",\"fn_model_low\":%.9g,\"importance_source\":\"%s\","
			       "\"importance_mask\":%u", q62(p->fn_low),
			       p->importance == PKTDEDUP_IMPORTANCE_DSCP ?
			       "dscp" : "mark", p->importance_mask);
	} else {
		printf(",\"fp_bound\":%.9g,\"zero_fraction\":%.9g,"
		       "\"stable_point\":%.9g,\"stable_load\":%.9g,"
		       "\"load\":%.9g,\"max\":null,\"bits\":null,\"k\":%u,"
		       "\"p\":null,\"cells\":%llu,\"bits_per_array\":%llu,"
		       "\"gap\":null,\"fn_model\":null",
		       q62(p->fp_bound), r->zero_fraction,
		       1 - q62(p->stable_load), q62(p->stable_load),
		       1 - r->zero_fraction, p->k,
		       (unsigned long long)(p->cells * p->k),
		       (unsigned long long)p->cells);
		if (sf->ops->kind == PKTDEDUP_FILTER_KIND_RSBF)
			printf(",\"p_star\":%.9g", p->p_star_ppb / 1e9);
	}
	if (window) {
		printf(",\"window\":%llu,", (unsigned long long)window);
		json_score("window_", &r->win);
	}
	printf(",\"cpus\":%u,\"distinct_estimate\":%llu", r->cpus,
	       (unsigned long long)r->distinct_estimate);
	if (r->truth == TRUTH_NONE)
		printf(",\"distinct_exact\":null,\"distinct_error\":null");
	else if (!distinct_exact(r))
		printf(",\"distinct_exact\":0,\"distinct_error\":null");
	else
		printf(",\"distinct_exact\":%llu,\"distinct_error\":%.9g",
		       (unsigned long long)distinct_exact(r),
		       rate(r->distinct_estimate, distinct_exact(r)) - 1);
	if (r->src)
		json_sources(&r->sres);
	if (sc->kind == STREAM_PCAP)
		capture_json(st, sc, out);
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
	if (mem_asked)
		printf(",\"mem_asked\":%llu", (unsigned long long)mem_asked);
	else
		printf(",\"mem_asked\":null");
	if (sc->kind == STREAM_TIMED) {
		printf(",\"pps\":%llu,\"distinct\":%.9g,\"copy_delay_ms\":%.9g,"
		       "\"duration_ms\":%.9g", (unsigned long long)sc->pps,
		       sc->distinct, (double)sc->copy_delay / 1e6,
		       (double)r->last_t / 1e6);
		if (sc->flood_pps) {
			/* flood packets are all new: any "duplicate" is FP */
			printf(",\"flood_pps\":%llu,\"flood_at_ms\":%.9g,"
			       "\"flood_packets\":%llu,\"flood_fp\":%llu,"
			       "\"flood_fp_rate\":%.9g",
			       (unsigned long long)sc->flood_pps,
			       (double)sc->flood_at / 1e6,
			       (unsigned long long)st->flood,
			       (unsigned long long)r->flood_fp,
			       rate(r->flood_fp, st->flood));
			if (sc->flood_for >= UINT64_MAX / 2)	/* to the end */
				printf(",\"flood_for_ms\":null");
			else
				printf(",\"flood_for_ms\":%.9g",
				       (double)sc->flood_for / 1e6);
		} else {
			printf(",\"flood_pps\":0,\"flood_packets\":0,"
			       "\"flood_fp\":0,\"flood_fp_rate\":0");
		}
	}
	if (sc->kind == STREAM_IMPORTANCE)
		json_importance(r, sc);
	if (r->sketches)
		printf(",\"sketches\":{\"rows\":%llu,\"fingerprint\":\"%016llx\"}",
		       (unsigned long long)r->sketch_rows,
		       (unsigned long long)r->sketch_fp);
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

/* Ticks for people: a time with its unit, or packets. */
static const char *fmt_ticks(const struct tw_run *tw, u64 v, char *buf,
			     size_t len)
{
	if (!tw->timed)
		snprintf(buf, len, "%llu packets", (unsigned long long)v);
	else if (v >= 1000000000ULL)
		snprintf(buf, len, "%.6g s", (double)v / 1e9);
	else if (v >= 1000000)
		snprintf(buf, len, "%.6g ms", (double)v / 1e6);
	else if (v >= 1000)
		snprintf(buf, len, "%.6g us", (double)v / 1e3);
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)v);
	return buf;
}

static void print_window_filter(const struct run *r)
{
	const struct sim_filter *sf = &r->sf;
	const struct pd_filter_plan *p = &sf->plan;
	const struct tw_run *tw = &r->tw;
	char w[32], g[32];

	printf("%-10s %s window of %s", "filter", sf->name,
	       fmt_ticks(tw, tw->window, w, sizeof(w)));
	if (p->subwindows > 1)
		printf(" in %u subwindows", p->subwindows);
	if (sf->ops->kind == PKTDEDUP_FILTER_KIND_SLIDING)
		printf(": %llu counters, k %u, a ring of %llu packets\n",
		       (unsigned long long)p->cells, p->k,
		       (unsigned long long)p->capacity);
	else
		printf(": %llu positions, k %u, %llu keys per %s\n",
		       (unsigned long long)p->cells, p->k,
		       (unsigned long long)p->capacity,
		       p->subwindows > 1 ? "subwindow" : "window");
	printf("%-10s fp bound %.4f%% at capacity (fps %g)", "model",
	       100 * q62(p->fp_bound), sf->fps);
	if (tw->timed)
		printf("  capacity holds %llu packets/s",
		       (unsigned long long)p->rate);
	printf("\n%-10s no copy less than %s apart missed while nothing "
	       "expires early\n", "", tw_guaranteed(tw) ?
	       fmt_ticks(tw, tw_guaranteed(tw), g, sizeof(g)) : "0 (none)");
}

/* The window's facts, after the scores. */
static void print_window_run(const struct run *r)
{
	const struct tw_run *tw = &r->tw;
	char a[32], b[32];

	printf("%-10s effective %s at the latest expiry, shortest %s; "
	       "%llu early expir%s, %llu alert%s\n", "window",
	       fmt_ticks(tw, tw->win.effective, a, sizeof(a)),
	       fmt_ticks(tw, tw->win.shortest, b, sizeof(b)),
	       (unsigned long long)tw->win.early,
	       tw->win.early == 1 ? "y" : "ies",
	       (unsigned long long)tw->alerts, tw->alerts == 1 ? "" : "s");
	printf("%-10s fn %llu of %llu copies inside the window; %llu of %llu "
	       "inside the guaranteed span\n", "inside",
	       (unsigned long long)r->all.fn,
	       (unsigned long long)r->all.duplicates,
	       (unsigned long long)tw->fn_guar,
	       (unsigned long long)tw->dup_guar);
	printf("%-10s fp %.4f%% (%llu of %llu never seen)   %llu of %llu "
	       "copies older than the window said duplicate\n", "outside",
	       100 * rate(tw->fp_new, tw->fresh),
	       (unsigned long long)tw->fp_new, (unsigned long long)tw->fresh,
	       (unsigned long long)tw->fp_stale,
	       (unsigned long long)tw->stale);
}

static void print_filter(const struct run *r)
{
	const struct sim_filter *sf = &r->sf;
	const struct pd_filter_plan *p = &sf->plan;
	char eq17[64] = "given";

	if (r->tw.on) {
		print_window_filter(r);
		return;
	}
	if (!sf->ops) {
		printf("%-10s LRU buffer of %llu fingerprints of %u bits "
		       "(its hash table and list not counted)  q %g\n",
		       "filter", (unsigned long long)sf->buf.cap,
		       sf->buf.entry_bits, sf->q);
		printf("%-10s fp %.4f%% (q, and fingerprints that collide)  "
		       "no fn for a copy at most %llu elements back\n", "model",
		       100 * fpbuf_fp_bound(&sf->buf, sf->q),
		       (unsigned long long)sf->buf.cap);
		return;
	}
	if (!sf->ops->counting) {
		printf("%-10s k %u arrays of %llu bits", "filter", p->k,
		       (unsigned long long)p->cells);
		if (sf->ops->kind == PKTDEDUP_FILTER_KIND_RSBF)
			printf("  p* %g%s", p->p_star_ppb / 1e9,
			       sf->fps_used ? "  (k from Eq. 6.1)" : "");
		else if (sf->fps_used)
			printf("  (k planned for fps %g, our stable-load model)",
			       sf->fps);
		printf("\n%-10s fp bound %.4f%% (stable load^k)  stable load "
		       "%.2f%% (our model)\n", "model", 100 * q62(p->fp_bound),
		       100 * q62(p->stable_load));
		return;
	}
	if (sf->fps_used && sf->ops->kind == PKTDEDUP_FILTER_KIND_SBF)
		snprintf(eq17, sizeof(eq17), "Eq. 17 for fps %g: %.2f", sf->fps,
			 (double)p->p_exact_q32 / (double)PD_Q32_ONE);
	else if (sf->fps_used)
		snprintf(eq17, sizeof(eq17), "least for fps %g", sf->fps);
	printf("%-10s max %u (%u-bit cells)  k %u  p %u (%s)  cells %llu\n",
	       "filter", p->max, p->bits, p->k, p->p, eq17,
	       (unsigned long long)p->cells);
	if (!sim_is_ibf(sf)) {
		bool blocked = pd_sbf_lined(p->layout);

		printf("%-10s fp bound %.4f%% (%s)  stable zeros %.2f%% "
		       "(Thm 3)  fn at gap %llu: %.4f%% (Eq. 16)\n", "model",
		       100 * q62(p->fp_bound),
		       !blocked ? "Eq. 8" : p->layout == PKTDEDUP_LAYOUT_LINE ?
		       "one line, plan.c" : "blocked lines, plan.c",
		       100 * q62(p->stable_zero),
		       (unsigned long long)p->gap, 100 * q62(p->fn_rate));
		if (blocked)
			printf("%-10s flat layout at this P: fp bound %.4f%% (Eq. 8)\n",
			       "", 100 * q62(pd_plan_fp_bound(p->max, p->k, p->p,
							      p->cells)));
		return;
	}
	printf("%-10s importance from the %s", "", p->importance ==
	       PKTDEDUP_IMPORTANCE_DSCP ? "DSCP" : "mark");
	if (p->importance == PKTDEDUP_IMPORTANCE_MARK)
		printf(" (mask 0x%x)", p->importance_mask);
	printf("\n%-10s fp bound %.4f%% (stable chain)  stable zeros %.2f%%  "
	       "fn at gap %llu: %.4f%% most, %.4f%% least important\n",
	       "model", 100 * q62(p->fp_bound), 100 * q62(p->stable_zero),
	       (unsigned long long)p->gap, 100 * q62(p->fn_rate),
	       100 * q62(p->fn_low));
}

static void print_importance(const struct run *r, const struct stream_cfg *sc)
{
	const struct imp_score *is = &r->imp;
	bool ibf = sim_is_ibf(&r->sf);
	unsigned int c;

	printf("%-10s %s, repeat %g: wFP %.4f%%  wFN %.4f%% (the paper's: "
	       "weighted by importance over all elements)\n", "importance",
	       imp_dist_names[sc->imp_dist], sc->repeat,
	       100 * rate(is->w_fp, is->w_all), 100 * rate(is->w_fn, is->w_all));
	printf("%-10s weighted over distincts: fp %.4f%%; over duplicates: "
	       "fn %.4f%%\n", "", 100 * rate(is->w_fp, is->w_distinct),
	       100 * rate(is->w_fn, is->w_duplicate));
	printf("%-10s %9s %9s %9s %9s %9s%s\n", "class", "elements",
	       "distinct", "duplicate", "fp", "fn", ibf ? "  value" : "");
	for (c = 1; c <= IMP_CLASSES; c++) {
		const struct score *s = &is->cls[c];

		printf("%-10u %9llu %9llu %9llu %8.3f%% %8.3f%%", c,
		       (unsigned long long)s->n,
		       (unsigned long long)s->distincts,
		       (unsigned long long)s->duplicates,
		       100 * rate(s->fp, s->distincts),
		       100 * rate(s->fn, s->duplicates));
		if (ibf)
			printf("  %5u", sim_ibf_value(&r->sf, c));
		printf("\n");
	}
}

/* Where the filter's key and the frames disagree (a capture's truth). */
static void print_cross(const struct run *r, const struct stream *st)
{
	const struct cross *x = &r->x;

	printf("%-10s %llu copies by the key are new frames (%llu said copies); "
	       "%llu copies by the frame have new keys (%llu said copies)\n",
	       "key/frame", (unsigned long long)x->key_only,
	       (unsigned long long)x->key_only_said,
	       (unsigned long long)x->frame_only,
	       (unsigned long long)x->frame_only_said);
	printf("%-10s %llu frames decapsulated by the frame truth; %llu of the "
	       "%llu frames passed unkeyed are copies by it\n", "",
	       (unsigned long long)st->pc.truth_tunnelled,
	       (unsigned long long)x->unkeyed_copies,
	       (unsigned long long)x->unkeyed_n);
}

static void print_table(const struct run *r, const struct stream_cfg *sc,
			const struct stream *st, const struct outputs *out,
			uint64_t mem_asked, uint64_t window)
{
	const struct sim_filter *sf = &r->sf;
	uint64_t bytes = sim_bytes(sf);
	unsigned int i;

	printf("dedup-sim: %s over %llu bytes", sf->name,
	       (unsigned long long)bytes);
	if (mem_asked && bytes != mem_asked)
		printf(" (of %llu asked)", (unsigned long long)mem_asked);
	if (sf->sh.n)
		printf(" in %u shards", sf->sh.n);
	printf(", %s stream, seed %llu\n", stream_names[sc->kind],
	       (unsigned long long)sc->seed);
	print_filter(r);
	if (r->truth == TRUTH_NONE)
		printf("%-10s %llu elements, %llu said to be copies "
		       "(no ground truth: --truth none)\n", "stream",
		       (unsigned long long)r->all.n,
		       (unsigned long long)r->said);
	else
		printf("%-10s %llu elements: %llu distinct, %llu duplicates\n",
		       "stream", (unsigned long long)r->all.n,
		       (unsigned long long)r->all.distincts,
		       (unsigned long long)r->all.duplicates);
	if (r->truth != TRUTH_NONE)
		printf("%-10s %s: %s\n", "truth", truth_names[r->truth],
		       truth_compares(r, sc));
	if (r->x.on)
		print_cross(r, st);
	if (sc->kind == STREAM_PCAP)
		capture_print(st, sc, out);
	if (sc->kind == STREAM_TIMED) {
		printf("%-10s %llu pps, %.4g%% fresh, copies up to %.6g ms later",
		       "timed", (unsigned long long)sc->pps, 100 * sc->distinct,
		       (double)sc->copy_delay / 1e6);
		if (sc->flood_pps)
			printf("; flood of %llu pps: %llu packets, fp %.4f%%",
			       (unsigned long long)sc->flood_pps,
			       (unsigned long long)st->flood,
			       100 * rate(r->flood_fp, st->flood));
		printf("; %.6g ms in all\n", (double)r->last_t / 1e6);
	}
	if (r->truth != TRUTH_NONE)
		print_score("measured", &r->all);
	if (r->tw.on && r->truth != TRUTH_NONE)
		print_window_run(r);
	if (!sf->ops && r->truth == TRUTH_NONE)
		printf("%-10s %.2f%% of the entries used at the end\n", "",
		       100 * (1 - r->zero_fraction));
	else if (!sf->ops)
		printf("%-10s %.2f%% of the entries used at the end; fn %llu "
		       "of %llu duplicates at most %llu back\n", "",
		       100 * (1 - r->zero_fraction),
		       (unsigned long long)r->fn_in_cap,
		       (unsigned long long)r->dup_in_cap,
		       (unsigned long long)sf->buf.cap);
	else if (sf->ops->counting)
		printf("%-10s zeros %.2f%% at the end\n", "",
		       100 * r->zero_fraction);
	else
		printf("%-10s set bits %.2f%% at the end\n", "",
		       100 * (1 - r->zero_fraction));
	printf("%-10s %llu estimated by HyperLogLog (%u sketch%s merged)",
	       "distinct", (unsigned long long)r->distinct_estimate, r->cpus,
	       r->cpus == 1 ? "" : "es");
	if (r->truth == TRUTH_NONE)
		printf("\n");
	else if (!distinct_exact(r))	/* no error of an empty count */
		printf(", exact 0\n");
	else
		printf(", exact %llu: error %+.3f%%\n",
		       (unsigned long long)distinct_exact(r),
		       100 * (rate(r->distinct_estimate, distinct_exact(r)) - 1));
	printf("%-10s filter %llu bytes, ground truth %llu bytes%s, "
	       "peak RSS %.1f MiB\n", "memory", (unsigned long long)bytes,
	       (unsigned long long)r->truth_bytes,
	       r->truth == TRUTH_NONE ? " (none)" :
	       r->compact ? (r->x.on ? " (digests of keys and frames)" :
			     " (digests)") :
	       r->x.on ? " (last positions of keys and frames)" :
	       " (last positions)",
	       (double)peak_rss() / (1 << 20));
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
	if (sc->kind == STREAM_IMPORTANCE)
		print_importance(r, sc);
	if (r->sketches)
		printf("%-10s %llu rows, key fingerprint %016llx\n", "sketches",
		       (unsigned long long)r->sketch_rows,
		       (unsigned long long)r->sketch_fp);
}

enum opt {
	O_ALGO = 256, O_MEM, O_MAX, O_K, O_P, O_FPS, O_GAP, O_WINDOW, O_SEED,
	O_STREAM, O_N, O_DISTINCT, O_UNIVERSE, O_ZIPF_S, O_LAMBDA, O_U, O_BIAS,
	O_LEVELS, O_VOLUME, O_PCAP, O_KEY, O_PAYLOAD, O_IGNORE_TOS,
	O_CHECKPOINTS, O_JSON, O_HELP, O_CPUS, O_SOURCES, O_SUBWINDOWS, O_SHARED,
	O_SUB_ELEMS, O_COUNTERS, O_HH_PHI, O_RARE_SUPPORT, O_RING, O_NEW_MEM,
	O_NEW_GAP, O_PSTAR, O_IMPORTANCE, O_ENTRY_BITS, O_IMP_DIST, O_REPEAT,
	O_RATE, O_WARN_BELOW, O_PPS, O_COPY_DELAY, O_FLOOD, O_FLOOD_AT,
	O_FLOOD_FOR, O_LAYOUT, O_WRITE, O_WRITE_DUPS, O_TRUTH, O_PROTO,
	O_DECAP, O_TUNNEL_ID, O_VXLAN_PORT, O_GENEVE_PORT, O_GTPU_PORT,
	O_SHARDS, O_NONIP, O_SKETCHES, O_SKETCH_EVERY, O_HOST, O_SOURCES_KEY,
};

static const struct option options[] = {
	{ "algo", required_argument, NULL, O_ALGO },
	{ "mem", required_argument, NULL, O_MEM },
	{ "max", required_argument, NULL, O_MAX },
	{ "k", required_argument, NULL, O_K },
	{ "p", required_argument, NULL, O_P },
	{ "fps", required_argument, NULL, O_FPS },
	{ "gap", required_argument, NULL, O_GAP },
	{ "p-star", required_argument, NULL, O_PSTAR },
	{ "importance", required_argument, NULL, O_IMPORTANCE },
	{ "entry-bits", required_argument, NULL, O_ENTRY_BITS },
	{ "window", required_argument, NULL, O_WINDOW },
	{ "seed", required_argument, NULL, O_SEED },
	{ "shards", required_argument, NULL, O_SHARDS },
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
	{ "nonip", required_argument, NULL, O_NONIP },
	{ "imp-dist", required_argument, NULL, O_IMP_DIST },
	{ "repeat", required_argument, NULL, O_REPEAT },
	{ "checkpoints", required_argument, NULL, O_CHECKPOINTS },
	{ "cpus", required_argument, NULL, O_CPUS },
	{ "sources", no_argument, NULL, O_SOURCES },
	{ "shared", no_argument, NULL, O_SHARED },
	{ "subwindows", required_argument, NULL, O_SUBWINDOWS },
	{ "subwindow-elements", required_argument, NULL, O_SUB_ELEMS },
	{ "counters", required_argument, NULL, O_COUNTERS },
	{ "hh-phi", required_argument, NULL, O_HH_PHI },
	{ "rare-support", required_argument, NULL, O_RARE_SUPPORT },
	{ "ring", required_argument, NULL, O_RING },
	{ "new-mem", required_argument, NULL, O_NEW_MEM },
	{ "new-gap", required_argument, NULL, O_NEW_GAP },
	{ "rate", required_argument, NULL, O_RATE },
	{ "warn-below", required_argument, NULL, O_WARN_BELOW },
	{ "layout", required_argument, NULL, O_LAYOUT },
	{ "pps", required_argument, NULL, O_PPS },
	{ "copy-delay", required_argument, NULL, O_COPY_DELAY },
	{ "flood", required_argument, NULL, O_FLOOD },
	{ "flood-at", required_argument, NULL, O_FLOOD_AT },
	{ "flood-for", required_argument, NULL, O_FLOOD_FOR },
	{ "write", required_argument, NULL, O_WRITE },
	{ "write-dups", required_argument, NULL, O_WRITE_DUPS },
	{ "truth", required_argument, NULL, O_TRUTH },
	{ "proto", required_argument, NULL, O_PROTO },
	{ "decap", required_argument, NULL, O_DECAP },
	{ "tunnel-id", required_argument, NULL, O_TUNNEL_ID },
	{ "vxlan-port", required_argument, NULL, O_VXLAN_PORT },
	{ "geneve-port", required_argument, NULL, O_GENEVE_PORT },
	{ "gtpu-port", required_argument, NULL, O_GTPU_PORT },
	{ "sketches", required_argument, NULL, O_SKETCHES },
	{ "sketch-every", required_argument, NULL, O_SKETCH_EVERY },
	{ "host", required_argument, NULL, O_HOST },
	{ "sources-key", required_argument, NULL, O_SOURCES_KEY },
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

/*
 * An option whose value needs nothing but its kind's parser and a range:
 * parsed into *dst (by kind: a uint64_t, unsigned int, double, uint32_t
 * ppb, const char * or bool), lo to hi inclusive; what names it in the
 * refusal; *seen set if given.
 */
struct opt_spec {
	int opt;
	enum {
		OPT_U64, OPT_UINT, OPT_REAL, OPT_PPB,
		OPT_SIZE,	/* a size in bytes, not 0 (64K, 1M) */
		OPT_RATE,	/* packets per second (2.5k, 1M) */
		OPT_TIME,	/* a time in ns (500us, 1.5s) */
		OPT_STR,	/* the argument itself */
		OPT_FLAG,	/* no argument: true */
	} kind;
	void *dst;
	uint64_t lo, hi;	/* the integer kinds */
	double rlo, rhi;	/* OPT_REAL */
	const char *what;
	bool *seen;
};

/* An integer of kind k (OPT_U64, UINT, RATE, TIME) in [lo, hi]. */
static bool opt_int(int k, const char *arg, uint64_t lo, uint64_t hi,
		    uint64_t *v)
{
	switch (k) {
	case OPT_RATE:
		if (!parse_rate(arg, v))
			return false;
		break;
	case OPT_TIME:
		if (!parse_time_ns(arg, v))
			return false;
		break;
	default:
		return parse_u64(arg, lo, hi, v);
	}
	return *v >= lo && *v <= hi;
}

/* Option o, if t[] has it: its value read, or a usage error; false if not. */
static bool table_option(int o, const char *arg, const struct opt_spec *t,
			 size_t n)
{
	uint64_t v;
	size_t i;

	for (i = 0; i < n && t[i].opt != o; i++)
		;
	if (i == n)
		return false;
	switch (t[i].kind) {
	case OPT_U64:
	case OPT_UINT:
	case OPT_RATE:
	case OPT_TIME:
		if (!opt_int(t[i].kind, arg, t[i].lo, t[i].hi, &v))
			BAD(o, t[i].what);
		if (t[i].kind == OPT_UINT)
			*(unsigned int *)t[i].dst = (unsigned int)v;
		else
			*(uint64_t *)t[i].dst = v;
		break;
	case OPT_REAL:
		if (!parse_real(arg, t[i].rlo, t[i].rhi, t[i].dst))
			BAD(o, t[i].what);
		break;
	case OPT_PPB:
		if (pd_parse_ppb(arg, t[i].dst))
			BAD(o, t[i].what);
		break;
	case OPT_SIZE:
		if (!parse_size(arg, t[i].dst) || !*(uint64_t *)t[i].dst)
			BAD(o, t[i].what);
		break;
	case OPT_STR:
		*(const char **)t[i].dst = arg;
		break;
	case OPT_FLAG:
		*(bool *)t[i].dst = true;
		break;
	}
	if (t[i].seen)
		*t[i].seen = true;
	return true;
}

#define ALGO_FPBUF "fpbuffering"

/* The algorithms this simulator knows: the filter families, fpbuffering. */
static const char *algos(void)
{
	static char names[PD_FILTER_NAMES_LEN + sizeof(", " ALGO_FPBUF)];

	pd_filter_family_names(names, PD_FILTER_NAMES_LEN, ", ");
	strcat(names, ", " ALGO_FPBUF);
	return names;
}
/*
 * Settings as masks of the bits 1 << attr of the spec's settings set (a
 * family's rows say which it takes), and fpbuffering's own beside them.
 */
#define SIM_ATTR_ENTRY_BITS (PKTDEDUP_A_SETTINGS_MAX + 1)
static_assert(SIM_ATTR_ENTRY_BITS < 64, "settings in a u64 mask");

/* The settings a family takes (fpbuffering: fps, entry bits). */
static u64 settings_taken(const struct pd_filter_ops *ops)
{
	const struct pd_setting *s;
	u64 m = 0;

	if (!ops)
		return PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_FPS) |
		       PD_SETTING_BIT(SIM_ATTR_ENTRY_BITS);
	for (s = ops->settings; s->attr; s++)
		m |= PD_SETTING_BIT(s->attr);
	return m;
}

/*
 * The family-specific options and the setting each gives. --window and
 * --subwindows mean something to every family (a scoring window, the
 * source analytics' sub-windows): they are listed for the families that
 * take them but given by main() itself, not by setting_of().
 */
static const struct {
	int opt;
	u16 attr;
} setting_opts[] = {
	{ O_MAX, PKTDEDUP_A_SETTINGS_CELL_BITS }, { O_K, PKTDEDUP_A_SETTINGS_K },
	{ O_P, PKTDEDUP_A_SETTINGS_P }, { O_FPS, PKTDEDUP_A_SETTINGS_FPS },
	{ O_GAP, PKTDEDUP_A_SETTINGS_GAP },
	{ O_PSTAR, PKTDEDUP_A_SETTINGS_P_STAR },
	{ O_IMPORTANCE, PKTDEDUP_A_SETTINGS_IMPORTANCE },
	{ O_ENTRY_BITS, SIM_ATTR_ENTRY_BITS },
	{ O_WINDOW, PKTDEDUP_A_SETTINGS_WINDOW_NS },
	{ O_RATE, PKTDEDUP_A_SETTINGS_RATE },
	{ O_SUBWINDOWS, PKTDEDUP_A_SETTINGS_SUBWINDOWS },
	{ O_WARN_BELOW, PKTDEDUP_A_SETTINGS_WARN_BELOW },
	{ O_LAYOUT, PKTDEDUP_A_SETTINGS_LAYOUT },
};

static bool setting_given_by_main(int o)
{
	return o == O_WINDOW || o == O_SUBWINDOWS;
}

static u64 setting_of(int o)
{
	unsigned int i;

	if (setting_given_by_main(o))
		return 0;
	for (i = 0; i < PD_ARRAY_SIZE(setting_opts); i++)
		if (setting_opts[i].opt == o)
			return PD_SETTING_BIT(setting_opts[i].attr);
	return 0;
}

/* Refuse a setting the family does not take, saying which it takes. */
static void check_settings(const char *algo, u64 takes, u64 given)
{
	char list[256] = "";
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(setting_opts); i++)
		if (takes & PD_SETTING_BIT(setting_opts[i].attr))
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 " --%s", optname(setting_opts[i].opt));
	for (i = 0; i < PD_ARRAY_SIZE(setting_opts); i++)
		if ((given & PD_SETTING_BIT(setting_opts[i].attr) & ~takes) &&
		    setting_opts[i].opt != O_WINDOW)
			usage_error("--%s: %s does not take it (%s takes --mem%s)",
				    optname(setting_opts[i].opt), algo, algo,
				    list);
}

/*
 * Build the run's filter. Its generator state and hash key derive from
 * --seed (pd_filter_seed: the generator state first, then the key's
 * second and first words); then the sketch's seed (the caller's).
 */
static void sim_filter_build(struct sim_filter *sf, struct pd_filter_req *req,
			     unsigned int entry_bits, u32 shards, bool shared,
			     u64 *seed)
{
	const char *why = NULL;
	char err[PD_FILTER_REFUSAL_LEN];
	int e;

	if (!sf->ops && (shards || shared))
		usage_error("--%s: %s is none of the module's filters",
			    shards ? "shards" : "shared", sf->name);
	if (shared && !shards && !pd_filter_kind_lockfree(sf->ops->kind))
		usage_error("--shared: the module builds %s in shards: give --shards N as dedupctl show reports them",
			    sf->name);
	if (!sf->ops) {
		u64 rng = pd_rng_next(seed);

		sf->hkey.k[1] = pd_rng_next(seed);
		sf->hkey.k[0] = pd_rng_next(seed);
		if (fpbuf_init(&sf->buf, req->mem_bytes, entry_bits, sf->q, rng,
			       err, sizeof(err)))
			usage_error("cannot build this filter: %s", err);
		return;
	}
	if (sf->window_arg) {
		/* the planner's refusals name the window they refuse */
		e = pd_filter_plan(req, &sf->plan, &why);
		if (e)
			usage_error("cannot build this filter (--window %s): %s",
				    sf->window_arg,
				    pd_filter_refusal(req, &sf->plan, e, why, err,
						      sizeof(err)));
		if (sf->mem_limit && sf->plan.bytes > sf->mem_limit)
			usage_error("cannot build this filter (--window %s): it needs %llu bytes, more than --mem %llu",
				    sf->window_arg,
				    (unsigned long long)sf->plan.bytes,
				    (unsigned long long)sf->mem_limit);
	}
	if (shards || shared) {
		/*
		 * the module's scope shared, seeded as it seeds one: in
		 * shards, or lock-free (one filter that CPU 0 steps with
		 * the filter's own generator)
		 */
		e = pd_shards_create_shared(&sf->sh, req, shards, 1, &sf->plan,
					    &why);
		if (e)
			usage_error("cannot build this filter: %s",
				    pd_filter_refusal(req, &sf->plan, e, why, err,
						      sizeof(err)));
		pd_shards_seed(&sf->sh, seed);
		sf->hkey = sf->sh.sh[0].f.hkey;
		return;
	}
	e = pd_filter_create(&sf->f, req, &sf->plan, &why);
	if (e)
		usage_error("cannot build this filter: %s",
			    pd_filter_refusal(req, &sf->plan, e, why, err,
					      sizeof(err)));
	/* the module's seed setting derives its seeds the same way */
	pd_filter_seed(&sf->f, seed);
	sf->hkey = sf->f.hkey;
}

/* The filter an element of hash h steps: its shard's, or the one. */
static struct pd_filter *sim_filter_of(struct sim_filter *sf, u64 h)
{
	return sf->sh.n ? &pd_shard_of(&sf->sh, h)->f : &sf->f;
}


/* A window family's state: the filter's, or its shards' together. */
static void sim_window(const struct sim_filter *sf, struct pd_filter_win *w)
{
	struct pd_filter_win one;
	u32 i;

	if (!sf->sh.n) {
		pd_filter_window(&sf->f, w);
		return;
	}
	for (i = 0; i < sf->sh.n; i++) {
		pd_filter_window(&sf->sh.sh[i].f, &one);
		pd_shards_window_add(w, &one, sf->sh.n, !i);
	}
}

/* One element: the verdict (true: duplicate); *found for fpbuffering. */
static bool sim_filter_step(struct sim_filter *sf, const struct element *e,
			    bool *found)
{
	struct pd_pktinfo pi;
	u64 h;

	/* as the module does: one keyed pass (a synthetic element: its id) */
	if (e->key)
		h = pd_key_hash64(e->key, &sf->hkey);
	else
		h = pd_hash64(&sf->hkey, &e->id, sizeof(e->id));
	if (!sf->ops)
		return fpbuf_step(&sf->buf, h, found);
	sim_pktinfo(sf, e->imp, e->dscp, &pi);
	pi.now = e->t_ns;
	return pd_filter_step_hash(sim_filter_of(sf, h), h, &pi);
}

static void sim_filter_free(struct sim_filter *sf)
{
	if (sf->sh.n)
		pd_shards_destroy(&sf->sh);
	else if (sf->ops)
		pd_filter_destroy(&sf->f);
	else
		fpbuf_free(&sf->buf);
}

/*
 * A window family's element against the exact time-window truth (editcap
 * -w: seen less than the window before); the split by the guaranteed
 * span and by why a distinct was one. True if it is a duplicate.
 */
static bool tw_add(struct run *r, const struct truth_verdict *tv, bool said)
{
	struct tw_run *tw = &r->tw;
	u64 gap = tw->timed ? tv->dt : tv->gap;
	bool dup = tv->seen && gap < tw->window;

	if (r->sf.f.alert) {
		tw->alerts++;
		r->sf.f.alert = false;
	}
	if (!tv->seen) {
		tw->fresh++;
		tw->fp_new += said;
	} else if (!dup) {
		tw->stale++;
		tw->fp_stale += said;
	}
	tw->seen_before += tv->seen;
	if (dup && tw_in_guarantee(tw, gap)) {
		tw->dup_guar++;
		tw->fn_guar += !said;
	}
	return dup;
}

/*
 * A capture whose time goes back (captures joined with cat: each
 * section's clock starts again) takes the time window's span away: the
 * window, as the module's, takes a time that goes back as the latest time
 * seen, so everything after the step arrives at one instant.
 */
static void warn_time_back(const struct stream_cfg *sc,
			   const struct pcap_counts *n, const char *window_arg)
{
	fprintf(stderr, "dedup-sim: %s: the capture's time goes back at frame %llu (%.6f s earlier than frame %llu; captures joined with cat?)\n"
		"dedup-sim: the time window (--window %s) takes such a frame at the latest time seen, as the module takes a clock that goes back: the frames behind it crowd into one instant (early expiries, missed copies)\n"
		"dedup-sim: mergecap -w OUT IN1 IN2 merges captures in time order\n",
		sc->pcap_path, (unsigned long long)n->back_frame,
		(double)n->back_first_ns / 1e9,
		(unsigned long long)n->back_before, window_arg);
}

static void imp_add(struct imp_score *is, unsigned int imp, bool truth_dup,
		    bool said_dup)
{
	score_add(&is->cls[imp], truth_dup, said_dup);
	is->w_all += imp;
	if (truth_dup) {
		is->w_duplicate += imp;
		is->w_fn += said_dup ? 0 : imp;
	} else {
		is->w_distinct += imp;
		is->w_fp += said_dup ? imp : 0;
	}
}

/* --proto: "any" or protocols by name or number, as dedupctl's proto. */
static void parse_protos(const char *v, struct pd_select *sel)
{
	char buf[1024], *w, *save = NULL;
	int p, n = 0;

	memset(sel, 0, sizeof(*sel));
	if (snprintf(buf, sizeof(buf), "%s", v) >= (int)sizeof(buf))
		usage_error("--proto: '%s' is too long", v);
	if (strcmp(v, "any"))
		for (w = strtok_r(buf, ",", &save); w;
		     w = strtok_r(NULL, ",", &save), n++) {
			p = proto_num(w);
			if (p < 0)
				usage_error("--proto: '%s' is not a protocol (tcp, udp, icmp, icmpv6, sctp, ... or 0-255)",
					    w);
			sel->protos[p >> 3] |= (u8)(1u << (p & 7));
		}
	if (strcmp(v, "any") && !n)
		usage_error("--proto: '%s' names nothing", v);
	pd_select_update(sel);
}

/* --decap: none, all, or encapsulations by name (the core's parser). */
static u8 parse_decap(const char *v)
{
	struct pd_decap_bad bad;
	u8 decap;

	if (!pd_decap_parse(v, &decap, &bad))
		return decap;
	switch (bad.why) {
	case PD_DECAP_BAD_NAME:
		usage_error("--decap: '%.*s' is not an encapsulation (vxlan, geneve, gre, erspan, gtpu, ip; or none, all)",
			    (int)bad.len, v + bad.at);
		break;
	case PD_DECAP_ALONE:
		usage_error("--decap: '%.*s' stands alone, not in a list ('%s')",
			    (int)bad.len, v + bad.at, v);
		break;
	case PD_DECAP_TWICE:
		usage_error("--decap: '%s' names %.*s twice", v, (int)bad.len,
			    v + bad.at);
		break;
	default:
		usage_error("--decap: '%s' has an empty name (none, all or a list of vxlan, geneve, gre, erspan, gtpu, ip)",
			    v);
		break;
	}
	return 0;
}

/*
 * The UDP tunnels looked into have a port each: two on one port would
 * make a packet both (the module refuses such a config too).
 */
static void check_decap_ports(const struct pd_key_opts *k)
{
	/* in the order of pd_udp_tunnels */
	static const char *const name[] = { "vxlan", "geneve", "gtpu" };
	const u16 port[] = { k->vxlan_port, k->geneve_port, k->gtpu_port };
	unsigned int i, j;

	if (pd_decap_port_clash(k->decap, port, &i, &j))
		usage_error("--%s-port and --%s-port are both %u: two UDP tunnels looked into (--decap) on one port; they must differ",
			    name[i], name[j], port[i]);
}

/* What the command line asks for: main()'s options, parsed and checked. */
struct sim_args {
	struct stream_cfg sc;
	struct pd_nh_key nhkey;		/* the packet key's (sc.key.nh), from --seed */
	struct src_cfg srcc;
	struct pd_select sel;		/* --proto's (sc.sel points here) */
	const char *algo, *window_arg, *subwin_arg, *write_path, *dups_path;
	uint64_t window, ncp, cpus, mem, gap, entry_bits, shards;
	u32 max, k, p;
	u64 given, takes;		/* settings, PD_SETTING_BIT()s */
	u8 importance, layout;
	u64 window_ns, window_pkts, tw_rate, subwin, warn_below;
	unsigned int vxlan_port, geneve_port, gtpu_port;	/* --*-port */
	double fps, p_star;
	enum truth_mode truth_mode;
	bool json, have_mem, have_algo, have_stream, have_universe, sources;
	bool shared;
	bool have_imp_opts, have_rate, have_timed_opts, have_flood_opts;
	bool winfam;			/* a window family */
	bool have_decap_opts;		/* --decap, --tunnel-id, --*-port */
	/* --sketches FILE, its interval, host name and key file */
	const char *sketch_path, *sketch_host, *skey_path;
	uint64_t sketch_every;
	bool have_sketch_opts;
};

/* The defaults of every option. */
static const struct sim_args sim_defaults = {
	.sc = {
		.kind = STREAM_UNIFORM, .n = 1000000, .distinct = 0.5,
		.zipf_s = 1.0, .lambda = 0.5, .bias = 0.7, .levels = 6,
		.volume = 0.1, .u = 0.001, .seed = 1, .imp_dist = IMP_UNIFORM,
		.repeat = 0.3, .pps = 1000000, .copy_delay = 1000000,
		.flood_for = UINT64_MAX / 2,
		/* the tunnels' ports: from the options' below */
		.key = { .mode = PKTDEDUP_KEY_PACKET, .payload = PD_KEY_DEFAULT_PAYLOAD },
	},
	.srcc = {
		.nsub = 12, .counters = 128, .ring = 1024, .new_mem = 65536,
		.new_gap = 1000,
		.phi_ppb = 1000000, .support_ppb = 100000,
	},
	.cpus = 1, .entry_bits = FPBUF_DEFAULT_ENTRY_BITS,
	.max = PD_FILTER_AUTO, .k = PD_FILTER_AUTO, .p = PD_FILTER_AUTO,
	.importance = PKTDEDUP_IMPORTANCE_MARK,
	.warn_below = PD_TW_DEFAULT_WARN, .layout = PKTDEDUP_LAYOUT_AUTO,
	.fps = -1, .truth_mode = TRUTH_EXACT,
	.vxlan_port = PD_VXLAN_PORT, .geneve_port = PD_GENEVE_PORT,
	.gtpu_port = PD_GTPU_PORT,
	.sketch_every = 60000000000ULL,
};

/*
 * The options, each checked on its own (exits 2 if bad), and what follows
 * from them before the algorithm is known.
 */
static void sim_args_parse(struct sim_args *a, int argc, char **argv)
{
	uint64_t v;
	int o;

	/* the options of a plain kind and range (the others: the switch) */
	const struct opt_spec opts[] = {
		{ .opt = O_MEM, .kind = OPT_SIZE, .dst = &a->mem,
		  .what = "a size (e.g. 65536, 64K, 1M, 2G)", .seen = &a->have_mem },
		{ .opt = O_NEW_MEM, .kind = OPT_SIZE, .dst = &a->srcc.new_mem,
		  .what = "a size (e.g. 64K)" },
		{ .opt = O_K, .kind = OPT_UINT, .dst = &a->k, .lo = 1, .hi = PD_SBF_MAX_K,
		  .what = "a probe or array count from 1 to 16" },
		{ .opt = O_P, .kind = OPT_UINT, .dst = &a->p, .lo = 0, .hi = 0xfffffffeu,
		  .what = "a cell count" },
		{ .opt = O_RATE, .kind = OPT_RATE, .dst = &a->tw_rate, .lo = 1, .hi = UINT32_MAX,
		  .what = "a rate in packets per second from 1 to 4G (500000, 2.5k, 1M)",
		  .seen = &a->have_rate },
		{ .opt = O_PPS, .kind = OPT_RATE, .dst = &a->sc.pps, .lo = 1, .hi = 1000000000000ULL,
		  .what = "a rate in packets per second from 1 to 1T (500000, 2.5k, 1M)",
		  .seen = &a->have_timed_opts },
		{ .opt = O_FLOOD, .kind = OPT_RATE, .dst = &a->sc.flood_pps, .lo = 1,
		  .hi = 1000000000000ULL, .what = "a rate in packets per second from 1 to 1T (10M)",
		  .seen = &a->have_timed_opts },
		{ .opt = O_COPY_DELAY, .kind = OPT_TIME, .dst = &a->sc.copy_delay, .lo = 0,
		  .hi = PD_TW_MAX_NS, .what = "a time of at most 1h (0, 500us, 4ms, 1.5s)",
		  .seen = &a->have_timed_opts },
		{ .opt = O_FLOOD_AT, .kind = OPT_TIME, .dst = &a->sc.flood_at, .lo = 0,
		  .hi = PD_TW_MAX_NS * 24, .what = "a time of at most a day (0, 100ms, 2s)",
		  .seen = &a->have_flood_opts },
		{ .opt = O_FLOOD_FOR, .kind = OPT_TIME, .dst = &a->sc.flood_for, .lo = 1,
		  .hi = PD_TW_MAX_NS * 24, .what = "a time from 1ns to a day (5ms, 1s)",
		  .seen = &a->have_flood_opts },
		/* --window and --subwindows: their meaning depends on --algo */
		{ .opt = O_WINDOW, .kind = OPT_STR, .dst = &a->window_arg },
		{ .opt = O_SUBWINDOWS, .kind = OPT_STR, .dst = &a->subwin_arg },
		{ .opt = O_PCAP, .kind = OPT_STR, .dst = &a->sc.pcap_path },
		{ .opt = O_WRITE, .kind = OPT_STR, .dst = &a->write_path },
		{ .opt = O_WRITE_DUPS, .kind = OPT_STR, .dst = &a->dups_path },
		{ .opt = O_SKETCHES, .kind = OPT_STR, .dst = &a->sketch_path },
		{ .opt = O_SKETCH_EVERY, .kind = OPT_TIME, .dst = &a->sketch_every,
		  .lo = 1000000, .hi = PD_TW_MAX_NS * 24,
		  .what = "a time from 1ms to a day (10s, 1m, 1h)",
		  .seen = &a->have_sketch_opts },
		{ .opt = O_HOST, .kind = OPT_STR, .dst = &a->sketch_host,
		  .seen = &a->have_sketch_opts },
		{ .opt = O_SOURCES_KEY, .kind = OPT_STR, .dst = &a->skey_path,
		  .seen = &a->have_sketch_opts },
		{ .opt = O_SOURCES, .kind = OPT_FLAG, .dst = &a->sources },
		{ .opt = O_SHARED, .kind = OPT_FLAG, .dst = &a->shared },
		{ .opt = O_JSON, .kind = OPT_FLAG, .dst = &a->json },
		{ .opt = O_GAP, .kind = OPT_U64, .dst = &a->gap, .lo = 1, .hi = 1ULL << 48,
		  .what = "a gap of at least 1 element" },
		{ .opt = O_WARN_BELOW, .kind = OPT_U64, .dst = &a->warn_below, .lo = 0, .hi = 100,
		  .what = "a percentage from 0 to 100" },
		{ .opt = O_SEED, .kind = OPT_U64, .dst = &a->sc.seed, .lo = 0, .hi = UINT64_MAX,
		  .what = "a whole number" },
		{ .opt = O_SHARDS, .kind = OPT_U64, .dst = &a->shards, .lo = 1, .hi = PD_SHARDS_MAX,
		  .what = "a power of two from 1 to 4096" },
		{ .opt = O_N, .kind = OPT_U64, .dst = &a->sc.n, .lo = 1, .hi = 1ULL << 40,
		  .what = "an element count of at least 1" },
		{ .opt = O_UNIVERSE, .kind = OPT_U64, .dst = &a->sc.universe, .lo = 1, .hi = 1ULL << 28,
		  .what = "a universe size from 1 to 2^28", .seen = &a->have_universe },
		{ .opt = O_ZIPF_S, .kind = OPT_REAL, .dst = &a->sc.zipf_s, .rlo = 0, .rhi = 10,
		  .what = "a Zipf exponent from 0 to 10" },
		{ .opt = O_LAMBDA, .kind = OPT_REAL, .dst = &a->sc.lambda, .rlo = 0, .rhi = 1,
		  .what = "a rate in [0, 1]" },
		{ .opt = O_U, .kind = OPT_REAL, .dst = &a->sc.u, .rlo = 1e-9, .rhi = 100,
		  .what = "a positive rate (1e-9 .. 100)" },
		{ .opt = O_BIAS, .kind = OPT_REAL, .dst = &a->sc.bias, .rlo = 0.5, .rhi = 1,
		  .what = "a bias in [0.5, 1]" },
		{ .opt = O_LEVELS, .kind = OPT_UINT, .dst = &a->sc.levels, .lo = 0, .hi = 40,
		  .what = "a level count from 0 to 40" },
		{ .opt = O_VOLUME, .kind = OPT_REAL, .dst = &a->sc.volume, .rlo = 0, .rhi = 1,
		  .what = "a fraction in [0, 1]" },
		{ .opt = O_CHECKPOINTS, .kind = OPT_U64, .dst = &a->ncp, .lo = 1, .hi = MAX_CHECKPOINTS,
		  .what = "a count from 1 to 64" },
		{ .opt = O_CPUS, .kind = OPT_U64, .dst = &a->cpus, .lo = 1, .hi = MAX_CPUS,
		  .what = "a sketch count from 1 to 64" },
		{ .opt = O_SUB_ELEMS, .kind = OPT_U64, .dst = &a->srcc.sub_elems, .lo = 1, .hi = 1ULL << 32,
		  .what = "an element count from 1 to 2^32" },
		{ .opt = O_HH_PHI, .kind = OPT_PPB, .dst = &a->srcc.phi_ppb,
		  .what = "a fraction between 0 and 1" },
		{ .opt = O_RARE_SUPPORT, .kind = OPT_PPB, .dst = &a->srcc.support_ppb,
		  .what = "a fraction between 0 and 1" },
		{ .opt = O_RING, .kind = OPT_UINT, .dst = &a->srcc.ring, .lo = 1, .hi = 1ULL << 24,
		  .what = "a count from 1 to 2^24" },
		{ .opt = O_NEW_GAP, .kind = OPT_U64, .dst = &a->srcc.new_gap, .lo = 0, .hi = 1ULL << 48,
		  .what = "a packet count (0: auto)" },
		{ .opt = O_VXLAN_PORT, .kind = OPT_UINT, .dst = &a->vxlan_port, .lo = 1, .hi = 65535,
		  .what = "a UDP port from 1 to 65535", .seen = &a->have_decap_opts },
		{ .opt = O_GENEVE_PORT, .kind = OPT_UINT, .dst = &a->geneve_port, .lo = 1, .hi = 65535,
		  .what = "a UDP port from 1 to 65535", .seen = &a->have_decap_opts },
		{ .opt = O_GTPU_PORT, .kind = OPT_UINT, .dst = &a->gtpu_port, .lo = 1, .hi = 65535,
		  .what = "a UDP port from 1 to 65535", .seen = &a->have_decap_opts },
	};

	opterr = 0;
	while ((o = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		a->given |= setting_of(o);
		if (table_option(o, optarg, opts, PD_ARRAY_SIZE(opts)))
			continue;
		switch (o) {
		case O_ALGO:
			if (strcmp(optarg, ALGO_FPBUF) &&
			    !pd_filter_family_by_name(optarg))
				usage_error("--algo: '%s' is not an algorithm this simulator knows (%s)",
					    optarg, algos());
			a->algo = optarg;
			a->have_algo = true;
			break;
		case O_MAX:
			if (!parse_u64(optarg, 1, 255, &v) ||
			    !pd_sbf_bits_for_max((unsigned int)v))
				BAD(o, "a cell maximum (1, 3, 7, 15, 31, 63, 127, 255)");
			a->max = (u32)v;
			break;
		case O_FPS:
			/* 0 is fpbuffering's plain Buffering only (below) */
			if (!parse_real(optarg, 0, 1, &a->fps) || a->fps >= 1)
				BAD(o, "a probability between 1e-9 and 1 (exclusive)");
			break;
		case O_PSTAR:
			if (!parse_real(optarg, 0, 1, &a->p_star) ||
			    llround(a->p_star * 1e9) < 1 || llround(a->p_star * 1e9) >= 1000000000)
				BAD(o, "a probability between 1e-9 and 1 (exclusive)");
			break;
		case O_IMPORTANCE:
			if (!strcmp(optarg, "dscp"))
				a->importance = PKTDEDUP_IMPORTANCE_DSCP;
			else if (!strcmp(optarg, "mark"))
				a->importance = PKTDEDUP_IMPORTANCE_MARK;
			else
				BAD(o, "an importance source (dscp, mark)");
			break;
		case O_ENTRY_BITS:
			if (!parse_u64(optarg, 8, 64, &a->entry_bits) ||
			    a->entry_bits % 8)
				BAD(o, "a whole number of bytes in bits (8, 16, ... 64)");
			break;
		case O_LAYOUT:
			o = pd_name_index(optarg, pd_sbf_layout_names,
					  PKTDEDUP_LAYOUT_MAX + 1);
			if (o < 0)
				BAD(O_LAYOUT, "flat, blocked or auto");
			a->layout = (u8)o;
			break;
		case O_STREAM:
			o = pd_name_index(optarg, stream_names, STREAM_NKINDS);
			if (o < 0)
				usage_error("--stream: '%s' is not a stream (uniform, zipf, poisson, bmodel, pcap, importance, timed)",
					    optarg);
			a->sc.kind = (enum stream_kind)o;
			a->have_stream = true;
			break;
		case O_DISTINCT:
			if (!parse_real(optarg, 0, 1, &a->sc.distinct) ||
			    a->sc.distinct <= 0)
				BAD(o, "a fraction in (0, 1]");
			break;
		case O_PROTO:
			parse_protos(optarg, &a->sel);
			a->sc.sel = &a->sel;
			break;
		case O_TRUTH:
			o = pd_name_index(optarg, truth_names,
					  PD_ARRAY_SIZE(truth_names));
			if (o < 0)
				BAD(O_TRUTH, "a truth (exact, frame, key, id, none)");
			a->truth_mode = (enum truth_mode)o;
			break;
		case O_KEY:
			o = pd_name_index(optarg, pd_key_mode_names,
					  PD_KEY_NMODES);
			if (o < 0)
				usage_error("--key: '%s' is not a key (packet, src, dst, pair, flow)",
					    optarg);
			a->sc.key.mode = (u8)o;
			break;
		case O_PAYLOAD:
			if (!strcmp(optarg, "all"))
				v = PKTDEDUP_PAYLOAD_ALL;
			else if (!parse_u64(optarg, 0, PD_KEY_MAX_PAYLOAD, &v))
				BAD(o, "all, or a byte count from 0 to 65535");
			a->sc.key.payload = (u16)v;
			break;
		case O_IGNORE_TOS:
			a->sc.key.flags |= PKTDEDUP_KEY_F_IGNORE_TOS;
			break;
		case O_NONIP:
			if (!strcmp(optarg, "dedup"))
				a->sc.key.flags |= PKTDEDUP_KEY_F_NONIP;
			else if (!strcmp(optarg, "pass"))
				a->sc.key.flags &= (u8)~PKTDEDUP_KEY_F_NONIP;
			else
				BAD(o, "pass or dedup");
			break;
		case O_DECAP:
			a->sc.key.decap = parse_decap(optarg);
			a->have_decap_opts = true;
			break;
		case O_TUNNEL_ID:
			if (!strcmp(optarg, "include"))
				a->sc.key.flags |= PKTDEDUP_KEY_F_TUNNEL_ID;
			else if (!strcmp(optarg, "ignore"))
				a->sc.key.flags &= (u8)~PKTDEDUP_KEY_F_TUNNEL_ID;
			else
				BAD(o, "ignore or include");
			a->have_decap_opts = true;
			break;
		case O_IMP_DIST:
			o = pd_name_index(optarg, imp_dist_names, IMP_NDISTS);
			if (o < 0)
				usage_error("--imp-dist: '%s' is not a distribution (uniform, direct, inverse)",
					    optarg);
			a->sc.imp_dist = (enum imp_dist)o;
			a->have_imp_opts = true;
			break;
		case O_REPEAT:
			if (!parse_real(optarg, 0, 1, &a->sc.repeat) ||
			    a->sc.repeat <= 0 || a->sc.repeat >= 1)
				BAD(o, "a fraction in (0, 1)");
			a->have_imp_opts = true;
			break;
		case O_COUNTERS:
			if (!parse_u64(optarg, 0, PD_SS_MAX_CAP, &v) ||
			    (v && v < PD_SS_MIN_CAP))
				BAD(o, "0 (off) or a count from 8 to 4096");
			a->srcc.counters = (unsigned int)v;
			break;
		case O_HELP:
			fputs(usage, stdout);
			exit(0);
		case ':':
			usage_error("%s needs a value", argv[optind - 1]);
		default:
			usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		usage_error("unexpected argument '%s'", argv[optind]);
	/* a capture alone: the module's defaults (dedupctl set ... defaults) */
	if (!a->have_stream && a->sc.pcap_path) {
		a->sc.kind = STREAM_PCAP;
		a->have_stream = true;
	}
	if (a->sc.kind == STREAM_PCAP && !a->have_algo) {
		a->algo = "sbf";
		a->have_algo = true;
	}
	if (a->sc.kind == STREAM_PCAP && !a->have_mem && pd_filter_family_by_name(a->algo) &&
	    !pd_filter_takes(pd_filter_family_by_name(a->algo),
			     PKTDEDUP_A_SETTINGS_WINDOW_NS)) {
		a->mem = PD_DEFAULT_MEM;
		a->have_mem = true;
	}
	if (!a->have_algo)
		usage_error("--algo is required (%s)", algos());
	if (!a->have_stream)
		usage_error("--stream is required");
	if (a->sc.sel && a->sc.kind != STREAM_PCAP)
		usage_error("--proto selects a capture's packets: it needs --pcap FILE");
	if ((a->sc.key.flags & PKTDEDUP_KEY_F_NONIP) &&
	    a->sc.kind != STREAM_PCAP)
		usage_error("--nonip dedup keys a capture's frames: it needs --pcap FILE");
	if ((a->sc.key.flags & PKTDEDUP_KEY_F_NONIP) &&
	    a->sc.key.mode != PKTDEDUP_KEY_PACKET)
		usage_error("--nonip dedup needs --key packet: a frame that is not IP has no addresses or ports to key it by");
	if (a->have_decap_opts && a->sc.kind != STREAM_PCAP)
		usage_error("--decap, --tunnel-id and the tunnels' ports key a capture's packets: they need --pcap FILE");
	a->sc.key.vxlan_port = (u16)a->vxlan_port;
	a->sc.key.geneve_port = (u16)a->geneve_port;
	a->sc.key.gtpu_port = (u16)a->gtpu_port;
	check_decap_ports(&a->sc.key);
	/* the module's fixed seed derives its NH key the same way */
	pd_nh_key_seed(&a->nhkey, a->sc.seed);
	a->sc.key.nh = &a->nhkey;
	if ((a->write_path || a->dups_path) && a->sc.kind != STREAM_PCAP)
		usage_error("--write and --write-dups need a capture (--pcap FILE)");
	if (a->sketch_path && a->sc.kind != STREAM_PCAP)
		usage_error("--sketches writes a capture's sketches: it needs --pcap FILE");
	if (a->have_sketch_opts && !a->sketch_path)
		usage_error("--sketch-every, --host and --sources-key are --sketches' settings: they need --sketches FILE");
	if (a->sketch_path && !strcmp(a->sketch_path, "-"))
		usage_error("--sketches needs a file (the report is on standard output)");
	if (a->sketch_host && !*a->sketch_host)
		usage_error("--host: an empty name");
	/* a capture's truth compares frames, a generated stream's its ids */
	if ((a->truth_mode == TRUTH_FRAME || a->truth_mode == TRUTH_KEY) &&
	    a->sc.kind != STREAM_PCAP)
		usage_error("--truth %s is a capture's truth: it needs --pcap FILE (a generated stream's truth is its elements' ids: exact or id)",
			    truth_names[a->truth_mode]);
	if (a->truth_mode == TRUTH_ID && a->sc.kind == STREAM_PCAP)
		usage_error("--truth id is a generated stream's truth: a capture's frames have no ids (exact or frame, key)");
	if (a->truth_mode == TRUTH_EXACT)
		a->truth_mode = a->sc.kind == STREAM_PCAP ? TRUTH_FRAME :
			       TRUTH_ID;
	a->sc.frame_truth = a->sc.kind == STREAM_PCAP &&
			    a->truth_mode != TRUTH_NONE;
	if (a->shards & (a->shards - 1))
		usage_error("--shards: '%llu' is not a power of two (1, 2, 4, ... 4096)",
			    (unsigned long long)a->shards);
}

/* The options together, against the algorithm's family ops (exits 2). */
static void sim_args_check(struct sim_args *a, const struct pd_filter_ops *ops)
{
	uint64_t v;

	a->takes = settings_taken(ops);
	a->winfam = a->takes & PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_WINDOW_NS);
	if (a->subwin_arg && a->sources &&
	    (a->takes & PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_SUBWINDOWS)))
		usage_error("--subwindows %s: ambiguous with --sources and --algo %s (the source analytics' or the filter's?)",
			    a->subwin_arg, a->algo);
	if (a->subwin_arg && a->sources) {
		if (!parse_u64(a->subwin_arg, 1, SRC_MAX_SUB, &v))
			usage_error("--subwindows: '%s' is not a count from 1 to 64",
				    a->subwin_arg);
		a->srcc.nsub = (unsigned int)v;
	} else if (a->subwin_arg) {
		a->given |= PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_SUBWINDOWS);
	}
	check_settings(a->algo, a->takes, a->given);
	if (a->subwin_arg && !a->sources &&
	    (!parse_u64(a->subwin_arg, 2, PD_TW_MAX_SUBWIN, &a->subwin)))
		usage_error("--subwindows: '%s' is not a subwindow count from 2 to 63 (one subwindow is the landmark window)",
			    a->subwin_arg);
	if (a->winfam) {
		if (!a->window_arg)
			usage_error("--window is required for %s: a time (2ms, 500us) or a packet count (100000p)",
				    a->algo);
		if (!parse_window(a->window_arg, &a->window_ns, &a->window_pkts))
			usage_error("--window: '%s' is not a window: a time with a unit (10ns, 500us, 2ms, 1.5s) or a packet count (100000p)",
				    a->window_arg);
		if (!a->window_ns && !a->window_pkts)
			usage_error("--window: '%s' is an empty window: give at least 1us or 1p",
				    a->window_arg);
		if (a->window_pkts && a->have_rate)
			usage_error("--rate: a packet window (--window %s) holds its own count; --rate sizes time windows",
				    a->window_arg);
		if (a->window_ns && a->sc.kind != STREAM_TIMED &&
		    a->sc.kind != STREAM_PCAP)
			usage_error("--window %s: a time window needs packet times (--stream timed or pcap); give a packet window (e.g. 100000p)",
				    a->window_arg);
		if (a->window_ns && !a->have_rate && !a->have_mem)
			usage_error("--rate or --mem is required: they size a time window");
	} else {
		if (a->window_arg && !parse_u64(a->window_arg, 1, UINT64_MAX, &a->window))
			usage_error("--window: '%s' is not a window of at least 1 element%s",
				    a->window_arg,
				    parse_window(a->window_arg, &a->window_ns, &a->window_pkts) ?
				    " (a time or packet window needs --algo sliding, jumping or landmark)" : "");
		if (!a->have_mem)
			usage_error("--mem is required");
	}
	if (a->sc.kind != STREAM_TIMED && a->have_timed_opts)
		usage_error("--pps, --copy-delay and --flood need --stream timed");
	if (!a->sc.flood_pps && a->have_flood_opts)
		usage_error("--flood-at and --flood-for need --flood");
	if (a->fps == 0 && ops)
		usage_error("--fps: '0' is not a probability between 1e-9 and 1 (exclusive); only fpbuffering takes 0");
	if (a->fps > 0 && ops && llround(a->fps * 1e9) < 1)
		usage_error("--fps: %g is not a probability between 1e-9 and 1 (exclusive)",
			    a->fps);
	if ((a->given & PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_FPS)) && a->p != PD_FILTER_AUTO)
		usage_error("give either --p or --fps, not both");
	if (a->sc.kind == STREAM_PCAP && !a->sc.pcap_path)
		usage_error("--stream pcap needs --pcap FILE");
	if (a->sc.kind != STREAM_PCAP && a->sc.pcap_path)
		usage_error("--pcap needs --stream pcap");
	if (a->sc.kind != STREAM_IMPORTANCE && a->have_imp_opts)
		usage_error("--imp-dist and --repeat need --stream importance");
	if (a->sc.kind == STREAM_IMPORTANCE &&
	    !stream_imp_per_class(a->sc.n, a->sc.imp_dist, a->sc.repeat))
		usage_error("--repeat %g: no universe of %u importance classes gives that share of repeats among %llu elements",
			    a->sc.repeat, IMP_CLASSES, (unsigned long long)a->sc.n);
	if (a->sc.kind == STREAM_UNIFORM && a->sc.distinct * (double)a->sc.n < 1)
		usage_error("--distinct %g of %llu elements is less than one element",
			    a->sc.distinct, (unsigned long long)a->sc.n);
	if (a->sc.kind == STREAM_ZIPF && !a->have_universe)
		a->sc.universe = PD_MIN(a->sc.n, 1ULL << 28);
	if (a->sc.kind == STREAM_BMODEL && a->sc.bias > 0.5 && a->sc.levels &&
	    a->sc.levels > log(a->sc.volume) / log(0.5 / a->sc.bias) + 1e-9)
		usage_error("--levels %u is infeasible: the paper's constraint is l <= ln(v) / ln(1/(2b)) = %.2f",
			    a->sc.levels, log(a->sc.volume) / log(0.5 / a->sc.bias));
}

/* The run's filter: the request of what was given, the rest the family's. */
static void sim_request(struct sim_args *a, struct run *r)
{
	struct pd_filter_req req;

	if (r->sf.ops) {
		const u64 vals[][2] = {
			{ PKTDEDUP_A_SETTINGS_CELL_BITS, a->max },
			{ PKTDEDUP_A_SETTINGS_K, a->k },
			{ PKTDEDUP_A_SETTINGS_P, a->p },
			{ PKTDEDUP_A_SETTINGS_GAP, a->gap },
			{ PKTDEDUP_A_SETTINGS_IMPORTANCE, a->importance },
			{ PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK, IMP_MARK_MASK },
			{ PKTDEDUP_A_SETTINGS_P_STAR,
			  a->p_star > 0 ? (u64)llround(a->p_star * 1e9) : 0 },
			{ PKTDEDUP_A_SETTINGS_WINDOW_NS, a->window_ns },
			{ PKTDEDUP_A_SETTINGS_WINDOW_PACKETS, a->window_pkts },
			{ PKTDEDUP_A_SETTINGS_RATE, a->tw_rate },
			{ PKTDEDUP_A_SETTINGS_SUBWINDOWS, a->subwin },
			{ PKTDEDUP_A_SETTINGS_WARN_BELOW, a->warn_below },
			{ PKTDEDUP_A_SETTINGS_LAYOUT, a->layout },
		};
		const struct pd_setting *row;
		unsigned int vi;

		pd_filter_req_defaults(&req, r->sf.ops->kind, a->mem);
		/* the values of the settings the family takes (its rows) */
		for (vi = 0; vi < PD_ARRAY_SIZE(vals); vi++) {
			row = pd_filter_setting(r->sf.ops,
						(unsigned int)vals[vi][0]);
			if (row)
				pd_setting_set(&req, row, vals[vi][1]);
		}
		if (a->winfam) {
			r->sf.window_arg = a->window_arg;
			/* sized by the rate or the window: --mem, a limit */
			if (a->have_rate || a->window_pkts) {
				r->sf.mem_limit = a->mem;
				req.mem_bytes = 0;
			}
		}
		/* the SBF's default target, as the simulator always had */
		if (a->fps < 0 && r->sf.ops->kind == PKTDEDUP_FILTER_KIND_SBF)
			a->fps = 0.01;
		if (a->fps > 0)
			req.fps_ppb = (u32)llround(a->fps * 1e9);
		/* does the family read the target? */
		if (pd_filter_takes(r->sf.ops, PKTDEDUP_A_SETTINGS_FPS)) {
			u32 t = req.fps_ppb ? req.fps_ppb :
				r->sf.ops->default_fps_ppb;

			/* bsbf, bsbfsd, rlbsbf have no target unless given */
			if (r->sf.ops->counting)
				r->sf.fps_used = a->p == PD_FILTER_AUTO && t;
			else
				r->sf.fps_used = a->k == PD_FILTER_AUTO && t;
			r->sf.fps = t / 1e9;
		}
	} else {
		memset(&req, 0, sizeof(req));
		req.mem_bytes = a->mem;
		r->sf.q = a->fps > 0 ? a->fps : 0;
	}
	r->cpus = (unsigned int)a->cpus;
	{
		u64 seed = a->sc.seed;

		/* reproducible: filter seeds derive from --seed */
		sim_filter_build(&r->sf, &req, (unsigned int)a->entry_bits,
				 (u32)a->shards, a->shared, &seed);
		r->sketch_seed = pd_rng_next(&seed);
	}
}

/*
 * A truth's store: compact, or positions (and times: timed) kept while
 * the horizon, pkts elements or ns, can need them; ids of `words` words.
 */
static int tstore_init(struct tstore *ts, bool compact, bool timed,
		       unsigned int words, u64 pkts, u64 ns)
{
	ts->compact = compact;
	if (compact)
		return dset_init_words(&ts->dset, words);
	/* sized by what the horizon holds, not by the stream */
	if (truth_init_words(&ts->truth, 0, timed, words))
		return -1;
	return truth_set_horizon(&ts->truth, pkts, ns);
}

/* Record id (at t_ns): 0 and the verdict in *tv, or -1 (no memory). */
static int tstore_add(struct tstore *ts, const u64 *id, u64 t_ns, u64 window,
		      struct truth_verdict *tv)
{
	int seen;

	if (!ts->compact)
		return truth_add_id(&ts->truth, id, t_ns, window, tv);
	seen = dset_add_id(&ts->dset, id);
	if (seen < 0)
		return -1;
	tv->seen = seen;
	return 0;
}

static u64 tstore_bytes(const struct tstore *ts)
{
	return ts->compact ? ts->dset.bytes : truth_bytes(&ts->truth);
}

static void tstore_free(struct tstore *ts)
{
	if (ts->compact)
		dset_free(&ts->dset);
	else
		truth_free(&ts->truth);	/* zeroed if never set up */
}

/* A copy in the truth's sense: seen before, or within a family's window. */
static bool truth_copy(const struct run *r, const struct truth_verdict *tv)
{
	if (!r->tw.on)
		return tv->seen;
	return tv->seen && (r->tw.timed ? tv->dt : tv->gap) < r->tw.window;
}

/*
 * A keyed frame against the other truth (the key's if the truth is the
 * frame's, else the frame's): where the two disagree. dup: the truth's.
 */
static int cross_add(struct run *r, const struct element *e, bool dup,
		     bool said)
{
	struct cross *x = &r->x;
	struct truth_verdict tv = { 0 };
	bool key, frame;

	if (tstore_add(&x->other, r->truth == TRUTH_FRAME ? &e->id : e->frame,
		       e->t_ns, 0, &tv))
		return -1;
	key = r->truth == TRUTH_FRAME ? truth_copy(r, &tv) : dup;
	frame = r->truth == TRUTH_FRAME ? dup : truth_copy(r, &tv);
	x->keys += r->truth == TRUTH_FRAME && !tv.seen;
	if (key && !frame) {
		x->key_only++;
		x->key_only_said += said;
	} else if (frame && !key) {
		x->frame_only++;
		x->frame_only_said += said;
	}
	return 0;
}

/* A frame the filter passes unkeyed: a copy by the frame truth? */
static int cross_unkeyed(struct run *r, const struct element *e)
{
	int seen;

	if (!r->x.on || !e->framed)
		return 0;
	/* made at the first: most captures have none */
	if (!r->x.unkeyed.sh && dset_init_words(&r->x.unkeyed, 2))
		return -1;
	seen = dset_add_id(&r->x.unkeyed, e->frame);
	if (seen < 0)
		return -1;
	r->x.unkeyed_n++;
	r->x.unkeyed_copies += seen;
	return 0;
}

/* The stream through the filter, scored against the ground truth. */
/* --sketches: the file, replaced when whole (outfile.h), and its rows. */
struct sketches {
	struct outfile of;
	FILE *f;
	struct sketch_out *so;
};

/* Open --sketches' file and its rows' writer; 0, or -1 said. */
static int sketches_open(struct sim_args *a, struct sketches *sk)
{
	u8 kb[PD_AKEY_BYTES];
	struct pd_akey key;
	struct file_id in;
	char host[256], err[512];
	int fd;

	if (a->skey_path) {
		if (akey_file_read(a->skey_path, kb, err, sizeof(err))) {
			fprintf(stderr, "dedup-sim: --sources-key: %s\n", err);
			return -1;
		}
		pd_akey_from_bytes(&key, kb);
	} else {
		/* a key of the seed's: runs of one seed merge */
		u64 rng = a->sc.seed ^ 0x736568637465656bULL;
		unsigned int i;

		for (i = 0; i < 4; i++)
			key.a[i] = pd_rng_next(&rng);
		key.b = pd_rng_next(&rng);
	}
	if (!a->sketch_host) {
		if (gethostname(host, sizeof(host)))
			snprintf(host, sizeof(host), "localhost");
		host[sizeof(host) - 1] = 0;
	}
	if (outfile_resolve(&sk->of, "--sketches", a->sketch_path, err,
			    sizeof(err))) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		return -1;
	}
	input_id(a->sc.pcap_path, &in);
	if (file_id_same(&sk->of.id, &in)) {
		fprintf(stderr, "dedup-sim: --sketches %s is the capture read\n",
			a->sketch_path);
		return -1;
	}
	fd = outfile_open(&sk->of, err, sizeof(err));
	if (fd < 0) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		return -1;
	}
	sk->f = fdopen(dup(fd), "w");
	if (sk->f)
		sk->so = sketch_open(sk->f, a->sketch_host ? a->sketch_host : host,
				     &key, a->sketch_every);
	if (!sk->so) {
		if (sk->f)
			fclose(sk->f);
		outfile_abort(&sk->of);
		fprintf(stderr, "dedup-sim: out of memory\n");
		return -1;
	}
	return 0;
}

/* The last row written and the file in place; 0, or -1 said. */
static int sketches_close(const struct sim_args *a, struct sketches *sk,
			  struct run *r)
{
	char err[512];
	int bad;

	r->sketch_rows = sketch_rows(sk->so);
	r->sketch_fp = sketch_fingerprint(sk->so);
	r->sketches = true;
	bad = sketch_close(sk->so);
	sk->so = NULL;
	bad |= fclose(sk->f) != 0;
	if (bad) {
		fprintf(stderr, "dedup-sim: %s: %s\n", a->sketch_path,
			strerror(errno));
		outfile_abort(&sk->of);
		return -1;
	}
	if (outfile_commit(&sk->of, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		return -1;
	}
	return 0;
}

static int sim_run(struct sim_args *a, struct run *r, struct outputs *out)
{
	struct sketches sk = { .of = { .fd = -1, .slot = -1 } };
	struct stream st;
	struct element e;
	bool time_warned = false;
	uint64_t total;
	int status;
	char err[512];

	memset(&st, 0, sizeof(st));
	if (a->truth_mode == TRUTH_NONE && (a->window || a->ncp))
		usage_error("--%s scores against the ground truth: it needs --truth exact (or frame, key)",
			    a->window ? "window" : "checkpoints");
	r->truth = a->truth_mode;
	/* a capture's length, when something is sized by it */
	total = a->sc.n;
	if (a->sc.kind == STREAM_PCAP) {
		total = 0;
		if (a->ncp || (a->sources && !a->srcc.sub_elems)) {
			if (!strcmp(a->sc.pcap_path, "-"))
				usage_error("--%s needs the capture's length: read a file, not standard input%s",
					    a->ncp ? "checkpoints" : "sources",
					    a->ncp ? "" : ", or give --subwindow-elements");
			total = count_keyed(&a->sc);
		}
	}
	if (stream_open(&st, &a->sc, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		status = 1;
		goto done;
	}
	if (a->sketch_path && sketches_open(a, &sk)) {
		status = 1;
		goto done;
	}
	if (a->sources) {
		a->srcc.cpus = r->cpus;
		a->srcc.seed = a->sc.seed;
		if (!a->srcc.sub_elems)
			a->srcc.sub_elems = total > a->srcc.nsub ?
					 (total + a->srcc.nsub - 1) / a->srcc.nsub : 1;
		r->src = src_sim_new(&a->srcc, err, sizeof(err));
		if (!r->src)
			usage_error("--sources: %s", err);
	}
	if (a->winfam) {
		r->tw.on = true;
		r->tw.timed = a->window_ns != 0;
		r->tw.window = a->window_ns ? a->window_ns : a->window_pkts;
		/* the guaranteed span: all of it, (s-1)/s of it, none */
		r->tw.s = r->sf.ops->kind == PKTDEDUP_FILTER_KIND_SLIDING ? 0 :
			  r->sf.plan.subwindows;
	}
	/*
	 * The ground truth: when all it must say is "seen before", a compact
	 * set of digests; a window (of elements or of time) or FPBuffering's
	 * capacity also need where each was seen last, but only while that
	 * can matter (the horizon). A capture's frames have 128-bit digests,
	 * and the key and the frames are both kept, to say where they differ.
	 */
	r->compact = r->sf.ops && !a->window && !r->tw.on;
	if (a->truth_mode != TRUTH_NONE &&
	    tstore_init(&r->ts, r->compact, r->tw.timed,
			a->truth_mode == TRUTH_FRAME ? 2 : 1,
			r->tw.on ? (r->tw.timed ? 0 : r->tw.window) :
			r->sf.ops ? a->window :
			(a->window > r->sf.buf.cap ? a->window : r->sf.buf.cap),
			r->tw.timed ? r->tw.window : 0)) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		status = 1;
		goto done;
	}
	r->x.on = a->sc.frame_truth;
	if (r->x.on &&
	    tstore_init(&r->x.other, !r->tw.on, r->tw.timed,
			a->truth_mode == TRUTH_FRAME ? 1 : 2,
			r->tw.timed ? 0 : r->tw.window,
			r->tw.timed ? r->tw.window : 0)) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		status = 1;
		goto done;
	}
	open_outputs(&st, out);
	{
		uint64_t next_cp = a->ncp ? (total + a->ncp - 1) / a->ncp : UINT64_MAX;
		struct score seg = { 0 };

		while (stream_next(&st, &e)) {
			struct truth_verdict tv = { 0 };
			bool said, dup, found = false;

			if (r->tw.timed && st.pc.time_back && !time_warned) {
				warn_time_back(&a->sc, &st.pc, a->window_arg);
				time_warned = true;
			}

			if (sk.so && e.addr_len &&
			    sketch_add(sk.so, e.t_ns, e.src, e.dst, e.addr_len)) {
				fprintf(stderr, "dedup-sim: %s: %s\n", a->sketch_path,
					strerror(errno));
				status = 1;
				goto done;
			}
			if (!e.keyed) {
				/* the module passes what it cannot key */
				out_write(&st, out, false);
				if (cross_unkeyed(r, &e)) {
					fprintf(stderr, "dedup-sim: out of memory\n");
					status = 1;
					goto done;
				}
				continue;
			}
			said = sim_filter_step(&r->sf, &e, &found);
			out_write(&st, out, said);
			r->last_t = e.t_ns;
			{
				/* 64 uniform bits of the id, seeded per run
				 * (the kernel seeds per instance) */
				u64 mix = e.id ^ r->sketch_seed;

				pd_hll_add(&r->sketch[r->all.n % r->cpus],
					   pd_rng_next(&mix));
			}
			if (r->src)
				src_sim_add(r->src, e.id);
			r->said += said;
			if (a->truth_mode == TRUTH_NONE) {
				r->all.n++;
				continue;
			}
			if (tstore_add(&r->ts, r->truth == TRUTH_FRAME ?
				       e.frame : &e.id, e.t_ns, a->window, &tv)) {
				fprintf(stderr, "dedup-sim: out of memory\n");
				status = 1;
				goto done;
			}
			dup = tv.seen;
			if (r->tw.on)
				dup = tw_add(r, &tv, said);
			if (r->x.on && cross_add(r, &e, dup, said)) {
				fprintf(stderr, "dedup-sim: out of memory\n");
				status = 1;
				goto done;
			}
			score_add(&r->all, dup, said);
			score_add(&seg, dup, said);
			r->flood_fp += e.flood && said;
			if (a->window)
				score_add(&r->win, tv.in_window, said);
			if (e.imp)
				imp_add(&r->imp, e.imp, tv.seen, said);
			if (!r->sf.ops && tv.seen && tv.gap <= r->sf.buf.cap) {
				r->dup_in_cap++;
				r->fn_in_cap += !said;
			}
			if (r->all.n == next_cp && r->ncp < a->ncp) {
				struct checkpoint *c = &r->cp[r->ncp++];

				c->upto = r->all.n;
				c->s = seg;
				c->zero_fraction = sim_zero_fraction(&r->sf);
				memset(&seg, 0, sizeof(seg));
				next_cp = PD_MIN(total, next_cp + (total + a->ncp - 1) / a->ncp);
			}
		}
	}
	if (r->tw.timed && st.pc.time_back > 1)
		fprintf(stderr, "dedup-sim: %s: %llu frames in all were earlier than a frame before them (by up to %.6f s)\n",
			a->sc.pcap_path, (unsigned long long)st.pc.time_back,
			(double)st.pc.back_max_ns / 1e9);
	if (st.oom) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		status = 1;
		goto done;
	}
	if (r->tw.on)
		sim_window(&r->sf, &r->tw.win);
	r->zero_fraction = sim_zero_fraction(&r->sf);
	{
		unsigned int i;

		for (i = 1; i < r->cpus; i++)
			pd_hll_merge(&r->sketch[0], &r->sketch[i]);
		r->distinct_estimate = pd_hll_estimate(&r->sketch[0]);
	}
	if (r->src && src_sim_finish(r->src, &r->sres)) {
		fprintf(stderr, "dedup-sim: out of memory\n");
		status = 1;
		goto done;
	}
	r->truth_bytes = a->truth_mode == TRUTH_NONE ? 0 : tstore_bytes(&r->ts);
	if (r->x.on)
		r->truth_bytes += tstore_bytes(&r->x.other) + r->x.unkeyed.bytes;
	status = close_outputs(&st, &a->sc, out);
	if (sk.so && sketches_close(a, &sk, r))
		status = 1;
	if (a->json)
		print_json(r, &a->sc, &st, out, a->mem, a->window);
	else
		print_table(r, &a->sc, &st, out, a->mem, a->window);
done:
	/* nothing half-written stays: a file is replaced only when whole */
	abort_outputs(&st, out);
	if (sk.so) {
		sketch_close(sk.so);
		fclose(sk.f);
		outfile_abort(&sk.of);
	}
	outfile_free(&sk.of);
	tstore_free(&r->ts);
	tstore_free(&r->x.other);
	dset_free(&r->x.unkeyed);
	stream_close(&st);
	return status;
}

int main(int argc, char **argv)
{
	struct sim_args a;
	struct outputs out;
	struct run *r;
	int status;

	a = sim_defaults;
	sim_args_parse(&a, argc, argv);
	/* no output may be the input or the other output: before any opens */
	resolve_outputs(&out, a.write_path, a.dups_path, a.sc.pcap_path);
	r = calloc(1, sizeof(*r));
	if (!r)
		return 1;
	r->sf.name = a.algo;
	r->sf.ops = pd_filter_family_by_name(a.algo);
	sim_args_check(&a, r->sf.ops);
	sim_request(&a, r);
	status = sim_run(&a, r, &out);
	sim_filter_free(&r->sf);
	src_sim_free(r->src);
	free(r);
	return status;
}
