// SPDX-License-Identifier: GPL-2.0
/* Strict parsing of command-line values: see args.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"

/* The unsigned number s starts with (no sign, no space); *end follows it. */
static bool leading_number(const char *s, int base, unsigned long long *v,
			   char **end)
{
	if (!s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, end, base);
	return !errno;
}

bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!leading_number(s, 0, &v, &end) || *end || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool parse_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	unsigned int shift = 0;
	char *end;

	if (!leading_number(s, 10, &v, &end))
		return false;
	switch (*end) {
	case 'k': case 'K':
		shift = 10;
		break;
	case 'm': case 'M':
		shift = 20;
		break;
	case 'g': case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (shift) {
		end++;
		if (*end == 'i' && end[1] == 'B')
			end += 2;
		else if (*end == 'B')
			end++;
	}
	if (*end || (v << shift) >> shift != v)
		return false;
	*out = v << shift;
	return true;
}

bool parse_real(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

bool parse_duration_ms(const char *s, uint64_t *ms)
{
	static const struct { const char *unit; uint64_t ms; } units[] = {
		{ "ms", 1 }, { "s", 1000 }, { "", 1000 }, { "m", 60000 },
		{ "min", 60000 }, { "h", 3600000 },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	if (!leading_number(s, 10, &v, &end))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			if (v > UINT64_MAX / units[i].ms)
				return false;
			*ms = v * units[i].ms;
			return true;
		}
	return false;
}

void vusage_msg(const char *prog, const char *help, const char *fmt,
		va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n(see %s)\n", help);
}

void die_usage(const char *prog, const char *help, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_msg(prog, help, fmt, ap);
	va_end(ap);
	exit(2);
}
