// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl's -o prometheus text (userspace/dedupctl/prom.c) from known
 * counters, exactly, and as Debian's promtool checks it (check metrics:
 * the format and its lint, which must say nothing); and the rates of
 * stats -w (watch.c), counter resets included.
 */
#include <kunit/test.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../userspace/dedupctl/prom.h"
#include "../../userspace/dedupctl/watch.h"

#define NETNS 4026531840ULL

/* What f wrote: a malloc'd string (the stream is closed). */
static char *text_of(FILE *f, char **buf)
{
	fclose(f);
	return *buf;
}

/*
 * promtool check metrics on text: its exit status, its output in out (a
 * format error or a lint problem; nothing when the text is right).
 */
static int promtool(const char *text, char *out, size_t len)
{
	char path[] = "/tmp/prom_test.XXXXXX", cmd[128];
	size_t got = 0;
	FILE *p;
	int fd, rc;

	out[0] = '\0';
	if (access("/usr/bin/promtool", X_OK)) {
		snprintf(out, len, "no /usr/bin/promtool (Debian's prometheus: scripts/install-deps.sh)");
		return -1;
	}
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		snprintf(out, len, "cannot write %s", path);
		return -1;
	}
	close(fd);
	snprintf(cmd, sizeof(cmd), "/usr/bin/promtool check metrics < %s 2>&1",
		 path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (got + 1 < len && fgets(out + got, (int)(len - got), p))
		got = strlen(out);
	rc = pclose(p);
	unlink(path);
	return rc;
}

static void expect_promtool_clean(struct kunit *test, const char *text)
{
	char out[4096];
	int rc = promtool(text, out, sizeof(out));

	KUNIT_EXPECT_EQ_MSG(test, rc, 0, "promtool: %s", out);
	KUNIT_EXPECT_STREQ(test, out, "");
}

/* The totals of an SBF instance, with its configuration: every line. */
static void prom_stats_totals_exact(struct kunit *test)
{
	struct prom_config cfg = {
		.active = true, .filter = "sbf", .key = "packet",
		.action = "drop", .scope = "percpu", .hook = "ingress",
		.filters = 2,
		.filter_mem = 262144, .has_fp_bound = true,
		.fp_bound_ppb = 10000000, .mem_filters = 524560,
		.mem_sources = 65536, .mem_cap = 268435456,
		.mem_peak = 600000,
	};
	struct prom_stats_row row = {
		.packets = 1000, .duplicates = 500, .marked = 0,
		.dropped = 500, .unparsed = 3, .nonip = 17,
		.has_occupancy = true,
		.occupancy_ppb = 987654321,
	};
	static const char want[] =
		"# HELP pktdedup_info The instance's settings as labels; the value is 1. seed is the seed's mode (fixed or random): a fixed seed's value is never exported, whoever knows it can predict the filter.\n"
		"# TYPE pktdedup_info gauge\n"
		"pktdedup_info{netns=\"4026531840\",filter=\"sbf\",key=\"packet\",action=\"drop\",scope=\"percpu\",hook=\"ingress\",seed=\"random\"} 1\n"
		"# HELP pktdedup_active 1 when the instance is active (its filters built, its hooks registered), 0 when idle.\n"
		"# TYPE pktdedup_active gauge\n"
		"pktdedup_active{netns=\"4026531840\"} 1\n"
		"# HELP pktdedup_filters Filters in use: one per CPU (scope percpu) or one (shared); 0 when idle.\n"
		"# TYPE pktdedup_filters gauge\n"
		"pktdedup_filters{netns=\"4026531840\"} 2\n"
		"# HELP pktdedup_filter_size_bytes Memory asked for each filter (dedupctl set mem).\n"
		"# TYPE pktdedup_filter_size_bytes gauge\n"
		"pktdedup_filter_size_bytes{netns=\"4026531840\"} 262144\n"
		"# HELP pktdedup_filter_fp_bound_ratio The planner's bound on the false-positive rate.\n"
		"# TYPE pktdedup_filter_fp_bound_ratio gauge\n"
		"pktdedup_filter_fp_bound_ratio{netns=\"4026531840\"} 0.01\n"
		"# HELP pktdedup_memory_bytes Bytes this namespace's instance holds, by part.\n"
		"# TYPE pktdedup_memory_bytes gauge\n"
		"pktdedup_memory_bytes{netns=\"4026531840\",part=\"filters\"} 524560\n"
		"pktdedup_memory_bytes{netns=\"4026531840\",part=\"sources\"} 65536\n"
		"# HELP pktdedup_memory_limit_bytes The namespace's memory cap (max_netns_mem or max_userns_mem).\n"
		"# TYPE pktdedup_memory_limit_bytes gauge\n"
		"pktdedup_memory_limit_bytes{netns=\"4026531840\"} 268435456\n"
		"# HELP pktdedup_memory_peak_bytes Most bytes the namespace held at any moment since it was created.\n"
		"# TYPE pktdedup_memory_peak_bytes gauge\n"
		"pktdedup_memory_peak_bytes{netns=\"4026531840\"} 600000\n"
		"# HELP pktdedup_packets_total Packets pktdedup looked at (parsed) since the last reset.\n"
		"# TYPE pktdedup_packets_total counter\n"
		"pktdedup_packets_total{netns=\"4026531840\"} 1000\n"
		"# HELP pktdedup_duplicate_packets_total Packets the filter took for copies of a packet seen before.\n"
		"# TYPE pktdedup_duplicate_packets_total counter\n"
		"pktdedup_duplicate_packets_total{netns=\"4026531840\"} 500\n"
		"# HELP pktdedup_marked_packets_total Duplicates marked (action mark).\n"
		"# TYPE pktdedup_marked_packets_total counter\n"
		"pktdedup_marked_packets_total{netns=\"4026531840\"} 0\n"
		"# HELP pktdedup_dropped_packets_total Duplicates dropped (action drop).\n"
		"# TYPE pktdedup_dropped_packets_total counter\n"
		"pktdedup_dropped_packets_total{netns=\"4026531840\"} 500\n"
		"# HELP pktdedup_unparsed_packets_total Packets the parser could not read, passed untouched.\n"
		"# TYPE pktdedup_unparsed_packets_total counter\n"
		"pktdedup_unparsed_packets_total{netns=\"4026531840\"} 3\n"
		"# HELP pktdedup_nonip_frames_total Hooks ingress, bridge-* and xdp (a tunnel's inner frame at any hook): frames neither IPv4 nor IPv6 (ARP, LLDP), passed untouched and not in packets.\n"
		"# TYPE pktdedup_nonip_frames_total counter\n"
		"pktdedup_nonip_frames_total{netns=\"4026531840\"} 17\n"
		"# HELP pktdedup_filter_zero_cells_ratio Counting filter families: the fraction of zero cells.\n"
		"# TYPE pktdedup_filter_zero_cells_ratio gauge\n"
		"pktdedup_filter_zero_cells_ratio{netns=\"4026531840\"} 0.987654321\n";
	char *buf = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, NETNS, &cfg, &row, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_STREQ(test, text, want);
	expect_promtool_clean(test, text);
	free(text);
}

/* The value of series line "NAME{LABELS} V" starting at p. */
static unsigned long long value_after(const char *p)
{
	return strtoull(strchr(p, '}') + 2, NULL, 10);
}

/*
 * Per-CPU rows of a bit-array family with a time window: cpu labels, one
 * family per name (every row's series under one HELP and TYPE), the
 * window in seconds, the loads by array; no configuration gauges.
 */
static void prom_stats_percpu(struct kunit *test)
{
	struct prom_stats_row rows[3];
	char *buf = NULL, *text, line[160];
	unsigned long long sum = 0;
	const char *p;
	unsigned int i;
	size_t len;
	FILE *f;

	for (i = 0; i < 3; i++) {
		rows[i] = (struct prom_stats_row){
			.has_cpu = true, .cpu = i, .packets = 100 * (i + 1) + 7,
			.duplicates = 10 * i, .has_occupancy = true,
			.set_bits = true, .occupancy_ppb = 250000000 * i,
			.nloads = 2, .loads = { 1000 + i, 2000 + i },
			.window = true, .timed = true,
			.window_asked = 2000000, .window_effective = 1500000,
			.window_shortest = 1250000, .window_entries = 42 + i,
			.early_expiries = i,
		};
	}
	f = open_memstream(&buf, &len);
	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, NETNS, NULL, rows, 3);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NULL(test, strstr(text, "pktdedup_info"));
	KUNIT_EXPECT_NULL(test, strstr(text, "pktdedup_memory_bytes"));
	KUNIT_EXPECT_NULL(test, strstr(text, "zero_cells"));
	KUNIT_EXPECT_NULL(test, strstr(text, "window_packets"));
	/* one HELP per family, however many rows */
	p = strstr(text, "# HELP pktdedup_packets_total ");
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, strstr(p + 1, "# HELP pktdedup_packets_total "));
	for (i = 0; i < 3; i++) {
		snprintf(line, sizeof(line),
			 "\npktdedup_packets_total{netns=\"%llu\",cpu=\"%u\"} ",
			 NETNS, i);
		p = strstr(text, line);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, value_after(p + 1), rows[i].packets);
		sum += value_after(p + 1);
		snprintf(line, sizeof(line),
			 "\npktdedup_filter_load_ratio{netns=\"%llu\",cpu=\"%u\"} %.9g\n",
			 NETNS, i, i * 0.25);
		KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
		snprintf(line, sizeof(line),
			 "\npktdedup_filter_array_load{netns=\"%llu\",cpu=\"%u\",array=\"1\"} %u\n",
			 NETNS, i, 2000 + i);
		KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
		snprintf(line, sizeof(line),
			 "\npktdedup_window_entries{netns=\"%llu\",cpu=\"%u\"} %u\n",
			 NETNS, i, 42 + i);
		KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
	}
	KUNIT_EXPECT_EQ(test, sum, 107ULL + 207 + 307);
	snprintf(line, sizeof(line),
		 "\npktdedup_window_seconds{netns=\"%llu\",cpu=\"2\"} 0.002\n"
		 "# HELP pktdedup_window_effective_seconds ", NETNS);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
	snprintf(line, sizeof(line),
		 "\npktdedup_window_shortest_seconds{netns=\"%llu\",cpu=\"0\"} 0.00125\n",
		 NETNS);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, line));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"# TYPE pktdedup_window_early_expiries_total counter\n"));
	expect_promtool_clean(test, text);
	free(text);
}

/* A packet window, and label values that need escaping. */
static void prom_stats_packet_window_escapes(struct kunit *test)
{
	struct prom_config cfg = {
		.filter = "odd\"na\\me", .key = "src", .action = "count",
		.scope = "shared", .hook = "input", .seed_fixed = true,
		.filters = 1,
	};
	struct prom_stats_row row = {
		.window = true, .window_asked = 5000, .window_effective = 4000,
		.window_shortest = 3000,
	};
	char *buf = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 1, &cfg, &row, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"pktdedup_info{netns=\"1\",filter=\"odd\\\"na\\\\me\",key=\"src\",action=\"count\",scope=\"shared\",hook=\"input\",seed=\"fixed\"} 1\n"));
	/* idle: not active, no filters, no fp bound */
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\npktdedup_active{netns=\"1\"} 0\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text, "\npktdedup_filters{netns=\"1\"} 0\n"));
	KUNIT_EXPECT_NULL(test, strstr(text, "fp_bound"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_window_packets{netns=\"1\"} 5000\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_window_effective_packets{netns=\"1\"} 4000\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_window_shortest_packets{netns=\"1\"} 3000\n"));
	KUNIT_EXPECT_NULL(test, strstr(text, "_seconds"));
	KUNIT_EXPECT_NULL(test, strstr(text, "_ratio"));
	expect_promtool_clean(test, text);
	free(text);
}

/*
 * The encapsulations looked into: a family each of frames and errors,
 * every row's series under one HELP and TYPE, labelled encap (and cpu);
 * none when no row has any.
 */
static void prom_stats_decap(struct kunit *test)
{
	struct prom_stats_row rows[2] = {
		{ .has_cpu = true, .cpu = 0, .packets = 10, .ndecap = 2,
		  .decap = { { "vxlan", 7, 0 }, { "gre", 2, 1 } } },
		{ .has_cpu = true, .cpu = 1, .packets = 20, .ndecap = 2,
		  .decap = { { "vxlan", 12, 3 }, { "gre", 0, 0 } } },
	};
	static const char want[] =
		"# HELP pktdedup_decap_frames_total Frames that came through each encapsulation looked into (config decap), keyed by the packet inside.\n"
		"# TYPE pktdedup_decap_frames_total counter\n"
		"pktdedup_decap_frames_total{netns=\"7\",cpu=\"0\",encap=\"vxlan\"} 7\n"
		"pktdedup_decap_frames_total{netns=\"7\",cpu=\"0\",encap=\"gre\"} 2\n"
		"pktdedup_decap_frames_total{netns=\"7\",cpu=\"1\",encap=\"vxlan\"} 12\n"
		"pktdedup_decap_frames_total{netns=\"7\",cpu=\"1\",encap=\"gre\"} 0\n"
		"# HELP pktdedup_decap_errors_total Frames whose header of the encapsulation was malformed or cut short (also in unparsed_packets_total).\n"
		"# TYPE pktdedup_decap_errors_total counter\n"
		"pktdedup_decap_errors_total{netns=\"7\",cpu=\"0\",encap=\"vxlan\"} 0\n"
		"pktdedup_decap_errors_total{netns=\"7\",cpu=\"0\",encap=\"gre\"} 1\n"
		"pktdedup_decap_errors_total{netns=\"7\",cpu=\"1\",encap=\"vxlan\"} 3\n"
		"pktdedup_decap_errors_total{netns=\"7\",cpu=\"1\",encap=\"gre\"} 0\n";
	struct prom_stats_row total = { .packets = 30, .ndecap = 1,
					 .decap = { { "ip", 5, 4 } } };
	char *buf = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 7, NULL, rows, 2);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "%s", text);
	expect_promtool_clean(test, text);
	free(text);
	buf = NULL;
	f = open_memstream(&buf, &len);
	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 7, NULL, &total, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_decap_frames_total{netns=\"7\",encap=\"ip\"} 5\n"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_decap_errors_total{netns=\"7\",encap=\"ip\"} 4\n"));
	expect_promtool_clean(test, text);
	free(text);
	/* no encapsulation: no family */
	total.ndecap = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 7, NULL, &total, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NULL(test, strstr(text, "decap"));
	free(text);
}

/*
 * The named devices: a family each of packets, duplicates, marked and
 * dropped, apart from the totals' (no sum over a family counts a packet
 * twice), labelled dev, the name escaped; none when no device is named.
 */
static void prom_stats_devices(struct kunit *test)
{
	struct prom_stats_row total = {
		.packets = 3000, .duplicates = 1000, .dropped = 1000, .ndev = 2,
		.dev = { { "tap-a", 2000, 0, 0, 0 },
			 { "tap\"b", 1000, 1000, 0, 1000 } },
	};
	static const char want[] =
		"# HELP pktdedup_device_packets_total Packets looked at (parsed) on each named device since the last reset.\n"
		"# TYPE pktdedup_device_packets_total counter\n"
		"pktdedup_device_packets_total{netns=\"7\",dev=\"tap-a\"} 2000\n"
		"pktdedup_device_packets_total{netns=\"7\",dev=\"tap\\\"b\"} 1000\n"
		"# HELP pktdedup_device_duplicate_packets_total Packets on each named device the filter took for copies of a packet seen before.\n"
		"# TYPE pktdedup_device_duplicate_packets_total counter\n"
		"pktdedup_device_duplicate_packets_total{netns=\"7\",dev=\"tap-a\"} 0\n"
		"pktdedup_device_duplicate_packets_total{netns=\"7\",dev=\"tap\\\"b\"} 1000\n"
		"# HELP pktdedup_device_marked_packets_total Duplicates on each named device marked (action mark).\n"
		"# TYPE pktdedup_device_marked_packets_total counter\n"
		"pktdedup_device_marked_packets_total{netns=\"7\",dev=\"tap-a\"} 0\n"
		"pktdedup_device_marked_packets_total{netns=\"7\",dev=\"tap\\\"b\"} 0\n"
		"# HELP pktdedup_device_dropped_packets_total Duplicates on each named device dropped (action drop).\n"
		"# TYPE pktdedup_device_dropped_packets_total counter\n"
		"pktdedup_device_dropped_packets_total{netns=\"7\",dev=\"tap-a\"} 0\n"
		"pktdedup_device_dropped_packets_total{netns=\"7\",dev=\"tap\\\"b\"} 1000\n";
	char *buf = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 7, NULL, &total, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want), "%s", text);
	KUNIT_EXPECT_NOT_NULL(test, strstr(text,
		"\npktdedup_packets_total{netns=\"7\"} 3000\n"));
	expect_promtool_clean(test, text);
	free(text);
	total.ndev = 0;
	buf = NULL;
	f = open_memstream(&buf, &len);
	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_stats(f, 7, NULL, &total, 1);
	text = text_of(f, &buf);
	KUNIT_EXPECT_NULL(test, strstr(text, "device"));
	free(text);
}

static void prom_distinct_exact(struct kunit *test)
{
	struct prom_distinct d = { .last_ms = 10500, .src = 1000, .dst = 10 };
	static const char want[] =
		"# HELP pktdedup_distinct_sources Distinct source addresses in the span (HyperLogLog estimate).\n"
		"# TYPE pktdedup_distinct_sources gauge\n"
		"pktdedup_distinct_sources{netns=\"4026531840\"} 1000\n"
		"# HELP pktdedup_distinct_destinations Distinct destination addresses in the span (HyperLogLog estimate).\n"
		"# TYPE pktdedup_distinct_destinations gauge\n"
		"pktdedup_distinct_destinations{netns=\"4026531840\"} 10\n"
		"# HELP pktdedup_distinct_span_seconds The recent span the distinct counts cover.\n"
		"# TYPE pktdedup_distinct_span_seconds gauge\n"
		"pktdedup_distinct_span_seconds{netns=\"4026531840\"} 10.5\n";
	char *buf = NULL, *text;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_distinct(f, NETNS, &d);
	text = text_of(f, &buf);
	KUNIT_EXPECT_STREQ(test, text, want);
	expect_promtool_clean(test, text);
	free(text);
}

static void prom_sources_values(struct kunit *test)
{
	struct prom_sources s = {
		.enabled = true, .new_on = true, .window_ms = 60000,
		.subwindows = 12, .counters = 128, .event_rate = 1000,
		.ring = 256, .new_mem = 65536, .new_gap = 1000,
		.mem_total = 462848, .new_seen = 77, .events_repeat = 5,
		.events_sent = 70, .events_overrun = 1,
		.events_ratelimited = 2, .events_failed = 0,
	};
	static const char *const want[] = {
		"\npktdedup_sources_enabled{netns=\"7\"} 1\n",
		"\npktdedup_sources_window_seconds{netns=\"7\"} 60\n",
		"\npktdedup_sources_subwindows{netns=\"7\"} 12\n",
		"\npktdedup_sources_top_counters{netns=\"7\"} 128\n",
		"\npktdedup_sources_new_enabled{netns=\"7\"} 1\n",
		"\npktdedup_sources_new_filter_bytes{netns=\"7\"} 65536\n",
		"\npktdedup_sources_new_gap_packets{netns=\"7\"} 1000\n",
		"\npktdedup_sources_event_rate_limit{netns=\"7\"} 1000\n",
		"\npktdedup_sources_ring_entries{netns=\"7\"} 256\n",
		"\npktdedup_sources_memory_bytes{netns=\"7\"} 462848\n",
		"\npktdedup_sources_new_seen_total{netns=\"7\"} 77\n",
		"\npktdedup_sources_new_repeat_total{netns=\"7\"} 5\n",
		"# TYPE pktdedup_sources_events_total counter\n"
		"pktdedup_sources_events_total{netns=\"7\",outcome=\"sent\"} 70\n"
		"pktdedup_sources_events_total{netns=\"7\",outcome=\"overrun\"} 1\n"
		"pktdedup_sources_events_total{netns=\"7\",outcome=\"ratelimited\"} 2\n"
		"pktdedup_sources_events_total{netns=\"7\",outcome=\"failed\"} 0\n",
	};
	char *buf = NULL, *text;
	unsigned int i, lines = 0;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	KUNIT_ASSERT_NOT_NULL(test, f);
	prom_sources(f, 7, &s);
	text = text_of(f, &buf);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		KUNIT_EXPECT_NOT_NULL_MSG(test, strstr(text, want[i]), "%s", want[i]);
	/* 13 families of HELP and TYPE, 12 single series and 4 outcomes */
	for (i = 0; text[i]; i++)
		lines += text[i] == '\n';
	KUNIT_EXPECT_EQ(test, lines, 13u * 2 + 12 + 4);
	expect_promtool_clean(test, text);
	free(text);
}

/* ---- stats -w ---- */

static void watch_rates_steady(struct kunit *test)
{
	struct watch_sample a = { 1000, 400, 0, 400, 5000000000ULL };
	struct watch_sample b = { 3000, 1400, 0, 1400, 7000000000ULL };
	struct watch_rates r;
	char line[160];

	watch_rates(&a, &b, &r);
	KUNIT_EXPECT_FALSE(test, r.reset);
	KUNIT_EXPECT_TRUE(test, r.seconds == 2.0);
	KUNIT_EXPECT_TRUE(test, r.packets == 1000.0);	/* 2000 in 2 s */
	KUNIT_EXPECT_TRUE(test, r.duplicates == 500.0);
	KUNIT_EXPECT_TRUE(test, r.dropped == 500.0);
	KUNIT_EXPECT_TRUE(test, r.marked == 0.0);
	KUNIT_EXPECT_TRUE(test, r.share_pct == 50.0);	/* 1000 of 2000 */
	watch_line(line, sizeof(line), &r);
	KUNIT_EXPECT_STREQ(test, line,
			   "      1000.0        500.0  50.00%        500.0          0.0");
	watch_header(line, sizeof(line));
	KUNIT_EXPECT_STREQ(test, line,
			   "   packets/s       dups/s    dup%    dropped/s     marked/s");
}

/*
 * dedupctl reset between two samples: the counters start again from 0,
 * so the second sample holds what came since the reset (within the
 * interval): that is the interval's count, never a negative one.
 */
static void watch_rates_reset(struct kunit *test)
{
	struct watch_sample a = { 50000, 20000, 300, 0, 1000000000ULL };
	struct watch_sample b = { 600, 150, 30, 0, 1500000000ULL };
	struct watch_rates r;
	char line[160];

	watch_rates(&a, &b, &r);
	KUNIT_EXPECT_TRUE(test, r.reset);
	KUNIT_EXPECT_TRUE(test, r.packets == 1200.0);	/* 600 in 0.5 s */
	KUNIT_EXPECT_TRUE(test, r.duplicates == 300.0);
	KUNIT_EXPECT_TRUE(test, r.marked == 60.0);
	KUNIT_EXPECT_TRUE(test, r.dropped == 0.0);
	KUNIT_EXPECT_TRUE(test, r.share_pct == 25.0);
	watch_line(line, sizeof(line), &r);
	KUNIT_EXPECT_STREQ(test, line,
			   "      1200.0        300.0  25.00%          0.0         60.0 (reset)");
	/* a reset seen only in one counter is a reset of all */
	b = (struct watch_sample){ 60000, 25000, 100, 0, 2000000000ULL };
	watch_rates(&a, &b, &r);
	KUNIT_EXPECT_TRUE(test, r.reset);
	KUNIT_EXPECT_TRUE(test, r.packets == 60000.0);
	KUNIT_EXPECT_TRUE(test, r.marked >= 0);
}

/* No traffic, and no time: zeros, not a division by zero. */
static void watch_rates_idle(struct kunit *test)
{
	struct watch_sample a = { 10, 5, 0, 0, 1000 };
	struct watch_rates r;

	watch_rates(&a, &a, &r);
	KUNIT_EXPECT_FALSE(test, r.reset);
	KUNIT_EXPECT_TRUE(test, r.packets == 0 && r.duplicates == 0);
	KUNIT_EXPECT_TRUE(test, r.share_pct == 0);
	a.ns = 0;
	watch_rates(&a, &(struct watch_sample){ 20, 5, 0, 0, 1000000000ULL }, &r);
	KUNIT_EXPECT_TRUE(test, r.packets == 10.0 && r.share_pct == 0);
}

static struct kunit_case prom_cases[] = {
	KUNIT_CASE(prom_stats_totals_exact),
	KUNIT_CASE(prom_stats_percpu),
	KUNIT_CASE(prom_stats_packet_window_escapes),
	KUNIT_CASE(prom_stats_decap),
	KUNIT_CASE(prom_stats_devices),
	KUNIT_CASE(prom_distinct_exact),
	KUNIT_CASE(prom_sources_values),
	KUNIT_CASE(watch_rates_steady),
	KUNIT_CASE(watch_rates_reset),
	KUNIT_CASE(watch_rates_idle),
	{}
};

static struct kunit_suite prom_suite = {
	.name = "dedupctl_prom",
	.test_cases = prom_cases,
};

kunit_test_suite(prom_suite);
