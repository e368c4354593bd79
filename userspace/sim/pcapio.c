// SPDX-License-Identifier: GPL-2.0
/* The simulator's capture side: see pcapio.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture.h"
#include "pcapio.h"

static int open_one(struct stream *st, const char *path)
{
	char err[512];
	bool fallback;
	int i = cap_add_output(st->cap, path, &fallback, err, sizeof(err));

	if (i < 0) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		exit(1);
	}
	if (fallback)
		fprintf(stderr, "dedup-sim: %s: written as pcapng (%s files cannot be written, or not with this link type)\n",
			path, cap_format(st->cap));
	return i;
}

void open_outputs(struct stream *st, const char *pass_path,
		  const char *dups_path, struct outputs *o)
{
	memset(o, 0, sizeof(*o));
	o->pass = o->dups = -1;
	o->pass_path = pass_path;
	o->dups_path = dups_path;
	if (pass_path)
		o->pass = open_one(st, pass_path);
	if (dups_path)
		o->dups = open_one(st, dups_path);
	if ((pass_path && !strcmp(pass_path, "-")) ||
	    (dups_path && !strcmp(dups_path, "-"))) {
		/* the capture holds its own copy of standard output */
		fflush(stdout);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			perror("dedup-sim: dup2");
			exit(1);
		}
	}
}

void out_write(struct stream *st, struct outputs *o, bool said)
{
	int i = said ? o->dups : o->pass;
	char err[512];

	if (i < 0 || o->failed)
		return;
	if (cap_write(st->cap, i, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		o->failed = true;
		return;
	}
	if (said)
		o->copies++;
	else
		o->passed++;
}

int close_outputs(struct stream *st, const struct stream_cfg *sc,
		  struct outputs *o)
{
	const struct cap_end *end;
	char err[512];
	int status = o->failed;

	if (sc->kind != STREAM_PCAP)
		return 0;
	end = cap_ended(st->cap);
	if (st->cap_failed) {
		st->pc.ended_cut = end->cut;
		st->pc.end_offset = end->offset;
	}
	if (st->cap_failed && end->cut) {
		fprintf(stderr, "dedup-sim: %s: the capture is cut short: the record at byte %llu is incomplete (%s); the %llu complete records before it were read\n",
			sc->pcap_path, (unsigned long long)end->offset,
			end->msg, (unsigned long long)(st->pc.frames +
						       st->pc.other_records));
	} else if (st->cap_failed) {
		fprintf(stderr, "dedup-sim: %s: cannot read the record at byte %llu: %s; the %llu records before it were read\n",
			sc->pcap_path, (unsigned long long)end->offset,
			end->msg, (unsigned long long)(st->pc.frames +
						       st->pc.other_records));
		status = 1;
	}
	if (cap_close(st->cap, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		status = 1;
	}
	st->cap = NULL;
	return status;
}

uint64_t count_keyed(const struct stream_cfg *sc)
{
	struct stream st;
	struct element e;
	uint64_t n = 0;
	char err[512];

	if (stream_open(&st, sc, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: %s\n", err);
		exit(1);
	}
	while (stream_next(&st, &e))
		n += e.keyed;
	stream_close(&st);
	return n;
}

static uint64_t unparsed(const struct pcap_counts *n)
{
	uint64_t u = 0;
	unsigned int i;

	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		u += n->unparsed[i];
	return u;
}

void capture_print(const struct stream *st, const struct stream_cfg *sc,
		   const struct outputs *o)
{
	const struct pcap_counts *n = &st->pc;
	unsigned int i;

	printf("%-10s %llu frames, %llu keyed (key %s", "capture",
	       (unsigned long long)n->frames, (unsigned long long)n->keyed,
	       pd_key_mode_names[sc->key.mode]);
	if (sc->key.mode == PKTDEDUP_KEY_PACKET)
		printf(", payload %u", sc->key.payload);
	printf("; %llu keyed from frames cut by the snaplen, of %llu cut)\n",
	       (unsigned long long)n->keyed_cut, (unsigned long long)n->cut);
	printf("%-10s %llu passed unkeyed: %llu runt, %llu not IP, "
	       "%llu of an unknown link type", "",
	       (unsigned long long)(n->frames - n->keyed),
	       (unsigned long long)n->link[L2_RUNT],
	       (unsigned long long)n->link[L2_NOT_IP],
	       (unsigned long long)n->link[L2_UNKNOWN_LINK]);
	if (n->link[L2_UNKNOWN_LINK])
		printf(" (%s)", cap_encap_name(n->unknown_encap));
	if (n->unselected)
		printf(", %llu not selected (--proto)",
		       (unsigned long long)n->unselected);
	printf(", %llu not parsed", (unsigned long long)unparsed(n));
	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		if (n->unparsed[i])
			printf(" %s %llu", pd_parse_result_names[i],
			       (unsigned long long)n->unparsed[i]);
	if (n->other_records)
		printf("; %llu other records", (unsigned long long)n->other_records);
	printf("\n");
	if (n->ended_cut)
		printf("%-10s the capture ends inside the record at byte %llu: "
		       "the complete records before it were read\n", "cut",
		       (unsigned long long)n->end_offset);
	if (o->pass >= 0)
		printf("%-10s %llu frames to %s\n", "wrote",
		       (unsigned long long)o->passed, o->pass_path);
	if (o->dups >= 0)
		printf("%-10s %llu copies to %s\n", "wrote",
		       (unsigned long long)o->copies, o->dups_path);
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", *s);
		else
			putchar(*s);
	}
	putchar('"');
}

void capture_json(const struct stream *st, const struct stream_cfg *sc,
		  const struct outputs *o)
{
	const struct pcap_counts *n = &st->pc;
	unsigned int i;

	printf(",\"pcap\":");
	json_str(sc->pcap_path);
	printf(",\"key\":\"%s\",\"payload\":%u,\"frames\":%llu,\"keyed\":%llu,"
	       "\"cut\":%llu,\"keyed_cut\":%llu,\"runt\":%llu,\"not_ip\":%llu,"
	       "\"unknown_link\":%llu,\"other_records\":%llu,"
	       "\"unselected\":%llu,\"unparsed\":{",
	       pd_key_mode_names[sc->key.mode], sc->key.payload,
	       (unsigned long long)n->frames, (unsigned long long)n->keyed,
	       (unsigned long long)n->cut, (unsigned long long)n->keyed_cut,
	       (unsigned long long)n->link[L2_RUNT],
	       (unsigned long long)n->link[L2_NOT_IP],
	       (unsigned long long)n->link[L2_UNKNOWN_LINK],
	       (unsigned long long)n->other_records,
	       (unsigned long long)n->unselected);
	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		printf("%s\"%s\":%llu", i > 1 ? "," : "",
		       pd_parse_result_names[i],
		       (unsigned long long)n->unparsed[i]);
	printf("},\"cut_at\":");
	if (n->ended_cut)
		printf("%llu", (unsigned long long)n->end_offset);
	else
		printf("null");
	printf(",\"written\":");
	if (o->pass >= 0)
		printf("%llu", (unsigned long long)o->passed);
	else
		printf("null");
	printf(",\"written_copies\":");
	if (o->dups >= 0)
		printf("%llu", (unsigned long long)o->copies);
	else
		printf("null");
}
