// SPDX-License-Identifier: GPL-2.0
/* Values with units: see units.h. */
#include <ctype.h>
#include <string.h>

#include "../../module/core/pd_port.h"
#include "units.h"

/*
 * The decimal number at the start of s (digits, then optionally a point
 * and digits) times scale, if that is whole and fits; *end follows it.
 */
static bool scaled_decimal(const char *s, uint64_t scale, uint64_t *out,
			   const char **end)
{
	u64 mant = 0, div = 1, v;
	bool digits = false, point = false;

	for (; *s; s++) {
		if (*s == '.' && !point) {
			point = true;
			continue;
		}
		if (!isdigit((unsigned char)*s))
			break;
		digits = true;
		if (__builtin_mul_overflow(mant, 10, &mant) ||
		    __builtin_add_overflow(mant, (u64)(*s - '0'), &mant))
			return false;
		if (point && __builtin_mul_overflow(div, 10, &div))
			return false;
	}
	if (!digits || s[-1] == '.')
		return false;
	/* mant * scale / div, whole: reduce before multiplying */
	while (div > 1 && mant % 10 == 0) {
		mant /= 10;
		div /= 10;
	}
	while (div > 1 && scale % 10 == 0) {
		scale /= 10;
		div /= 10;
	}
	if (div != 1 || __builtin_mul_overflow(mant, scale, &v))
		return false;
	*out = v;
	*end = s;
	return true;
}

bool parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		{ "s", 1000000000 }, { "m", 60000000000ULL },
		{ "min", 60000000000ULL },
		{ "h", 3600000000000ULL },
	};
	unsigned int i;
	const char *end;
	u64 v;

	if (s && !strcmp(s, "0")) {
		*ns = 0;
		return true;
	}
	for (i = 0; i < PD_ARRAY_SIZE(units); i++)
		if (s && scaled_decimal(s, units[i].ns, &v, &end) &&
		    !strcmp(end, units[i].unit)) {
			*ns = v;
			return true;
		}
	return false;
}

bool parse_window(const char *s, uint64_t *ns, uint64_t *pkts)
{
	const char *end;
	u64 v;

	if (s && scaled_decimal(s, 1, &v, &end) && !strcmp(end, "p")) {
		*ns = 0;
		*pkts = v;
		return true;
	}
	if (!parse_time_ns(s, &v) || !strcmp(s, "0"))
		return false;
	*ns = v;
	*pkts = 0;
	return true;
}

bool parse_rate(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; uint64_t mul; } sfx[] = {
		{ "", 1 }, { "k", 1000 }, { "K", 1000 }, { "M", 1000000 },
		{ "G", 1000000000 },
	};
	unsigned int i;
	const char *end;
	u64 v;

	for (i = 0; i < PD_ARRAY_SIZE(sfx); i++)
		if (s && scaled_decimal(s, sfx[i].mul, &v, &end) &&
		    !strcmp(end, sfx[i].suffix)) {
			*out = v;
			return true;
		}
	return false;
}
