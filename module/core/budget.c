// SPDX-License-Identifier: GPL-2.0
/* The memory budget of a namespace: see budget.h. */
#include "budget.h"

enum pd_budget_way pd_budget_way(u64 cap, u64 held_total, u64 held_part,
				 u64 need)
{
	u64 others = held_total - held_part;

	if (held_part > held_total || need > cap || others > cap - need)
		return PD_BUDGET_REFUSE;
	/* room left beside the new part and the others */
	if (held_part <= cap - need - others)
		return PD_BUDGET_SWAP;
	return PD_BUDGET_IN_PLACE;
}
