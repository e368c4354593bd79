// SPDX-License-Identifier: GPL-2.0
/* Stream generators for the simulator: see streams.h. */
#include <linux/if_ether.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/rng.h"
#include "capture.h"
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

static int pcap_open(struct stream *s, char *err, unsigned int errlen)
{
	s->cap = cap_open(s->cfg.pcap_path, err, errlen);
	return s->cap ? 0 : -1;
}

/*
 * The encapsulations a frame came through, and the one whose header
 * failed (--decap), as the module counts them: for every frame its
 * protocol selection does not pass by.
 */
static void count_encaps(struct pcap_counts *n, const struct pd_pkt *pkt)
{
	unsigned int i;

	for (i = 0; i < PD_NENCAPS; i++) {
		n->decap[i] += (pkt->encaps >> i) & 1;
		n->decap_err[i] += (pkt->bad_encap >> i) & 1;
	}
}

/*
 * A frame that is not IP under --nonip dedup, as the module's L2 hooks
 * key it (pd_key_nonip(): its innermost EtherType on, up to --payload
 * bytes after it), counted not IP all the same; one cut by the snaplen
 * from what it holds. Unkeyed where the frame has no protocol field (raw
 * IP, loopback), ends inside its tags, or the protocols are selected
 * (--proto: a frame that is not IP has none), as the module passes it.
 */
static void nonip_key(struct stream *s, struct element *e,
		      const struct cap_frame *f, bool cut)
{
	struct pcap_counts *n = &s->pc;
	uint32_t after;
	uint16_t type;

	if ((s->cfg.sel && !s->cfg.sel->any_proto) ||
	    !l2_proto_field(f->link, f->data, f->caplen, &type, &after) ||
	    pd_key_nonip_whole(f->data + after, f->caplen - after, type,
			       &s->cfg.key, &e->keybuf) != PD_PARSE_OK)
		return;
	n->keyed++;
	n->nonip_keyed++;
	n->keyed_cut += cut;
	if (e->framed)
		n->truth_kind[FT_NOT_IP]++;
	e->id = pd_key_hash64(&e->keybuf, &truth_hkey);
	e->key = &e->keybuf;
	e->keyed = true;
	e->dscp = 0;
}

/*
 * The capture's next record. A frame the module would not key (a runt,
 * not IP, a link type this reader does not parse, an IP header the key
 * cannot be read from) or another kind of record comes back unkeyed: the
 * caller passes it on untouched, as the module does.
 */
static bool pcap_next(struct stream *s, struct element *e)
{
	struct pcap_counts *n = &s->pc;
	struct cap_frame f;
	struct l2_info l2;
	enum l2_result lr;
	enum pd_parse_result r;
	uint32_t avail, look;
	bool kcut;
	struct pd_pkt pkt;
	struct ft_frame ft;
	bool cut;
	int got = cap_next(s->cap, &f);

	if (got <= 0) {
		s->cap_failed = got < 0;
		return false;
	}
	e->keyed = false;
	e->addr_len = 0;
	e->t_ns = f.t_ns;
	if (!f.packet) {
		n->other_records++;
		return true;
	}
	n->frames++;
	if (n->frames > 1 && f.t_ns < n->latest_ns) {
		uint64_t back = n->latest_ns - f.t_ns;

		if (!n->time_back++) {
			n->back_frame = n->frames;
			n->back_before = n->latest_frame;
			n->back_first_ns = back;
		}
		if (back > n->back_max_ns)
			n->back_max_ns = back;
	} else {
		n->latest_ns = f.t_ns;
		n->latest_frame = n->frames;
	}
	n->bytes += f.caplen;
	if (s->cfg.frame_truth) {
		const struct ft_ports ports = {
			.vxlan = s->cfg.key.vxlan_port,
			.geneve = s->cfg.key.geneve_port,
			.gtpu = s->cfg.key.gtpu_port,
		};

		ft_frame(f.link, f.data, f.caplen, &ports, &ft);
		e->framed = true;
		e->frame[0] = ft.digest[0];
		e->frame[1] = ft.digest[1];
	}
	cut = f.caplen < f.origlen;
	n->cut += cut;
	lr = l2_parse(f.link, f.data, f.caplen, &l2);
	if (lr != L2_IP) {
		if (lr == L2_UNKNOWN_LINK && !n->link[L2_UNKNOWN_LINK])
			n->unknown_encap = f.encap;
		n->link[lr]++;
		if (lr == L2_NOT_IP &&
		    (s->cfg.key.flags & PKTDEDUP_KEY_F_NONIP))
			nonip_key(s, e, &f, cut);
		return true;
	}
	/*
	 * The bytes the module would read (pd_key_look: the headers' room,
	 * the payload, the tunnels'; every byte for the packet key of every
	 * byte): a frame cut past them is the whole frame to the key.
	 */
	avail = f.caplen - l2.l3off;
	look = PD_MIN(avail, pd_key_look(&s->cfg.key));
	cut = cut && look == avail;
	kcut = cut;
	r = pd_parse_key(f.data + l2.l3off, look, &s->cfg.key, &pkt, cut);
	/* the innermost packet's headers: cut or not where its window ends */
	cut = pkt.cut;
	/*
	 * The module's proto selection: once the header says the protocol
	 * (not when an IPv6 extension chain hides it); a cut that hides it
	 * leaves the frame unkeyed, since the module would know it.
	 */
	if (r == PD_PARSE_OK && s->cfg.sel && !s->cfg.sel->any_proto) {
		bool known = !pkt.l4_err || pkt.family == PD_FAMILY_IPV4;

		if (known && !pd_select_proto(s->cfg.sel, pkt.proto)) {
			n->unselected++;
			return true;
		}
		if (cut && !known) {
			count_encaps(n, &pkt);
			n->unparsed[PD_PARSE_TRUNCATED]++;
			return true;
		}
	}
	count_encaps(n, &pkt);
	/* the module's source analytics count it (pd_judge) */
	if (pkt.family) {
		e->addr_len = pkt.addr_len;
		memcpy(e->src, pkt.src, pkt.addr_len);
		memcpy(e->dst, pkt.dst, pkt.addr_len);
	}
	if (r == PD_PARSE_OK)
		r = pd_key_of(&pkt, &s->cfg.key, &e->keybuf);
	if (r != PD_PARSE_OK) {
		n->unparsed[r]++;
		return true;
	}
	n->keyed++;
	/* keyed from less than the bytes the key may depend on */
	n->keyed_cut += kcut;
	n->tags += l2.tags != 0;
	if (e->framed) {
		n->truth_tunnelled += ft.tunnels != 0;
		n->truth_kind[ft.kind]++;
	}
	/* the ground truth's id: a 64-bit fingerprint */
	e->id = pd_key_hash64(&e->keybuf, &truth_hkey);
	e->key = &e->keybuf;
	e->keyed = true;
	e->dscp = pkt.dscp;
	return true;
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
		return pcap_open(s, err, errlen);
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
	e->keyed = true;
	e->framed = false;
	if (s->cfg.kind == STREAM_PCAP)
		return pcap_next(s, e);
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
	cap_close(s->cap);
	free(s->heap);
	memset(s, 0, sizeof(*s));
}
