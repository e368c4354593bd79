/* SPDX-License-Identifier: GPL-2.0 */
/* Strict parsing of command-line values shared by pktdedup's tools. */
#ifndef PD_ARGS_H
#define PD_ARGS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

/* A byte count with an optional K, M or G suffix (powers of 1024). */
bool parse_size(const char *s, uint64_t *out);
/* A whole number in [lo, hi]. */
bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out);
/* A finite real number in [lo, hi]. */
bool parse_real(const char *s, double lo, double hi, double *out);
/* A duration: a number with ms, s, m or h (a bare number is seconds). */
bool parse_duration_ms(const char *s, uint64_t *ms);
/*
 * "PROG: message" and "(see HELP)" on stderr, then exit 2: the tools'
 * answer to a bad command line.
 */
void die_usage(const char *prog, const char *help, const char *fmt, ...)
	__attribute__((format(printf, 3, 4), noreturn));
/* die_usage()'s message alone, for a tool that exits its own way */
void vusage_msg(const char *prog, const char *help, const char *fmt,
		va_list ap) __attribute__((format(printf, 3, 0)));

#endif /* PD_ARGS_H */
