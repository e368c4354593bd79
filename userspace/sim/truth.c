// SPDX-License-Identifier: GPL-2.0
/* Exact ground truth: see truth.h. */
#include <stdlib.h>
#include <string.h>

#include "truth.h"

static int init(struct truth *t, uint64_t expected, bool timed,
		unsigned int words)
{
	uint64_t cap = 1024;

	memset(t, 0, sizeof(*t));
	if (!words || words > TRUTH_MAX_WORDS)
		return -1;
	while (cap < 2 * expected)
		cap <<= 1;
	t->words = words;
	t->ids = calloc(cap * words, sizeof(*t->ids));
	t->last = calloc(cap, sizeof(*t->last));
	t->when = timed ? calloc(cap, sizeof(*t->when)) : NULL;
	if (!t->ids || !t->last || (timed && !t->when)) {
		truth_free(t);
		return -1;
	}
	t->cap = cap;
	return 0;
}

int truth_init(struct truth *t, uint64_t expected)
{
	return init(t, expected, false, 1);
}

int truth_init_timed(struct truth *t, uint64_t expected)
{
	return init(t, expected, true, 1);
}

int truth_init_words(struct truth *t, uint64_t expected, bool timed,
		     unsigned int words)
{
	return init(t, expected, timed, words);
}

void truth_free(struct truth *t)
{
	free(t->ids);
	free(t->last);
	free(t->when);
	free(t->ring);
	t->ids = NULL;
	t->last = NULL;
	t->when = NULL;
	t->ring = NULL;
	if (t->ever) {
		dset_free(t->ever);
		free(t->ever);
		t->ever = NULL;
	}
}

int truth_set_horizon(struct truth *t, uint64_t pkts, uint64_t ns)
{
	t->horizon_pkts = pkts;
	t->horizon_ns = t->when ? ns : 0;
	t->ever = calloc(1, sizeof(*t->ever));
	if (!t->ever || dset_init_words(t->ever, t->words)) {
		free(t->ever);
		t->ever = NULL;
		return -1;
	}
	return 0;
}

uint64_t truth_bytes(const struct truth *t)
{
	return t->cap * (8 * t->words + (t->when ? 16 : 8)) +
	       t->ring_cap * sizeof(*t->ring) +
	       (t->ever ? t->ever->bytes : 0);
}

static uint64_t *id_at(const struct truth *t, uint64_t i)
{
	return &t->ids[i * t->words];
}

static bool same(const struct truth *t, uint64_t i, const uint64_t *id)
{
	const uint64_t *a = id_at(t, i);

	return a[0] == id[0] && (t->words < 2 || a[1] == id[1]);
}

static void put(struct truth *t, uint64_t i, const uint64_t *id)
{
	memcpy(id_at(t, i), id, t->words * sizeof(*id));
}

/* The slot of id: where it is, or the empty slot where it would go. */
static uint64_t slot(const struct truth *t, const uint64_t *id)
{
	uint64_t i = pd_ah_fmix(id[0]) & (t->cap - 1);

	while (t->last[i] && !same(t, i, id))
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int grow(struct truth *t)
{
	struct truth bigger;
	uint64_t i, s;

	if (init(&bigger, t->cap, !!t->when, t->words))
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->last[i]) {
			s = slot(&bigger, id_at(t, i));
			put(&bigger, s, id_at(t, i));
			bigger.last[s] = t->last[i];
			if (t->when)
				bigger.when[s] = t->when[i];
		}
	free(t->ids);
	free(t->last);
	free(t->when);
	t->ids = bigger.ids;
	t->last = bigger.last;
	t->when = bigger.when;
	t->cap = bigger.cap;
	return 0;
}

/* Remove slot i, shifting back the entries its removal would strand. */
static void del(struct truth *t, uint64_t i)
{
	uint64_t j = i, home;

	for (;;) {
		t->last[i] = 0;
		for (;;) {
			j = (j + 1) & (t->cap - 1);
			if (!t->last[j])
				return;
			home = pd_ah_fmix(*id_at(t, j)) & (t->cap - 1);
			/* j may move to i unless its home lies in (i, j] */
			if (i <= j ? (home <= i || home > j) :
				     (home <= i && home > j))
				break;
		}
		put(t, i, id_at(t, j));
		t->last[i] = t->last[j];
		if (t->when)
			t->when[i] = t->when[j];
		i = j;
	}
}

/* Arrivals in order, for forgetting what falls behind the horizon. */
static int ring_push(struct truth *t, const uint64_t *id, uint64_t pos)
{
	struct truth_arrival *a;

	if (t->ring_n == t->ring_cap) {
		uint64_t cap = t->ring_cap ? 2 * t->ring_cap : 1024, i;
		struct truth_arrival *r = malloc(cap * sizeof(*r));

		if (!r)
			return -1;
		for (i = 0; i < t->ring_n; i++)
			r[i] = t->ring[(t->ring_head + i) % t->ring_cap];
		free(t->ring);
		t->ring = r;
		t->ring_cap = cap;
		t->ring_head = 0;
	}
	a = &t->ring[(t->ring_head + t->ring_n++) % t->ring_cap];
	memset(a, 0, sizeof(*a));
	memcpy(a->id, id, t->words * sizeof(*id));
	a->pos = pos;
	return 0;
}

/*
 * Forget the keys whose last sighting is behind the horizon: the oldest
 * arrivals first; one a later sighting superseded is only dropped.
 */
static void expire(struct truth *t)
{
	while (t->ring_n) {
		struct truth_arrival *a = &t->ring[t->ring_head];
		uint64_t s = slot(t, a->id);

		if (t->last[s] == a->pos) {
			bool old = (t->horizon_pkts &&
				    t->pos + 1 - a->pos > t->horizon_pkts) ||
				   (t->horizon_ns &&
				    t->now - t->when[s] >= t->horizon_ns);

			if (!old)
				return;
			del(t, s);
			t->used--;
		}
		t->ring_head = (t->ring_head + 1) % t->ring_cap;
		t->ring_n--;
	}
}

int truth_add(struct truth *t, uint64_t id, uint64_t window,
	      struct truth_verdict *v)
{
	return truth_add_at(t, id, t->now, window, v);
}

int truth_add_at(struct truth *t, uint64_t id, uint64_t now, uint64_t window,
		 struct truth_verdict *v)
{
	uint64_t wide[TRUTH_MAX_WORDS] = { id };

	return truth_add_id(t, wide, now, window, v);
}

int truth_add_id(struct truth *t, const uint64_t *id, uint64_t now,
		 uint64_t window, struct truth_verdict *v)
{
	bool here;
	uint64_t s;

	if (2 * (t->used + 1) > t->cap && grow(t))
		return -1;
	if (now > t->now || !t->pos)
		t->now = now;
	if (t->ever)
		expire(t);
	s = slot(t, id);
	here = t->last[s] != 0;
	v->seen = here;
	v->gap = here ? t->pos + 1 - t->last[s] : 0;
	v->dt = 0;
	if (t->ever) {
		int e = dset_add_id(t->ever, id);

		if (e < 0 || ring_push(t, id, t->pos + 1))
			return -1;
		if (e && !here) {
			/* seen, behind the horizon: further than it */
			v->seen = true;
			v->gap = UINT64_MAX;
			v->dt = UINT64_MAX;
		}
	}
	v->in_window = v->seen && (!window || v->gap <= window);
	if (!here) {
		put(t, s, id);
		t->used++;
	}
	if (t->when) {
		if (here)
			v->dt = t->now - t->when[s];
		t->when[s] = t->now;
	}
	t->last[s] = ++t->pos;
	return 0;
}
