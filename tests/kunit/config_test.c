// SPDX-License-Identifier: GPL-2.0
/*
 * The filter that follows the action (core/config.h): by default the
 * family is the action's, the SBF to count or mark and a sliding window of
 * 10 ms to drop, planned within the step bound for a 0.1% FP bound; one
 * named stays; and drop with a key of flows or hosts is said to drop whole
 * flows.
 */
#include <kunit/test.h>

#include "../../module/core/config.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/settings.h"
#include "../../module/core/step.h"

/* The window setting of c's filter, through its family's row. */
static u64 pd_t_window(const struct pd_config *c)
{
	const struct pd_setting *w =
		pd_filter_setting(pd_filter_family(c->filter.kind),
				  PKTDEDUP_A_SETTINGS_WINDOW_NS);

	return w ? pd_setting_get(&c->filter, w) : 0;
}

static void pd_t_config_follows_action(struct kunit *test)
{
	struct pd_filter_plan plan;
	const char *why = NULL;
	struct pd_config c;

	pd_config_defaults(&c);
	KUNIT_EXPECT_TRUE(test, c.filter_auto);
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind, PKTDEDUP_FILTER_KIND_SBF);
	KUNIT_EXPECT_FALSE(test, pd_config_follow_action(&c));
	/* mark: still the SBF */
	c.action = PKTDEDUP_ACTION_MARK;
	KUNIT_EXPECT_FALSE(test, pd_config_follow_action(&c));
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind, PKTDEDUP_FILTER_KIND_SBF);
	/* drop: the window, its defaults, the memory kept */
	c.action = PKTDEDUP_ACTION_DROP;
	c.filter.mem_bytes = 512 * 1024;
	KUNIT_EXPECT_TRUE(test, pd_config_follow_action(&c));
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind,
			PKTDEDUP_FILTER_KIND_SLIDING);
	KUNIT_EXPECT_EQ(test, c.filter.mem_bytes, 512ULL * 1024);
	KUNIT_EXPECT_EQ(test, c.filter.fps_ppb, 0ULL);
	KUNIT_EXPECT_EQ(test, pd_t_window(&c),
			(u64)PKTDEDUP_AUTO_DROP_WINDOW_NS);
	KUNIT_EXPECT_FALSE(test, pd_config_follow_action(&c));
	/*
	 * it plans: FP of a new packet at most 0.1% at its capacity, well
	 * within the step bound, and holding 700 000 packets a second over
	 * the window at the default memory (more shorten it)
	 */
	c.filter.mem_bytes = PD_DEFAULT_MEM;
	KUNIT_ASSERT_EQ(test, pd_filter_plan(&c.filter, &plan, &why), 0);
	KUNIT_EXPECT_TRUE(test, plan.given & PD_PLAN_HAS_FP);
	KUNIT_EXPECT_LE(test, plan.fp_bound, pd_q62_from_ppb(1000000));
	KUNIT_EXPECT_LE(test, plan.step_lines, (u64)PD_STEP_MAX_LINES);
	KUNIT_EXPECT_GE(test, plan.capacity * 1000000000ULL /
			PKTDEDUP_AUTO_DROP_WINDOW_NS, 700000ULL);
	/* back to count: the SBF, the window gone */
	c.action = PKTDEDUP_ACTION_COUNT;
	KUNIT_EXPECT_TRUE(test, pd_config_follow_action(&c));
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind, PKTDEDUP_FILTER_KIND_SBF);
	KUNIT_EXPECT_EQ(test, c.filter.mem_bytes, (u64)PD_DEFAULT_MEM);
}

static void pd_t_config_named_stays(struct kunit *test)
{
	struct pd_config c;

	pd_config_defaults(&c);
	c.filter_auto = false;
	c.action = PKTDEDUP_ACTION_DROP;
	KUNIT_EXPECT_FALSE(test, pd_config_follow_action(&c));
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind, PKTDEDUP_FILTER_KIND_SBF);
	/* a window named keeps its own window through action changes */
	pd_filter_req_defaults(&c.filter, PKTDEDUP_FILTER_KIND_JUMPING,
			       c.filter.mem_bytes);
	c.action = PKTDEDUP_ACTION_COUNT;
	KUNIT_EXPECT_FALSE(test, pd_config_follow_action(&c));
	KUNIT_EXPECT_EQ(test, (int)c.filter.kind,
			PKTDEDUP_FILTER_KIND_JUMPING);
}

static void pd_t_config_coarse_drop(struct kunit *test)
{
	struct pd_config c;
	unsigned int a, k;

	pd_config_defaults(&c);
	for (a = 0; a < PD_NACTIONS; a++)
		for (k = 0; k <= PKTDEDUP_KEY_MAX; k++) {
			const char *why;

			c.action = (u8)a;
			c.key = (u8)k;
			why = pd_config_coarse_drop(&c);
			if (a != PKTDEDUP_ACTION_DROP ||
			    k == PKTDEDUP_KEY_PACKET) {
				KUNIT_EXPECT_NULL_MSG(test, why, "%u %u", a, k);
				continue;
			}
			KUNIT_ASSERT_NOT_NULL(test, why);
			KUNIT_EXPECT_NOT_NULL(test, strstr(why,
							   pd_key_mode_names[k]));
			KUNIT_EXPECT_NOT_NULL(test, strstr(why, "force"));
		}
}

/*
 * nonip dedup: at the L2 placements with key packet only; the message
 * names the setting and, at an inet hook, the placements where it works.
 */
static void pd_t_config_nonip(struct kunit *test)
{
	struct pd_config c;
	unsigned int h, k;
	bool by_hook;

	pd_config_defaults(&c);
	KUNIT_EXPECT_NULL(test, pd_config_nonip_refusal(&c, &by_hook));
	c.key_flags = PKTDEDUP_KEY_F_NONIP;
	for (h = 0; h < PD_NHOOKS; h++)
		for (k = 0; k <= PKTDEDUP_KEY_MAX; k++) {
			const char *why;

			c.hook = (u8)h;
			c.key = (u8)k;
			why = pd_config_nonip_refusal(&c, &by_hook);
			if (pd_placements[h].l2 && k == PKTDEDUP_KEY_PACKET) {
				KUNIT_EXPECT_NULL_MSG(test, why, "%u %u", h, k);
				continue;
			}
			KUNIT_ASSERT_NOT_NULL(test, why);
			KUNIT_EXPECT_EQ(test, by_hook, !pd_placements[h].l2);
			KUNIT_EXPECT_NOT_NULL(test, strstr(why, "nonip"));
			KUNIT_EXPECT_NOT_NULL(test,
					      strstr(why, by_hook ? "xdp-generic" :
						     "key packet"));
		}
}

static struct kunit_case pd_config_cases[] = {
	KUNIT_CASE(pd_t_config_follows_action),
	KUNIT_CASE(pd_t_config_named_stays),
	KUNIT_CASE(pd_t_config_coarse_drop),
	KUNIT_CASE(pd_t_config_nonip),
	{}
};

static struct kunit_suite pd_config_suite = {
	.name = "pktdedup-config",
	.test_cases = pd_config_cases,
};

kunit_test_suite(pd_config_suite);
