/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The memory budget of a namespace: everything it holds, in parts (its
 * filters, its source windows), under one cap. A part is replaced by a new
 * one of `need` bytes in one of two ways: the new part is built beside the
 * old one and then takes its place (no moment without state, but both are
 * held at once), or the old part is freed first and the new one built in
 * its room. The first is taken whenever old and new together fit under
 * the cap; the second when only the new one fits beside the other parts;
 * otherwise the change is refused before anything is allocated.
 */
#ifndef PD_BUDGET_H
#define PD_BUDGET_H

#include "pd_port.h"

enum pd_budget_way {
	PD_BUDGET_SWAP,		/* build beside the old part, then swap */
	PD_BUDGET_IN_PLACE,	/* free the old part, then build */
	PD_BUDGET_REFUSE,	/* the new part does not fit */
};

/*
 * How a part holding held_part bytes (of held_total held in all, with
 * held_part <= held_total) can be replaced by one of need bytes under cap.
 * No arithmetic overflows, whatever the values.
 */
enum pd_budget_way pd_budget_way(u64 cap, u64 held_total, u64 held_part,
				 u64 need);

#endif /* PD_BUDGET_H */
