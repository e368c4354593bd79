/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A userspace stand-in for the part of the kernel's KUnit API (6.1) that
 * pktdedup's core tests use, so the same test sources run natively (under
 * ASan/UBSan) and inside the kernel. Semantics follow KUnit: EXPECT records
 * a failure and goes on, ASSERT records it and ends the test case.
 */
#ifndef PD_KUNIT_SHIM_TEST_H
#define PD_KUNIT_SHIM_TEST_H

#include <setjmp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GFP_KERNEL 0u
typedef unsigned int gfp_t;

struct kunit {
	const char *name;
	bool failed;
	jmp_buf abort;
	void *allocs[256];
	unsigned int nallocs;
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
};

struct kunit_suite {
	const char name[256];
	int (*init)(struct kunit *test);
	void (*exit)(struct kunit *test);
	struct kunit_case *test_cases;
};

/* The kernel's allocator, as the tests use it. */
static inline void *kmalloc(size_t size, gfp_t gfp)
{
	(void)gfp;
	return malloc(size);
}

static inline void kfree(const void *p)
{
	free((void *)p);
}

#define KUNIT_CASE(fn) { .run_case = fn, .name = #fn }

void kunit_shim_register(struct kunit_suite **suites);
void kunit_shim_fail(struct kunit *test, bool assert, const char *file,
		     int line, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp);
void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp);

#define PD_KCAT2(a, b) a##b
#define PD_KCAT(a, b) PD_KCAT2(a, b)

#define kunit_test_suites(...)						\
	static struct kunit_suite *PD_KCAT(pd_kunit_suites_, __LINE__)[] = \
		{ __VA_ARGS__, NULL };					\
	__attribute__((constructor)) static void			\
	PD_KCAT(pd_kunit_register_, __LINE__)(void)			\
	{								\
		kunit_shim_register(PD_KCAT(pd_kunit_suites_, __LINE__)); \
	}
#define kunit_test_suite(suite) kunit_test_suites(&suite)

#define kunit_info(test, fmt, ...) \
	printf("    # %s: " fmt "\n", (test)->name, ##__VA_ARGS__)
#define kunit_err(test, fmt, ...) \
	printf("    # %s: error: " fmt "\n", (test)->name, ##__VA_ARGS__)

#define KUNIT_FAIL(test, fmt, ...) \
	kunit_shim_fail(test, false, __FILE__, __LINE__, fmt, ##__VA_ARGS__)

#define PD_KUNIT_BINARY(test, assert, left, op, right, ...)		\
	do {								\
		__typeof__(left) __l = (left);				\
		__typeof__(right) __r = (right);			\
		if (!(__l op __r)) {					\
			printf("    # %s: %s:%d: Expected %s %s %s, but\n" \
			       "        %s == %lld (0x%llx)\n"		\
			       "        %s == %lld (0x%llx)\n",		\
			       (test)->name, __FILE__, __LINE__, #left,	\
			       #op, #right, #left, (long long)__l,	\
			       (unsigned long long)__l, #right,		\
			       (long long)__r, (unsigned long long)__r); \
			kunit_shim_fail(test, assert, __FILE__, __LINE__, \
					" " __VA_ARGS__);		\
		}							\
	} while (0)

#define PD_KUNIT_PTR(test, assert, left, op, right, ...)		\
	do {								\
		const void *__l = (left), *__r = (right);		\
		if (!(__l op __r)) {					\
			printf("    # %s: %s:%d: Expected %s %s %s\n",	\
			       (test)->name, __FILE__, __LINE__, #left,	\
			       #op, #right);				\
			kunit_shim_fail(test, assert, __FILE__, __LINE__, \
					" " __VA_ARGS__);		\
		}							\
	} while (0)

#define PD_KUNIT_STR(test, assert, left, op, right, ...)		\
	do {								\
		const char *__l = (left), *__r = (right);		\
		if (!(strcmp(__l, __r) op 0)) {				\
			printf("    # %s: %s:%d: Expected %s %s %s, but\n" \
			       "        %s == \"%s\"\n        %s == \"%s\"\n", \
			       (test)->name, __FILE__, __LINE__, #left,	\
			       #op, #right, #left, __l, #right, __r);	\
			kunit_shim_fail(test, assert, __FILE__, __LINE__, \
					" " __VA_ARGS__);		\
		}							\
	} while (0)

#define PD_KUNIT_TRUE(test, assert, cond, expect, ...)			\
	do {								\
		if ((bool)(cond) != (bool)(expect)) {				\
			printf("    # %s: %s:%d: Expected %s to be %s\n", \
			       (test)->name, __FILE__, __LINE__, #cond,	\
			       (expect) ? "true" : "false");		\
			kunit_shim_fail(test, assert, __FILE__, __LINE__, \
					" " __VA_ARGS__);		\
		}							\
	} while (0)

#define KUNIT_EXPECT_TRUE(t, c) PD_KUNIT_TRUE(t, false, c, true)
#define KUNIT_EXPECT_FALSE(t, c) PD_KUNIT_TRUE(t, false, c, false)
#define KUNIT_EXPECT_EQ(t, l, r) PD_KUNIT_BINARY(t, false, l, ==, r)
#define KUNIT_EXPECT_NE(t, l, r) PD_KUNIT_BINARY(t, false, l, !=, r)
#define KUNIT_EXPECT_LT(t, l, r) PD_KUNIT_BINARY(t, false, l, <, r)
#define KUNIT_EXPECT_LE(t, l, r) PD_KUNIT_BINARY(t, false, l, <=, r)
#define KUNIT_EXPECT_GT(t, l, r) PD_KUNIT_BINARY(t, false, l, >, r)
#define KUNIT_EXPECT_GE(t, l, r) PD_KUNIT_BINARY(t, false, l, >=, r)
#define KUNIT_EXPECT_PTR_EQ(t, l, r) PD_KUNIT_PTR(t, false, l, ==, r)
#define KUNIT_EXPECT_NULL(t, p) PD_KUNIT_PTR(t, false, p, ==, NULL)
#define KUNIT_EXPECT_NOT_NULL(t, p) PD_KUNIT_PTR(t, false, p, !=, NULL)
#define KUNIT_EXPECT_STREQ(t, l, r) PD_KUNIT_STR(t, false, l, ==, r)
#define KUNIT_EXPECT_STRNEQ(t, l, r) PD_KUNIT_STR(t, false, l, !=, r)

#define KUNIT_EXPECT_TRUE_MSG(t, c, ...) PD_KUNIT_TRUE(t, false, c, true, __VA_ARGS__)
#define KUNIT_EXPECT_FALSE_MSG(t, c, ...) PD_KUNIT_TRUE(t, false, c, false, __VA_ARGS__)
#define KUNIT_EXPECT_EQ_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, ==, r, __VA_ARGS__)
#define KUNIT_EXPECT_NE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, !=, r, __VA_ARGS__)
#define KUNIT_EXPECT_LT_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, <, r, __VA_ARGS__)
#define KUNIT_EXPECT_LE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, <=, r, __VA_ARGS__)
#define KUNIT_EXPECT_GT_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, >, r, __VA_ARGS__)
#define KUNIT_EXPECT_GE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, false, l, >=, r, __VA_ARGS__)
#define KUNIT_EXPECT_NULL_MSG(t, p, ...) PD_KUNIT_PTR(t, false, p, ==, NULL, __VA_ARGS__)
#define KUNIT_EXPECT_NOT_NULL_MSG(t, p, ...) PD_KUNIT_PTR(t, false, p, !=, NULL, __VA_ARGS__)

#define KUNIT_ASSERT_TRUE(t, c) PD_KUNIT_TRUE(t, true, c, true)
#define KUNIT_ASSERT_FALSE(t, c) PD_KUNIT_TRUE(t, true, c, false)
#define KUNIT_ASSERT_EQ(t, l, r) PD_KUNIT_BINARY(t, true, l, ==, r)
#define KUNIT_ASSERT_NE(t, l, r) PD_KUNIT_BINARY(t, true, l, !=, r)
#define KUNIT_ASSERT_LT(t, l, r) PD_KUNIT_BINARY(t, true, l, <, r)
#define KUNIT_ASSERT_LE(t, l, r) PD_KUNIT_BINARY(t, true, l, <=, r)
#define KUNIT_ASSERT_GT(t, l, r) PD_KUNIT_BINARY(t, true, l, >, r)
#define KUNIT_ASSERT_GE(t, l, r) PD_KUNIT_BINARY(t, true, l, >=, r)
#define KUNIT_ASSERT_NOT_NULL(t, p) PD_KUNIT_PTR(t, true, p, !=, NULL)
#define KUNIT_ASSERT_EQ_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, ==, r, __VA_ARGS__)
#define KUNIT_ASSERT_NE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, !=, r, __VA_ARGS__)
#define KUNIT_ASSERT_LT_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, <, r, __VA_ARGS__)
#define KUNIT_ASSERT_LE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, <=, r, __VA_ARGS__)
#define KUNIT_ASSERT_GT_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, >, r, __VA_ARGS__)
#define KUNIT_ASSERT_GE_MSG(t, l, r, ...) PD_KUNIT_BINARY(t, true, l, >=, r, __VA_ARGS__)
#define KUNIT_ASSERT_TRUE_MSG(t, c, ...) PD_KUNIT_TRUE(t, true, c, true, __VA_ARGS__)
#define KUNIT_ASSERT_NOT_NULL_MSG(t, p, ...) PD_KUNIT_PTR(t, true, p, !=, NULL, __VA_ARGS__)

#endif /* PD_KUNIT_SHIM_TEST_H */
