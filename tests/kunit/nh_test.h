/* SPDX-License-Identifier: GPL-2.0 */
/* What the key suites share of the NH suite (nh_test.c). */
#ifndef PD_NH_TEST_H
#define PD_NH_TEST_H

#include "../../module/core/nh.h"

/* The NH key of the tests' key options: pd_nh_key_seed(42). */
const struct pd_nh_key *pd_kt_nh(void);

#endif /* PD_NH_TEST_H */
