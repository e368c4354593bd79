// SPDX-License-Identifier: GPL-2.0
/*
 * A decrement run of more than 2^32 bits (sbf.c): 2^29 + 8 cells of 8
 * bits from cell 0. Its width, count * d, was computed in 32 bits and
 * wrapped to 64: the run took the one-word path and decremented 8 cells.
 * No plan allows such a run (step.h); the filter itself (pd_sbf_init())
 * takes any P up to m, and its arithmetic must hold there too.
 *
 * Userspace only: the filter's 512 MiB are an anonymous mapping that is
 * never backed but where the test writes, and the run is a lock-free step
 * (pd_sbf_step_cpu()), which reads every word of the run (zero pages) and
 * writes only those with a non-zero cell.
 */
#include <kunit/test.h>
#include <sys/mman.h>

#include "../../module/core/sbf.h"

#define WIDE_CELLS ((1ULL << 29) + 512)
#define WIDE_P ((1u << 29) + 8)

static void pd_sbf_wide_run(struct kunit *test)
{
	struct pd_sbf_params prm = {
		.cells = WIDE_CELLS, .max = 255, .k = 1, .p = WIDE_P,
		.layout = PKTDEDUP_LAYOUT_FLAT,
	};
	/* d = 8: a cell is a byte */
	static const u32 marked[] = { 100, 4096, WIDE_P - 1, WIDE_P };
	size_t bytes = WIDE_CELLS;
	const char *why = NULL;
	struct pd_sbf_gen g;
	struct pd_sbf f;
	unsigned int i;
	u8 *mem;

	KUNIT_ASSERT_EQ(test, (u64)pd_sbf_bytes(&prm), (u64)bytes);
	mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	KUNIT_ASSERT_TRUE(test, mem != MAP_FAILED);
	KUNIT_ASSERT_EQ(test, pd_sbf_init(&f, &prm, (u64 *)mem, &why), 0);
	for (i = 0; i < PD_ARRAY_SIZE(marked); i++)
		mem[marked[i]] = 5;
	/* the run from cell 0; the key's one probe is cell 0 too (h 0) */
	pd_sbf_gen_init(&f, &g, 1);
	g.next_dec = 0;
	pd_sbf_step_cpu(&f, &g, 0, 0);
	KUNIT_EXPECT_EQ(test, mem[0], 255);	/* the probe, set to Max */
	KUNIT_EXPECT_EQ_MSG(test, mem[100], 4, "cell 100 of a run of %u", WIDE_P);
	KUNIT_EXPECT_EQ(test, mem[4096], 4);
	KUNIT_EXPECT_EQ(test, mem[WIDE_P - 1], 4);	/* the run's last */
	KUNIT_EXPECT_EQ(test, mem[WIDE_P], 5);		/* past it */
	munmap(mem, bytes);
}

static struct kunit_case pd_sbf_wide_cases[] = {
	KUNIT_CASE(pd_sbf_wide_run),
	{}
};

static struct kunit_suite pd_sbf_wide_suite = {
	.name = "pktdedup-sbf-wide",
	.test_cases = pd_sbf_wide_cases,
};

kunit_test_suite(pd_sbf_wide_suite);
