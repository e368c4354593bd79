// SPDX-License-Identifier: GPL-2.0
/*
 * Native tests of the simulator's parts: exact ground truth, stream
 * generators (fixed seeds, tolerances from the distributions), pcap input
 * and command-line value parsing. Userspace only (libc, libpcap).
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <math.h>
#include <netinet/in.h>
#include <pcap/pcap.h>
#include <unistd.h>

#include "../../module/core/rng.h"
#include "../../userspace/common/args.h"
#include "../../userspace/sim/fpbuf.h"
#include "../../userspace/sim/streams.h"
#include "../../userspace/sim/truth.h"
#include "../../userspace/common/units.h"

/* Worked by hand: ids 5 7 5 9 7 7 5 11 with a window of 2 elements. */
static void sim_truth_hand_checked(struct kunit *test)
{
	static const uint64_t ids[] = { 5, 7, 5, 9, 7, 7, 5, 11 };
	static const bool seen[] = { 0, 0, 1, 0, 1, 1, 1, 0 };
	static const bool win[] = { 0, 0, 1, 0, 0, 1, 0, 0 };
	static const uint64_t gap[] = { 0, 0, 2, 0, 3, 1, 4, 0 };
	struct truth t;
	struct truth_verdict v;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, truth_init(&t, 4), 0);
	for (i = 0; i < 8; i++) {
		KUNIT_ASSERT_EQ(test, truth_add(&t, ids[i], 2, &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v.seen, seen[i], "element %u", i);
		KUNIT_EXPECT_EQ_MSG(test, v.in_window, win[i], "element %u", i);
		KUNIT_EXPECT_EQ_MSG(test, v.gap, gap[i], "element %u", i);
	}
	truth_free(&t);
}

/* Growth keeps every id; extreme ids are ordinary ids. */
static void sim_truth_growth(struct kunit *test)
{
	struct truth t;
	struct truth_verdict v;
	uint64_t i, n = 100000;

	KUNIT_ASSERT_EQ(test, truth_init(&t, 1), 0);
	KUNIT_ASSERT_EQ(test, truth_add(&t, 0, 0, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.seen);
	KUNIT_ASSERT_EQ(test, truth_add(&t, UINT64_MAX, 0, &v), 0);
	KUNIT_EXPECT_FALSE(test, v.seen);
	for (i = 1; i <= n; i++) {
		KUNIT_ASSERT_EQ(test, truth_add(&t, i * 0x9e3779b97f4a7c15ULL, 0,
						&v), 0);
		KUNIT_ASSERT_FALSE(test, v.seen);
	}
	for (i = 1; i <= n; i++) {
		KUNIT_ASSERT_EQ(test, truth_add(&t, i * 0x9e3779b97f4a7c15ULL, 0,
						&v), 0);
		KUNIT_ASSERT_TRUE(test, v.seen);
		KUNIT_ASSERT_EQ(test, v.gap, n);
	}
	KUNIT_ASSERT_EQ(test, truth_add(&t, UINT64_MAX, 0, &v), 0);
	KUNIT_EXPECT_TRUE(test, v.seen);
	truth_free(&t);
}

/*
 * A truth with a horizon answers as one without it inside the horizon
 * (seen, gap, dt), says "seen, further than the horizon" beyond it, and
 * holds no more than the horizon's arrivals: a packet horizon and a time
 * horizon, on a stream whose repeats come at every distance.
 */
static void sim_truth_horizon(struct kunit *test)
{
	static const uint64_t H = 50, HNS = 40000;
	unsigned int timed;

	for (timed = 0; timed < 2; timed++) {
		struct truth a, b;
		struct truth_verdict va, vb;
		uint64_t rng = 77, i, t = 0, beyond = 0, inside = 0;

		KUNIT_ASSERT_EQ(test, timed ? truth_init_timed(&a, 0) :
				truth_init(&a, 0), 0);
		KUNIT_ASSERT_EQ(test, timed ? truth_init_timed(&b, 0) :
				truth_init(&b, 0), 0);
		KUNIT_ASSERT_EQ(test, truth_set_horizon(&b, timed ? 0 : H,
							timed ? HNS : 0), 0);
		for (i = 0; i < 200000; i++) {
			uint64_t id = pd_rng_below(&rng, 400);
			bool in;

			t += pd_rng_below(&rng, 2000);	/* ns apart */
			KUNIT_ASSERT_EQ(test, truth_add_at(&a, id, t, 0, &va), 0);
			KUNIT_ASSERT_EQ(test, truth_add_at(&b, id, t, 0, &vb), 0);
			KUNIT_ASSERT_EQ(test, va.seen, vb.seen);
			in = timed ? va.dt < HNS : va.gap <= H;
			if (va.seen && in) {
				inside++;
				KUNIT_ASSERT_EQ(test, vb.gap, va.gap);
				KUNIT_ASSERT_EQ(test, vb.dt, va.dt);
			} else if (va.seen) {
				beyond++;
				KUNIT_ASSERT_EQ(test, vb.gap, UINT64_MAX);
			}
			/*
			 * at most the horizon's arrivals are kept: H + 1, or
			 * those of 40 us at gaps uniform in [0, 2 us): 40 on
			 * average, sd about 4
			 */
			KUNIT_ASSERT_LE(test, b.used, timed ? 100 : H + 1);
		}
		KUNIT_EXPECT_GT(test, inside, 1000u);
		KUNIT_EXPECT_GT(test, beyond, 1000u);
		truth_free(&a);
		truth_free(&b);
	}
}

static uint64_t count_distinct(struct kunit *test, struct stream *s,
			       uint64_t *n)
{
	struct truth t;
	struct truth_verdict v;
	struct element e;
	uint64_t d = 0;

	*n = 0;
	KUNIT_EXPECT_EQ(test, truth_init(&t, 1024), 0);
	while (stream_next(s, &e)) {
		truth_add(&t, e.id, 0, &v);
		d += !v.seen;
		(*n)++;
	}
	truth_free(&t);
	return d;
}

/*
 * n uniform draws from U values: E[distinct] = U (1 - e^(-n/U)) and
 * Var = U e^(-n/U) (1 - (1 + n/U) e^(-n/U)) + U(U-1)(...) ~ the first term
 * for large U; allow 5 sd.
 */
static void sim_stream_uniform(struct kunit *test)
{
	static const double fr[] = { 0.1, 0.5, 0.9 };
	unsigned int i;

	for (i = 0; i < 3; i++) {
		struct stream_cfg c = { .kind = STREAM_UNIFORM, .n = 200000,
					.distinct = fr[i], .seed = 7 };
		struct stream s;
		char err[128];
		uint64_t n, d, u;
		double x, mean, sd;

		KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
		u = s.uni;
		x = exp(-(double)c.n / (double)u);
		mean = (double)u * (1 - x);
		KUNIT_EXPECT_LT(test, fabs(mean - fr[i] * (double)c.n), 2.0);
		sd = sqrt((double)u * x * (1 - (1 + (double)c.n / (double)u) * x));
		d = count_distinct(test, &s, &n);
		KUNIT_EXPECT_EQ(test, n, c.n);
		kunit_info(test, "distinct %.1f%%: got %llu, expected %.0f +- %.0f",
			   100 * fr[i], (unsigned long long)d, mean, sd);
		KUNIT_EXPECT_LT(test, fabs((double)d - mean), 5 * sd + 1);
		stream_close(&s);
	}
	/* distinct = 1: every element new */
	{
		struct stream_cfg c = { .kind = STREAM_UNIFORM, .n = 1000,
					.distinct = 1, .seed = 7 };
		struct stream s;
		char err[128];
		uint64_t n;

		KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
		KUNIT_EXPECT_EQ(test, count_distinct(test, &s, &n), (uint64_t)1000);
		stream_close(&s);
	}
}

/* The frequent share is Bernoulli(lambda) per position: 5 sd. */
static void sim_stream_poisson(struct kunit *test)
{
	struct stream_cfg c = { .kind = STREAM_POISSON, .n = 100000,
				.lambda = 0.3, .u = 0.01, .seed = 3 };
	struct stream s;
	struct element e;
	char err[128];
	uint64_t freq = 0, zero = 0;
	double sd = sqrt(c.n * c.lambda * (1 - c.lambda));

	KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
	while (stream_next(&s, &e)) {
		freq += e.id < (1ULL << 62);
		zero += e.id == 0;
	}
	KUNIT_EXPECT_LT(test, fabs((double)freq - 0.3 * c.n), 5 * sd);
	/* id 0 takes a share 1 - e^-u of the frequent arrivals */
	sd = sqrt(freq * 0.00995 * (1 - 0.00995));
	KUNIT_EXPECT_LT(test, fabs((double)zero - freq * (1 - exp(-0.01))),
			5 * sd + 1);
	stream_close(&s);
}

/* b-model: exactly round(v n) frequent arrivals, split b : 1-b at the top. */
static void sim_stream_bmodel(struct kunit *test)
{
	struct stream_cfg c = { .kind = STREAM_BMODEL, .n = 100000,
				.bias = 0.7, .levels = 6, .volume = 0.1,
				.u = 0.01, .seed = 11 };
	struct stream s;
	struct element e;
	char err[128];
	uint64_t first = 0, total = 0, big, i = 0;

	KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
	while (stream_next(&s, &e)) {
		bool f = e.id < (1ULL << 62);

		total += f;
		first += f && i < c.n / 2;
		i++;
	}
	KUNIT_EXPECT_EQ(test, total, (uint64_t)10000);
	big = first > total - first ? first : total - first;
	KUNIT_EXPECT_EQ(test, big, (uint64_t)7000);
	stream_close(&s);
}

/* Zipf(1) over U ranks: rank 0 has probability 1 / H_U. */
static void sim_stream_zipf(struct kunit *test)
{
	struct stream_cfg c = { .kind = STREAM_ZIPF, .n = 100000,
				.universe = 1000, .zipf_s = 1, .seed = 5 };
	struct stream s;
	struct element e;
	char err[128];
	uint64_t top = 0, r;
	double h = 0, p, sd;

	for (r = 1; r <= c.universe; r++)
		h += 1.0 / (double)r;
	p = 1 / h;
	sd = sqrt(c.n * p * (1 - p));
	KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
	while (stream_next(&s, &e)) {
		top += e.id == 0;
		KUNIT_ASSERT_LT(test, e.id, c.universe);
	}
	KUNIT_EXPECT_LT(test, fabs((double)top - c.n * p), 5 * sd);
	stream_close(&s);
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_ipv4_udp(uint8_t *b, uint8_t ttl, uint8_t salt)
{
	memset(b, 0, 36);
	b[0] = 0x45;
	b[3] = 36;
	b[8] = ttl;
	b[9] = IPPROTO_UDP;
	b[12] = 10;
	b[15] = 1;
	b[16] = 10;
	b[19] = 2;
	b[21] = 53;
	b[23] = 99;
	b[25] = 16;
	memset(b + 28, salt, 8);
}

/*
 * A capture on Ethernet (one frame VLAN-tagged): a packet, its copy one
 * hop later (TTL - 1), another packet, the first again, and a runt. Packet
 * keys: a a b a, one unparsed.
 */
static void sim_stream_pcap(struct kunit *test)
{
	char path[] = "/tmp/pktdedup-sim-test-XXXXXX";
	int fd = mkstemp(path);
	pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
	pcap_dumper_t *dump;
	struct pcap_pkthdr h = { 0 };
	uint8_t frame[64];
	struct stream_cfg c = { .kind = STREAM_PCAP, .pcap_path = path,
				.key = { .mode = PKTDEDUP_KEY_PACKET, .payload = 64 } };
	struct stream s;
	struct element e;
	uint64_t ids[8];
	char err[256];
	unsigned int n = 0, i;
	static const struct { uint8_t ttl, salt, vlan; uint32_t len; } pk[] = {
		{ 64, 1, 0, 14 + 36 }, { 63, 1, 1, 18 + 36 },
		{ 64, 2, 0, 14 + 36 }, { 64, 1, 0, 14 + 36 }, { 64, 1, 0, 14 + 10 },
	};

	KUNIT_ASSERT_GE(test, fd, 0);
	close(fd);
	KUNIT_ASSERT_NOT_NULL(test, dead);
	dump = pcap_dump_open(dead, path);
	KUNIT_ASSERT_NOT_NULL(test, dump);
	for (i = 0; i < 5; i++) {
		uint32_t off = pk[i].vlan ? 16 : 12;

		memset(frame, 0, sizeof(frame));
		if (pk[i].vlan) {
			put_be16(frame + 12, ETH_P_8021Q);
			frame[15] = 7;
		}
		put_be16(frame + off, ETH_P_IP);
		put_ipv4_udp(frame + off + 2, pk[i].ttl, pk[i].salt);
		h.caplen = h.len = pk[i].len;
		pcap_dump((u_char *)dump, &h, frame);
	}
	pcap_dump_close(dump);
	pcap_close(dead);

	KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
	while (n < 8 && stream_next(&s, &e))
		if (e.keyed)	/* the others are passed on unscored */
			ids[n++] = e.id;
	KUNIT_EXPECT_EQ(test, s.pc.frames, (uint64_t)5);
	KUNIT_EXPECT_EQ(test, s.pc.keyed, (uint64_t)4);
	KUNIT_EXPECT_EQ(test, s.pc.tags, (uint64_t)1);
	KUNIT_ASSERT_EQ(test, n, 4u);
	KUNIT_EXPECT_EQ(test, ids[0], ids[1]);
	KUNIT_EXPECT_NE(test, ids[0], ids[2]);
	KUNIT_EXPECT_EQ(test, ids[0], ids[3]);
	KUNIT_EXPECT_EQ(test, s.pc.unparsed[PD_PARSE_TRUNCATED], (uint64_t)1);
	stream_close(&s);
	/* a file that is not a capture is an error with a message */
	c.pcap_path = "/nonexistent/pktdedup.pcap";
	KUNIT_EXPECT_NE(test, stream_open(&s, &c, err, sizeof(err)), 0);
	KUNIT_EXPECT_GT(test, strlen(err), (size_t)0);
	unlink(path);
}

static void sim_args(struct kunit *test)
{
	uint64_t v = 0;
	double d = 0;

	KUNIT_EXPECT_TRUE(test, parse_size("65536", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)65536);
	KUNIT_EXPECT_TRUE(test, parse_size("64K", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)65536);
	KUNIT_EXPECT_TRUE(test, parse_size("1M", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)1 << 20);
	KUNIT_EXPECT_TRUE(test, parse_size("2GiB", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)2 << 30);
	KUNIT_EXPECT_FALSE(test, parse_size("", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("-1", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("1X", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("K", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("1 M", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("99999999999999G", &v));
	KUNIT_EXPECT_FALSE(test, parse_size("99999999999999999999", &v));
	KUNIT_EXPECT_TRUE(test, parse_u64("0x10", 0, 100, &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)16);
	KUNIT_EXPECT_FALSE(test, parse_u64("101", 0, 100, &v));
	KUNIT_EXPECT_FALSE(test, parse_u64("-5", 0, 100, &v));
	KUNIT_EXPECT_FALSE(test, parse_u64("5x", 0, 100, &v));
	KUNIT_EXPECT_TRUE(test, parse_real("0.01", 0, 1, &d));
	KUNIT_EXPECT_TRUE(test, d == 0.01);
	KUNIT_EXPECT_FALSE(test, parse_real("nan", 0, 1, &d));
	KUNIT_EXPECT_FALSE(test, parse_real("1.5", 0, 1, &d));
	KUNIT_EXPECT_FALSE(test, parse_real("0.1%", 0, 1, &d));
	KUNIT_EXPECT_FALSE(test, parse_real(" 0.1", 0, 1, &d));
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("60s", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)60000);
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("10", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)10000);
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("500ms", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)500);
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("2m", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)120000);
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("2min", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)120000);
	KUNIT_EXPECT_TRUE(test, parse_duration_ms("1h", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)3600000);
	KUNIT_EXPECT_FALSE(test, parse_duration_ms("5x", &v));
	KUNIT_EXPECT_FALSE(test, parse_duration_ms("s", &v));
	KUNIT_EXPECT_FALSE(test, parse_duration_ms("-1s", &v));
	KUNIT_EXPECT_FALSE(test, parse_duration_ms("1.5s", &v));
}

/*
 * The importance stream: every class's share of the stream is binomial
 * (n, pi_c), and the number of repeats is n minus an occupancy count
 * (variance at most its mean): 5 sd each. Element ids carry their class.
 */
static void sim_stream_importance(struct kunit *test)
{
	static const double rep[] = { 0.1, 0.3, 0.5 };
	unsigned int i, d, c;

	for (d = 0; d < IMP_NDISTS; d++)
		for (i = 0; i < 3; i++) {
			struct stream_cfg cfg = { .kind = STREAM_IMPORTANCE,
						  .n = 100000, .seed = 5,
						  .imp_dist = (enum imp_dist)d,
						  .repeat = rep[i] };
			uint64_t per[IMP_CLASSES + 1] = { 0 }, n, dist;
			struct stream s;
			struct element e;
			struct truth t;
			struct truth_verdict v;
			char err[128];

			KUNIT_ASSERT_EQ(test, stream_open(&s, &cfg, err,
							  sizeof(err)), 0);
			KUNIT_ASSERT_EQ(test, truth_init(&t, cfg.n), 0);
			n = 0;
			dist = 0;
			while (stream_next(&s, &e)) {
				KUNIT_ASSERT_TRUE(test, e.imp >= 1 &&
						  e.imp <= IMP_CLASSES);
				KUNIT_ASSERT_EQ(test, e.id % IMP_CLASSES + 1,
						(uint64_t)e.imp);
				per[e.imp]++;
				n++;
				KUNIT_ASSERT_EQ(test, truth_add(&t, e.id, 0, &v),
						0);
				dist += !v.seen;
			}
			KUNIT_EXPECT_EQ(test, n, cfg.n);
			for (c = 1; c <= IMP_CLASSES; c++) {
				double pc = stream_imp_class_prob(cfg.imp_dist, c);
				double mean = pc * (double)n;
				double sd = sqrt(mean * (1 - pc));

				KUNIT_EXPECT_LT_MSG(test, fabs((double)per[c] - mean),
						    5 * sd + 1, "%s class %u",
						    imp_dist_names[d], c);
			}
			kunit_info(test, "%s repeat %.1f: %llu repeats, expected %.0f",
				   imp_dist_names[d], rep[i],
				   (unsigned long long)(n - dist), rep[i] * (double)n);
			KUNIT_EXPECT_LT(test, fabs((double)(n - dist) -
						   rep[i] * (double)n),
					5 * sqrt((double)n));
			truth_free(&t);
			stream_close(&s);
		}
	/* direct: class c is c times as likely as class 1 */
	KUNIT_EXPECT_LT(test, fabs(stream_imp_class_prob(IMP_DIRECT, 50) /
				   stream_imp_class_prob(IMP_DIRECT, 1) - 50), 1e-9);
	KUNIT_EXPECT_LT(test, fabs(stream_imp_class_prob(IMP_INVERSE, 1) /
				   stream_imp_class_prob(IMP_INVERSE, 50) - 50), 1e-9);
	/* fewer distinct elements than classes: refused */
	KUNIT_EXPECT_EQ(test, stream_imp_per_class(100, IMP_UNIFORM, 0.9),
			(uint64_t)0);
}

/*
 * FPBuffering with q = 0 against a naive LRU list (an array, most recent
 * first) on a stream with locality: the same verdict for every element.
 * Then its memory and the share of "duplicate" answers for elements it
 * does not hold, q (binomial, 5 sd).
 */
static void sim_fpbuf_lru(struct kunit *test)
{
	enum { CAP = 64, N = 200000 };
	uint64_t lru[CAP], rng = 9, hits = 0, said = 0, misses = 0;
	unsigned int used = 0, i, j;
	struct fpbuf b;
	char err[128];
	bool found, dup;

	KUNIT_ASSERT_EQ(test, fpbuf_init(&b, CAP * 4, 32, 0, 1, err,
					 sizeof(err)), 0);
	KUNIT_EXPECT_EQ(test, b.cap, (uint64_t)CAP);
	KUNIT_EXPECT_EQ(test, fpbuf_bytes(&b), (uint64_t)CAP * 4);
	for (i = 0; i < N; i++) {
		/* ids 1..200, small ones far more often: reuse at all gaps */
		uint64_t r = pd_rng_next(&rng);
		uint64_t id = 1 + (r >> 40) % (1 + (r & 0xff) % 200);
		bool model = false;

		for (j = 0; j < used; j++)
			if (lru[j] == id)
				break;
		if (j < used) {
			model = true;
		} else {
			if (used < CAP)
				used++;
			j = used - 1;	/* the last one goes, if full */
		}
		memmove(&lru[1], &lru[0], j * sizeof(lru[0]));
		lru[0] = id;
		dup = fpbuf_step(&b, id, &found);
		KUNIT_ASSERT_EQ_MSG(test, dup, model, "element %u", i);
		KUNIT_ASSERT_EQ(test, found, model);
		hits += model;
	}
	KUNIT_EXPECT_GT(test, hits, (uint64_t)N / 2);
	KUNIT_EXPECT_LT(test, hits, (uint64_t)N);
	fpbuf_free(&b);

	/* memory: whole entries; q: the "duplicate" share of misses */
	KUNIT_ASSERT_EQ(test, fpbuf_init(&b, 1003, 64, 0.2, 3, err,
					 sizeof(err)), 0);
	KUNIT_EXPECT_EQ(test, b.cap, (uint64_t)125);
	KUNIT_EXPECT_EQ(test, fpbuf_bytes(&b), (uint64_t)1000);
	for (i = 0; i < N; i++) {
		dup = fpbuf_step(&b, 0x1000000 + i, &found);
		KUNIT_ASSERT_FALSE(test, found);
		misses++;
		said += dup;
	}
	KUNIT_EXPECT_LT(test, fabs((double)said - 0.2 * (double)misses),
			5 * sqrt(0.2 * 0.8 * (double)misses));
	fpbuf_free(&b);
	KUNIT_EXPECT_NE(test, fpbuf_init(&b, 3, 32, 0, 1, err, sizeof(err)), 0);
	KUNIT_EXPECT_NE(test, fpbuf_init(&b, 64, 12, 0, 1, err, sizeof(err)), 0);
	KUNIT_EXPECT_NE(test, fpbuf_init(&b, 64, 32, 1, 1, err, sizeof(err)), 0);
}

/* Values with units: times, windows, rates; whole results only. */
static void sim_units(struct kunit *test)
{
	uint64_t ns = 1, pk = 1, v = 0;

	KUNIT_EXPECT_TRUE(test, parse_time_ns("2ms", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)2000000);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("500us", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)500000);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("1.5s", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)1500000000);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("10ns", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)10);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("0.25ms", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)250000);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("0", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)0);
	/* minutes as m or min, as the source windows take them */
	KUNIT_EXPECT_TRUE(test, parse_time_ns("10m", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)600000000000ULL);
	KUNIT_EXPECT_TRUE(test, parse_time_ns("10min", &ns));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)600000000000ULL);
	KUNIT_EXPECT_FALSE(test, parse_time_ns("1.5ns", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("2", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("2xs", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("ms", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("2.ms", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("-2ms", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("2 ms", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("99999999999999999999s", &ns));
	KUNIT_EXPECT_FALSE(test, parse_time_ns("18446744073709551615s", &ns));
	KUNIT_EXPECT_TRUE(test, parse_window("100000p", &ns, &pk));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)0);
	KUNIT_EXPECT_EQ(test, pk, (uint64_t)100000);
	KUNIT_EXPECT_TRUE(test, parse_window("2ms", &ns, &pk));
	KUNIT_EXPECT_EQ(test, ns, (uint64_t)2000000);
	KUNIT_EXPECT_EQ(test, pk, (uint64_t)0);
	KUNIT_EXPECT_FALSE(test, parse_window("0", &ns, &pk));
	KUNIT_EXPECT_FALSE(test, parse_window("1.5p", &ns, &pk));
	KUNIT_EXPECT_FALSE(test, parse_window("100", &ns, &pk));
	KUNIT_EXPECT_TRUE(test, parse_rate("1M", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)1000000);
	KUNIT_EXPECT_TRUE(test, parse_rate("2.5k", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)2500);
	KUNIT_EXPECT_TRUE(test, parse_rate("500000", &v));
	KUNIT_EXPECT_EQ(test, v, (uint64_t)500000);
	KUNIT_EXPECT_FALSE(test, parse_rate("1.5", &v));
	KUNIT_EXPECT_FALSE(test, parse_rate("1X", &v));
	KUNIT_EXPECT_FALSE(test, parse_rate("", &v));
}

/*
 * The timed truth by hand (window 10 ns, the caller's gap < W): a at 0,
 * a at 9 (dt 9), a at 19 (dt 10, every copy counts as seen), b at 5
 * (earlier than the latest: counts as 19), b at 28 (dt 9).
 */
static void sim_truth_timed(struct kunit *test)
{
	static const struct { uint64_t id, t, dt; bool seen; } el[] = {
		{ 1, 0, 0, 0 }, { 1, 9, 9, 1 }, { 1, 19, 10, 1 },
		{ 2, 5, 0, 0 }, { 2, 28, 9, 1 },
	};
	struct truth t;
	struct truth_verdict v;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, truth_init_timed(&t, 1), 0);
	for (i = 0; i < PD_ARRAY_SIZE(el); i++) {
		KUNIT_ASSERT_EQ(test, truth_add_at(&t, el[i].id, el[i].t, 0,
						   &v), 0);
		KUNIT_EXPECT_EQ_MSG(test, v.seen, el[i].seen, "element %u", i);
		KUNIT_EXPECT_EQ_MSG(test, v.dt, el[i].dt, "element %u", i);
	}
	/* times survive growth */
	for (i = 0; i < 5000; i++)
		KUNIT_ASSERT_EQ(test, truth_add_at(&t, 100 + i, 30, 0, &v), 0);
	KUNIT_ASSERT_EQ(test, truth_add_at(&t, 2, 40, 0, &v), 0);
	KUNIT_EXPECT_EQ(test, v.dt, (uint64_t)12);
	truth_free(&t);
}

/*
 * The timed stream: times never go back; every copy comes at most
 * copy_delay after its previous sighting, uniform there (mean MAX / 2,
 * sd MAX / sqrt(12 c) for c copies: 5 sd); the fresh share is the
 * distinct share (each packet copied with probability 1 - F, so fresh
 * packets are a share F in expectation; the count is a sum over chains,
 * within 5 binomial sd plus slack for the chains' dependence); the
 * duration is n / pps; a flood brings flood_pps * flood_for distinct
 * packets (Poisson: 5 sd); the same seed, the same stream.
 */
static void sim_stream_timed(struct kunit *test)
{
	struct stream_cfg c = { .kind = STREAM_TIMED, .n = 200000,
				.distinct = 0.8, .pps = 1000000,
				.copy_delay = 1000000, .seed = 5 };
	uint64_t n = 0, fresh = 0, copies = 0, last = 0, bad_gap = 0, h = 0;
	double gaps = 0, sd, mean_gap;
	struct truth t;
	struct truth_verdict v;
	struct stream s;
	struct element e;
	char err[128];
	unsigned int run;

	for (run = 0; run < 2; run++) {
		uint64_t hash = 0;

		KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
		KUNIT_ASSERT_EQ(test, truth_init_timed(&t, c.n), 0);
		n = 0;
		fresh = 0;
		copies = 0;
		last = 0;
		bad_gap = 0;
		gaps = 0;
		while (stream_next(&s, &e)) {
			KUNIT_ASSERT_GE(test, e.t_ns, last);
			last = e.t_ns;
			KUNIT_ASSERT_EQ(test, truth_add_at(&t, e.id, e.t_ns, 0,
							   &v), 0);
			if (v.seen) {
				copies++;
				gaps += (double)v.dt;
				bad_gap += v.dt > c.copy_delay;
			} else {
				fresh++;
			}
			hash = (hash ^ e.id ^ e.t_ns) * 0x100000001b3ULL;
			n++;
		}
		KUNIT_EXPECT_FALSE(test, s.oom);
		truth_free(&t);
		stream_close(&s);
		if (run)
			KUNIT_EXPECT_EQ(test, hash, h);
		h = hash;
	}
	KUNIT_EXPECT_EQ(test, n, c.n);
	KUNIT_EXPECT_EQ(test, bad_gap, (uint64_t)0);
	mean_gap = gaps / (double)copies;
	sd = 1e6 / sqrt(12.0 * (double)copies);
	kunit_info(test, "timed: %llu fresh, copies' mean gap %.0f ns, %.3f ms",
		   (unsigned long long)fresh, mean_gap, (double)last / 1e6);
	KUNIT_EXPECT_LT(test, fabs(mean_gap - 5e5), 5 * sd);
	sd = sqrt(0.8 * 0.2 * (double)n);
	KUNIT_EXPECT_LT(test, fabs((double)fresh - 0.8 * (double)n),
			10 * sd);
	/* n arrivals at 1M/s: 200 ms, sd sqrt(n) us (gamma): 5 sd, 10% slack */
	KUNIT_EXPECT_LT(test, fabs((double)last - 2e8), 5 * sqrt(2e5) * 1e3 + 2e7);

	/* a flood of 10M pps for 5 ms from 50 ms: ~50000 packets */
	c.flood_pps = 10000000;
	c.flood_at = 50000000;
	c.flood_for = 5000000;
	KUNIT_ASSERT_EQ(test, stream_open(&s, &c, err, sizeof(err)), 0);
	while (stream_next(&s, &e))
		;
	kunit_info(test, "flood: %llu packets", (unsigned long long)s.flood);
	KUNIT_EXPECT_LT(test, fabs((double)s.flood - 50000), 5 * sqrt(50000.0));
	stream_close(&s);
}

static struct kunit_case sim_cases[] = {
	KUNIT_CASE(sim_truth_hand_checked),
	KUNIT_CASE(sim_truth_growth),
	KUNIT_CASE(sim_truth_horizon),
	KUNIT_CASE(sim_stream_uniform),
	KUNIT_CASE(sim_stream_poisson),
	KUNIT_CASE(sim_stream_bmodel),
	KUNIT_CASE(sim_stream_zipf),
	KUNIT_CASE(sim_stream_pcap),
	KUNIT_CASE(sim_stream_importance),
	KUNIT_CASE(sim_fpbuf_lru),
	KUNIT_CASE(sim_args),
	KUNIT_CASE(sim_units),
	KUNIT_CASE(sim_truth_timed),
	KUNIT_CASE(sim_stream_timed),
	{}
};

static struct kunit_suite sim_suite = {
	.name = "sim",
	.test_cases = sim_cases,
};

kunit_test_suite(sim_suite);
