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
		{ "h", 3600000 },
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

/* A decimal number s starts with, >= 0; *end follows it. */
static bool leading_real(const char *s, double *v, char **end)
{
	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return false;
	errno = 0;
	*v = strtod(s, end);
	return !errno && isfinite(*v) && *end != s;
}

bool parse_window(const char *s, uint64_t *ns, uint64_t *pkts)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 },
	};
	unsigned long long n;
	unsigned int i;
	char *end;
	double v;

	if (leading_number(s, 10, &n, &end) && !strcmp(end, "p")) {
		*pkts = n;
		*ns = 0;
		return n > 0;
	}
	if (!leading_real(s, &v, &end))
		return false;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].unit)) {
			v *= units[i].ns;
			if (v < 1 || v > 1e19)
				return false;
			*ns = (uint64_t)(v + 0.5);
			*pkts = 0;
			return true;
		}
	return false;
}

bool parse_rate(const char *s, uint64_t *out)
{
	double v, mul = 1;
	char *end;

	if (!leading_real(s, &v, &end))
		return false;
	if (*end == 'k' || *end == 'K')
		mul = 1e3;
	else if (*end == 'M')
		mul = 1e6;
	else if (*end == 'G')
		mul = 1e9;
	if (mul > 1)
		end++;
	v *= mul;
	if (*end || v > 1.8e19)
		return false;
	*out = (uint64_t)(v + 0.5);
	return true;
}

int parse_name(const char *s, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(s, names[i]))
			return (int)i;
	return -1;
}

void die_usage(const char *prog, const char *help, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n(see %s)\n", help);
	exit(2);
}
