// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: the shared scope wherever the host places the CPUs, against
 * per-CPU filters and against steering.
 *
 * What a shared filter costs is its lines' moves between CPUs: tens of ns
 * between CPUs that share a cache, 100 to 200 across sockets or wherever
 * the host runs two vCPUs apart. The run cannot choose the placement, so
 * each round first measures a line's move (ping-pong / 2, as bench
 * --scope's contention table), then, at two threads, the module's default
 * filter (1 MiB) four ways, each step a packet late as action count (the
 * default) takes it (core/defer.h):
 *  percpu   a filter per thread (a copy on the other CPU is not found);
 *  shared   one filter, stepped by both without a lock (scope shared;
 *           layout auto: line, one line a packet);
 *  steered  a filter per thread, each packet stepped by the thread its
 *           key's hash names: a packet for the other thread is handed
 *           over in a ring of 64-byte slots (the hash and the frame's
 *           first bytes), published in bulks of 8, as a cpumap hands an
 *           XDP frame to the CPU a program names. Every copy of a key
 *           meets the same filter, and no filter line is shared;
 * and percpu and shared again with each step taken at once, as mark and
 * drop take it (the "at once" columns).
 * Rounds go on, PLACE_GAP_S apart, until a near move (at most
 * PLACE_NEAR_NS) and a far one (at least PLACE_FAR_NS) have both been
 * seen, at most PLACE_ROUNDS; the run says which it did not see.
 *
 * Then a model for larger hosts, from the rounds: per packet, percpu c
 * (the rounds' median); shared c + a * m * (N-1)/N and steered
 * c + b * m * (N-1)/N (at once: c', a'), where (N-1)/N of a packet's lines
 * are another CPU's on N cores, and a and b, what a packet adds in moves
 * when all of its lines are another's, are fitted through the origin to
 * the rounds' excess over percpu against m / 2. The steered b holds the
 * hand-over's own work: here the producer writes the slot and the consumer
 * reads it (two moves a frame); a NIC's DMA writes a frame in no CPU's
 * cache. m at 16 cores is the nearest move measured (one socket); at 64
 * cores on two sockets, 31/63 of moves near and 32/63 far (the farthest
 * measured). Mpps in all is N * 1000 / ns. The model leaves out what more
 * cores add besides moves (the shared last-level cache, memory bandwidth,
 * a steered CPU's queue when the keys are not spread evenly).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

#define PLACE_ROUNDS 12
#define PLACE_GAP_S 2
#define PLACE_NEAR_NS 50.0
#define PLACE_FAR_NS 100.0
#define PLACE_T 2
#define RING_SLOTS 512u
#define RING_BULK 8u

/* A frame handed to another CPU: its key's hash and its first bytes. */
struct place_slot {
	u64 h;
	u8 frame[56];
} PD_LINE_ALIGNED;

/* One direction between two threads; tail and head on lines of their own. */
struct place_ring {
	u32 tail PD_LINE_ALIGNED;	/* published by the producer */
	u32 head PD_LINE_ALIGNED;	/* published by the consumer */
	struct place_slot slot[RING_SLOTS];
};

struct place_thread {
	unsigned int i;
	struct pd_filter *f;		/* its own filter */
	u64 next;			/* its next flow */
	u32 ptail[PLACE_T];		/* toward each thread: written, */
	u32 hseen[PLACE_T];		/* and its head as last read */
	u32 dups, stepped, touch;
	struct pd_defer q;		/* its step kept (action count) */
	int done;			/* released when it sent its last */
	double ns;
} PD_LINE_ALIGNED;

static struct place_ring *place_rings;	/* [from * PLACE_T + to] */
static struct place_thread place_th[PLACE_T];

static struct place_ring *place_ring(unsigned int from, unsigned int to)
{
	return &place_rings[from * PLACE_T + to];
}

/* A packet for its own filter: its step kept, the one kept before taken. */
static inline void place_step(struct place_thread *me, u64 h)
{
	bool full;
	struct pd_defer_ent *e = pd_defer_slot(&me->q, &full);

	pd_filter_prefetch(me->f, h);
	if (full)
		me->dups += pd_filter_step_hash(me->f, e->h, &e->pi);
	pd_defer_fill(e, h, 0, 0, 0, -1);
	pd_defer_commit(&me->q, full);
	me->stepped++;
}

/* Step what the other threads handed over; how many. */
static u32 place_poll(struct place_thread *me)
{
	unsigned int from;
	u32 n = 0, j;

	for (from = 0; from < PLACE_T; from++) {
		struct place_ring *r;
		u32 head, tail;

		if (from == me->i)
			continue;
		r = place_ring(from, me->i);
		head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
		tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		/* the bulk's slots asked for at once: their moves overlap */
		for (j = head; j != tail && j - head < 2 * RING_BULK; j++)
			__builtin_prefetch(&r->slot[j % RING_SLOTS]);
		for (; head != tail; head++, n++) {
			const struct place_slot *s =
				&r->slot[head % RING_SLOTS];

			/* the frame's bytes read, as the stack would */
			me->touch += s->frame[0] ^ s->frame[47];
			place_step(me, s->h);
		}
		__atomic_store_n(&r->head, head, __ATOMIC_RELEASE);
	}
	return n;
}

static void place_publish(struct place_thread *me, unsigned int to)
{
	__atomic_store_n(&place_ring(me->i, to)->tail, me->ptail[to],
			 __ATOMIC_RELEASE);
}

/* Hand the frame of key (hash h) to thread to. */
static void place_push(struct place_thread *me, unsigned int to, u64 h,
		       const struct pd_key *key)
{
	struct place_ring *r = place_ring(me->i, to);
	u32 pt = me->ptail[to];
	struct place_slot *s;

	while (pt - me->hseen[to] >= RING_SLOTS) {
		me->hseen[to] = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		if (pt - me->hseen[to] >= RING_SLOTS)
			place_poll(me);	/* the other may wait on us */
	}
	/* a bulk ahead, the slot asked for to be written */
	pd_prefetchw(&r->slot[(pt + RING_BULK) % RING_SLOTS]);
	s = &r->slot[pt % RING_SLOTS];
	s->h = h;
	memcpy(s->frame, key, PD_MIN(sizeof(*key), sizeof(s->frame)));
	me->ptail[to] = ++pt;
	if (!(pt % RING_BULK))
		place_publish(me, to);
}

/* The thread a hash names: all of its bits mixed, then scaled. */
static inline unsigned int place_owner(u64 h)
{
	u32 x = (u32)((h * 0x9e3779b97f4a7c15ULL) >> 32);

	return (unsigned int)(((u64)x * PLACE_T) >> 32);
}

static bool place_all_done(void)
{
	unsigned int i;

	for (i = 0; i < PLACE_T; i++)
		if (!__atomic_load_n(&place_th[i].done, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

static void *place_worker(void *p)
{
	struct place_thread *me = p;
	struct pd_defer_ent out;
	u8 src[4], dst[4];
	struct pd_key key;
	unsigned int to;
	double t0;
	u32 i;
	u64 h;

	scope_start_wait();
	t0 = now_ns();
	for (i = 0; i < STEPS; i++) {
		u64 id = me->next + i;

		/* the flows of bench --scope's threads */
		flow_addrs(src, dst, id);
		pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst,
			     IPPROTO_TCP, (u16)(id * 40503u),
			     (u16)(1024 + me->i));
		/* one key for every CPU's choice: the hash names the CPU */
		h = pd_key_hash64(&key, &bench_hkey);
		to = place_owner(h);
		if (to == me->i)
			place_step(me, h);
		else
			place_push(me, to, h, &key);
		if ((i & (RING_BULK - 1)) == RING_BULK - 1)
			place_poll(me);
	}
	for (to = 0; to < PLACE_T; to++)
		if (to != me->i)
			place_publish(me, to);
	__atomic_store_n(&me->done, 1, __ATOMIC_RELEASE);
	while (!place_all_done())
		place_poll(me);
	place_poll(me);		/* what came before the last done */
	while (pd_defer_pop(&me->q, &out))
		me->dups += pd_filter_step_hash(me->f, out.h, &out.pi);
	me->ns = (now_ns() - t0) / STEPS;
	me->next += STEPS;
	return NULL;
}

/* One run of the steered threads: ns per packet per thread (the mean). */
static double place_run(void)
{
	unsigned int i;
	double sum = 0;

	memset(place_rings, 0, sizeof(*place_rings) * PLACE_T * PLACE_T);
	for (i = 0; i < PLACE_T; i++) {
		memset(place_th[i].ptail, 0, sizeof(place_th[i].ptail));
		memset(place_th[i].hseen, 0, sizeof(place_th[i].hseen));
		place_th[i].done = 0;
	}
	scope_threads_run(PLACE_T, place_worker, place_th, sizeof(place_th[0]));
	for (i = 0; i < PLACE_T; i++)
		sum += place_th[i].ns;
	return sum / PLACE_T;
}

/*
 * Steered, the default filter at 1 MiB per thread: the median of REPEAT
 * runs after a warm-up; *stepped_ok whether every packet was stepped
 * once.
 */
static double place_steered(bool *stepped_ok)
{
	struct pd_filter_plan plan;
	struct pd_filter_req req;
	const char *why = NULL;
	double t[REPEAT];
	unsigned int i, r;
	u64 stepped = 0;

	place_rings = aligned_alloc(64, sizeof(*place_rings) * PLACE_T *
				    PLACE_T);
	if (!place_rings) {
		fprintf(stderr, "bench: out of memory\n");
		exit(1);
	}
	pd_filter_req_defaults(&req, PKTDEDUP_FILTER_KIND_SBF, 1 << 20);
	for (i = 0; i < PLACE_T; i++) {
		memset(&place_th[i], 0, sizeof(place_th[i]));
		place_th[i].i = i;
		place_th[i].f = aligned_alloc(64, (sizeof(struct pd_filter) + 63) & ~(size_t)63);
		if (!place_th[i].f ||
		    pd_filter_create(place_th[i].f, &req, &plan, &why)) {
			fprintf(stderr, "bench: %s\n", why ? why : "out of memory");
			exit(1);
		}
	}
	place_run();		/* warm */
	for (i = 0; i < PLACE_T; i++)
		place_th[i].stepped = 0;
	for (r = 0; r < REPEAT; r++)
		t[r] = place_run();
	for (i = 0; i < PLACE_T; i++) {
		stepped += place_th[i].stepped;
		keep(place_th[i].dups + place_th[i].touch);
		pd_filter_destroy(place_th[i].f);
		free(place_th[i].f);
	}
	free(place_rings);
	*stepped_ok = stepped == (u64)REPEAT * PLACE_T * STEPS;
	qsort(t, REPEAT, sizeof(t[0]), cmp_double);
	return t[REPEAT / 2];
}

struct place_round {
	double m, pc, sh, st;
	double pc1, sh1;	/* at once */
};

static const char *place_mode(double m)
{
	return m <= PLACE_NEAR_NS ? "near" : m >= PLACE_FAR_NS ? "far" :
	       "between";
}

/* The worst ratios of the rounds whose move was of mode; how many. */
static unsigned int place_worst(const struct place_round *rd, unsigned int n,
				const char *mode, struct place_round *w)
{
	unsigned int i, seen = 0;

	memset(w, 0, sizeof(*w));
	for (i = 0; i < n; i++) {
		if (strcmp(place_mode(rd[i].m), mode))
			continue;
		seen++;
		w->sh = PD_MAX(w->sh, rd[i].sh / rd[i].pc);
		w->st = PD_MAX(w->st, rd[i].st / rd[i].pc);
		w->sh1 = PD_MAX(w->sh1, rd[i].sh1 / rd[i].pc1);
		w->m = PD_MAX(w->m, rd[i].m);
	}
	return seen;
}

/* The median of the n values at stride doubles from p. */
static double place_median(const double *p, unsigned int n, size_t stride)
{
	double v[PLACE_ROUNDS];
	unsigned int i;

	for (i = 0; i < n; i++)
		v[i] = p[i * stride];
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static void place_model(const struct place_round *rd, unsigned int n)
{
	double sa = 0, sa1 = 0, sb = 0, sxx = 0, c, c1, a, a1, b, near, far;
	static const unsigned int cores[] = { 2, 16, 64 };
	const size_t stride = sizeof(rd[0]) / sizeof(double);
	unsigned int i;
	char name[48];

	near = far = rd[0].m;
	for (i = 0; i < n; i++) {
		double x = rd[i].m / 2;

		sa += (rd[i].sh - rd[i].pc) * x;
		sb += (rd[i].st - rd[i].pc) * x;
		sa1 += (rd[i].sh1 - rd[i].pc1) * x;
		sxx += x * x;
		near = PD_MIN(near, rd[i].m);
		far = PD_MAX(far, rd[i].m);
	}
	c = place_median(&rd[0].pc, n, stride);
	c1 = place_median(&rd[0].pc1, n, stride);
	a = sa / sxx;
	b = sb / sxx;
	a1 = sa1 / sxx;
	printf("\nthe model: percpu %.1f ns a packet (the rounds' median; at once\n"
	       "%.1f); what a packet adds, in moves of a line, when all of its\n"
	       "lines are another CPU's (fitted to the rounds): shared %.2f,\n"
	       "steered %.2f, shared at once %.2f; a move %.1f ns on one socket,\n"
	       "%.1f across (the nearest and the farthest measured)\n", c, c1, a,
	       b, a1, near, far);
	printf("%-24s %10s %7s %10s %7s %10s %7s %10s %7s\n", "cores", "percpu",
	       "Mpps", "shared", "Mpps", "steered", "Mpps", "at once", "Mpps");
	for (i = 0; i < PD_ARRAY_SIZE(cores); i++) {
		unsigned int k = cores[i];
		double m = k <= 16 ? near : (31 * near + 32 * far) / 63;
		double f = (double)(k - 1) / k;
		double sh = c + a * m * f, st = c + b * m * f;
		double sh1 = c1 + a1 * m * f;

		printf("%-3u %-20s %10.1f %7.1f %10.1f %7.1f %10.1f %7.1f %10.1f %7.1f\n",
		       k, k <= 16 ? "(one socket)" : "(two sockets)", c,
		       k * 1e3 / c, sh, k * 1e3 / sh, st, k * 1e3 / st, sh1,
		       k * 1e3 / sh1);
		snprintf(name, sizeof(name), "model-%ucores-shared-over-percpu", k);
		json_row(name, sh / c, JSON_NONE, JSON_NONE);
		snprintf(name, sizeof(name), "model-%ucores-steered-over-percpu", k);
		json_row(name, st / c, JSON_NONE, JSON_NONE);
		snprintf(name, sizeof(name),
			 "model-%ucores-shared-at-once-over-percpu", k);
		json_row(name, sh1 / c1, JSON_NONE, JSON_NONE);
	}
}

/* A JSON row placement-MODE-WHAT of value v. */
static void place_json(const char *mode, const char *what, double v)
{
	char name[64];

	snprintf(name, sizeof(name), "placement-%s-%s", mode, what);
	json_row(name, v, JSON_NONE, JSON_NONE);
}

void bench_placement(void)
{
	static const char *const modes[] = { "near", "between", "far" };
	struct place_round rd[PLACE_ROUNDS], w;
	bool near = false, far = false, ok;
	struct scope_pair_ns ns;
	unsigned int n, i, seen;

	if (scope_cpus_n() < PLACE_T) {
		printf("\nshared against percpu by placement: one CPU, nothing to place\n");
		return;
	}
	printf("\nshared against percpu by where the host places two CPUs: each\n"
	       "round a line's move first, then the default filter (1 MiB) at\n"
	       "two threads on CPUs %d and %d, each step a packet late (action\n"
	       "count, the default), and at once (mark, drop); ns per packet per\n"
	       "thread (median of %u runs of %u new flows per thread); rounds\n"
	       "%u s apart until a near move (<= %.0f ns) and a far one\n"
	       "(>= %.0f ns) were seen\n",
	       scope_cpu(0), scope_cpu(1), REPEAT, STEPS, PLACE_GAP_S,
	       PLACE_NEAR_NS, PLACE_FAR_NS);
	printf("%-5s %8s %-7s %8s %8s %7s %8s %7s | %8s %8s %7s\n", "round",
	       "move ns", "mode", "percpu", "shared", "/percpu", "steered",
	       "/percpu", "at once", "shared", "/percpu");
	for (n = 0; n < PLACE_ROUNDS && !(near && far); n++) {
		if (n)
			sleep(PLACE_GAP_S);
		rd[n].m = scope_line_move();
		scope_pair(PLACE_T, &ns);
		rd[n].pc = ns.percpu;
		rd[n].sh = ns.shared;
		rd[n].pc1 = ns.percpu_now;
		rd[n].sh1 = ns.shared_now;
		rd[n].st = place_steered(&ok);
		if (!ok) {
			fprintf(stderr, "bench: steered: a packet lost or stepped twice\n");
			exit(1);
		}
		near |= rd[n].m <= PLACE_NEAR_NS;
		far |= rd[n].m >= PLACE_FAR_NS;
		printf("%-5u %8.1f %-7s %8.1f %8.1f %6.2fx %8.1f %6.2fx | %8.1f %8.1f %6.2fx\n",
		       n + 1, rd[n].m, place_mode(rd[n].m), rd[n].pc, rd[n].sh,
		       rd[n].sh / rd[n].pc, rd[n].st, rd[n].st / rd[n].pc,
		       rd[n].pc1, rd[n].sh1, rd[n].sh1 / rd[n].pc1);
	}
	for (i = 0; i < PD_ARRAY_SIZE(modes); i++) {
		seen = place_worst(rd, n, modes[i], &w);
		if (!seen) {
			printf("%-7s placement: not seen in %u rounds\n", modes[i], n);
			continue;
		}
		printf("%-7s placement: %u of %u rounds, worst shared %.2fx, steered %.2fx percpu; at once shared %.2fx\n",
		       modes[i], seen, n, w.sh, w.st, w.sh1);
		place_json(modes[i], "line-move", w.m);
		place_json(modes[i], "shared-over-percpu", w.sh);
		place_json(modes[i], "steered-over-percpu", w.st);
		place_json(modes[i], "shared-at-once-over-percpu", w.sh1);
	}
	place_model(rd, n);
}
