// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the userspace KUnit stand-in: runs every registered suite,
 * prints KTAP like the kernel does, and a last line "N passed, N failed".
 * Usage: core-tests [SUITE-GLOB]
 */
#include <fnmatch.h>
#include <stdarg.h>

#include "kunit/test.h"

static struct kunit_suite *suites[64];
static unsigned int nsuites;

void kunit_shim_register(struct kunit_suite **s)
{
	for (; *s; s++) {
		if (nsuites == sizeof(suites) / sizeof(suites[0]))
			abort();
		suites[nsuites++] = *s;
	}
}

void kunit_shim_fail(struct kunit *test, bool assert, const char *file,
		     int line, const char *fmt, ...)
{
	va_list ap;

	test->failed = true;
	/* the assertion macros pass " " followed by the optional message */
	if (fmt && strcmp(fmt, " ")) {
		printf("    # %s: %s:%d:", test->name, file, line);
		va_start(ap, fmt);
		vprintf(fmt, ap);
		va_end(ap);
		printf("\n");
	}
	if (assert)
		longjmp(test->abort, 1);
}

void *kunit_kzalloc(struct kunit *test, size_t size, gfp_t gfp)
{
	void *p;

	(void)gfp;
	if (test->nallocs == sizeof(test->allocs) / sizeof(test->allocs[0]))
		return NULL;
	p = calloc(1, size ? size : 1);
	if (p)
		test->allocs[test->nallocs++] = p;
	return p;
}

void *kunit_kmalloc_array(struct kunit *test, size_t n, size_t size,
			  gfp_t gfp)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return kunit_kzalloc(test, n * size, gfp);
}

/* Run one case; setjmp lives here so nothing of main's is clobbered. */
static bool run_case(struct kunit_suite *s, struct kunit_case *c)
{
	struct kunit test = { .name = c->name };

	if (!s->init || !s->init(&test)) {
		if (!setjmp(test.abort))
			c->run_case(&test);
		if (s->exit)
			s->exit(&test);
	} else {
		test.failed = true;
	}
	while (test.nallocs)
		free(test.allocs[--test.nallocs]);
	return !test.failed;
}

static int by_name(const void *a, const void *b)
{
	const struct kunit_suite *x = *(struct kunit_suite *const *)a;
	const struct kunit_suite *y = *(struct kunit_suite *const *)b;

	return strcmp(x->name, y->name);
}

int main(int argc, char **argv)
{
	const char *glob = argc > 1 ? argv[1] : "*";
	unsigned int i, passed = 0, failed = 0, nrun = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	qsort(suites, nsuites, sizeof(suites[0]), by_name);
	for (i = 0; i < nsuites; i++)
		nrun += !fnmatch(glob, suites[i]->name, 0);
	printf("KTAP version 1\n1..%u\n", nrun);
	nrun = 0;
	for (i = 0; i < nsuites; i++) {
		struct kunit_suite *s = suites[i];
		struct kunit_case *c;
		unsigned int n = 0, j = 0, bad = 0;

		if (fnmatch(glob, s->name, 0))
			continue;
		for (c = s->test_cases; c->run_case; c++)
			n++;
		printf("    KTAP version 1\n    # Subtest: %s\n    1..%u\n",
		       s->name, n);
		for (c = s->test_cases; c->run_case; c++) {
			bool ok = run_case(s, c);

			printf("    %s %u %s\n", ok ? "ok" : "not ok", ++j,
			       c->name);
			if (!ok) {
				failed++;
				bad++;
			} else {
				passed++;
			}
		}
		printf("%s %u %s\n", bad ? "not ok" : "ok", ++nrun, s->name);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
