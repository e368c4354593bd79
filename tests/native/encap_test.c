// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl's tunnel settings (userspace/dedupctl/encap.c): save's words
 * read back by set's parser give every configuration they were written
 * from, whatever was in force before; the names are the uAPI's flags in
 * order; what show prints.
 */
#include <kunit/test.h>
#include <stdio.h>
#include <string.h>

#include "../../module/core/decap.h"
#include "../../module/uapi/pktdedup.h"
#include "../../userspace/dedupctl/encap.h"

/* Read words[0..n) as set does, into c; false if one is bad or unknown. */
static bool read_words(char words[ENCAP_WORDS][ENCAP_WORD_LEN],
		       unsigned int n, struct encap_cfg *c,
		       unsigned int *given)
{
	char why[256];
	unsigned int i;

	for (i = 0; i + 1 < n; i += 2)
		if (encap_setting(words[i], words[i + 1], c, given, why,
				  sizeof(why)) != 1)
			return false;
	return true;
}

static bool same(const struct encap_cfg *a, const struct encap_cfg *b)
{
	return a->decap == b->decap && a->tunnel_id == b->tunnel_id &&
	       !memcmp(a->port, b->port, sizeof(a->port));
}

/*
 * Every decap, tunnel-id either way, ports default and not: the words of
 * each, read over a configuration that differs in everything, give it.
 */
static void encap_words_round_trip(struct kunit *test)
{
	static const uint16_t ports[][ENCAP_NPORTS] = {
		{ 4789, 6081, 2152 }, { 1, 2, 65535 }, { 8472, 6081, 2153 },
	};
	char words[ENCAP_WORDS][ENCAP_WORD_LEN];
	struct encap_cfg c, got;
	unsigned int d, t, p, n, given, bad = 0;

	for (d = 0; d <= PD_DECAP_ALL; d++)
		for (t = 0; t < 2; t++)
			for (p = 0; p < 3; p++) {
				c.decap = d;
				c.tunnel_id = t;
				memcpy(c.port, ports[p], sizeof(c.port));
				n = encap_words(&c, words);
				got.decap = ~d & PD_DECAP_ALL;
				got.tunnel_id = !t;
				got.port[0] = got.port[1] = got.port[2] = 9;
				given = 0;
				if (n != ENCAP_WORDS ||
				    !read_words(words, n, &got, &given) ||
				    !same(&c, &got) ||
				    given != (ENCAP_GIVEN_DECAP |
					      ENCAP_GIVEN_TUNNEL_ID |
					      ENCAP_GIVEN_PORT(0) |
					      ENCAP_GIVEN_PORT(1) |
					      ENCAP_GIVEN_PORT(2)))
					bad++;
			}
	KUNIT_EXPECT_EQ(test, bad, 0u);
	encap_defaults(&c);
	n = encap_words(&c, words);
	KUNIT_ASSERT_EQ(test, n, (unsigned int)ENCAP_WORDS);
	KUNIT_EXPECT_STREQ(test, words[0], "decap");
	KUNIT_EXPECT_STREQ(test, words[1], "none");
	KUNIT_EXPECT_STREQ(test, words[3], "ignore");
	KUNIT_EXPECT_STREQ(test, words[5], "4789");
	KUNIT_EXPECT_STREQ(test, words[7], "6081");
	KUNIT_EXPECT_STREQ(test, words[9], "2152");
}

/* The names, bit n = pd_encap_names[n] = the uAPI's flag. */
static void encap_names_are_the_flags(struct kunit *test)
{
	static const struct { const char *name; uint32_t flag; } want[] = {
		{ "vxlan", PKTDEDUP_DECAP_VXLAN },
		{ "geneve", PKTDEDUP_DECAP_GENEVE },
		{ "gre", PKTDEDUP_DECAP_GRE },
		{ "erspan", PKTDEDUP_DECAP_ERSPAN },
		{ "gtpu", PKTDEDUP_DECAP_GTPU },
		{ "ip", PKTDEDUP_DECAP_IP },
	};
	struct encap_cfg c;
	unsigned int i, given = 0;
	char buf[96], why[256];

	KUNIT_ASSERT_EQ(test, sizeof(want) / sizeof(want[0]),
			(size_t)PD_NENCAPS);
	for (i = 0; i < PD_NENCAPS; i++) {
		encap_defaults(&c);
		KUNIT_EXPECT_EQ(test, encap_setting("decap", want[i].name, &c,
						    &given, why, sizeof(why)),
				1);
		KUNIT_EXPECT_EQ(test, c.decap, want[i].flag);
		KUNIT_EXPECT_STREQ(test, encap_name(buf, sizeof(buf),
						    want[i].flag),
				   want[i].name);
	}
	KUNIT_EXPECT_STREQ(test, encap_list(buf, sizeof(buf), 0), "none");
	KUNIT_EXPECT_STREQ(test, encap_list(buf, sizeof(buf),
					    PKTDEDUP_DECAP_GRE |
					    PKTDEDUP_DECAP_VXLAN),
			   "vxlan,gre");
	KUNIT_EXPECT_STREQ(test, encap_list(buf, sizeof(buf), PD_DECAP_ALL),
			   "vxlan,geneve,gre,erspan,gtpu,ip");
	/* a flag of a newer module: its value, which set refuses */
	KUNIT_EXPECT_STREQ(test, encap_list(buf, sizeof(buf), 0x41),
			   "vxlan,0x40");
	KUNIT_EXPECT_EQ(test, encap_setting("decap", "vxlan,0x40", &c, &given,
					    why, sizeof(why)), -1);
	/* all, in any order, is all */
	KUNIT_EXPECT_EQ(test, encap_setting("decap", "ip,gtpu,erspan,gre,geneve,vxlan",
					    &c, &given, why, sizeof(why)), 1);
	KUNIT_EXPECT_EQ(test, c.decap, (uint32_t)PD_DECAP_ALL);
	KUNIT_EXPECT_EQ(test, encap_setting("decap", "all", &c, &given, why,
					    sizeof(why)), 1);
	KUNIT_EXPECT_EQ(test, c.decap, (uint32_t)PD_DECAP_ALL);
}

/* Not one of them: 0, nothing changed; a bad value: -1 and why. */
static void encap_setting_others_and_bad(struct kunit *test)
{
	static const char *const bad[][3] = {
		{ "decap", "", "decap: '' has an empty name (give none, all or names separated by commas)" },
		{ "decap", ",vxlan", "decap: ',vxlan' has an empty name (give none, all or names separated by commas)" },
		{ "decap", "VXLAN", "decap: 'VXLAN' is not one of: vxlan geneve gre erspan gtpu ip (a comma-separated list of them, none or all)" },
		{ "decap", "gre,ip,gre", "decap: 'gre,ip,gre' names gre twice" },
		{ "decap", "all,ip", "decap: 'all,ip': none and all stand alone, not in a list" },
		{ "tunnel-id", "include,", "tunnel-id: 'include,' is not include or ignore" },
		{ "vxlan-port", "-1", "vxlan-port: '-1' is not a number from 1 to 65535" },
		{ "geneve-port", "6081x", "geneve-port: '6081x' is not a number from 1 to 65535" },
	};
	struct encap_cfg c, before;
	unsigned int i, given = 0;
	char why[256];

	encap_defaults(&c);
	before = c;
	KUNIT_EXPECT_EQ(test, encap_setting("ignore-tos", "on", &c, &given,
					    why, sizeof(why)), 0);
	KUNIT_EXPECT_EQ(test, encap_setting("port", "1", &c, &given, why,
					    sizeof(why)), 0);
	KUNIT_EXPECT_TRUE(test, same(&c, &before));
	KUNIT_EXPECT_EQ(test, given, 0u);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		why[0] = '\0';
		KUNIT_EXPECT_EQ(test, encap_setting(bad[i][0], bad[i][1], &c,
						    &given, why, sizeof(why)),
				-1);
		KUNIT_EXPECT_STREQ(test, why, bad[i][2]);
	}
	KUNIT_EXPECT_EQ(test, given, 0u);
	KUNIT_EXPECT_EQ(test, encap_setting("gtpu-port", "0x868", &c, &given,
					    why, sizeof(why)), 1);
	KUNIT_EXPECT_EQ(test, c.port[2], 2152);
	KUNIT_EXPECT_EQ(test, given, ENCAP_GIVEN_PORT(2));
}

/* show's line: the ports of the UDP tunnels in force only. */
static void encap_show_line(struct kunit *test)
{
	struct encap_cfg c;
	char buf[160];

	encap_defaults(&c);
	KUNIT_EXPECT_STREQ(test, encap_show(buf, sizeof(buf), &c), "none");
	c.tunnel_id = true;
	c.port[0] = 8472;
	KUNIT_EXPECT_STREQ(test, encap_show(buf, sizeof(buf), &c), "none");
	c.decap = PKTDEDUP_DECAP_GRE | PKTDEDUP_DECAP_ERSPAN;
	KUNIT_EXPECT_STREQ(test, encap_show(buf, sizeof(buf), &c),
			   "gre,erspan, tunnel-id include");
	c.decap |= PKTDEDUP_DECAP_VXLAN;
	c.tunnel_id = false;
	KUNIT_EXPECT_STREQ(test, encap_show(buf, sizeof(buf), &c),
			   "vxlan,gre,erspan (vxlan-port 8472), tunnel-id ignore");
	c.decap = PD_DECAP_ALL;
	c.port[1] = c.port[2] = 65535;
	KUNIT_EXPECT_STREQ(test, encap_show(buf, sizeof(buf), &c),
			   "vxlan,geneve,gre,erspan,gtpu,ip (vxlan-port 8472, geneve-port 65535, gtpu-port 65535), tunnel-id ignore");
	/* cut, not overrun */
	KUNIT_EXPECT_STREQ(test, encap_show(buf, 12, &c), "vxlan,genev");
}

static struct kunit_case encap_cases[] = {
	KUNIT_CASE(encap_words_round_trip),
	KUNIT_CASE(encap_names_are_the_flags),
	KUNIT_CASE(encap_setting_others_and_bad),
	KUNIT_CASE(encap_show_line),
	{}
};

static struct kunit_suite encap_suite = {
	.name = "dedupctl_encap",
	.test_cases = encap_cases,
};

kunit_test_suite(encap_suite);
