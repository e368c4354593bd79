// SPDX-License-Identifier: GPL-2.0
/* Stream generators for the simulator: see streams.h. */
#include <linux/if_ether.h>
#include <math.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/rng.h"
#include "streams.h"

/* The ground truth's key fingerprints: a fixed key, the same every run. */
static const struct pd_hkey truth_hkey = {
	{ 0x0ddba11ULL, 0xcafef00dULL }
};

const char *const stream_names[] = {
	[STREAM_UNIFORM] = "uniform",
	[STREAM_ZIPF] = "zipf",
	[STREAM_POISSON] = "poisson",
	[STREAM_BMODEL] = "bmodel",
	[STREAM_PCAP] = "pcap",
	[STREAM_IMPORTANCE] = "importance",
	[STREAM_TIMED] = "timed",
};

const char *const imp_dist_names[] = {
	[IMP_UNIFORM] = "uniform",
	[IMP_DIRECT] = "direct",
	[IMP_INVERSE] = "inverse",
};

/* Distinct ids outside the small range used by frequent integers. */
#define FRESH_BASE (1ULL << 62)

static double unit(uint64_t *rng)
{
	return (double)(pd_rng_next(rng) >> 11) * 0x1.0p-53;
}

static uint64_t below64(uint64_t *rng, uint64_t n)
{
	return (uint64_t)(((unsigned __int128)pd_rng_next(rng) * n) >> 64);
}

uint64_t stream_uniform_universe(uint64_t n, double distinct)
{
	double lo = 1, hi = 1e19, target = distinct * (double)n;
	int i;

	/* U (1 - e^(-n/U)) grows with U from 1 towards n: bisect. */
	for (i = 0; i < 200; i++) {
		double mid = sqrt(lo * hi);
		double d = mid * -expm1(-(double)n / mid);

		if (d < target)
			lo = mid;
		else
			hi = mid;
	}
	return (uint64_t)llround(hi);
}

static double imp_weight(enum imp_dist dist, unsigned int c)
{
	switch (dist) {
	case IMP_DIRECT:
		return c;
	case IMP_INVERSE:
		return 1.0 / c;
	default:
		return 1;
	}
}

double stream_imp_class_prob(enum imp_dist dist, unsigned int c)
{
	double sum = 0;
	unsigned int i;

	for (i = 1; i <= IMP_CLASSES; i++)
		sum += imp_weight(dist, i);
	return imp_weight(dist, c) / sum;
}

/* Expected distinct elements among n draws, j elements per class. */
static double imp_expected_distinct(uint64_t n, enum imp_dist dist, double j)
{
	double d = 0;
	unsigned int c;

	for (c = 1; c <= IMP_CLASSES; c++)
		d += j * -expm1(-(double)n * stream_imp_class_prob(dist, c) / j);
	return d;
}

uint64_t stream_imp_per_class(uint64_t n, enum imp_dist dist, double repeat)
{
	double lo = 1, hi = 1e15, target = (1 - repeat) * (double)n;
	int i;

	/* the expected distinct count grows with j from 50 towards n: bisect */
	if (imp_expected_distinct(n, dist, lo) >= target ||
	    imp_expected_distinct(n, dist, hi) <= target)
		return 0;
	for (i = 0; i < 200; i++) {
		double mid = sqrt(lo * hi);

		if (imp_expected_distinct(n, dist, mid) < target)
			lo = mid;
		else
			hi = mid;
	}
	return (uint64_t)llround(hi);
}

static uint64_t frequent_id(struct stream *s)
{
	/* geometric: P(j) = (1 - e^-u) e^(-u j) */
	return (uint64_t)floor(-log1p(-unit(&s->rng)) / s->cfg.u);
}

static void bmodel_split(struct stream *s, uint64_t lo, uint64_t len,
			 uint64_t vol, unsigned int level)
{
	uint64_t i, left, a, b;

	if (!vol || !len)
		return;
	if (level == s->cfg.levels || len < 2) {
		/* vol arrivals at distinct random places in [lo, lo+len) */
		if (vol >= len) {
			memset(s->marks + lo, 1, len);
			return;
		}
		for (i = 0; i < vol;) {
			uint64_t p = lo + below64(&s->rng, len);

			if (!s->marks[p]) {
				s->marks[p] = 1;
				i++;
			}
		}
		return;
	}
	left = (uint64_t)llround((double)vol * s->cfg.bias);
	a = len / 2;
	b = len - a;
	if (pd_rng_next(&s->rng) & 1) {
		bmodel_split(s, lo, a, left, level + 1);
		bmodel_split(s, lo + a, b, vol - left, level + 1);
	} else {
		bmodel_split(s, lo, a, vol - left, level + 1);
		bmodel_split(s, lo + a, b, left, level + 1);
	}
}

static uint16_t get_be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* Offset of the L3 header for a link type, or -1 if unknown. */
static long l3_offset(int dlt, const uint8_t *p, uint32_t len)
{
	long off;

	switch (dlt) {
	case DLT_RAW:
	case DLT_IPV4:
	case DLT_IPV6:
		return 0;
	case DLT_NULL:
	case DLT_LOOP:
		return 4;
	case DLT_LINUX_SLL:
		return 16;
	case DLT_LINUX_SLL2:
		return 20;
	case DLT_EN10MB:
		off = 12;
		/* skip 802.1Q / 802.1ad tags */
		while (off + 2 <= (long)len &&
		       (get_be16(p + off) == ETH_P_8021Q ||
			get_be16(p + off) == ETH_P_8021AD))
			off += 4;
		return off + 2;
	default:
		return -1;
	}
}

static int pcap_load(struct stream *s, char *err, unsigned int errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	uint64_t bytes = 0, capn = 0, capb = 0;
	/* times in ns whatever the file's precision */
	pcap_t *pc = pcap_open_offline_with_tstamp_precision(s->cfg.pcap_path,
						PCAP_TSTAMP_PRECISION_NANO, ebuf);
	int dlt, r;

	if (!pc) {
		snprintf(err, errlen, "%s", ebuf);
		return -1;
	}
	dlt = pcap_datalink(pc);
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		long off = l3_offset(dlt, data, h->caplen);

		if (off < 0 || off > (long)h->caplen) {
			s->unknown_link++;
			continue;
		}
		if (s->npkts == capn) {
			capn = capn ? 2 * capn : 1024;
			s->offs = realloc(s->offs, capn * sizeof(*s->offs));
			s->lens = realloc(s->lens, capn * sizeof(*s->lens));
			s->ts = realloc(s->ts, capn * sizeof(*s->ts));
		}
		while (bytes + h->caplen - off > capb) {
			capb = capb ? 2 * capb : 1 << 20;
			s->pkts = realloc(s->pkts, capb);
		}
		if (!s->offs || !s->lens || !s->pkts || !s->ts) {
			snprintf(err, errlen, "out of memory");
			pcap_close(pc);
			return -1;
		}
		memcpy(s->pkts + bytes, data + off, h->caplen - off);
		s->offs[s->npkts] = bytes;
		s->ts[s->npkts] = (uint64_t)h->ts.tv_sec * 1000000000ULL +
				  (uint64_t)h->ts.tv_usec;
		s->lens[s->npkts++] = h->caplen - (uint32_t)off;
		bytes += h->caplen - off;
	}
	if (r == -1) {
		snprintf(err, errlen, "%s: %s", s->cfg.pcap_path,
			 pcap_geterr(pc));
		pcap_close(pc);
		return -1;
	}
	pcap_close(pc);
	return 0;
}

/* The timed stream's fresh packets per second at time t (ns). */
static double timed_rate(const struct stream *s, double t)
{
	const struct stream_cfg *c = &s->cfg;

	if (c->flood_pps && t >= (double)c->flood_at &&
	    t < (double)c->flood_at + (double)c->flood_for)
		return (double)c->flood_pps;
	return c->distinct * (double)c->pps;
}

/* The first time after t at which the fresh rate may change. */
static double timed_boundary(const struct stream *s, double t)
{
	const struct stream_cfg *c = &s->cfg;

	if (!c->flood_pps || !c->flood_for)
		return INFINITY;
	if (t < (double)c->flood_at)
		return (double)c->flood_at;
	if (t < (double)c->flood_at + (double)c->flood_for)
		return (double)c->flood_at + (double)c->flood_for;
	return INFINITY;
}

/*
 * The next fresh arrival: an exponential gap at the rate in force; one
 * that would cross a change of rate restarts there at the new rate (the
 * process is memoryless, so this is exact).
 */
static void timed_next_fresh(struct stream *s)
{
	double t = s->fresh_t;

	for (;;) {
		double gap = -log1p(-unit(&s->rng)) * 1e9 / timed_rate(s, t);
		double b = timed_boundary(s, t);

		if (t + gap < b) {
			s->fresh_t = t + gap;
			return;
		}
		t = b;
	}
}

static bool pending_less(const struct pending *a, const struct pending *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static bool heap_push(struct stream *s, uint64_t t, uint64_t id)
{
	struct pending p = { .t = t, .seq = s->seq++, .id = id };
	uint64_t i;

	if (s->nheap == s->capheap) {
		uint64_t cap = s->capheap ? 2 * s->capheap : 1024;
		struct pending *h = realloc(s->heap, cap * sizeof(*h));

		if (!h)
			return false;
		s->heap = h;
		s->capheap = cap;
	}
	for (i = s->nheap++; i; i = (i - 1) / 2) {
		if (!pending_less(&p, &s->heap[(i - 1) / 2]))
			break;
		s->heap[i] = s->heap[(i - 1) / 2];
	}
	s->heap[i] = p;
	return true;
}

static struct pending heap_pop(struct stream *s)
{
	struct pending top = s->heap[0], last = s->heap[--s->nheap];
	uint64_t i = 0, c;

	while ((c = 2 * i + 1) < s->nheap) {
		if (c + 1 < s->nheap && pending_less(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!pending_less(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->nheap)
		s->heap[i] = last;
	return top;
}

/* The timed stream's next packet: the earliest of a due copy and a fresh. */
static bool timed_next(struct stream *s, struct element *e)
{
	const struct stream_cfg *c = &s->cfg;
	uint64_t fresh_t = (uint64_t)llround(s->fresh_t);
	bool copyable = true;

	if (s->nheap && s->heap[0].t <= fresh_t) {
		struct pending p = heap_pop(s);

		e->id = p.id;
		e->t_ns = p.t;
	} else {
		e->id = FRESH_BASE + s->fresh++;
		e->t_ns = fresh_t;
		if (c->flood_pps && fresh_t >= c->flood_at &&
		    fresh_t - c->flood_at < c->flood_for) {
			copyable = false;
			e->flood = true;
			s->flood++;
		}
		timed_next_fresh(s);
	}
	if (copyable && unit(&s->rng) >= c->distinct &&
	    !heap_push(s, e->t_ns + below64(&s->rng, c->copy_delay + 1),
		       e->id)) {
		s->oom = true;
		return false;
	}
	return true;
}

int stream_open(struct stream *s, const struct stream_cfg *cfg, char *err,
		unsigned int errlen)
{
	uint64_t r;

	memset(s, 0, sizeof(*s));
	s->cfg = *cfg;
	s->rng = cfg->seed ^ 0x5151515151515151ULL;
	switch (cfg->kind) {
	case STREAM_UNIFORM:
		s->uni = cfg->distinct >= 1 ? 0 :
			 stream_uniform_universe(cfg->n, cfg->distinct);
		return 0;
	case STREAM_ZIPF: {
		double sum = 0;

		s->cdf = malloc(cfg->universe * sizeof(*s->cdf));
		if (!s->cdf) {
			snprintf(err, errlen, "out of memory for the Zipf table");
			return -1;
		}
		for (r = 0; r < cfg->universe; r++) {
			sum += pow((double)(r + 1), -cfg->zipf_s);
			s->cdf[r] = sum;
		}
		for (r = 0; r < cfg->universe; r++)
			s->cdf[r] /= sum;
		return 0;
	}
	case STREAM_POISSON:
		return 0;
	case STREAM_BMODEL:
		s->marks = calloc(cfg->n ? cfg->n : 1, 1);
		if (!s->marks) {
			snprintf(err, errlen, "out of memory for the b-model");
			return -1;
		}
		bmodel_split(s, 0, cfg->n,
			     (uint64_t)llround(cfg->volume * (double)cfg->n), 0);
		return 0;
	case STREAM_PCAP:
		return pcap_load(s, err, errlen);
	case STREAM_TIMED:
		if (!cfg->pps || cfg->distinct <= 0 || cfg->distinct > 1) {
			snprintf(err, errlen,
				 "a timed stream needs a rate and a distinct share in (0, 1]");
			return -1;
		}
		timed_next_fresh(s);
		return 0;
	case STREAM_IMPORTANCE: {
		double sum = 0;
		unsigned int c;

		s->per_class = stream_imp_per_class(cfg->n, cfg->imp_dist,
						    cfg->repeat);
		if (!s->per_class) {
			snprintf(err, errlen,
				 "no universe gives %g repeats among %llu elements of %u classes",
				 cfg->repeat, (unsigned long long)cfg->n,
				 IMP_CLASSES);
			return -1;
		}
		for (c = 1; c <= IMP_CLASSES; c++) {
			sum += stream_imp_class_prob(cfg->imp_dist, c);
			s->imp_cdf[c - 1] = sum;
		}
		s->imp_cdf[IMP_CLASSES - 1] = 1;
		return 0;
	}
	default:
		break;
	}
	snprintf(err, errlen, "unknown stream");
	return -1;
}

bool stream_next(struct stream *s, struct element *e)
{
	e->key = NULL;
	e->imp = 0;
	e->dscp = 0;
	e->t_ns = 0;
	e->flood = false;
	if (s->cfg.kind == STREAM_PCAP) {
		while (s->i < s->npkts) {
			uint64_t i = s->i++;
			enum pd_parse_result r;
			struct pd_pkt pkt;

			r = pd_parse(s->pkts + s->offs[i], s->lens[i], &pkt);
			if (r == PD_PARSE_OK)
				r = pd_key_from_pkt(&pkt, &s->cfg.key,
						    &e->keybuf);
			if (r != PD_PARSE_OK) {
				s->unparsed[r]++;
				continue;
			}
			/* the ground truth's id: a 64-bit fingerprint */
			e->id = pd_key_hash64(&e->keybuf, &truth_hkey);
			e->key = &e->keybuf;
			e->dscp = pkt.dscp;
			e->t_ns = s->ts[i];
			return true;
		}
		return false;
	}
	if (s->i >= s->cfg.n)
		return false;
	switch (s->cfg.kind) {
	case STREAM_UNIFORM:
		e->id = s->uni ? below64(&s->rng, s->uni) : FRESH_BASE + s->i;
		break;
	case STREAM_ZIPF: {
		double x = unit(&s->rng);
		uint64_t lo = 0, hi = s->cfg.universe - 1;

		while (lo < hi) {
			uint64_t mid = lo + (hi - lo) / 2;

			if (s->cdf[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		e->id = lo;
		break;
	}
	case STREAM_POISSON:
		e->id = unit(&s->rng) < s->cfg.lambda ? frequent_id(s) :
			FRESH_BASE + s->i;
		break;
	case STREAM_BMODEL:
		e->id = s->marks[s->i] ? frequent_id(s) : FRESH_BASE + s->i;
		break;
	case STREAM_TIMED:
		if (!timed_next(s, e))
			return false;
		break;
	case STREAM_IMPORTANCE: {
		double x = unit(&s->rng);
		unsigned int c = 0;

		while (c < IMP_CLASSES - 1 && s->imp_cdf[c] < x)
			c++;
		/* element j of class c + 1: id = c + 50 j */
		e->id = c + IMP_CLASSES * below64(&s->rng, s->per_class);
		e->imp = (uint8_t)(c + 1);
		break;
	}
	default:
		return false;
	}
	s->i++;
	return true;
}

void stream_close(struct stream *s)
{
	free(s->cdf);
	free(s->marks);
	free(s->pkts);
	free(s->offs);
	free(s->lens);
	free(s->ts);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}
