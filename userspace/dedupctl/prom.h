/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedupctl -o prometheus: the counters of stats, distinct and sources in
 * the Prometheus text format (node_exporter's textfile collector). Pure
 * functions from the values to the text, so that tests/native/prom_test.c
 * checks them without a kernel; dedupctl.c and sources.c fill the structs.
 */
#ifndef DEDUPCTL_PROM_H
#define DEDUPCTL_PROM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Most per-array loads a row carries (the bit-array families' K). */
#define PROM_LOADS_MAX 32
/* Most encapsulations a row carries (the decap flags). */
#define PROM_ENCAPS_MAX 32

/* The frames of one encapsulation looked into (stats decap). */
struct prom_decap {
	char encap[16];			/* its name: the label encap */
	uint64_t frames, errors;
};

/* Most named devices a row carries (PKTDEDUP_DEVS_MAX). */
#define PROM_DEVS_MAX 8

/* The counters of one named device (stats device, the totals only). */
struct prom_dev {
	char name[16];			/* the label dev */
	uint64_t packets, duplicates, marked, dropped;
};

/* One GET_STATS reply: the totals (has_cpu false) or one CPU's. */
struct prom_stats_row {
	bool has_cpu;
	uint32_t cpu;
	uint64_t packets, duplicates, marked, dropped, unparsed;
	uint64_t nonip;			/* ingress and bridge hooks' non-IP frames */
	bool has_occupancy;
	bool set_bits;			/* bit arrays; else zero cells */
	uint32_t occupancy_ppb;
	unsigned int nloads;
	uint64_t loads[PROM_LOADS_MAX];
	bool window;			/* a window family's state follows */
	bool timed;			/* in ns; else in packets */
	uint64_t window_asked, window_effective, window_shortest;
	uint64_t window_entries, early_expiries;
	bool has_rate;			/* the totals: rate measured */
	uint64_t rate_pps;
	bool has_memory_packets, has_memory_ns;	/* the totals, when known */
	uint64_t memory_packets, memory_ns;
	unsigned int ndecap;		/* config decap: one per encapsulation */
	struct prom_decap decap[PROM_ENCAPS_MAX];
	unsigned int ndev;		/* devices named: one per name */
	struct prom_dev dev[PROM_DEVS_MAX];
};

/* What GET_CONFIG says of the instance (stats totals only). */
struct prom_config {
	bool active;
	const char *filter, *key, *action, *scope, *hook;
	bool seed_fixed;		/* whether, never the value */
	uint32_t filters;		/* filters in use (one per CPU, or 1) */
	uint64_t filter_mem;		/* bytes per filter asked */
	bool has_fp_bound;
	uint32_t fp_bound_ppb;
	uint64_t mem_filters, mem_sources, mem_cap, mem_peak;
};

struct prom_distinct {
	uint32_t last_ms;		/* the span counted */
	uint64_t src, dst;
};

struct prom_sources {
	bool enabled, new_on;
	uint32_t window_ms, subwindows, counters, event_rate, ring;
	uint64_t new_mem, new_gap, mem_total;
	uint64_t new_seen, events_repeat, events_sent, events_overrun;
	uint64_t events_ratelimited, events_failed;
};

/*
 * The stats families of rows[0..n) (totals, or one row per CPU, labelled
 * cpu="N"), every series labelled netns="NETNS"; with cfg (may be NULL)
 * first the instance's configuration gauges; the named devices' counters
 * in families of their own (pktdedup_device_*), labelled dev="NAME".
 */
void prom_stats(FILE *f, uint64_t netns, const struct prom_config *cfg,
		const struct prom_stats_row *rows, unsigned int n);
void prom_distinct(FILE *f, uint64_t netns, const struct prom_distinct *d);
void prom_sources(FILE *f, uint64_t netns, const struct prom_sources *s);

#endif /* DEDUPCTL_PROM_H */
