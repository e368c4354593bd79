// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl's BTF base digest (userspace/dedupctl/btfbase.c): the POSIX
 * cksum, as cksum(1) and scripts/btf-base.sh digest give it, and what show
 * says of a module built without BTF or against another kernel's.
 */
#include <kunit/test.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../userspace/dedupctl/btfbase.h"

static int64_t cksum_of(const void *p, size_t n)
{
	FILE *f = tmpfile();
	int64_t c;

	if (!f)
		return -2;
	if (n)
		fwrite(p, 1, n, f);
	rewind(f);
	c = btf_cksum(f);
	fclose(f);
	return c;
}

static void btf_cksum_known(struct kunit *test)
{
	/* printf 123456789 | cksum; printf '' | cksum */
	KUNIT_EXPECT_EQ(test, cksum_of("123456789", 9), 930766865);
	KUNIT_EXPECT_EQ(test, cksum_of("", 0), 4294967295LL);
}

/* a file of 200000 bytes, through the digest and through cksum(1) */
static void btf_digest_as_cksum(struct kunit *test)
{
	char path[] = "/tmp/btfbase_test.XXXXXX", cmd[128], want[16] = "";
	char got[9];
	unsigned long c = 0;
	FILE *f, *p;
	int fd, i;

	fd = mkstemp(path);
	KUNIT_ASSERT_GE(test, fd, 0);
	f = fdopen(fd, "wb");
	KUNIT_ASSERT_NOT_NULL(test, f);
	for (i = 0; i < 200000; i++)
		fputc((i * 7919) >> 3 & 0xff, f);
	fclose(f);
	KUNIT_EXPECT_EQ(test, btf_digest(path, got), 0);
	snprintf(cmd, sizeof(cmd), "cksum < %s", path);
	p = popen(cmd, "r");
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, fscanf(p, "%lu", &c), 1);
	pclose(p);
	unlink(path);
	snprintf(want, sizeof(want), "%08lx", c);
	KUNIT_EXPECT_STREQ(test, got, want);
	KUNIT_EXPECT_EQ(test, btf_digest("/nonexistent/btf", got), -1);
}

static void btf_base_says(struct kunit *test)
{
	char buf[512];
	const char *why;

	KUNIT_EXPECT_NULL(test, btf_base_mismatch("30408df8", "30408df8", buf,
						  sizeof(buf)));
	why = btf_base_mismatch("30408df8", "0badf00d", buf, sizeof(buf));
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "built against another kernel's BTF (base 30408df8, this kernel's 0badf00d): rebuild it (dkms)"));
	why = btf_base_mismatch("none", "0badf00d", buf, sizeof(buf));
	KUNIT_ASSERT_NOT_NULL(test, why);
	KUNIT_EXPECT_NOT_NULL(test, strstr(why, "built without BTF"));
}

static struct kunit_case btfbase_cases[] = {
	KUNIT_CASE(btf_cksum_known),
	KUNIT_CASE(btf_digest_as_cksum),
	KUNIT_CASE(btf_base_says),
	{}
};

static struct kunit_suite btfbase_suite = {
	.name = "dedupctl_btfbase",
	.test_cases = btfbase_cases,
};
kunit_test_suite(btfbase_suite);
