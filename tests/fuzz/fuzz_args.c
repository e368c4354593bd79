// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the value parsers of the tools' command lines
 * (userspace/common/args.c, units.c) and the core's probability parser
 * (module/core/config.c, pd_parse_ppb), on the input as a C string.
 *
 * Each accepted value is checked against its documented range and, where
 * the value can be written back, parsed again from its canonical spelling:
 * both must agree. A broken promise traps.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/config.h"
#include "args.h"
#include "units.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

static void fuzz_size(const char *s)
{
	static const char sfx[] = "\0KMG";
	uint64_t v, w;
	char buf[48];
	int shift;

	if (!parse_size(s, &v))
		return;
	/* back as the largest unit that divides it: the same bytes */
	for (shift = 3; shift > 0; shift--)
		if (!(v & ((1ULL << (10 * shift)) - 1)))
			break;
	snprintf(buf, sizeof(buf), "%" PRIu64 "%c", v >> (10 * shift),
		 sfx[shift]);
	CHECK(parse_size(buf, &w) && w == v);
}

static void fuzz_u64(const char *s, uint64_t lo, uint64_t hi)
{
	uint64_t v, w;
	char buf[32];

	if (!parse_u64(s, lo, hi, &v))
		return;
	CHECK(v >= lo && v <= hi);
	snprintf(buf, sizeof(buf), "%" PRIu64, v);
	CHECK(parse_u64(buf, lo, hi, &w) && w == v);
}

static void fuzz_real(const char *s)
{
	double v;

	if (parse_real(s, -1e6, 1e6, &v))
		CHECK(v >= -1e6 && v <= 1e6 && v == v);
	if (parse_real(s, 0, 1, &v))
		CHECK(v >= 0 && v <= 1);
}

static void fuzz_duration(const char *s)
{
	uint64_t ms, w;
	char buf[32];

	if (!parse_duration_ms(s, &ms))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64 "ms", ms);
	CHECK(parse_duration_ms(buf, &w) && w == ms);
}

static void fuzz_time(const char *s)
{
	uint64_t ns, w;
	char buf[32];

	if (!parse_time_ns(s, &ns))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64 "ns", ns);
	CHECK(parse_time_ns(buf, &w) && w == ns);
}

static void fuzz_window(const char *s)
{
	uint64_t ns = 7, pkts = 7, t;
	char buf[32];

	if (!parse_window(s, &ns, &pkts))
		return;
	/* a time or a packet count, never both */
	CHECK(!ns || !pkts);
	if (pkts) {
		snprintf(buf, sizeof(buf), "%" PRIu64 "p", pkts);
		CHECK(parse_window(buf, &ns, &t) && !ns && t == pkts);
	} else if (ns) {
		CHECK(parse_time_ns(s, &t) && t == ns);
	}
}

static void fuzz_rate(const char *s)
{
	uint64_t r, w;
	char buf[32];

	if (!parse_rate(s, &r))
		return;
	snprintf(buf, sizeof(buf), "%" PRIu64, r);
	CHECK(parse_rate(buf, &w) && w == r);
}

static void fuzz_ppb(const char *s)
{
	u32 ppb, again;
	char buf[32];

	if (pd_parse_ppb(s, &ppb))
		return;
	/* in (0, 1): 1 to 10^9 - 1 parts per 10^9 */
	CHECK(ppb >= 1 && ppb < 1000000000u);
	snprintf(buf, sizeof(buf), "0.%09u", ppb);
	CHECK(!pd_parse_ppb(buf, &again) && again == ppb);
	snprintf(buf, sizeof(buf), "%ue-9", ppb);
	CHECK(!pd_parse_ppb(buf, &again) && again == ppb);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	char *s;

	if (size > 4096)
		return 0;
	/* exactly the string and its NUL: ASan sees any read past it */
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, in, size);
	s[size] = '\0';

	fuzz_size(s);
	fuzz_u64(s, 0, UINT64_MAX);
	fuzz_u64(s, 2, 63);
	fuzz_real(s);
	fuzz_duration(s);
	fuzz_time(s);
	fuzz_window(s);
	fuzz_rate(s);
	fuzz_ppb(s);
	free(s);
	return 0;
}
