/* SPDX-License-Identifier: GPL-2.0 */
/* What the shared scope's suites share (shard_test.c, shard_mt_test.c). */
#ifndef PD_SHARD_TEST_H
#define PD_SHARD_TEST_H

#include "../../module/core/key.h"

/* A flow key of its own for every id: its halves are the addresses. */
void pd_st_key(struct pd_key *key, u64 id);

#endif /* PD_SHARD_TEST_H */
