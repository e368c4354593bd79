// SPDX-License-Identifier: GPL-2.0
/*
 * make bench: cost of one Stable Bloom Filter step per element, as the
 * module runs it (one keyed SipHash-1-3 pass over an IPv4 flow key, K probes, P
 * adjacent decrements from one random start, K sets), against a baseline
 * measured in the same run that decrements P independent random cells
 * (the textbook reading of Algorithm 1). Also: cache lines the decrements
 * touch per element (from the addresses the code touches), and the cost of
 * packet-mode key extraction plus hashing by payload bytes N. Then every
 * filter family through filter.h (pd_filter_step(), as the module runs
 * it), against the SBF in the same run, which is also stepped directly
 * (pd_sbf_step()) to show what the interface costs it; and the window
 * families on a timed stream of new flows, against the SBF on the same
 * stream.
 *
 * Keying a tunnelled packet (config decap: VXLAN, ERSPAN III, GENEVE with
 * options, two tunnels nested) against the bare packet, per key mode
 * (bench_decap.c).
 *
 * The scopes by threads (1, 2, 4, ... up to the CPUs, --threads N for
 * more than 16): a filter per thread, the shared filter in shards, the
 * shared filter behind one lock, one SBF stepped with atomics; and what
 * an atomic operation, a lock and a cache line's move between CPUs cost
 * (bench_scope.c).
 *
 * The worst packet the step's bound allows (bench_bound.c): the largest
 * settings a plan may have, against the defaults in the same run.
 *
 * Last, what a reader of the statistics pays: the occupancy of a 250 MiB
 * shared filter and of 256 CPUs' 256 KiB filters read whole, against the
 * module's bounded read (1 MiB in all, evenly spaced lines), with the
 * bounded read's error against the whole one. It costs the packet path
 * nothing (no per-packet count is kept).
 *
 * Timings are native userspace ones of the same core the module compiles;
 * read the ratios, not the absolute numbers, across machines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"

double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/*
 * Results stored where the compiler cannot drop them, and the trace's
 * per-packet marker (lines-touched.sh): stores that always happen.
 */
static u32 sink;
u32 trace_marker;

void keep(u32 v)
{
	__atomic_store_n(&sink, v, __ATOMIC_RELAXED);
}

void mark(u32 i)
{
	__atomic_store_n(&trace_marker, i, __ATOMIC_RELAXED);
}

/*
 * Flow i's addresses, 10.i.i.i and 192.0.(i >> 24).1, each written whole:
 * as in a received packet, whose bytes were stored long before the key
 * is built (a byte store into an address the key then loads as one word
 * would stall store forwarding and bill the harness to the key).
 */
void flow_addrs(u8 *src, u8 *dst, u64 i)
{
	u32 s = 10 | (u32)(i & 0xffffff) << 8, d = 192 | 2 << 16 |
		(u32)((i >> 24) & 0xff) << 8 | 1u << 24;

	memcpy(src, &s, 4);
	memcpy(dst, &d, 4);
}

/* The hash key of the filters stepped directly (pd_sbf_step()). */
const struct pd_hkey bench_hkey = { { 0x1234567, 0x89abcdef } };

/* The module's two hashes of flow key i from src to dst: one pass. */
void flow_hashes(const struct pd_sbf *f, u8 *src, const u8 *dst,
			u32 i, u32 *h1, u32 *h2)
{
	struct pd_key key;
	u64 h;

	pd_key_build(&key, PKTDEDUP_KEY_FLOW, PD_FAMILY_IPV4, src, dst, IPPROTO_TCP,
		     (u16)(i * 40503u), 443);
	h = pd_key_hash64(&key, &bench_hkey);
	*h1 = (u32)h;
	*h2 = (u32)(h >> 32);
}

/*
 * Machine-readable results (--json FILE): one row per measured figure,
 * {"name", "ns_per_packet", "lines_per_packet" (where measured), "bytes"
 * (memory, where it applies)}; checks and Documentation/results/ rely on
 * the names.
 */
#define JSON_MAX_ROWS 256
#define JSON_NONE -1.0

static struct json_row {
	char name[48];
	double ns, lines, bytes;
} json_rows[JSON_MAX_ROWS];
static unsigned int json_n;

/* Record a row; lines or bytes JSON_NONE where they do not apply. */
void json_row(const char *name, double ns, double lines, double bytes)
{
	struct json_row *r;

	if (json_n == JSON_MAX_ROWS) {
		fprintf(stderr, "bench: more than %u JSON rows\n", JSON_MAX_ROWS);
		exit(1);
	}
	r = &json_rows[json_n++];
	snprintf(r->name, sizeof(r->name), "%s", name);
	r->ns = ns;
	r->lines = lines;
	r->bytes = bytes;
}

int json_write(const char *path)
{
	FILE *out = fopen(path, "w");
	unsigned int i;

	if (!out) {
		perror(path);
		return 1;
	}
	fprintf(out, "[\n");
	for (i = 0; i < json_n; i++) {
		const struct json_row *r = &json_rows[i];

		fprintf(out, "  {\"name\": \"%s\", \"ns_per_packet\": %.2f",
			r->name, r->ns);
		if (r->lines != JSON_NONE)
			fprintf(out, ", \"lines_per_packet\": %.3f", r->lines);
		if (r->bytes != JSON_NONE)
			fprintf(out, ", \"bytes\": %.0f", r->bytes);
		fprintf(out, "}%s\n", i + 1 < json_n ? "," : "");
	}
	fprintf(out, "]\n");
	return fclose(out) ? 1 : 0;
}

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void print_range(const char *name, const void *p, size_t len)
{
	printf("range %s %lx %lx\n", name, (unsigned long)p,
	       (unsigned long)p + len);
}

void fmt_bytes(char *buf, size_t len, u64 b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%.3g MiB", b / 1048576.0);
	else
		snprintf(buf, len, "%.3g KiB", b / 1024.0);
}

void fmt_ns(char *buf, size_t len, u64 ns)
{
	if (ns >= 1000000000)
		snprintf(buf, len, "%.3g s", ns / 1e9);
	else if (ns >= 1000000)
		snprintf(buf, len, "%.3g ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3g us", ns / 1e3);
}

int main(int argc, char **argv)
{
	const char *json = NULL;

	if (argc >= 3 && !strcmp(argv[1], "--json")) {
		json = argv[2];
		argc -= 2;
		argv += 2;
	}
	/* the scope tables' most threads */
	if (argc >= 3 && !strcmp(argv[1], "--threads")) {
		scope_set_threads((unsigned int)strtoul(argv[2], NULL, 10));
		argc -= 2;
		argv += 2;
	}
	/* lines-touched.sh's files: each part takes the rows it knows */
	while (argc >= 3 && !strcmp(argv[1], "--lines")) {
		src_read_lines(argv[2]);
		decap_read_lines(argv[2]);
		argc -= 2;
		argv += 2;
	}
	if (argc == 3 && !strcmp(argv[1], "--trace-decap"))
		return trace_decap((u32)strtoul(argv[2], NULL, 10));
	if (argc == 3 && !strcmp(argv[1], "--trace-sources"))
		return trace_sources((u32)strtoul(argv[2], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "--trace-filter"))
		return trace_filter(argv[2], strtoull(argv[3], NULL, 0),
				    (u32)strtoul(argv[4], NULL, 10));
	if (argc == 5 && !strcmp(argv[1], "--save-window"))
		return save_window(argv[2], argv[3], argv[4]);
	if (argc == 6 && !strcmp(argv[1], "--trace-window"))
		return trace_window(argv[2], argv[3],
				    (u32)strtoul(argv[4], NULL, 10), argv[5]);
	if (argc == 2 && !strcmp(argv[1], "--families")) {
		bench_families();
	} else if (argc == 2 && !strcmp(argv[1], "--layouts")) {
		bench_layouts();
		bench_size_ratio();
	} else if (argc == 2 && !strcmp(argv[1], "--size")) {
		bench_size_ratio();
	} else if (argc == 2 && !strcmp(argv[1], "--windows")) {
		bench_windows();
	} else if (argc == 2 && !strcmp(argv[1], "--sources")) {
		bench_sources();
	} else if (argc == 2 && !strcmp(argv[1], "--occupancy")) {
		bench_occupancy();
	} else if (argc == 2 && !strcmp(argv[1], "--quiet-burst")) {
		bench_quiet_burst();
	} else if (argc == 2 && !strcmp(argv[1], "--decap")) {
		bench_decap();
	} else if (argc == 2 && !strcmp(argv[1], "--scope")) {
		bench_scope();
		bench_atomics();
	} else if (argc == 2 && !strcmp(argv[1], "--placement")) {
		bench_placement();
	} else if (argc == 2 && !strcmp(argv[1], "--shards")) {
		bench_shards();
	} else if (argc == 2 && !strcmp(argv[1], "--step-bound")) {
		bench_step_bound();
	} else if (argc == 2 && !strcmp(argv[1], "--key")) {
		bench_payload();
	} else if (argc == 1) {
		bench_filters();
		bench_layouts();
		bench_size_ratio();
		bench_payload();
		bench_decap();
		bench_scope();
		bench_atomics();
		bench_placement();
		bench_sources();
		bench_families();
		bench_step_bound();
		bench_windows();
		bench_quiet_burst();
		bench_occupancy();
	} else {
		fprintf(stderr, "usage: bench [--json FILE] [--threads N] [--lines FILE]... [--layouts | --size | --families | --step-bound | --key | --windows | --quiet-burst | --sources | --occupancy | --decap | --scope | --placement | --shards]\n");
		return 2;
	}
	return json ? json_write(json) : 0;
}
