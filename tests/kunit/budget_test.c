// SPDX-License-Identifier: GPL-2.0
/*
 * The memory budget's decision (core/budget.c): build beside the old part,
 * build in its room, or refuse; at the boundaries and with values that
 * would overflow a naive sum.
 */
#include <kunit/test.h>

#include "../../module/core/budget.h"

static void pd_t_budget_ways(struct kunit *test)
{
	/* cap 100: others 30, old part 20 */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 50, 20, 50), (int)PD_BUDGET_SWAP);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 50, 20, 51),
			(int)PD_BUDGET_IN_PLACE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 50, 20, 70),
			(int)PD_BUDGET_IN_PLACE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 50, 20, 71), (int)PD_BUDGET_REFUSE);
	/* nothing held yet */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 0, 0, 100), (int)PD_BUDGET_SWAP);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 0, 0, 101), (int)PD_BUDGET_REFUSE);
	/* the part is all that is held */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 60, 60, 40), (int)PD_BUDGET_SWAP);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 60, 60, 100),
			(int)PD_BUDGET_IN_PLACE);
	/* a cap of nothing */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(0, 0, 0, 1), (int)PD_BUDGET_REFUSE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(0, 0, 0, 0), (int)PD_BUDGET_SWAP);
}

static void pd_t_budget_overflow(struct kunit *test)
{
	const u64 max = ~0ULL;

	/* sums that wrap must not look small */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 50, 20, max), (int)PD_BUDGET_REFUSE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, max, 0, 1), (int)PD_BUDGET_REFUSE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(max, max - 1, 0, 2),
			(int)PD_BUDGET_REFUSE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(max, max - 1, max - 1, 2),
			(int)PD_BUDGET_IN_PLACE);
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(max, 0, 0, max), (int)PD_BUDGET_SWAP);
	/* a part larger than all that is held is nonsense: refused */
	KUNIT_EXPECT_EQ(test, (int)pd_budget_way(100, 10, 20, 5), (int)PD_BUDGET_REFUSE);
}

static struct kunit_case pd_budget_cases[] = {
	KUNIT_CASE(pd_t_budget_ways),
	KUNIT_CASE(pd_t_budget_overflow),
	{}
};

static struct kunit_suite pd_budget_suite = {
	.name = "pktdedup-budget",
	.test_cases = pd_budget_cases,
};

kunit_test_suite(pd_budget_suite);
