// SPDX-License-Identifier: GPL-2.0
/* Exact ground truth: see truth.h. */
#include <stdlib.h>

#include "truth.h"

static uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return x ^ (x >> 33);
}

static int init(struct truth *t, uint64_t expected, bool timed)
{
	uint64_t cap = 1024;

	while (cap < 2 * expected)
		cap <<= 1;
	t->ids = calloc(cap, sizeof(*t->ids));
	t->last = calloc(cap, sizeof(*t->last));
	t->when = timed ? calloc(cap, sizeof(*t->when)) : NULL;
	if (!t->ids || !t->last || (timed && !t->when)) {
		truth_free(t);
		return -1;
	}
	t->cap = cap;
	t->used = 0;
	t->pos = 0;
	t->now = 0;
	return 0;
}

int truth_init(struct truth *t, uint64_t expected)
{
	return init(t, expected, false);
}

int truth_init_timed(struct truth *t, uint64_t expected)
{
	return init(t, expected, true);
}

void truth_free(struct truth *t)
{
	free(t->ids);
	free(t->last);
	free(t->when);
	t->ids = NULL;
	t->last = NULL;
	t->when = NULL;
}

uint64_t truth_bytes(const struct truth *t)
{
	return t->cap * (t->when ? 24 : 16);
}

/* The slot of id: where it is, or the empty slot where it would go. */
static uint64_t slot(const struct truth *t, uint64_t id)
{
	uint64_t i = mix64(id) & (t->cap - 1);

	while (t->last[i] && t->ids[i] != id)
		i = (i + 1) & (t->cap - 1);
	return i;
}

static int grow(struct truth *t)
{
	struct truth bigger;
	uint64_t i, s;

	if (init(&bigger, t->cap, !!t->when))
		return -1;
	for (i = 0; i < t->cap; i++)
		if (t->last[i]) {
			s = slot(&bigger, t->ids[i]);
			bigger.ids[s] = t->ids[i];
			bigger.last[s] = t->last[i];
			if (t->when)
				bigger.when[s] = t->when[i];
		}
	bigger.used = t->used;
	bigger.pos = t->pos;
	bigger.now = t->now;
	truth_free(t);
	*t = bigger;
	return 0;
}

int truth_add(struct truth *t, uint64_t id, uint64_t window,
	      struct truth_verdict *v)
{
	return truth_add_at(t, id, t->now, window, v);
}

int truth_add_at(struct truth *t, uint64_t id, uint64_t now, uint64_t window,
		 struct truth_verdict *v)
{
	uint64_t s;

	if (2 * (t->used + 1) > t->cap && grow(t))
		return -1;
	if (now > t->now || !t->pos)
		t->now = now;
	s = slot(t, id);
	v->seen = t->last[s] != 0;
	v->gap = v->seen ? t->pos + 1 - t->last[s] : 0;
	v->in_window = v->seen && (!window || v->gap <= window);
	if (!v->seen) {
		t->ids[s] = id;
		t->used++;
	}
	v->dt = 0;
	if (t->when) {
		if (v->seen)
			v->dt = t->now - t->when[s];
		t->when[s] = t->now;
	}
	t->last[s] = ++t->pos;
	return 0;
}
