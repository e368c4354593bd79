/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Integer fixed-point arithmetic for the planner.
 *
 * Kernel code may not use the FPU, and the planner runs in the kernel as well
 * as in userspace, so probabilities are unsigned Q2.62 numbers (1.0 is
 * 1 << 62, resolution 2.2e-19) and real numbers above 1 are Q32.32.
 */
#ifndef PD_FIXED_H
#define PD_FIXED_H

#include "pd_port.h"

#define PD_Q62_SHIFT 62
#define PD_Q62_ONE ((u64)1 << PD_Q62_SHIFT)
#define PD_Q32_ONE ((u64)1 << 32)
#define PD_U64_MAX (~(u64)0)

/* floor(a * b / 2^62): the product of two Q62 numbers. */
u64 pd_mul_q62(u64 a, u64 b);
/* floor(a * b / c) with a 128-bit intermediate; saturates at 2^64 - 1. */
u64 pd_muldiv(u64 a, u64 b, u64 c);
/* x^n, x in Q62. */
u64 pd_pow_q62(u64 x, u64 n);
/* The largest Q62 y <= 1 with y^n <= x: the n-th root of x, rounded down. */
u64 pd_root_q62(u64 x, unsigned int n);
/* -log2(x) in Q32.32 for a Q62 x in (0, 1]; PD_U64_MAX for x = 0. */
u64 pd_neglog2_q62(u64 x);
/* floor(sqrt(x)). */
u64 pd_isqrt64(u64 x);
/* Probabilities on the wire are in parts per 10^9 (ppb). */
#define PD_PPB_ONE 1000000000u

/* A probability given in parts per 10^9, as Q62. */
u64 pd_q62_from_ppb(u32 ppb);
/* A Q62 probability in parts per 10^9, rounded to nearest. */
u32 pd_q62_to_ppb(u64 q);

#endif /* PD_FIXED_H */
