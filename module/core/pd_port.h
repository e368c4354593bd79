/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Portability layer of the pktdedup core.
 *
 * The algorithm files (filter, planner, hashing, key extraction) include only
 * this header. Inside the kernel it maps types, error and protocol numbers,
 * allocation, randomness, unaligned loads and prefetching to the kernel's
 * own facilities (and takes its snprintf(), which both sides spell alike);
 * in userspace to libc (userspace/common/port_user.h,
 * found through the userspace build's include path: the kernel never sees
 * it).
 */
#ifndef PD_PORT_H
#define PD_PORT_H

#ifdef __KERNEL__
#include "port_kernel.h"
#else
#include <port_user.h>
#endif

#define PD_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define PD_MIN(a, b) ({ __typeof__(a) _a = (a); __typeof__(b) _b = (b); \
			_a < _b ? _a : _b; })
#define PD_MAX(a, b) ({ __typeof__(a) _x = (a); __typeof__(b) _y = (b); \
			_x > _y ? _x : _y; })

#endif /* PD_PORT_H */
