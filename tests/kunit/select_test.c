// SPDX-License-Identifier: GPL-2.0
/*
 * Traffic selection (core/config.h): the protocol bitmap, the mark match,
 * the defaults that select every packet, and which hooks see frames.
 */
#include <kunit/test.h>

#include "../../module/core/config.h"

static void pd_t_select_defaults(struct kunit *test)
{
	struct pd_config c;
	unsigned int p;

	pd_config_defaults(&c);
	KUNIT_EXPECT_EQ(test, (int)c.sel.ndev, 0);
	KUNIT_EXPECT_TRUE(test, c.sel.any_proto);
	for (p = 0; p < 256; p++)
		KUNIT_EXPECT_TRUE(test, pd_select_proto(&c.sel, (u8)p));
	KUNIT_EXPECT_TRUE(test, pd_select_mark(&c.sel, 0));
	KUNIT_EXPECT_TRUE(test, pd_select_mark(&c.sel, 0xffffffff));
}

static void pd_t_select_protos(struct kunit *test)
{
	struct pd_select s = {};
	unsigned int p;

	/* TCP, UDP and 255: the bitmap's first, middle and last bytes */
	s.protos[6 / 8] |= 1 << (6 % 8);
	s.protos[17 / 8] |= 1 << (17 % 8);
	s.protos[31] |= 0x80;
	pd_select_update(&s);
	KUNIT_EXPECT_FALSE(test, s.any_proto);
	for (p = 0; p < 256; p++)
		KUNIT_EXPECT_EQ(test, pd_select_proto(&s, (u8)p),
				p == 6 || p == 17 || p == 255);
	/* all zero again: every protocol */
	memset(s.protos, 0, sizeof(s.protos));
	pd_select_update(&s);
	KUNIT_EXPECT_TRUE(test, s.any_proto);
	KUNIT_EXPECT_TRUE(test, pd_select_proto(&s, 0));
}

static void pd_t_select_mark(struct kunit *test)
{
	struct pd_select s = { .mark_value = 0x4, .mark_mask = 0x6 };

	KUNIT_EXPECT_TRUE(test, pd_select_mark(&s, 0x4));
	KUNIT_EXPECT_TRUE(test, pd_select_mark(&s, 0xfffffffd));
	KUNIT_EXPECT_FALSE(test, pd_select_mark(&s, 0x6));
	KUNIT_EXPECT_FALSE(test, pd_select_mark(&s, 0x2));
	KUNIT_EXPECT_FALSE(test, pd_select_mark(&s, 0));
}

/*
 * Every placement has a row: a name of its own; a per-device one sees
 * frames. In the kernel, where the rows carry netfilter's numbers, those
 * agree with the flags: frames at every family but inet, a hook per
 * device at netdev's.
 */
static void pd_t_select_placements(struct kunit *test)
{
	unsigned int h, g;

	for (h = 0; h < PD_NHOOKS; h++) {
		const struct pd_placement *pl = &pd_placements[h];

		KUNIT_ASSERT_NOT_NULL(test, pl->name);
		KUNIT_EXPECT_STREQ(test, pd_placement_name(h), pl->name);
		for (g = 0; g < h; g++)
			KUNIT_EXPECT_STRNEQ(test, pl->name, pd_placements[g].name);
		KUNIT_EXPECT_TRUE(test, !pl->per_dev || pl->l2);
		/* an XDP placement: frames, per device, no netfilter hook */
		if (pl->xdp) {
			KUNIT_EXPECT_TRUE(test, pl->l2 && pl->per_dev);
			KUNIT_EXPECT_TRUE(test, pl->xdp == PD_XDP_NATIVE ||
					  pl->xdp == PD_XDP_GENERIC);
			continue;
		}
#ifdef __KERNEL__
		KUNIT_EXPECT_TRUE(test, pl->pf == NFPROTO_INET ||
				  pl->pf == NFPROTO_NETDEV ||
				  pl->pf == NFPROTO_BRIDGE);
		KUNIT_EXPECT_EQ(test, pl->l2, pl->pf != NFPROTO_INET);
		KUNIT_EXPECT_EQ(test, pl->per_dev, pl->pf == NFPROTO_NETDEV);
#endif
	}
	KUNIT_EXPECT_STREQ(test, pd_placement_name(PD_NHOOKS), "?");
}

/*
 * What a placement cannot do is refused by name: at an XDP hook, action
 * mark and match-mark (no skb, no mark); elsewhere nothing of the kind.
 */
static void pd_t_select_refusals(struct kunit *test)
{
	struct pd_config c;
	unsigned int h, a;
	bool by_action;

	for (h = 0; h < PD_NHOOKS; h++) {
		for (a = 0; a < PD_NACTIONS; a++) {
			pd_config_defaults(&c);
			c.hook = (u8)h;
			c.action = (u8)a;
			by_action = false;
			KUNIT_EXPECT_EQ(test, !!pd_placement_refusal(&c, &by_action),
					pd_placements[h].xdp &&
					a == PKTDEDUP_ACTION_MARK);
			KUNIT_EXPECT_EQ(test, by_action,
					pd_placements[h].xdp &&
					a == PKTDEDUP_ACTION_MARK);
		}
		pd_config_defaults(&c);
		c.hook = (u8)h;
		c.sel.mark_value = 1;
		c.sel.mark_mask = 1;
		KUNIT_EXPECT_EQ(test, !!pd_placement_refusal(&c, &by_action),
				!!pd_placements[h].xdp);
		if (pd_placements[h].xdp)
			KUNIT_EXPECT_FALSE(test, by_action);
	}
}

static struct kunit_case pd_select_cases[] = {
	KUNIT_CASE(pd_t_select_defaults),
	KUNIT_CASE(pd_t_select_protos),
	KUNIT_CASE(pd_t_select_mark),
	KUNIT_CASE(pd_t_select_placements),
	KUNIT_CASE(pd_t_select_refusals),
	{}
};

static struct kunit_suite pd_select_suite = {
	.name = "pktdedup-select",
	.test_cases = pd_select_cases,
};

kunit_test_suite(pd_select_suite);
