// SPDX-License-Identifier: GPL-2.0
/* Space-Saving and the merge of summaries: see ss.h. */
#include "ss.h"

static u32 pd_ss_slots(u32 cap)
{
	u32 t = 1;

	while (t < 4 * cap)
		t <<= 1;
	return t;
}

size_t pd_ss_bytes(u32 cap)
{
	return (size_t)cap * (sizeof(struct pd_ss_item) +
			      sizeof(struct pd_ss_bucket)) +
	       (size_t)pd_ss_slots(cap) * sizeof(u16);
}

int pd_ss_init(struct pd_ss *s, u32 cap, void *mem)
{
	u8 *p = mem;

	if (cap < PD_SS_MIN_CAP || cap > PD_SS_MAX_CAP)
		return -EINVAL;
	memset(s, 0, sizeof(*s));
	s->cap = cap;
	s->mask = pd_ss_slots(cap) - 1;
	s->it = (struct pd_ss_item *)p;
	p += (size_t)cap * sizeof(struct pd_ss_item);
	s->b = (struct pd_ss_bucket *)p;
	s->idx = (u16 *)(s->b + cap);
	pd_ss_clear(s);
	return 0;
}

void pd_ss_clear(struct pd_ss *s)
{
	u32 i;

	memset(s->idx, 0, (size_t)(s->mask + 1) * sizeof(u16));
	for (i = 0; i < s->cap; i++)
		s->b[i].next = (u16)(i + 1 < s->cap ? i + 1 : PD_SS_NIL);
	s->free = 0;
	s->low = PD_SS_NIL;
	s->n = 0;
	s->total = 0;
}

static bool pd_ss_same(const struct pd_ss_item *it, u64 hash, const u8 *addr,
		       u8 len)
{
	return it->hash == hash && it->len == len && !memcmp(it->addr, addr, len);
}

/* The index slot holding the address, or the empty slot where it would go. */
static u32 pd_ss_slot(const struct pd_ss *s, u64 hash, const u8 *addr, u8 len)
{
	u32 i = (u32)hash & s->mask;

	/* at most a quarter full: the probe ends at an empty slot, soon */
	while (s->idx[i] && !pd_ss_same(&s->it[s->idx[i] - 1], hash, addr, len))
		i = (i + 1) & s->mask;
	return i;
}

const struct pd_ss_item *pd_ss_find(const struct pd_ss *s, u64 hash,
				    const u8 *addr, u8 len)
{
	u32 i = pd_ss_slot(s, hash, addr, len);

	return s->idx[i] ? &s->it[s->idx[i] - 1] : NULL;
}

/* Empty index slot i, shifting later entries of its probe run back. */
static void pd_ss_unindex(struct pd_ss *s, u32 i)
{
	u32 j = i;

	for (;;) {
		u32 home;

		j = (j + 1) & s->mask;
		if (!s->idx[j])
			break;
		home = (u32)s->it[s->idx[j] - 1].hash & s->mask;
		/* the entry at j stays if its home lies in (i, j] */
		if (((j - home) & s->mask) < ((j - i) & s->mask))
			continue;
		s->idx[i] = s->idx[j];
		i = j;
	}
	s->idx[i] = 0;
}

/* Take counter e out of its bucket, freeing the bucket if it empties. */
static void pd_ss_detach(struct pd_ss *s, u32 e)
{
	struct pd_ss_item *it = &s->it[e];
	struct pd_ss_bucket *bk = &s->b[it->bucket];

	if (it->prev != PD_SS_NIL)
		s->it[it->prev].next = it->next;
	else
		bk->head = it->next;
	if (it->next != PD_SS_NIL)
		s->it[it->next].prev = it->prev;
	if (bk->head != PD_SS_NIL)
		return;
	if (bk->prev != PD_SS_NIL)
		s->b[bk->prev].next = bk->next;
	else
		s->low = bk->next;
	if (bk->next != PD_SS_NIL)
		s->b[bk->next].prev = bk->prev;
	bk->next = s->free;
	s->free = it->bucket;
}

static void pd_ss_attach(struct pd_ss *s, u32 e, u16 bi)
{
	struct pd_ss_item *it = &s->it[e];
	struct pd_ss_bucket *bk = &s->b[bi];

	it->bucket = bi;
	it->prev = PD_SS_NIL;
	it->next = bk->head;
	if (bk->head != PD_SS_NIL)
		s->it[bk->head].prev = (u16)e;
	bk->head = (u16)e;
}

/* A bucket for `count`, linked in after bucket `after` (NIL: first). */
static u16 pd_ss_new_bucket(struct pd_ss *s, u16 after, u64 count)
{
	u16 bi = s->free;	/* never empty: at most n <= cap buckets */
	struct pd_ss_bucket *bk = &s->b[bi];

	s->free = bk->next;
	bk->count = count;
	bk->head = PD_SS_NIL;
	bk->prev = after;
	bk->next = after == PD_SS_NIL ? s->low : s->b[after].next;
	if (bk->next != PD_SS_NIL)
		s->b[bk->next].prev = bi;
	if (after == PD_SS_NIL)
		s->low = bi;
	else
		s->b[after].next = bi;
	return bi;
}

/* Counter e's count goes up by one: O(1). */
static void pd_ss_bump(struct pd_ss *s, u32 e)
{
	struct pd_ss_item *it = &s->it[e];
	u16 bi = it->bucket, nb = s->b[bi].next;
	u64 c = ++it->count;

	if (nb != PD_SS_NIL && s->b[nb].count == c) {
		pd_ss_detach(s, e);	/* may free bi; nb stays */
		pd_ss_attach(s, e, nb);
	} else if (s->b[bi].head == e && it->next == PD_SS_NIL) {
		s->b[bi].count = c;	/* alone: the bucket moves up */
	} else {
		pd_ss_detach(s, e);	/* bi keeps other counters */
		pd_ss_attach(s, e, pd_ss_new_bucket(s, bi, c));
	}
}

void pd_ss_add(struct pd_ss *s, u64 hash, const u8 *addr, u8 len)
{
	u32 slot = pd_ss_slot(s, hash, addr, len);
	struct pd_ss_item *it;
	u32 e;

	s->total++;
	if (s->idx[slot]) {
		pd_ss_bump(s, s->idx[slot] - 1u);
		return;
	}
	if (s->n < s->cap) {
		e = s->n++;
		it = &s->it[e];
		it->count = 1;
		it->err = 0;
		if (s->low == PD_SS_NIL || s->b[s->low].count != 1)
			pd_ss_new_bucket(s, PD_SS_NIL, 1);
		pd_ss_attach(s, e, s->low);
	} else {
		/* take over a counter of least count */
		e = s->b[s->low].head;
		it = &s->it[e];
		pd_ss_unindex(s, pd_ss_slot(s, it->hash, it->addr, it->len));
		slot = pd_ss_slot(s, hash, addr, len);
		it->err = it->count;
		pd_ss_bump(s, e);
	}
	it->hash = hash;
	it->len = len;
	memcpy(it->addr, addr, len);
	s->idx[slot] = (u16)(e + 1);
}

u64 pd_ss_min(const struct pd_ss *s)
{
	/* a copy taken while its CPU wrote it may hold any low: check it */
	return s->n == s->cap && s->low < s->cap ? s->b[s->low].count : 0;
}

size_t pd_ss_agg_bytes(u32 keep, u32 cap)
{
	u32 room = keep + cap;

	return (size_t)room * sizeof(struct pd_ss_item) +
	       (size_t)pd_ss_slots(room) * sizeof(u32);
}

int pd_ss_agg_init(struct pd_ss_agg *a, u32 keep, u32 cap, void *mem)
{
	if (!keep || cap > PD_SS_MAX_CAP || keep > 1u << 24)
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->keep = keep;
	a->room = keep + cap;
	a->mask = pd_ss_slots(a->room) - 1;
	a->it = mem;
	a->idx = (u32 *)(a->it + a->room);
	return 0;
}

static u32 pd_agg_slot(const struct pd_ss_agg *a, u64 hash, const u8 *addr,
		       u8 len)
{
	u32 i = (u32)hash & a->mask;

	while (a->idx[i] && !pd_ss_same(&a->it[a->idx[i] - 1], hash, addr, len))
		i = (i + 1) & a->mask;
	return i;
}

static bool pd_item_before(const struct pd_ss_item *x,
			   const struct pd_ss_item *y)
{
	/* larger upper bound first; then larger lower bound; then address */
	if (x->count != y->count)
		return x->count > y->count;
	if (x->count - x->err != y->count - y->err)
		return x->count - x->err > y->count - y->err;
	if (x->len != y->len)
		return x->len < y->len;
	return memcmp(x->addr, y->addr, x->len) < 0;
}

static void pd_item_swap(struct pd_ss_item *x, struct pd_ss_item *y)
{
	struct pd_ss_item t = *x;

	*x = *y;
	*y = t;
}

/* Sift v[r] down a heap of n whose root is the item that sorts last. */
static void pd_items_sift(struct pd_ss_item *v, u32 r, u32 n)
{
	for (;;) {
		u32 c = 2 * r + 1;

		if (c >= n)
			break;
		if (c + 1 < n && pd_item_before(&v[c], &v[c + 1]))
			c++;
		if (!pd_item_before(&v[r], &v[c]))
			break;
		pd_item_swap(&v[r], &v[c]);
		r = c;
	}
}

/* Heapsort into pd_item_before() order: no recursion, no allocation. */
static void pd_items_sort(struct pd_ss_item *v, u32 n)
{
	u32 i;

	for (i = n / 2; i-- > 0;)
		pd_items_sift(v, i, n);
	for (i = n; i > 1; i--) {
		pd_item_swap(&v[0], &v[i - 1]);
		pd_items_sift(v, 0, i - 1);
	}
}

static void pd_agg_reindex(struct pd_ss_agg *a)
{
	u32 e;

	memset(a->idx, 0, (size_t)(a->mask + 1) * sizeof(u32));
	for (e = 0; e < a->n; e++) {
		const struct pd_ss_item *it = &a->it[e];

		a->idx[pd_agg_slot(a, it->hash, it->addr, it->len)] = e + 1;
	}
}

void pd_ss_agg_sort(struct pd_ss_agg *a)
{
	pd_items_sort(a->it, a->n);
	pd_agg_reindex(a);
}

int pd_ss_agg_merge(struct pd_ss_agg *a, const struct pd_ss *s)
{
	u64 smin = pd_ss_min(s);
	u32 e;

	if (s->n > a->room - a->keep)
		return -EINVAL;
	for (e = 0; e < a->n; e++)
		a->it[e].seen = 0;
	for (e = 0; e < s->n; e++) {
		const struct pd_ss_item *si = &s->it[e];
		u32 slot = pd_agg_slot(a, si->hash, si->addr, si->len);
		struct pd_ss_item *ai;

		if (a->idx[slot]) {
			ai = &a->it[a->idx[slot] - 1];
			ai->count += si->count;
			ai->err += si->err;
		} else {
			ai = &a->it[a->n++];
			*ai = *si;
			/* not listed until now: its count so far is <= absent */
			ai->count += a->absent;
			ai->err += a->absent;
			a->idx[slot] = a->n;
		}
		ai->seen = 1;
	}
	for (e = 0; e < a->n; e++)
		if (!a->it[e].seen) {
			a->it[e].count += smin;
			a->it[e].err += smin;
		}
	a->absent += smin;
	a->total += s->total;
	if (a->n > a->keep) {
		pd_items_sort(a->it, a->n);
		/* the largest upper bound dropped bounds every dropped address */
		if (a->it[a->keep].count > a->absent)
			a->absent = a->it[a->keep].count;
		a->n = a->keep;
		pd_agg_reindex(a);
	}
	return 0;
}

void pd_ss_agg_bounds(const struct pd_ss_agg *a, u64 hash, const u8 *addr,
		      u8 len, u64 *lo, u64 *hi)
{
	u32 slot = pd_agg_slot(a, hash, addr, len);

	if (a->idx[slot]) {
		const struct pd_ss_item *it = &a->it[a->idx[slot] - 1];

		*lo = it->count - it->err;
		*hi = it->count;
	} else {
		*lo = 0;
		*hi = a->absent;
	}
}

u64 pd_ss_support_count(u64 total, u32 support_ppb)
{
	/* total * ppb / 10^9 without overflow: split total */
	u64 hi = pd_div64(total, 1000000000ULL);
	u64 lo = total - hi * 1000000000ULL;

	return hi * support_ppb + pd_div64(lo * support_ppb, 1000000000ULL);
}

bool pd_ss_rare(const struct pd_ss_agg *a, u64 hash, const u8 *addr, u8 len,
		u32 support_ppb, u64 *lo, u64 *hi)
{
	pd_ss_agg_bounds(a, hash, addr, len, lo, hi);
	return *lo <= pd_ss_support_count(a->total, support_ppb);
}
