/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture files, read one record at a time and written back in their own
 * format: Wireshark's libwiretap, the reader and writer editcap uses.
 *
 * Why libwiretap and not libpcap: it reads every format editcap reads
 * (pcap and its variants, pcapng, snoop, ERF, ... compressed or not, from
 * a file or from standard input), gives each record its own link type
 * (a merged pcapng file's interfaces may differ in link type and
 * snapshot length: libpcap refuses those), hands out the complete records
 * of a capture cut in the middle of its last one and then says so
 * (libpcap refuses the whole file), and writes a pcapng file's interfaces
 * and per-packet options back as they were.
 *
 * Memory: one record's buffer; nothing grows with the capture.
 */
#ifndef PD_SIM_CAPTURE_H
#define PD_SIM_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "linktype.h"

#define CAP_MAX_OUTPUTS 2

struct capture;

struct cap_frame {
	const uint8_t *data;
	uint32_t caplen;	/* bytes captured */
	uint32_t origlen;	/* bytes on the wire */
	enum link_type link;	/* LINK_UNKNOWN: encap names it */
	int encap;		/* libwiretap's encapsulation */
	uint64_t t_ns;		/* capture time, ns since the epoch */
	bool packet;		/* a packet (else another kind of record) */
};

/* How a capture ended (after cap_next() returned 0 or -1). */
struct cap_end {
	bool cut;		/* the last record was cut short */
	uint64_t offset;	/* the cut (or bad) record's byte offset */
	char msg[256];		/* the reader's words, if any */
};

/* path "-" is standard input. NULL with a message in err. */
struct capture *cap_open(const char *path, char *err, size_t errlen);
/* 1: the next record in *f; 0: the end; -1: a read error (cap_ended). */
int cap_next(struct capture *c, struct cap_frame *f);
const struct cap_end *cap_ended(const struct capture *c);
/* The input's file format, e.g. "pcap", "pcapng". */
const char *cap_format(const struct capture *c);
/* The encapsulation's name, for messages. */
const char *cap_encap_name(int encap);
/*
 * An output in the input's format (pcapng if that format cannot be
 * written or cannot hold this link type: *fallback set), written to a
 * duplicate of fd (the caller keeps fd); name is for messages. Its index,
 * or -1 with a message in err.
 */
int cap_add_output(struct capture *c, const char *name, int fd,
		   bool *fallback, char *err, size_t errlen);
/* Write the record cap_next() returned last to output i: 0 or -1. */
int cap_write(struct capture *c, int i, char *err, size_t errlen);
/*
 * Close output i, writing what it buffered: 0, or -1 if that failed (a
 * message in err, unless err is NULL).
 */
int cap_close_output(struct capture *c, int i, char *err, size_t errlen);
/* Close the input and the outputs not closed yet. */
void cap_close(struct capture *c);

#endif /* PD_SIM_CAPTURE_H */
