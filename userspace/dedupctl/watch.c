// SPDX-License-Identifier: GPL-2.0
/* dedupctl stats -w: rates between samples and their lines (watch.h). */
#include <stdio.h>

#include "watch.h"

void watch_rates(const struct watch_sample *prev,
		 const struct watch_sample *cur, struct watch_rates *r)
{
	bool reset = cur->packets < prev->packets ||
		     cur->duplicates < prev->duplicates ||
		     cur->marked < prev->marked || cur->dropped < prev->dropped;
	uint64_t p = reset ? cur->packets : cur->packets - prev->packets;
	uint64_t d = reset ? cur->duplicates : cur->duplicates - prev->duplicates;
	uint64_t m = reset ? cur->marked : cur->marked - prev->marked;
	uint64_t x = reset ? cur->dropped : cur->dropped - prev->dropped;
	double s = cur->ns > prev->ns ? (cur->ns - prev->ns) / 1e9 : 0;

	r->reset = reset;
	r->seconds = s;
	r->packets = s > 0 ? p / s : 0;
	r->duplicates = s > 0 ? d / s : 0;
	r->marked = s > 0 ? m / s : 0;
	r->dropped = s > 0 ? x / s : 0;
	r->share_pct = p ? 100.0 * d / p : 0;
}

int watch_header(char *buf, size_t len)
{
	return snprintf(buf, len, "%12s %12s %7s %12s %12s", "packets/s",
			"dups/s", "dup%", "dropped/s", "marked/s");
}

int watch_line(char *buf, size_t len, const struct watch_rates *r)
{
	return snprintf(buf, len, "%12.1f %12.1f %6.2f%% %12.1f %12.1f%s",
			r->packets, r->duplicates, r->share_pct, r->dropped,
			r->marked, r->reset ? " (reset)" : "");
}
