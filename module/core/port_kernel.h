/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel side of the pktdedup core's portability layer. */
#ifndef PD_PORT_KERNEL_H
#define PD_PORT_KERNEL_H

#include <linux/types.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/kernel.h>	/* snprintf */
#include <linux/string.h>
#include <linux/bitops.h>
#include <linux/math64.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/atomic.h>
#include <linux/prefetch.h>
#include <linux/cache.h>
#include <linux/spinlock.h>
#include <linux/netfilter.h>
#include <linux/netfilter_bridge.h>
#include <asm/unaligned.h>

/* A placement's netfilter family and hook number (config.h). */
#define PD_NF_HOOK(f, n) .pf = (f), .hooknum = (n)

static inline void *pd_zalloc(size_t size)
{
	return kzalloc(size, GFP_KERNEL);
}

static inline void pd_free(void *p)
{
	kfree(p);
}

/* Filter arrays may be large: vmalloc fallback, charged to the memcg. */
static inline void *pd_zalloc_large(size_t size)
{
	return kvzalloc(size, GFP_KERNEL_ACCOUNT);
}

static inline void pd_free_large(void *p)
{
	kvfree(p);
}

static inline u64 pd_random_u64(void)
{
	return get_random_u64();
}

/* Little-endian loads from any alignment (SipHash's input words). */
static inline u64 pd_load_le64(const u8 *p)
{
	return get_unaligned_le64(p);
}

static inline u32 pd_load_le32(const u8 *p)
{
	return get_unaligned_le32(p);
}

static inline void pd_store_le64(u8 *p, u64 v)
{
	put_unaligned_le64(v, p);
}

/*
 * The line of p, soon to be written. Always inlined: where prefetchw() is
 * __builtin_prefetch (UML), a wrapper left out of line has no side effect
 * the compiler sees, is found const, and its calls are deleted.
 */
static __always_inline void pd_prefetchw(const void *p)
{
	prefetchw(p);
}

/*
 * A word of a filter that several CPUs update at once (filter.h's
 * step_cpu): read whole and written whole, racing by design (no locked
 * instruction: the family says what a race costs it, sbf.h). Relaxed:
 * the cells are independent of each other and of anything else.
 */
static inline u64 pd_load_word(const u64 *p)
{
	return READ_ONCE(*p);
}

static inline void pd_store_word(u64 *p, u64 v)
{
	WRITE_ONCE(*p, v);
}

/*
 * A field a reader takes once while its writer may change it (a reader
 * of the statistics, racing with the CPU that steps a filter): one load,
 * never repeated by the compiler.
 */
static inline u32 pd_load_u32(const u32 *p)
{
	return READ_ONCE(*p);
}

/*
 * A count that publishes what its writer stored before it (a batch's
 * entries, srcwin.h) to a reader on another CPU: a plain store and load
 * on x86, ordered on weaker architectures.
 */
static inline void pd_store_release_u32(u32 *p, u32 v)
{
	/* pairs with pd_load_acquire_u32(): the stores before it first */
	smp_store_release(p, v);
}

static inline u32 pd_load_acquire_u32(const u32 *p)
{
	/* pairs with pd_store_release_u32(): the loads after it see them */
	return smp_load_acquire(p);
}

/* A snapshot's word, read before any load after it (a stamp's second look) */
static inline u64 pd_load_acquire_word(const u64 *p)
{
	/* pairs with the release of the count the word was written before */
	return smp_load_acquire(p);
}

static inline unsigned int pd_popcount64(u64 x)
{
	return hweight64(x);
}

static inline u64 pd_div64(u64 a, u64 b)
{
	return div64_u64(a, b);
}

/*
 * A shared filter's shard (shard.h): on cache lines of its own, behind a
 * spinlock, which the module takes itself (spin_lock(), spin_lock_bh()).
 */
#define PD_LINE_ALIGNED ____cacheline_aligned_in_smp
#define pd_lock_t spinlock_t
#define pd_lock_init(l) spin_lock_init(l)

#endif /* PD_PORT_KERNEL_H */
