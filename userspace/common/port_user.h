/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace side of the pktdedup core's portability layer.
 *
 * pd_jhash() is a bit-identical copy of the kernel's jhash() (lookup3 as
 * adapted in include/linux/jhash.h): the same mixing, the same JHASH_INITVAL,
 * the same little-endian word loads of a little-endian CPU. The shared test
 * vectors in tests/vectors/jhash_vectors.h are checked against this copy
 * natively and against the kernel's own jhash() under KUnit.
 */
#ifndef PD_PORT_USER_H
#define PD_PORT_USER_H

#include <endian.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
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

static inline u32 pd_random_u32(void)
{
	u32 v;

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

static inline u32 pd_rol32(u32 w, unsigned int s)
{
	return (w << s) | (w >> ((-s) & 31));
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

/* The line of p, soon to be written (prefetchw in the kernel). */
static inline void pd_prefetchw(const void *p)
{
	__builtin_prefetch(p, 1, 3);
}

#define PD_JHASH_INITVAL 0xdeadbeef

#define pd_jhash_mix(a, b, c)					\
do {								\
	a -= c;  a ^= pd_rol32(c, 4);  c += b;			\
	b -= a;  b ^= pd_rol32(a, 6);  a += c;			\
	c -= b;  c ^= pd_rol32(b, 8);  b += a;			\
	a -= c;  a ^= pd_rol32(c, 16); c += b;			\
	b -= a;  b ^= pd_rol32(a, 19); a += c;			\
	c -= b;  c ^= pd_rol32(b, 4);  b += a;			\
} while (0)

#define pd_jhash_final(a, b, c)					\
do {								\
	c ^= b; c -= pd_rol32(b, 14);				\
	a ^= c; a -= pd_rol32(c, 11);				\
	b ^= a; b -= pd_rol32(a, 25);				\
	c ^= b; c -= pd_rol32(b, 16);				\
	a ^= c; a -= pd_rol32(c, 4);				\
	b ^= a; b -= pd_rol32(a, 14);				\
	c ^= b; c -= pd_rol32(b, 24);				\
} while (0)

static inline u32 pd_load32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));	/* CPU order, as get_unaligned_cpu32 */
	return v;
}

static inline u32 pd_jhash(const void *key, u32 length, u32 initval)
{
	const u8 *k = key;
	u32 a, b, c;

	a = b = c = PD_JHASH_INITVAL + length + initval;
	while (length > 12) {
		a += pd_load32(k);
		b += pd_load32(k + 4);
		c += pd_load32(k + 8);
		pd_jhash_mix(a, b, c);
		length -= 12;
		k += 12;
	}
	switch (length) {
	case 12: c += (u32)k[11] << 24;	fallthrough;
	case 11: c += (u32)k[10] << 16;	fallthrough;
	case 10: c += (u32)k[9] << 8;	fallthrough;
	case 9:  c += k[8];		fallthrough;
	case 8:  b += (u32)k[7] << 24;	fallthrough;
	case 7:  b += (u32)k[6] << 16;	fallthrough;
	case 6:  b += (u32)k[5] << 8;	fallthrough;
	case 5:  b += k[4];		fallthrough;
	case 4:  a += (u32)k[3] << 24;	fallthrough;
	case 3:  a += (u32)k[2] << 16;	fallthrough;
	case 2:  a += (u32)k[1] << 8;	fallthrough;
	case 1:  a += k[0];
		pd_jhash_final(a, b, c);
		break;
	case 0:
		break;
	}
	return c;
}

#endif /* PD_PORT_USER_H */
