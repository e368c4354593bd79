/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Upper-layer protocol names, for traffic selection (dedupctl set proto,
 * dedup-sim --proto): the guest has no /etc/protocols, so the usual ones
 * are known here; any protocol is also its number.
 */
#ifndef PD_PROTOS_H
#define PD_PROTOS_H

#include <stddef.h>

/* The number of a name or of a number 0-255; -1 if neither. */
int proto_num(const char *s);
/* The name of num, else num written into buf. */
const char *proto_name(unsigned int num, char *buf, size_t len);

#endif /* PD_PROTOS_H */
