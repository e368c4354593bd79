// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl -o prometheus: the Prometheus text exposition format (version
 * 0.0.4), as node_exporter's textfile collector reads it. Every family
 * has its HELP and TYPE lines and all its series together; names carry
 * the pktdedup_ prefix, counters end in _total, and units are base units
 * (bytes, seconds, ratios from 0 to 1). Every series has a netns label
 * (the namespace's inode number, as readlink /proc/self/ns/net shows it);
 * per-CPU series a cpu label, per-device series a dev label. The names
 * are documented in dedupctl(8).
 */
#include <stddef.h>
#include <string.h>

#include "prom.h"

/* A sample's value: an exact integer, or a real number. */
struct val {
	bool real;
	uint64_t u;
	double d;
};

static void head(FILE *f, const char *name, const char *type,
		 const char *help)
{
	fprintf(f, "# HELP pktdedup_%s %s\n# TYPE pktdedup_%s %s\n", name, help,
		name, type);
}

/* A label value, escaped as the format asks (\\, \", \n). */
static void label_value(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

/*
 * pktdedup_NAME{netns="N"[,cpu="C"][,KEY="VALUE"]} V; cpu < 0: no cpu
 * label; key NULL: no third label.
 */
static void sample(FILE *f, const char *name, uint64_t netns, long cpu,
		   const char *key, const char *value, struct val v)
{
	fprintf(f, "pktdedup_%s{netns=\"%llu\"", name, (unsigned long long)netns);
	if (cpu >= 0)
		fprintf(f, ",cpu=\"%ld\"", cpu);
	if (key) {
		fprintf(f, ",%s=\"", key);
		label_value(f, value);
		fputc('"', f);
	}
	if (v.real)
		fprintf(f, "} %.9g\n", v.d);
	else
		fprintf(f, "} %llu\n", (unsigned long long)v.u);
}

static struct val u(uint64_t x)
{
	return (struct val){ .u = x };
}

static struct val real(double x)
{
	return (struct val){ .real = true, .d = x };
}

/* A family of one series (no cpu label). */
static void single(FILE *f, uint64_t netns, const char *name,
		   const char *type, const char *help, struct val v)
{
	head(f, name, type, help);
	sample(f, name, netns, -1, NULL, NULL, v);
}

/* ---- stats ---- */

enum row_value {
	RV_PACKETS, RV_DUPLICATES, RV_MARKED, RV_DROPPED, RV_UNPARSED, RV_NONIP,
	RV_ZERO_CELLS, RV_SET_BITS,
	RV_WINDOW_S, RV_EFFECTIVE_S, RV_SHORTEST_S,
	RV_WINDOW_P, RV_EFFECTIVE_P, RV_SHORTEST_P,
	RV_ENTRIES, RV_EARLY, RV_RATE, RV_MEMORY_S, RV_MEMORY_P,
};

static const struct {
	enum row_value what;
	const char *name, *type, *help;
} row_families[] = {
	{ RV_PACKETS, "packets_total", "counter",
	  "Packets pktdedup looked at (parsed) since the last reset." },
	{ RV_DUPLICATES, "duplicate_packets_total", "counter",
	  "Packets the filter took for copies of a packet seen before." },
	{ RV_MARKED, "marked_packets_total", "counter",
	  "Duplicates marked (action mark)." },
	{ RV_DROPPED, "dropped_packets_total", "counter",
	  "Duplicates dropped (action drop)." },
	{ RV_UNPARSED, "unparsed_packets_total", "counter",
	  "Packets the parser could not read, passed untouched." },
	{ RV_NONIP, "nonip_frames_total", "counter",
	  "Hooks ingress, bridge-* and xdp (a tunnel's inner frame at any hook): frames neither IPv4 nor IPv6 (ARP, LLDP), passed untouched and not in packets." },
	{ RV_ZERO_CELLS, "filter_zero_cells_ratio", "gauge",
	  "Counting filter families: the fraction of zero cells." },
	{ RV_SET_BITS, "filter_load_ratio", "gauge",
	  "Bit-array filter families: the load, the fraction of set bits." },
	{ RV_WINDOW_S, "window_seconds", "gauge",
	  "Time window families: the window asked." },
	{ RV_EFFECTIVE_S, "window_effective_seconds", "gauge",
	  "Time window families: the window at the latest expiry (shorter than asked under a flood)." },
	{ RV_SHORTEST_S, "window_shortest_seconds", "gauge",
	  "Time window families: the shortest effective window since the filters were built." },
	{ RV_WINDOW_P, "window_packets", "gauge",
	  "Packet window families: the window asked, in packets." },
	{ RV_EFFECTIVE_P, "window_effective_packets", "gauge",
	  "Packet window families: the window at the latest expiry, in packets." },
	{ RV_SHORTEST_P, "window_shortest_packets", "gauge",
	  "Packet window families: the shortest effective window, in packets." },
	{ RV_ENTRIES, "window_entries", "gauge",
	  "Window families: the packets the window remembers now." },
	{ RV_EARLY, "window_early_expiries_total", "counter",
	  "Window families: packets or subwindows forgotten before their time because the window was full." },
	{ RV_RATE, "packet_rate", "gauge",
	  "Packets per second over all CPUs, measured between reads of the statistics at least a second apart." },
	{ RV_MEMORY_S, "filter_memory_seconds", "gauge",
	  "How long the filter remembers at the current rate: copies up to this long after their original are caught (SBF: with 99%); the shortest of the CPUs' filters." },
	{ RV_MEMORY_P, "filter_memory_packets", "gauge",
	  "How far apart a packet and its copy may be, in packets one filter sees, and still be caught (SBF: with 99%)." },
};

/* Row r's value of what, if it has one. */
static bool row_value(const struct prom_stats_row *r, enum row_value what,
		      struct val *v)
{
	bool win = r->window, t = r->timed;

	switch (what) {
	case RV_PACKETS:
		*v = u(r->packets);
		return true;
	case RV_DUPLICATES:
		*v = u(r->duplicates);
		return true;
	case RV_MARKED:
		*v = u(r->marked);
		return true;
	case RV_DROPPED:
		*v = u(r->dropped);
		return true;
	case RV_UNPARSED:
		*v = u(r->unparsed);
		return true;
	case RV_NONIP:
		*v = u(r->nonip);
		return true;
	case RV_ZERO_CELLS:
	case RV_SET_BITS:
		*v = real(r->occupancy_ppb / 1e9);
		return r->has_occupancy && r->set_bits == (what == RV_SET_BITS);
	case RV_WINDOW_S:
		*v = real(r->window_asked / 1e9);
		return win && t;
	case RV_EFFECTIVE_S:
		*v = real(r->window_effective / 1e9);
		return win && t;
	case RV_SHORTEST_S:
		*v = real(r->window_shortest / 1e9);
		return win && t;
	case RV_WINDOW_P:
		*v = u(r->window_asked);
		return win && !t;
	case RV_EFFECTIVE_P:
		*v = u(r->window_effective);
		return win && !t;
	case RV_SHORTEST_P:
		*v = u(r->window_shortest);
		return win && !t;
	case RV_ENTRIES:
		*v = u(r->window_entries);
		return win;
	case RV_EARLY:
		*v = u(r->early_expiries);
		return win;
	case RV_RATE:
		*v = u(r->rate_pps);
		return r->has_rate;
	case RV_MEMORY_S:
		*v = real(r->memory_ns / 1e9);
		return r->has_memory_ns;
	case RV_MEMORY_P:
		*v = u(r->memory_packets);
		return r->has_memory_packets;
	}
	return false;
}

static void prom_config(FILE *f, uint64_t netns, const struct prom_config *c)
{
	/* settings alone: the state, which enable and disable flip, apart */
	head(f, "info", "gauge",
	     "The instance's settings as labels; the value is 1. seed is the seed's mode (fixed or random): a fixed seed's value is never exported, whoever knows it can predict the filter.");
	fprintf(f, "pktdedup_info{netns=\"%llu\",filter=\"",
		(unsigned long long)netns);
	label_value(f, c->filter);
	fputs("\",key=\"", f);
	label_value(f, c->key);
	fputs("\",action=\"", f);
	label_value(f, c->action);
	fputs("\",scope=\"", f);
	label_value(f, c->scope);
	fputs("\",hook=\"", f);
	label_value(f, c->hook);
	/* a fixed seed's value never: whoever knows it predicts the filter */
	fprintf(f, "\",seed=\"%s\"} 1\n", c->seed_fixed ? "fixed" : "random");
	single(f, netns, "active", "gauge",
	       "1 when the instance is active (its filters built, its hooks registered), 0 when idle.",
	       u(c->active ? 1 : 0));
	single(f, netns, "filters", "gauge",
	       "Filters in use: one per CPU (scope percpu) or one (shared); 0 when idle.",
	       u(c->active ? c->filters : 0));
	single(f, netns, "filter_size_bytes", "gauge",
	       "Memory asked for each filter (dedupctl set mem).",
	       u(c->filter_mem));
	if (c->active && c->has_fp_bound)
		single(f, netns, "filter_fp_bound_ratio", "gauge",
		       "The planner's bound on the false-positive rate.",
		       real(c->fp_bound_ppb / 1e9));
	head(f, "memory_bytes", "gauge",
	     "Bytes this namespace's instance holds, by part.");
	sample(f, "memory_bytes", netns, -1, "part", "filters",
	       u(c->mem_filters));
	sample(f, "memory_bytes", netns, -1, "part", "sources",
	       u(c->mem_sources));
	single(f, netns, "memory_limit_bytes", "gauge",
	       "The namespace's memory cap (max_netns_mem or max_userns_mem).",
	       u(c->mem_cap));
	single(f, netns, "memory_peak_bytes", "gauge",
	       "Most bytes the namespace held at any moment since it was created.",
	       u(c->mem_peak));
}

/* The frames and errors of each encapsulation looked into, by encap. */
static void prom_decap(FILE *f, uint64_t netns,
		       const struct prom_stats_row *rows, unsigned int n)
{
	static const struct {
		const char *name, *help;
		bool errors;
	} fams[] = {
		{ "decap_frames_total",
		  "Frames that came through each encapsulation looked into (config decap), keyed by the packet inside.",
		  false },
		{ "decap_errors_total",
		  "Frames whose header of the encapsulation was malformed or cut short (also in unparsed_packets_total).",
		  true },
	};
	unsigned int fam, i, e;
	bool any = false;

	for (i = 0; i < n; i++)
		any |= rows[i].ndecap > 0;
	if (!any)
		return;
	for (fam = 0; fam < sizeof(fams) / sizeof(fams[0]); fam++) {
		head(f, fams[fam].name, "counter", fams[fam].help);
		for (i = 0; i < n; i++)
			for (e = 0; e < rows[i].ndecap && e < PROM_ENCAPS_MAX;
			     e++)
				sample(f, fams[fam].name, netns,
				       rows[i].has_cpu ? (long)rows[i].cpu : -1,
				       "encap", rows[i].decap[e].encap,
				       u(fams[fam].errors ?
					 rows[i].decap[e].errors :
					 rows[i].decap[e].frames));
	}
}

/*
 * The counters of each named device, by dev: families of their own, so
 * that summing a family over its series never counts a packet twice.
 */
static void prom_devs(FILE *f, uint64_t netns,
		      const struct prom_stats_row *rows, unsigned int n)
{
	static const struct {
		const char *name, *help;
	} fams[] = {
		{ "device_packets_total",
		  "Packets looked at (parsed) on each named device since the last reset." },
		{ "device_duplicate_packets_total",
		  "Packets on each named device the filter took for copies of a packet seen before." },
		{ "device_marked_packets_total",
		  "Duplicates on each named device marked (action mark)." },
		{ "device_dropped_packets_total",
		  "Duplicates on each named device dropped (action drop)." },
	};
	unsigned int fam, i, d;
	bool any = false;

	for (i = 0; i < n; i++)
		any |= rows[i].ndev > 0;
	if (!any)
		return;
	for (fam = 0; fam < sizeof(fams) / sizeof(fams[0]); fam++) {
		head(f, fams[fam].name, "counter", fams[fam].help);
		for (i = 0; i < n; i++)
			for (d = 0; d < rows[i].ndev && d < PROM_DEVS_MAX;
			     d++) {
				const struct prom_dev *p = &rows[i].dev[d];
				uint64_t v[] = { p->packets, p->duplicates,
						 p->marked, p->dropped };

				sample(f, fams[fam].name, netns,
				       rows[i].has_cpu ? (long)rows[i].cpu : -1,
				       "dev", p->name, u(v[fam]));
			}
	}
}

void prom_stats(FILE *f, uint64_t netns, const struct prom_config *cfg,
		const struct prom_stats_row *rows, unsigned int n)
{
	unsigned int fam, i, a;
	bool loads = false;
	struct val v;

	if (cfg)
		prom_config(f, netns, cfg);
	for (fam = 0; fam < sizeof(row_families) / sizeof(row_families[0]);
	     fam++) {
		bool headed = false;

		for (i = 0; i < n; i++) {
			if (!row_value(&rows[i], row_families[fam].what, &v))
				continue;
			if (!headed)
				head(f, row_families[fam].name,
				     row_families[fam].type,
				     row_families[fam].help);
			headed = true;
			sample(f, row_families[fam].name, netns,
			       rows[i].has_cpu ? (long)rows[i].cpu : -1, NULL,
			       NULL, v);
		}
	}
	prom_decap(f, netns, rows, n);
	prom_devs(f, netns, rows, n);
	for (i = 0; i < n; i++)
		loads |= rows[i].nloads > 0;
	if (!loads)
		return;
	head(f, "filter_array_load", "gauge",
	     "Bit-array filter families, one filter: the load of each array (its set bits).");
	for (i = 0; i < n; i++)
		for (a = 0; a < rows[i].nloads && a < PROM_LOADS_MAX; a++) {
			char idx[16];

			snprintf(idx, sizeof(idx), "%u", a);
			sample(f, "filter_array_load", netns,
			       rows[i].has_cpu ? (long)rows[i].cpu : -1, "array",
			       idx, u(rows[i].loads[a]));
		}
}

/* ---- distinct and sources ---- */

void prom_distinct(FILE *f, uint64_t netns, const struct prom_distinct *d)
{
	single(f, netns, "distinct_sources", "gauge",
	       "Distinct source addresses in the span (HyperLogLog estimate).",
	       u(d->src));
	single(f, netns, "distinct_destinations", "gauge",
	       "Distinct destination addresses in the span (HyperLogLog estimate).",
	       u(d->dst));
	single(f, netns, "distinct_span_seconds", "gauge",
	       "The recent span the distinct counts cover.",
	       real(d->last_ms / 1e3));
}

void prom_sources(FILE *f, uint64_t netns, const struct prom_sources *s)
{
	static const char *const outcome[] = {
		"sent", "overrun", "ratelimited", "failed"
	};
	uint64_t events[] = {
		s->events_sent, s->events_overrun, s->events_ratelimited,
		s->events_failed
	};
	unsigned int i;

	single(f, netns, "sources_enabled", "gauge",
	       "Whether the source windows are on (1) or off (0).",
	       u(s->enabled));
	single(f, netns, "sources_window_seconds", "gauge",
	       "The source window.", real(s->window_ms / 1e3));
	single(f, netns, "sources_subwindows", "gauge",
	       "Sub-windows of the source window.", u(s->subwindows));
	single(f, netns, "sources_top_counters", "gauge",
	       "Top-talker counters per sub-window per CPU (0: top talkers off).",
	       u(s->counters));
	single(f, netns, "sources_new_enabled", "gauge",
	       "Whether the new-source filter and events are on (1) or off (0).",
	       u(s->new_on));
	single(f, netns, "sources_new_filter_bytes", "gauge",
	       "Memory of the new-source filter of each CPU.", u(s->new_mem));
	single(f, netns, "sources_new_gap_packets", "gauge",
	       "How far apart a source's packets may be and not be new again (the planner's gap).",
	       u(s->new_gap));
	single(f, netns, "sources_event_rate_limit", "gauge",
	       "Most new-source events sent per second.", u(s->event_rate));
	single(f, netns, "sources_ring_entries", "gauge",
	       "New sources each CPU's ring remembers.", u(s->ring));
	single(f, netns, "sources_memory_bytes", "gauge",
	       "Bytes the source windows and new-source filters hold.",
	       u(s->mem_total));
	single(f, netns, "sources_new_seen_total", "counter",
	       "Sources new to the new-source filter of the CPU that saw them.",
	       u(s->new_seen));
	single(f, netns, "sources_new_repeat_total", "counter",
	       "Sources new to a CPU that another CPU had already reported.",
	       u(s->events_repeat));
	head(f, "sources_events_total", "counter",
	     "New-source events, by outcome: sent, lost to a ring overrun, over the rate limit, or failed to send.");
	for (i = 0; i < 4; i++)
		sample(f, "sources_events_total", netns, -1, "outcome",
		       outcome[i], u(events[i]));
}
