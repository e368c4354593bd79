/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's capture side: the de-duplicated capture and the copies
 * written out (--write, --write-dups), and what the capture held.
 */
#ifndef PD_SIM_PCAPIO_H
#define PD_SIM_PCAPIO_H

#include <stdbool.h>
#include <stdint.h>

#include "streams.h"

struct outputs {
	int pass;		/* --write: the output's index, or -1 */
	int dups;		/* --write-dups */
	const char *pass_path, *dups_path;
	uint64_t passed, copies;	/* frames written to each */
	bool failed;		/* a write failed (reported once) */
};

/*
 * Open the outputs asked for (NULL: none), in the capture's format. One
 * of them on standard output sends the report to standard error. Exits
 * with a message if an output cannot be opened.
 */
void open_outputs(struct stream *st, const char *pass_path,
		  const char *dups_path, struct outputs *o);
/* The record read last: to --write if not said a copy, else to --write-dups. */
void out_write(struct stream *st, struct outputs *o, bool said);
/*
 * Close the outputs and say how the capture ended: a cut last record is
 * a warning (exit 0), another read error or a failed write an error
 * (returns 1).
 */
int close_outputs(struct stream *st, const struct stream_cfg *sc,
		  struct outputs *o);
/* Keyed records of a capture file (a pass before the run). */
uint64_t count_keyed(const struct stream_cfg *sc);
/* The report's capture lines, and its JSON members. */
void capture_print(const struct stream *st, const struct stream_cfg *sc,
		   const struct outputs *o);
void capture_json(const struct stream *st, const struct stream_cfg *sc,
		  const struct outputs *o);

#endif /* PD_SIM_PCAPIO_H */
