// SPDX-License-Identifier: GPL-2.0
/* Jumping-window distinct counting and top talkers: see srcwin.h. */
#include "srcwin.h"

size_t pd_srcwin_bytes(u32 nsub, u32 cap)
{
	return (size_t)nsub * (2 * sizeof(struct pd_hll) +
			       (cap ? pd_ss_bytes(cap) : 0));
}

int pd_srcwin_init(struct pd_srcwin *w, u32 nsub, u32 cap, u64 len,
		   const struct pd_akey *key, void *mem)
{
	u8 *p = mem;
	u32 s;

	if (!nsub || nsub > PD_SRCWIN_MAX_SUB || !len ||
	    (cap && (cap < PD_SS_MIN_CAP || cap > PD_SS_MAX_CAP)))
		return -EINVAL;
	memset(w, 0, sizeof(*w));
	w->nsub = nsub;
	w->cap = cap;
	w->len = len;
	w->key = *key;
	w->sk = mem;
	p += (size_t)nsub * 2 * sizeof(struct pd_hll);
	for (s = 0; cap && s < nsub; s++, p += pd_ss_bytes(cap))
		pd_ss_init(&w->ss[s], cap, p);
	return 0;
}

void pd_srcwin_fold(struct pd_srcwin *w)
{
	struct pd_hll *src = &w->cur[PD_SRCWIN_SRC], *dst = src + 1;
	u32 i, n = w->nb;

	/* every register line first: their misses overlap */
	for (i = 0; i < n; i++) {
		pd_prefetchw(&src->reg[w->batch[i] & 0xffff]);
		pd_prefetchw(&dst->reg[(w->batch[i] >> 32) & 0xffff]);
	}
	for (i = 0; i < n; i++) {
		pd_hll_apply(src, (u32)w->batch[i]);
		pd_hll_apply(dst, (u32)(w->batch[i] >> 32));
	}
	pd_store_release_u32(&w->nb, 0);
}

void pd_srcwin_roll(struct pd_srcwin *w, u64 now)
{
	u64 tick = pd_srcwin_tick(w, now);
	u32 s = (u32)(tick - pd_div64(tick, w->nsub) * w->nsub);

	/* the batch is the ending tick's */
	if (w->nb)
		pd_srcwin_fold(w);
	if (w->stamp[s] != tick + 1) {
		/* the slot held an older tick: it has left the window */
		pd_hll_clear(&w->sk[2 * s]);
		pd_hll_clear(&w->sk[2 * s + 1]);
		if (w->cap)
			pd_ss_clear(&w->ss[s]);
		w->stamp[s] = tick + 1;
	}
	w->cur = &w->sk[2 * s];
	w->top = w->cap ? &w->ss[s] : NULL;
	w->end = (tick + 1) * w->len;
	pd_store_word(&w->btick, tick + 1);
}

/*
 * The batch's updates of which into out, if its tick is one of now - last
 * + 1 .. now: read before the registers, so that an update folded while
 * they are read is in one or the other (an update newer than the read
 * may be in neither); dropped if the tick ended meanwhile.
 */
static void pd_srcwin_collect_batch(const struct pd_srcwin *w, u64 now,
				    u32 last, int which, struct pd_hll *out)
{
	u64 b[PD_SRCWIN_BATCH], bt = pd_load_word(&w->btick);
	u32 i, n = pd_load_acquire_u32(&w->nb);

	if (!pd_srcwin_within(bt, now, last))
		return;
	n = PD_MIN(n, (u32)PD_SRCWIN_BATCH);
	/* acquire: the entries are read before the tick's second look */
	for (i = 0; i < n; i++)
		b[i] = pd_load_acquire_word(&w->batch[i]);
	if (pd_load_word(&w->btick) != bt)
		return;
	for (i = 0; i < n; i++)
		pd_hll_apply(out, (u32)(b[i] >> (which == PD_SRCWIN_SRC ? 0 : 32)));
}

u32 pd_srcwin_collect(const struct pd_srcwin *w, u64 now, u32 last, int which,
		      struct pd_hll *out)
{
	u32 s, n = 0;

	if (last > w->nsub)
		last = w->nsub;
	pd_srcwin_collect_batch(w, now, last, which, out);
	for (s = 0; s < w->nsub; s++) {
		if (pd_srcwin_within(w->stamp[s], now, last)) {
			pd_hll_merge(out, &w->sk[2 * s + (which != PD_SRCWIN_SRC)]);
			n++;
		}
	}
	return n;
}

int pd_srcwin_collect_top(const struct pd_srcwin *w, u64 now, u32 last,
			  struct pd_ss_agg *out)
{
	u32 s;

	if (last > w->nsub)
		last = w->nsub;
	for (s = 0; w->cap && s < w->nsub; s++)
		if (pd_srcwin_within(w->stamp[s], now, last) &&
		    pd_ss_agg_merge(out, &w->ss[s]))
			return -EINVAL;
	return 0;
}
