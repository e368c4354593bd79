/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A row of distinct-count sketches for a fleet's database, as dedupctl
 * (the module's sketches) and dedup-sim (a capture's) write them: CSV that
 * psql's \copy takes,
 *
 *   host,fingerprint,start,end,src,dst
 *
 * the key's fingerprint in 16 hex digits, start and end in RFC 3339 UTC to
 * the microsecond, the sketches in PostgreSQL hll's storage format
 * (core/hllpg.h) as "\x" and hex digits, the text form psql reads.
 */
#ifndef PD_SKETCHROW_H
#define PD_SKETCHROW_H

#include <stdint.h>
#include <stdio.h>

struct sketch_row {
	const char *host;
	uint64_t fingerprint;
	uint64_t start_ns, end_ns;	/* since the epoch */
	const uint8_t *src, *dst;	/* the encodings */
	uint32_t src_len, dst_len;
};

/* The row as CSV; the host quoted if it needs to be. */
void sketch_row_csv(FILE *f, const struct sketch_row *r);
/*
 * The row as a JSON object on standard output (no line break): the same
 * fields, the times and sketches as strings.
 */
void sketch_row_json(const struct sketch_row *r);
/* t (ns since the epoch) in RFC 3339 UTC, to the microsecond. */
void rfc3339_utc(uint64_t t, char *out, size_t len);

#endif /* PD_SKETCHROW_H */
