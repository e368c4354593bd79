/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The simulator's capture side: the de-duplicated capture and the copies
 * written out (--write, --write-dups), and what the capture held.
 */
#ifndef PD_SIM_PCAPIO_H
#define PD_SIM_PCAPIO_H

#include <stdbool.h>
#include <stdint.h>

#include "outfile.h"
#include "streams.h"

/* An output: --write (the frames passed) or --write-dups (the copies). */
struct output {
	const char *path;	/* as given; NULL: not asked for */
	struct outfile f;
	int i;			/* the capture's output, or -1 */
	uint64_t frames;	/* frames handed to it */
	bool failed;		/* a write failed (reported once) */
	bool complete;		/* all of it written: renamed into place, or
				 * flushed to standard output, a pipe, a device */
};

struct outputs {
	struct output pass;	/* --write */
	struct output dups;	/* --write-dups */
};

/*
 * What the outputs asked for (NULL: none) name, before anything is
 * opened: an output that is the input (by any path: the same device and
 * inode) or the other output (also a new file by another spelling, or
 * standard output twice) is refused, exit 2; one that cannot be written
 * (its directory missing, a directory) exits 1.
 */
void resolve_outputs(struct outputs *o, const char *pass_path,
		     const char *dups_path, const char *input);
/*
 * Open the outputs, in the capture's format: a temporary file beside
 * each file (outfile.h). One of them on standard output sends the report
 * to standard error. Exits with a message if an output cannot be opened.
 */
void open_outputs(struct stream *st, struct outputs *o);
/* The record read last: to --write if not said a copy, else to --write-dups. */
void out_write(struct stream *st, struct outputs *o, bool said);
/*
 * Close the outputs: each that was written whole replaces its file, one
 * whose write failed is removed (its file left as it was). Then say how
 * the capture ended: a cut last record is a warning (exit 0), another
 * read error or a failed write an error (returns 1).
 */
int close_outputs(struct stream *st, const struct stream_cfg *sc,
		  struct outputs *o);
/* A run that stops early: the outputs removed, their files as they were. */
void abort_outputs(struct stream *st, struct outputs *o);
/* Keyed records of a capture file (a pass before the run). */
uint64_t count_keyed(const struct stream_cfg *sc);
/* The report's capture lines, and its JSON members. */
void capture_print(const struct stream *st, const struct stream_cfg *sc,
		   const struct outputs *o);
void capture_json(const struct stream *st, const struct stream_cfg *sc,
		  const struct outputs *o);

#endif /* PD_SIM_PCAPIO_H */
