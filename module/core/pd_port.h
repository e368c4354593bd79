/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability layer of the pktdedup core.
 *
 * The algorithm files (filter, planner, hashing, key extraction) include only
 * this header. Inside the kernel it maps types, allocation, randomness and
 * hashing to the kernel's own facilities; in userspace to libc and to a
 * bit-identical copy of the kernel's jhash (port_user.h).
 */
#ifndef PD_PORT_H
#define PD_PORT_H

#ifdef __KERNEL__
#include "port_kernel.h"
#else
#include "port_user.h"
#endif

#define PD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PD_MIN(a, b) ((a) < (b) ? (a) : (b))
#define PD_MAX(a, b) ((a) > (b) ? (a) : (b))

#endif /* PD_PORT_H */
