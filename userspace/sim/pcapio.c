// SPDX-License-Identifier: GPL-2.0
/* The simulator's capture side: see pcapio.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../common/args.h"
#include "capture.h"
#include "pcapio.h"
#include "json_str.h"

#define sim_usage(...) die_usage("dedup-sim", "dedup-sim --help", __VA_ARGS__)

static void resolve_one(struct output *w, const char *opt, const char *path)
{
	char err[512];

	memset(w, 0, sizeof(*w));
	w->i = -1;
	w->f.fd = -1;
	w->f.slot = -1;
	w->path = path;
	if (path && outfile_resolve(&w->f, opt, path, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		outfile_free(&w->f);
		exit(1);
	}
}

void resolve_outputs(struct outputs *o, const char *pass_path,
		     const char *dups_path, const char *input)
{
	struct output *w[2] = { &o->pass, &o->dups };
	struct file_id in;
	unsigned int k;

	resolve_one(&o->pass, "--write", pass_path);
	if (dups_path && !strcmp(dups_path, "-") && pass_path &&
	    !strcmp(pass_path, "-"))
		sim_usage("--write - and --write-dups - are both standard output: give one of them a file");
	resolve_one(&o->dups, "--write-dups", dups_path);
	if (!input)
		return;
	input_id(input, &in);
	for (k = 0; k < 2; k++) {
		if (!w[k]->path || !file_id_same(&w[k]->f.id, &in))
			continue;
		if (w[k]->f.is_stdout)
			sim_usage("%s - is standard output, which is the input file (--pcap %s): writing it would destroy the capture being read",
				  w[k]->f.opt, input);
		sim_usage("%s %s is the input file (--pcap %s%s): writing it would destroy the capture being read; write elsewhere",
			  w[k]->f.opt, w[k]->path, input,
			  strcmp(input, "-") ? "" : ", standard input");
	}
	if (!pass_path || !dups_path ||
	    !file_id_same(&o->pass.f.id, &o->dups.f.id))
		return;
	for (k = 0; k < 2; k++)
		if (w[k]->f.is_stdout)
			sim_usage("%s - is standard output, which is the file %s %s names",
				  w[k]->f.opt, w[!k]->f.opt, w[!k]->path);
	sim_usage("--write %s and --write-dups %s are the same file",
		  pass_path, dups_path);
}

static void open_one(struct stream *st, struct outputs *o, struct output *w)
{
	char err[512];
	bool fallback;
	int fd;

	if (!w->path)
		return;
	fd = outfile_open(&w->f, err, sizeof(err));
	w->i = fd < 0 ? -1 : cap_add_output(st->cap, w->path, fd, &fallback,
					    err, sizeof(err));
	if (w->i < 0) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		abort_outputs(st, o);
		exit(1);
	}
	if (fallback)
		fprintf(stderr, "dedup-sim: %s: written as pcapng (%s files cannot be written, or not with this link type)\n",
			w->path, cap_format(st->cap));
}

void open_outputs(struct stream *st, struct outputs *o)
{
	open_one(st, o, &o->pass);
	open_one(st, o, &o->dups);
	if (o->pass.f.is_stdout || o->dups.f.is_stdout) {
		/* the capture holds its own copy of standard output */
		fflush(stdout);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			perror("dedup-sim: dup2");
			abort_outputs(st, o);
			exit(1);
		}
	}
}

void out_write(struct stream *st, struct outputs *o, bool said)
{
	struct output *w = said ? &o->dups : &o->pass;
	char err[512];

	if (w->i < 0 || w->failed)
		return;
	if (cap_write(st->cap, w->i, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		w->failed = true;
		return;
	}
	w->frames++;
}

/* Close one output: in place if written whole, else removed. 0 or 1. */
static int finish_one(struct stream *st, struct output *w)
{
	char err[512];

	if (!w->path || w->i < 0)
		return 0;
	if (cap_close_output(st->cap, w->i, err, sizeof(err)) && !w->failed) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		w->failed = true;
	}
	w->i = -1;
	if (!w->failed && outfile_commit(&w->f, err, sizeof(err))) {
		fprintf(stderr, "dedup-sim: cannot write %s\n", err);
		w->failed = true;
	}
	if (!w->failed) {
		w->complete = true;
		return 0;
	}
	outfile_abort(&w->f);
	if (w->f.direct)
		fprintf(stderr, "dedup-sim: %s: what was written is incomplete\n",
			w->f.is_stdout ? "standard output" : w->path);
	else
		fprintf(stderr, "dedup-sim: %s: nothing written (left as it was)\n",
			w->path);
	return 1;
}

void abort_outputs(struct stream *st, struct outputs *o)
{
	struct output *w[2] = { &o->pass, &o->dups };
	unsigned int k;

	for (k = 0; k < 2; k++) {
		if (w[k]->i >= 0 && st->cap)
			cap_close_output(st->cap, w[k]->i, NULL, 0);
		w[k]->i = -1;
		outfile_abort(&w[k]->f);
		outfile_free(&w[k]->f);
	}
}

int close_outputs(struct stream *st, const struct stream_cfg *sc,
		  struct outputs *o)
{
	const struct cap_end *end;
	int status;

	if (sc->kind != STREAM_PCAP)
		return 0;
	status = finish_one(st, &o->pass);
	status |= finish_one(st, &o->dups);
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
	cap_close(st->cap);
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

/*
 * Frames the module counts as unparsed: IP whose key cannot be read, but
 * a tunnel that carries no IP (not-ip), which it counts as not IP.
 */
static uint64_t unparsed(const struct pcap_counts *n)
{
	uint64_t u = 0;
	unsigned int i;

	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		if (i != PD_PARSE_NOT_IP)
			u += n->unparsed[i];
	return u;
}

/* Frames the module counts as not IP: at the link layer or in a tunnel. */
static uint64_t not_ip(const struct pcap_counts *n)
{
	return n->link[L2_NOT_IP] + n->unparsed[PD_PARSE_NOT_IP];
}

/* The decap lines: what is looked into, then per encapsulation. */
static void print_decap(const struct pcap_counts *n,
			const struct pd_key_opts *k)
{
	static const u8 udp[] = { PKTDEDUP_DECAP_VXLAN, PKTDEDUP_DECAP_GENEVE,
				  PKTDEDUP_DECAP_GTPU };
	const u16 port[] = { k->vxlan_port, k->geneve_port, k->gtpu_port };
	const char *sep = "";
	unsigned int i;

	if (!k->decap)
		return;
	printf("%-10s ", "decap");
	for (i = 0; i < PD_NENCAPS; i++)
		if (k->decap & (1u << i)) {
			printf("%s%s", sep, pd_encap_names[i]);
			sep = ",";
		}
	printf(" (tunnel-id %s",
	       k->flags & PKTDEDUP_KEY_F_TUNNEL_ID ? "include" : "ignore");
	sep = "; UDP ports ";
	for (i = 0; i < PD_ARRAY_SIZE(udp); i++)
		if (k->decap & udp[i]) {
			printf("%s%s %u", sep, pd_encap_names[__builtin_ctz(udp[i])],
			       port[i]);
			sep = ", ";
		}
	printf(")\n");
	for (i = 0; i < PD_NENCAPS; i++)
		if (k->decap & (1u << i))
			printf("%-10s %-6s %llu frame%s decapsulated, %llu error%s\n",
			       "", pd_encap_names[i],
			       (unsigned long long)n->decap[i],
			       n->decap[i] == 1 ? "" : "s",
			       (unsigned long long)n->decap_err[i],
			       n->decap_err[i] == 1 ? "" : "s");
}

/* What went into an output, once closed. */
static void print_written(const struct output *w, const char *what)
{
	if (!w->path)
		return;
	if (w->complete)
		printf("%-10s %llu %s to %s\n", "wrote",
		       (unsigned long long)w->frames, what, w->path);
	else if (w->f.direct)
		printf("%-10s an incomplete capture to %s (a write failed)\n",
		       "wrote", w->path);
	else
		printf("%-10s nothing to %s (a write failed; it is left as it was)\n",
		       "wrote", w->path);
}

void capture_print(const struct stream *st, const struct stream_cfg *sc,
		   const struct outputs *o)
{
	const struct pcap_counts *n = &st->pc;
	unsigned int i;

	printf("%-10s %llu frames, %llu keyed (key %s", "capture",
	       (unsigned long long)n->frames, (unsigned long long)n->keyed,
	       pd_key_mode_names[sc->key.mode]);
	if (sc->key.mode == PKTDEDUP_KEY_PACKET &&
	    sc->key.payload == PKTDEDUP_PAYLOAD_ALL)
		printf(", every byte");
	else if (sc->key.mode == PKTDEDUP_KEY_PACKET)
		printf(", payload %u", sc->key.payload);
	if (sc->key.flags & PKTDEDUP_KEY_F_NONIP)
		printf(", nonip dedup: %llu frames not IP keyed",
		       (unsigned long long)n->nonip_keyed);
	printf("; %llu keyed from what frames cut by the snaplen hold, of %llu cut)\n",
	       (unsigned long long)n->keyed_cut, (unsigned long long)n->cut);
	printf("%-10s %llu passed unkeyed: %llu runt, %llu not IP", "",
	       (unsigned long long)(n->frames - n->keyed),
	       (unsigned long long)n->link[L2_RUNT],
	       (unsigned long long)(not_ip(n) - n->nonip_keyed));
	if (n->unparsed[PD_PARSE_NOT_IP])
		printf(" (%llu in a tunnel: %s)",
		       (unsigned long long)n->unparsed[PD_PARSE_NOT_IP],
		       pd_parse_result_names[PD_PARSE_NOT_IP]);
	printf(", %llu of an unknown link type",
	       (unsigned long long)n->link[L2_UNKNOWN_LINK]);
	if (n->link[L2_UNKNOWN_LINK])
		printf(" (%s)", cap_encap_name(n->unknown_encap));
	if (n->unselected)
		printf(", %llu not selected (--proto)",
		       (unsigned long long)n->unselected);
	printf(", %llu not parsed", (unsigned long long)unparsed(n));
	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		if (n->unparsed[i] && i != PD_PARSE_NOT_IP)
			printf(" %s %llu", pd_parse_result_names[i],
			       (unsigned long long)n->unparsed[i]);
	if (n->other_records)
		printf("; %llu other records", (unsigned long long)n->other_records);
	printf("\n");
	if (n->time_back)
		printf("%-10s goes back: %llu frames earlier than a frame before them, the first frame %llu (%.6f s earlier than frame %llu)\n",
		       "time", (unsigned long long)n->time_back,
		       (unsigned long long)n->back_frame,
		       (double)n->back_first_ns / 1e9,
		       (unsigned long long)n->back_before);
	if (n->ended_cut)
		printf("%-10s the capture ends inside the record at byte %llu: "
		       "the complete records before it were read\n", "cut",
		       (unsigned long long)n->end_offset);
	print_decap(n, &sc->key);
	print_written(&o->pass, "frames");
	print_written(&o->dups, "copies");
}

/* frames in the output written whole; 0 if it failed; null: not asked */
static void json_written(const char *name, const struct output *w)
{
	printf(",\"%s\":", name);
	if (w->path)
		printf("%llu", (unsigned long long)(w->complete ? w->frames : 0));
	else
		printf("null");
}

/* "decap": what is looked into, and per encapsulation (every one). */
static void json_decap(const struct pcap_counts *n,
		       const struct pd_key_opts *k)
{
	const char *sep = "";
	unsigned int i, w;

	printf(",\"decap\":{\"encaps\":[");
	for (i = 0; i < PD_NENCAPS; i++)
		if (k->decap & (1u << i)) {
			printf("%s\"%s\"", sep, pd_encap_names[i]);
			sep = ",";
		}
	printf("],\"tunnel_id\":\"%s\",\"vxlan_port\":%u,"
	       "\"geneve_port\":%u,\"gtpu_port\":%u",
	       k->flags & PKTDEDUP_KEY_F_TUNNEL_ID ? "include" : "ignore",
	       k->vxlan_port, k->geneve_port, k->gtpu_port);
	for (w = 0; w < 2; w++) {
		const uint64_t *v = w ? n->decap_err : n->decap;

		printf(",\"%s\":{", w ? "errors" : "frames");
		for (i = 0; i < PD_NENCAPS; i++)
			printf("%s\"%s\":%llu", i ? "," : "", pd_encap_names[i],
			       (unsigned long long)v[i]);
		printf("}");
	}
	printf("}");
}

void capture_json(const struct stream *st, const struct stream_cfg *sc,
		  const struct outputs *o)
{
	const struct pcap_counts *n = &st->pc;
	unsigned int i;

	printf(",\"pcap\":");
	json_str(sc->pcap_path);
	printf(",\"nonip\":\"%s\",\"nonip_keyed\":%llu",
	       sc->key.flags & PKTDEDUP_KEY_F_NONIP ? "dedup" : "pass",
	       (unsigned long long)n->nonip_keyed);
	printf(",\"key\":\"%s\",\"payload\":%u,\"frames\":%llu,\"keyed\":%llu,"
	       "\"cut\":%llu,\"keyed_cut\":%llu,\"runt\":%llu,\"not_ip\":%llu,"
	       "\"unknown_link\":%llu,\"other_records\":%llu,"
	       "\"unselected\":%llu,\"unparsed\":{",
	       pd_key_mode_names[sc->key.mode], sc->key.payload,
	       (unsigned long long)n->frames, (unsigned long long)n->keyed,
	       (unsigned long long)n->cut, (unsigned long long)n->keyed_cut,
	       (unsigned long long)n->link[L2_RUNT],
	       (unsigned long long)not_ip(n),
	       (unsigned long long)n->link[L2_UNKNOWN_LINK],
	       (unsigned long long)n->other_records,
	       (unsigned long long)n->unselected);
	for (i = 1; i < PD_PARSE_NRESULTS; i++)
		printf("%s\"%s\":%llu", i > 1 ? "," : "",
		       pd_parse_result_names[i],
		       (unsigned long long)n->unparsed[i]);
	printf("},\"time_back\":%llu,\"time_back_at\":",
	       (unsigned long long)n->time_back);
	if (n->time_back)
		printf("%llu", (unsigned long long)n->back_frame);
	else
		printf("null");
	printf(",\"cut_at\":");
	if (n->ended_cut)
		printf("%llu", (unsigned long long)n->end_offset);
	else
		printf("null");
	json_written("written", &o->pass);
	json_written("written_copies", &o->dups);
	json_decap(n, &sc->key);
}
