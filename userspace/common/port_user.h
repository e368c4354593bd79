/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace side of the pktdedup core's portability layer. */
#ifndef PD_PORT_USER_H
#define PD_PORT_USER_H

#include <assert.h>		/* static_assert */
#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>		/* snprintf */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <netinet/in.h>		/* IPPROTO_* */
#include <netinet/ip_icmp.h>	/* ICMP_ECHO, ICMP_ECHOREPLY */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t s8;
typedef int16_t s16;
typedef int32_t s32;
typedef int64_t s64;

/*
 * The kernel's names of the ICMPv6 echo types (<linux/icmpv6.h>, RFC 4443);
 * libc spells them ICMP6_ECHO_*. Same values and tokens as the kernel's
 * uapi header, so a file that also includes it redefines them identically.
 */
#ifndef ICMPV6_ECHO_REQUEST
#define ICMPV6_ECHO_REQUEST	128
#endif
#ifndef ICMPV6_ECHO_REPLY
#define ICMPV6_ECHO_REPLY	129
#endif

#ifndef fallthrough
#define fallthrough __attribute__((__fallthrough__))
#endif

static inline void *pd_zalloc(size_t size)
{
	return calloc(1, size);
}

static inline void pd_free(void *p)
{
	free(p);
}

/*
 * Filter arrays: on 64-byte lines (a blocked filter's line is a cache
 * line), and from 2 MiB on in huge pages where the system allows, as the
 * kernel's kvmalloc() maps them (VM_ALLOW_HUGE_VMAP) on x86-64.
 */
static inline void *pd_zalloc_large(size_t size)
{
	size_t huge = (size_t)2 << 20;
	size_t align = size >= huge ? huge : 64;
	void *p = aligned_alloc(align, (size + align - 1) & ~(align - 1));

	if (!p)
		return NULL;
	if (size >= huge)
		madvise(p, size & ~(huge - 1), MADV_HUGEPAGE);
	memset(p, 0, size);
	return p;
}

static inline void pd_free_large(void *p)
{
	free(p);
}

static inline u64 pd_random_u64(void)
{
	u64 v;

	if (getrandom(&v, sizeof(v), 0) != sizeof(v))
		abort();	/* the kernel's CSPRNG does not fail */
	return v;
}

static inline unsigned int pd_popcount64(u64 x)
{
	return (unsigned int)__builtin_popcountll(x);
}

static inline u64 pd_div64(u64 a, u64 b)
{
	return a / b;
}

/* Little-endian loads from any alignment, as get_unaligned_le64(). */
static inline u64 pd_load_le64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static inline u32 pd_load_le32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

static inline void pd_store_le64(u8 *p, u64 v)
{
	v = htole64(v);
	memcpy(p, &v, sizeof(v));
}

/* Inlined even where the compiler would not (the kernel's). */
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
/* The kernel's: a type or member aligned to n bytes. */
#ifndef __aligned
#define __aligned(n) __attribute__((__aligned__(n)))
#endif
/* Never inlined: a cold path kept out of its caller (the kernel's). */
#ifndef noinline
#define noinline __attribute__((__noinline__))
#endif
/*
 * The kernel's: a local that a build initializing every local
 * (-ftrivial-auto-var-init, the kernel's CONFIG_INIT_STACK_ALL_ZERO)
 * leaves as it is, because the code writes it before reading it.
 */
#ifndef __uninitialized
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define __uninitialized __attribute__((__uninitialized__))
#endif
#endif
#endif
#ifndef __uninitialized
#define __uninitialized
#endif

/*
 * A word of a filter that several threads update at once (filter.h's
 * step_cpu): read whole and written whole, racing by design (no locked
 * instruction: the family says what a race costs it, sbf.h). Relaxed
 * atomics, plain moves on x86: the cells are independent of each other
 * and of anything else, and ThreadSanitizer sees the race as intended.
 */
static inline u64 pd_load_word(const u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

static inline void pd_store_word(u64 *p, u64 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELAXED);
}

/*
 * A field a reader takes once while its writer may change it (a reader
 * of the statistics, racing with the thread that steps a filter): one
 * load, never repeated by the compiler.
 */
static inline u32 pd_load_u32(const u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/*
 * A count that publishes what its writer stored before it (a batch's
 * entries, srcwin.h) to a reader in another thread.
 */
static inline void pd_store_release_u32(u32 *p, u32 v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static inline u32 pd_load_acquire_u32(const u32 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* A snapshot's word, read before any load after it (a stamp's second look) */
static inline u64 pd_load_acquire_word(const u64 *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/*
 * The line of p, soon to be written (prefetchw in the kernel). Always
 * inlined: a function whose only statement is __builtin_prefetch has no
 * side effect the compiler sees, so where it is not inlined the compiler
 * finds it const and deletes its calls, prefetch and all.
 */
static __always_inline void pd_prefetchw(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

/*
 * A shared filter's shard (shard.h): on cache lines of its own, behind a
 * lock of the kernel's spinlock's fast path: test and test-and-set, taken
 * with one atomic exchange (acquire), released with a store (release).
 */
#define PD_LINE_ALIGNED __attribute__((aligned(64)))
struct pd_lock {
	int v;
};

#define pd_lock_t struct pd_lock

static inline void pd_lock_init(pd_lock_t *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELAXED);
}

static inline void pd_lock(pd_lock_t *l)
{
	while (__atomic_exchange_n(&l->v, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&l->v, __ATOMIC_RELAXED))
#if defined(__x86_64__) || defined(__i386__)
			__builtin_ia32_pause();
#else
			;
#endif
}

static inline void pd_unlock(pd_lock_t *l)
{
	__atomic_store_n(&l->v, 0, __ATOMIC_RELEASE);
}

/* A placement's netfilter family and hook: the kernel's only (config.h). */
#define PD_NF_HOOK(f, n) .pf = 0, .hooknum = 0

#endif /* PD_PORT_USER_H */
