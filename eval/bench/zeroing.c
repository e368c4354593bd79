// SPDX-License-Identifier: GPL-2.0
/*
 * What zeroing a local costs a kernel built without SSE (Debian's x86
 * kernels, CONFIG_INIT_STACK_ALL_ZERO): the compiler clears a local of
 * more than a few words with "rep stosq", where a userspace or UML build
 * uses vector stores. Times, natively, rep stosq over n bytes of a
 * buffer on the stack against n / 8 plain 8-byte stores, for the sizes
 * the packet path had zeroed; ns per clear, the median of 5 rounds of
 * 2 * 10^7.
 *
 *   cc -O2 -o build/zeroing eval/bench/zeroing.c && build/zeroing
 */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 5
#define N 20000000L

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double rep_stos(uint64_t *buf, long words)
{
	uint64_t t0 = now_ns();
	long i;

	for (i = 0; i < N; i++) {
		void *d = buf;
		long c = words;

		asm volatile("rep stosq" : "+D"(d), "+c"(c) : "a"(0UL) : "memory");
	}
	return (double)(now_ns() - t0) / N;
}

static double stores(uint64_t *buf, long words)
{
	uint64_t t0 = now_ns();
	long i, w;

	for (i = 0; i < N; i++) {
		for (w = 0; w < words; w++)
			asm volatile("movq $0, %0" : "=m"(buf[w]));
		asm volatile("" ::: "memory");
	}
	return (double)(now_ns() - t0) / N;
}

int main(void)
{
	static const long sizes[] = { 48, 64, 72, 264 };
	uint64_t buf[40] __attribute__((aligned(64)));
	double r[ROUNDS], s[ROUNDS];
	unsigned int i, k;

	printf("bytes  rep stosq ns  plain stores ns\n");
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		for (k = 0; k < ROUNDS; k++) {
			r[k] = rep_stos(buf, sizes[i] / 8);
			s[k] = stores(buf, sizes[i] / 8);
		}
		qsort(r, ROUNDS, sizeof(r[0]), cmp);
		qsort(s, ROUNDS, sizeof(s[0]), cmp);
		printf("%5ld  %12.2f  %15.2f\n", sizes[i], r[ROUNDS / 2],
		       s[ROUNDS / 2]);
	}
	return 0;
}
