/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streams the simulator replays. Each element is a 64-bit id (what the
 * ground truth compares) and, for pcap streams, the packet key the filter
 * hashes (synthetic ids are hashed as 8 bytes).
 *
 *   uniform  i.i.d. uniform over a universe sized so that the expected
 *            fraction of distinct elements is the one asked for
 *   zipf     i.i.d. Zipf(s) over a universe of U ranks
 *   poisson  the SBF paper's Sec. 5.1: each position holds a frequent
 *            integer with probability lambda (Bernoulli arrivals: the
 *            discrete Poisson process, exponential inter-arrival gaps),
 *            otherwise a fresh distinct integer
 *   bmodel   Sec. 5.1: the frequent arrivals (volume v of the stream) are
 *            placed by the b-model: each of l levels splits an interval's
 *            volume b : 1-b between its halves (which half gets b is
 *            random), then arrivals fall at random inside the leaves
 *   pcap     packets from a capture (capture.h: read one record at a
 *            time, in constant memory), keyed by the module's key
 *            extraction after the link layer (linktype.h); frames cut by
 *            the snapshot length keyed from what is there (key.h,
 *            pd_parse_cut); with key.decap, the packet inside the
 *            tunnels it names (decap.h). Every record comes back, in
 *            order: the ones
 *            the module would not key (counted in struct pcap_counts)
 *            unkeyed, for the caller to pass on. With frame_truth, every
 *            packet record also carries its frame truth's digest
 *            (frametruth.h)
 *   importance  the IBF paper's synthetic data (Boraskar et al., Sec. IV-D):
 *            every element has an importance 1..50 (IMP_CLASSES), the same
 *            number of elements in each class; draws are i.i.d., an element
 *            of importance c drawn with probability proportional to 1
 *            (uniform), c (direct) or 1/c (inverse), from a universe sized
 *            so that the expected share of repeats (elements seen before)
 *            is `repeat` (the paper's 10%, 30% or 50% "of the elements
 *            repeating")
 *   timed    packets with arrival times: fresh packets arrive at
 *            distinct * pps per second (exponential gaps), and every
 *            packet, fresh or copy, is copied once with probability
 *            1 - distinct, the copy arriving a delay uniform in
 *            [0, copy_delay] ns after it (pending copies wait in a min-heap
 *            by due time). So in the long run pps packets arrive per
 *            second, a share `distinct` of them fresh, and each copy's
 *            previous sighting is the packet it copies. During a flood,
 *            [flood_at, flood_at + flood_for), the fresh arrivals switch
 *            to flood_pps distinct packets per second (never copied);
 *            copies already pending still arrive.
 * Every element carries an arrival time in ns: the timed stream's, or a
 * pcap packet's capture time (nanosecond files keep their precision);
 * the other streams have none (0).
 * For poisson and bmodel, each frequent arrival becomes integer j with
 * probability q_j = (1 - e^-u) e^(-u j) (the paper's "exponential
 * distribution with parameter u", discretised).
 */
#ifndef PD_SIM_STREAMS_H
#define PD_SIM_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "../../module/core/config.h"
#include "../../module/core/decap.h"
#include "../../module/core/key.h"
#include "frametruth.h"
#include "linktype.h"

enum stream_kind {
	STREAM_UNIFORM,
	STREAM_ZIPF,
	STREAM_POISSON,
	STREAM_BMODEL,
	STREAM_PCAP,
	STREAM_IMPORTANCE,
	STREAM_TIMED,
	STREAM_NKINDS,
};

#define IMP_CLASSES 50

enum imp_dist {
	IMP_UNIFORM,
	IMP_DIRECT,
	IMP_INVERSE,
	IMP_NDISTS,
};

struct stream_cfg {
	enum stream_kind kind;
	uint64_t n;		/* elements (synthetic streams) */
	double distinct;	/* uniform: fraction of distinct elements */
	double zipf_s;
	uint64_t universe;	/* zipf: ranks */
	double lambda;		/* poisson */
	double bias;		/* bmodel b */
	unsigned int levels;	/* bmodel l */
	double volume;		/* bmodel v */
	double u;		/* poisson, bmodel: spread of frequent ids */
	enum imp_dist imp_dist;	/* importance */
	double repeat;		/* importance: expected share of repeats */
	const char *pcap_path;
	/* pcap: the protocols selected, as the module's proto setting */
	const struct pd_select *sel;	/* NULL: every protocol */
	struct pd_key_opts key;
	/*
	 * pcap: each frame's frame truth too (frametruth.h), its UDP tunnels
	 * on key's ports
	 */
	bool frame_truth;
	uint64_t seed;
	uint64_t pps;		/* timed: packets per second */
	uint64_t copy_delay;	/* timed: the longest delay of a copy, ns */
	uint64_t flood_pps;	/* timed: 0, or distinct packets/s in a flood */
	uint64_t flood_at;	/* ns */
	uint64_t flood_for;	/* ns */
};

/* A copy the timed stream owes: id, due at t ns. */
struct pending {
	uint64_t t;
	uint64_t seq;		/* ties: the earlier scheduled first */
	uint64_t id;
};

/* What a pcap stream read. */
struct pcap_counts {
	uint64_t frames;		/* packet records */
	uint64_t bytes;			/* their captured bytes */
	uint64_t other_records;		/* pcapng events, custom blocks... */
	uint64_t link[L2_NRESULTS];	/* runt, not IP, unknown link */
	int unknown_encap;		/* the first unknown link type */
	/*
	 * IP, but no key, by why; not-ip: a tunnel (--decap) that carries
	 * something else than IP, which the module counts as not IP
	 */
	uint64_t unparsed[PD_PARSE_NRESULTS];
	/*
	 * --decap, as the module's stats decap: per encapsulation (bit n of
	 * PKTDEDUP_DECAP_*), the frames that came through one (crossed), and
	 * those whose header of it failed (cut short, malformed, too deep)
	 */
	uint64_t decap[PD_NENCAPS], decap_err[PD_NENCAPS];
	uint64_t unselected;		/* IP of a protocol not selected */
	uint64_t nonip_keyed;		/* --nonip dedup: non-IP frames keyed */
	uint64_t keyed;
	uint64_t cut;			/* frames cut by the snaplen */
	uint64_t keyed_cut;		/* of them keyed */
	uint64_t tags;			/* keyed frames with VLAN/MPLS */
	/* with frame_truth: keyed frames the truth decapsulated, its kinds */
	uint64_t truth_tunnelled;
	uint64_t truth_kind[FT_NKINDS];
	/*
	 * Time that goes back (captures joined with cat): frames earlier
	 * than a frame before them, the first of them, by how much at most
	 */
	uint64_t latest_ns, latest_frame;	/* the latest time so far */
	uint64_t time_back;
	uint64_t back_frame, back_before;	/* the first, and the frame
						 * whose time it is behind */
	uint64_t back_first_ns, back_max_ns;
	bool ended_cut;			/* the last record was cut short */
	uint64_t end_offset;		/* where the record that failed began */
};

struct capture;

struct stream {
	struct stream_cfg cfg;
	uint64_t rng;
	uint64_t i;
	uint64_t uni;		/* uniform: universe size */
	double *cdf;		/* zipf */
	uint8_t *marks;		/* bmodel: frequent positions */
	double imp_cdf[IMP_CLASSES];	/* importance: class probabilities */
	uint64_t per_class;	/* importance: elements in each class */
	/* pcap */
	struct capture *cap;
	struct pcap_counts pc;
	bool cap_failed;	/* the capture ended in a read error */
	/* timed */
	double fresh_t;		/* the next fresh arrival, ns */
	uint64_t fresh;		/* fresh packets so far */
	uint64_t flood;		/* of them in the flood */
	struct pending *heap;	/* pending copies, a min-heap by (t, seq) */
	uint64_t nheap, capheap, seq;
	bool oom;		/* the stream ended for want of memory */
};

struct element {
	bool keyed;		/* false: a pcap record to pass on unscored */
	uint64_t id;
	const struct pd_key *key;	/* pcap only */
	struct pd_key keybuf;
	uint8_t imp;		/* importance stream: 1..50; others 0 */
	uint8_t dscp;		/* pcap: the packet's DSCP; others 0 */
	/* pcap with frame_truth: the frame's digest (frametruth.h) */
	bool framed;
	uint64_t frame[2];
	uint64_t t_ns;		/* arrival (timed) or capture (pcap) time */
	bool flood;		/* timed: a packet of the flood */
	/*
	 * pcap: the (innermost) IP header's addresses, of every packet the
	 * module's analytics count (selected, addresses read); 0: none
	 */
	uint8_t addr_len;
	uint8_t src[16];
	uint8_t dst[16];
};

/* Returns 0 or -1 with a message in err. */
int stream_open(struct stream *s, const struct stream_cfg *cfg, char *err,
		unsigned int errlen);
/* Next element; false at the end (or out of memory: s->oom). */
bool stream_next(struct stream *s, struct element *e);
void stream_close(struct stream *s);
/* Universe size for which n uniform draws give `distinct` * n distincts. */
uint64_t stream_uniform_universe(uint64_t n, double distinct);
/*
 * Importance stream: the probability of drawing an element of class c
 * (1..50) under dist, and the elements per class for which n draws repeat
 * an element with expected share `repeat` (0 if none can).
 */
double stream_imp_class_prob(enum imp_dist dist, unsigned int c);
uint64_t stream_imp_per_class(uint64_t n, enum imp_dist dist, double repeat);

extern const char *const stream_names[];
extern const char *const imp_dist_names[];

#endif /* PD_SIM_STREAMS_H */
