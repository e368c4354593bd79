// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: the commands about source addresses in the recent window:
 * distinct, sources, top, rare and monitor.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../module/core/hllpg.h"
#include "../../module/uapi/pktdedup.h"
#include "../common/akeyfile.h"
#include "../common/sketchrow.h"
#include "dedupctl.h"
#include "prom.h"

static uint32_t window_arg(const char *v)
{
	uint64_t ms;

	if (!parse_duration_ms(v, &ms) || !ms || ms > 3600000)
		usage_error("window: '%s' is not a duration from 1ms to 1h (e.g. 10s, 1m)",
			    v);
	return (uint32_t)ms;
}

static const char *addr_str(const struct nlattr *a, char *buf, size_t len)
{
	uint16_t alen = a ? mnl_attr_get_payload_len(a) : 0;

	if (alen == 4 && inet_ntop(AF_INET, mnl_attr_get_payload(a), buf,
				   (socklen_t)len))
		return buf;
	if (alen == 16 && inet_ntop(AF_INET6, mnl_attr_get_payload(a), buf,
				    (socklen_t)len))
		return buf;
	snprintf(buf, len, "?");
	return buf;
}

/* ---- distinct ---- */

/* The span a reply covers, in ms. */
static uint32_t span_ms(const struct nlattr **tb)
{
	const struct nlattr *w[PKTDEDUP_A_WINDOW_MAX + 1];

	nl_nest(tb[PKTDEDUP_A_WINDOW], &nls_window, w);
	return u32a(w, PKTDEDUP_A_WINDOW_LAST_MS);
}

/* A request's span: the window nest, if a span was given. */
static void put_span(struct nlmsghdr *nlh, uint32_t ms)
{
	struct nlattr *nest;

	if (!ms)
		return;
	nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_WINDOW);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_WINDOW_LAST_MS, ms);
	mnl_attr_nest_end(nlh, nest);
}

static int distinct_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_DISTINCT_MAX + 1];
	uint32_t last = span_ms(top);

	(void)data;
	nl_nest(top[PKTDEDUP_A_DISTINCT], &nls_distinct, tb);
	if (output == OUT_PROMETHEUS) {
		struct prom_distinct d = {
			.last_ms = last,
			.src = u64a(tb, PKTDEDUP_A_DISTINCT_SRC),
			.dst = u64a(tb, PKTDEDUP_A_DISTINCT_DST),
		};

		prom_distinct(stdout, netns_inode(), &d);
		return MNL_CB_OK;
	}
	if (json) {
		printf("{\"window_ms\":%u,\"subwindows\":%u,\"last_ms\":%u,"
		       "\"src\":%llu,\"dst\":%llu}\n",
		       u32a(tb, PKTDEDUP_A_DISTINCT_WINDOW_MS),
		       u32a(tb, PKTDEDUP_A_DISTINCT_SUBWINDOWS), last,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_DISTINCT_SRC),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_DISTINCT_DST));
		return MNL_CB_OK;
	}
	printf("in the last %u.%03u s (window %u s in %u sub-windows):\n"
	       "  %llu distinct sources\n  %llu distinct destinations\n",
	       last / 1000, last % 1000,
	       u32a(tb, PKTDEDUP_A_DISTINCT_WINDOW_MS) / 1000,
	       u32a(tb, PKTDEDUP_A_DISTINCT_SUBWINDOWS),
	       (unsigned long long)u64a(tb, PKTDEDUP_A_DISTINCT_SRC),
	       (unsigned long long)u64a(tb, PKTDEDUP_A_DISTINCT_DST));
	return MNL_CB_OK;
}

/* ---- distinct sketches ---- */

/* A GET_SKETCH reply. */
struct sketch_reply {
	uint64_t tick, now, start_ns, end_ns, fingerprint;
	uint32_t nsub;
	struct pd_hll h[2];		/* sources, destinations */
};

static void sketch_decode(const struct nlattr *a, struct pd_hll *h)
{
	if (!a || pd_hllpg_decode(mnl_attr_get_payload(a),
				  mnl_attr_get_payload_len(a), h)) {
		fprintf(stderr, "%s: the module sent a sketch that is not in hll's format\n",
			dc_prog);
		dedupctl_exit(1);
	}
}

static int sketch_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_SKETCH_MAX + 1];
	struct sketch_reply *r = data;

	nl_nest(top[PKTDEDUP_A_SKETCH], &nls_sketch, tb);
	r->tick = u64a(tb, PKTDEDUP_A_SKETCH_TICK);
	r->now = u64a(tb, PKTDEDUP_A_SKETCH_NOW);
	r->nsub = u32a(tb, PKTDEDUP_A_SKETCH_SUBWINDOWS);
	r->start_ns = u64a(tb, PKTDEDUP_A_SKETCH_START_NS);
	r->end_ns = u64a(tb, PKTDEDUP_A_SKETCH_END_NS);
	r->fingerprint = u64a(tb, PKTDEDUP_A_SKETCH_FINGERPRINT);
	sketch_decode(tb[PKTDEDUP_A_SKETCH_SRC], &r->h[0]);
	sketch_decode(tb[PKTDEDUP_A_SKETCH_DST], &r->h[1]);
	return MNL_CB_OK;
}

/*
 * Sub-window tick's sketches (current: the sub-window now) into *r: true,
 * or false if the sub-window left the window meanwhile (a new one began
 * while the others were read).
 */
static bool sketch_get(struct sketch_reply *r, bool current, uint64_t tick)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;
	struct nl n;
	int err;

	open_nl(&n);
	nlh = nl_request(&n, PKTDEDUP_CMD_GET_SKETCH, false);
	if (!current) {
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_SKETCH);
		mnl_attr_put_u64(nlh, PKTDEDUP_A_SKETCH_TICK, tick);
		mnl_attr_nest_end(nlh, nest);
	}
	err = nl_talk(&n, nlh, sketch_cb, r);
	if (err == -ERANGE && !current) {
		nl_close(&n);
		return false;
	}
	if (err)
		refused(&n, err);
	nl_close(&n);
	return true;
}

static void sketch_print(const char *host, const struct sketch_reply *r,
			 bool *first)
{
	static uint8_t enc[2][PD_HLLPG_MAX];
	struct sketch_row row = {
		.host = host, .fingerprint = r->fingerprint,
		.start_ns = r->start_ns, .end_ns = r->end_ns,
		.src = enc[0], .src_len = pd_hllpg_encode(&r->h[0], enc[0]),
		.dst = enc[1], .dst_len = pd_hllpg_encode(&r->h[1], enc[1]),
	};

	if (json) {
		fputs(*first ? "[" : ",", stdout);
		sketch_row_json(&row);
	} else {
		sketch_row_csv(stdout, &row);
	}
	*first = false;
}

/*
 * distinct sketches [last N | window] [host NAME]: the completed
 * sub-windows of the window (or the last N of them), oldest first, or the
 * whole window (every sub-window, the current one too) as one row.
 */
static int cmd_sketches(int argc, char **argv)
{
	static struct sketch_reply cur, r;
	char name[256] = "localhost";
	const char *host = NULL;
	bool whole = false, first = true;
	uint64_t last = 0, t, from;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "window")) {
			whole = true;
		} else if (i + 1 < argc && !strcmp(argv[i], "last")) {
			last = num_arg("last", argv[++i], 1, 63);
		} else if (i + 1 < argc && !strcmp(argv[i], "host")) {
			host = argv[++i];
			if (!*host)
				usage_error("host: an empty name");
		} else {
			usage_error("distinct sketches: give nothing, last N, window, host NAME");
		}
	}
	if (whole && last)
		usage_error("distinct sketches: last N or window, not both");
	if (!host) {
		if (gethostname(name, sizeof(name)))
			snprintf(name, sizeof(name), "localhost");
		name[sizeof(name) - 1] = 0;
		host = name;
	}
	sketch_get(&cur, true, 0);
	if (last >= cur.nsub)
		usage_error("last %llu: the window keeps %u sub-windows, the current one among them",
			    (unsigned long long)last, cur.nsub);
	from = cur.now - (cur.now < cur.nsub - 1 ? cur.now : cur.nsub - 1);
	if (last)
		from = cur.now - (cur.now < last ? cur.now : last);
	for (t = from; t < cur.now; t++) {
		/* the oldest may have left the window since: no row */
		if (!sketch_get(&r, false, t))
			continue;
		if (r.fingerprint != cur.fingerprint) {
			fprintf(stderr, "%s: the source windows changed while they were read (another key or settings)\n",
				dc_prog);
			return 1;
		}
		if (!whole) {
			sketch_print(host, &r, &first);
			continue;
		}
		pd_hll_merge(&cur.h[0], &r.h[0]);
		pd_hll_merge(&cur.h[1], &r.h[1]);
		if (r.start_ns < cur.start_ns)
			cur.start_ns = r.start_ns;
	}
	if (whole)
		sketch_print(host, &cur, &first);
	if (json)
		printf("%s]\n", first ? "[" : "");
	return 0;
}

int cmd_distinct(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	uint32_t ms = 0;
	struct nl n;

	if (argc && !strcmp(argv[0], "sketches"))
		return cmd_sketches(argc - 1, argv + 1);
	if (argc == 2 && !strcmp(argv[0], "window"))
		ms = window_arg(argv[1]);
	else if (argc)
		usage_error("distinct: give nothing or window DURATION");
	open_nl(&n);
	nlh = nl_request(&n, PKTDEDUP_CMD_GET_DISTINCT, false);
	put_span(nlh, ms);
	talk(&n, nlh, distinct_cb, NULL);
	return 0;
}

/* ---- sources ---- */

static int sources_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_SOURCES_MAX + 1],
		*st[PKTDEDUP_A_SOURCE_STATE_MAX + 1],
		*ev[PKTDEDUP_A_EVENTS_MAX + 1], *nf[PKTDEDUP_A_FILTER_PLAN_MAX + 1];
	unsigned long long sent, over, rate, fail, rep, seen, mem;
	char b1[32], b2[32];
	bool on, enabled;

	(void)data;
	nl_nest(top[PKTDEDUP_A_SOURCES], &nls_sources, tb);
	nl_nest(top[PKTDEDUP_A_SOURCE_STATE], &nls_source_state, st);
	nl_nest(top[PKTDEDUP_A_EVENTS], &nls_events, ev);
	nl_nest(st[PKTDEDUP_A_SOURCE_STATE_NEW_FILTER], &nls_filter_plan, nf);
	sent = u64a(ev, PKTDEDUP_A_EVENTS_SENT);
	over = u64a(ev, PKTDEDUP_A_EVENTS_OVERRUN);
	rate = u64a(ev, PKTDEDUP_A_EVENTS_RATELIMITED);
	fail = u64a(ev, PKTDEDUP_A_EVENTS_FAILED);
	rep = u64a(ev, PKTDEDUP_A_EVENTS_REPEAT);
	seen = u64a(st, PKTDEDUP_A_SOURCE_STATE_NEW_SEEN);
	mem = u64a(st, PKTDEDUP_A_SOURCE_STATE_MEM_TOTAL);
	on = u8a(tb, PKTDEDUP_A_SOURCES_NEW);
	enabled = u8a(tb, PKTDEDUP_A_SOURCES_ENABLED);
	if (output == OUT_PROMETHEUS) {
		struct prom_sources p = {
			.enabled = enabled, .new_on = on,
			.window_ms = u32a(tb, PKTDEDUP_A_SOURCES_WINDOW_MS),
			.subwindows = u32a(tb, PKTDEDUP_A_SOURCES_SUBWINDOWS),
			.counters = u32a(tb, PKTDEDUP_A_SOURCES_COUNTERS),
			.event_rate = u32a(tb, PKTDEDUP_A_SOURCES_EVENT_RATE),
			.ring = u32a(tb, PKTDEDUP_A_SOURCES_RING),
			.new_mem = u64a(tb, PKTDEDUP_A_SOURCES_NEW_MEM),
			.new_gap = u64a(tb, PKTDEDUP_A_SOURCES_NEW_GAP),
			.mem_total = mem, .new_seen = seen, .events_repeat = rep,
			.events_sent = sent, .events_overrun = over,
			.events_ratelimited = rate, .events_failed = fail,
		};

		prom_sources(stdout, netns_inode(), &p);
		return MNL_CB_OK;
	}
	if (json) {
		printf("{\"enabled\":%s,\"window_ms\":%u,\"subwindows\":%u,\"counters\":%u,"
		       "\"new\":%s,\"new_mem_bytes\":%llu",
		       enabled ? "true" : "false",
		       u32a(tb, PKTDEDUP_A_SOURCES_WINDOW_MS),
		       u32a(tb, PKTDEDUP_A_SOURCES_SUBWINDOWS),
		       u32a(tb, PKTDEDUP_A_SOURCES_COUNTERS), on ? "true" : "false",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_SOURCES_NEW_MEM));
		json_auto("new_gap_packets", u64a(tb, PKTDEDUP_A_SOURCES_NEW_GAP),
			  !u64a(tb, PKTDEDUP_A_SOURCES_NEW_GAP));
		printf(",\"key\":\"%s\"",
		       u8a(tb, PKTDEDUP_A_SOURCES_KEY_FLEET) ? "set" : "own");
		if (tb[PKTDEDUP_A_SOURCES_KEY_FINGERPRINT])
			printf(",\"key_fingerprint\":\"%016llx\"",
			       (unsigned long long)u64a(tb, PKTDEDUP_A_SOURCES_KEY_FINGERPRINT));
		else
			printf(",\"key_fingerprint\":null");
		printf(",\"event_rate\":%u,"
		       "\"ring_entries\":%u,\"mem_total_bytes\":%llu,\"new_seen\":%llu,"
		       "\"events_repeat\":%llu,"
		       "\"events_sent\":%llu,\"events_overrun\":%llu,"
		       "\"events_ratelimited\":%llu,\"events_failed\":%llu",
		       u32a(tb, PKTDEDUP_A_SOURCES_EVENT_RATE),
		       u32a(tb, PKTDEDUP_A_SOURCES_RING), mem, seen, rep, sent,
		       over, rate, fail);
		if (nf[PKTDEDUP_A_FILTER_PLAN_CELLS])
			printf(",\"new_filter\":{\"max\":%u,\"k\":%u,\"p\":%u,"
			       "\"cells\":%llu,\"fp_bound\":%.9g,"
			       "\"fn_at_gap\":%.9g}",
			       u32a(nf, PKTDEDUP_A_FILTER_PLAN_CELL_MAX),
			       u32a(nf, PKTDEDUP_A_FILTER_PLAN_K),
			       u32a(nf, PKTDEDUP_A_FILTER_PLAN_P),
			       (unsigned long long)u64a(nf, PKTDEDUP_A_FILTER_PLAN_CELLS),
			       u32a(nf, PKTDEDUP_A_FILTER_PLAN_FP_BOUND) / 1e9,
			       u32a(nf, PKTDEDUP_A_FILTER_PLAN_FN) / 1e9);
		printf("}\n");
		return MNL_CB_OK;
	}
	if (!enabled)
		printf("sources     off: no distinct counts, top talkers or new sources, no memory\n"
		       "            (dedupctl sources on turns them on with the settings below)\n");
	if (tb[PKTDEDUP_A_SOURCES_KEY_FINGERPRINT])
		printf("key         %s, fingerprint %016llx\n",
		       u8a(tb, PKTDEDUP_A_SOURCES_KEY_FLEET) ?
		       "set (sketches of this fingerprint merge)" :
		       "this instance's own (dedupctl sources key FILE sets a fleet's)",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_SOURCES_KEY_FINGERPRINT));
	printf("window      %u ms in %u sub-windows\n",
	       u32a(tb, PKTDEDUP_A_SOURCES_WINDOW_MS),
	       u32a(tb, PKTDEDUP_A_SOURCES_SUBWINDOWS));
	if (u32a(tb, PKTDEDUP_A_SOURCES_COUNTERS))
		printf("top         %u counters per sub-window per CPU\n",
		       u32a(tb, PKTDEDUP_A_SOURCES_COUNTERS));
	else
		printf("top         off (dedupctl sources counters 128 turns them on)\n");
	printf("new         %s (filter %s per CPU, ring %u, at most %u events/s)\n"
	       "memory      %s in all\n",
	       on ? "on" : "off",
	       size_str(b1, sizeof(b1), u64a(tb, PKTDEDUP_A_SOURCES_NEW_MEM)),
	       u32a(tb, PKTDEDUP_A_SOURCES_RING),
	       u32a(tb, PKTDEDUP_A_SOURCES_EVENT_RATE),
	       size_str(b2, sizeof(b2), mem));
	if (nf[PKTDEDUP_A_FILTER_PLAN_CELLS])
		printf("new filter  %llu cells, max %u, k %u, p %u: fp <= %.4g%%, "
		       "fn %.4g%% for a source %llu packets apart\n",
		       (unsigned long long)u64a(nf, PKTDEDUP_A_FILTER_PLAN_CELLS),
		       u32a(nf, PKTDEDUP_A_FILTER_PLAN_CELL_MAX),
		       u32a(nf, PKTDEDUP_A_FILTER_PLAN_K),
		       u32a(nf, PKTDEDUP_A_FILTER_PLAN_P),
		       u32a(nf, PKTDEDUP_A_FILTER_PLAN_FP_BOUND) / 1e7,
		       u32a(nf, PKTDEDUP_A_FILTER_PLAN_FN) / 1e7,
		       (unsigned long long)u64a(nf, PKTDEDUP_A_FILTER_PLAN_GAP));
	printf("events      %llu new to a CPU, %llu of them seen on another, "
	       "%llu sent, %llu overrun, %llu over the rate, %llu failed\n",
	       seen, rep, sent, over, rate, fail);
	return MNL_CB_OK;
}

/* Whether argv[0] is a bare on or off (1, 0), or neither (-1). */
static int bare_onoff(int argc, char **argv)
{
	if (argc && !strcmp(argv[0], "on"))
		return 1;
	if (argc && !strcmp(argv[0], "off"))
		return 0;
	return -1;
}

/* sources [on|off] [SETTING VALUE ...] */
void put_sources(struct nlmsghdr *nlh, int argc, char **argv)
{
	struct nlattr *nest = argc ? mnl_attr_nest_start(nlh,
							  PKTDEDUP_A_SOURCES) :
			      NULL;
	int i = 0, onoff = bare_onoff(argc, argv);

	if (onoff >= 0) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_SOURCES_ENABLED, (uint8_t)onoff);
		i = 1;
	}
	if ((argc - i) % 2)
		usage_error("sources: '%s' needs a value", argv[argc - 1]);
	for (; i < argc; i += 2) {
		const char *k = argv[i], *v = argv[i + 1];

		if (!strcmp(k, "window")) {
			uint32_t ms = window_arg(v);

			if (ms < 1000)
				usage_error("window: '%s' is shorter than 1s", v);
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_WINDOW_MS, ms);
		} else if (!strcmp(k, "subwindows")) {
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_SUBWINDOWS,
					 (uint32_t)num_arg(k, v, 1, 64));
		} else if (!strcmp(k, "counters")) {
			uint64_t c = num_arg(k, v, 0, 4096);

			if (c && c < 8)
				usage_error("counters: '%s': 0 (top talkers off) or 8 to 4096", v);
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_COUNTERS,
					 (uint32_t)c);
		} else if (!strcmp(k, "new")) {
			mnl_attr_put_u8(nlh, PKTDEDUP_A_SOURCES_NEW, onoff_arg(k, v));
		} else if (!strcmp(k, "new-mem")) {
			mnl_attr_put_u64(nlh, PKTDEDUP_A_SOURCES_NEW_MEM,
					 size_arg(k, v));
		} else if (!strcmp(k, "new-gap")) {
			mnl_attr_put_u64(nlh, PKTDEDUP_A_SOURCES_NEW_GAP,
					 strcmp(v, "auto") ?
					 num_arg(k, v, 1, 1ULL << 48) : 0);
		} else if (!strcmp(k, "event-rate")) {
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_EVENT_RATE,
					 (uint32_t)num_arg(k, v, 1, 1000000));
		} else if (!strcmp(k, "ring")) {
			uint64_t r = num_arg(k, v, 16, 65536);

			if (r & (r - 1))
				usage_error("ring: '%s' is not a power of two", v);
			mnl_attr_put_u32(nlh, PKTDEDUP_A_SOURCES_RING, (uint32_t)r);
		} else if (!strcmp(k, "key") && !strcmp(v, "random")) {
			mnl_attr_put_u8(nlh, PKTDEDUP_A_SOURCES_KEY_RANDOM, 1);
		} else if (!strcmp(k, "key")) {
			u8 key[PD_AKEY_BYTES];
			char err[512];

			if (akey_file_read(v, key, err, sizeof(err)))
				usage_error("key: %s", err);
			mnl_attr_put(nlh, PKTDEDUP_A_SOURCES_KEY, sizeof(key), key);
			memset(key, 0, sizeof(key));
		} else {
			usage_error("sources: unknown setting '%s'", k);
		}
	}
	if (nest)
		mnl_attr_nest_end(nlh, nest);
}

/* The words of sources that give a GET_SOURCES reply's settings. */
void sources_words(const struct nlattr **top, struct words *w)
{
	const struct nlattr *tb[PKTDEDUP_A_SOURCES_MAX + 1];
	uint32_t ms = 0;
	uint64_t gap;
	char b[32];

	nl_nest(top[PKTDEDUP_A_SOURCES], &nls_sources, tb);
	words_add(w, "%s", u8a(tb, PKTDEDUP_A_SOURCES_ENABLED) ? "on" : "off");
	ms = u32a(tb, PKTDEDUP_A_SOURCES_WINDOW_MS);
	words_add(w, "window");
	if (ms % 1000)
		words_add(w, "%ums", ms);
	else
		words_add(w, "%us", ms / 1000);
	words_add(w, "subwindows");
	words_add(w, "%u", u32a(tb, PKTDEDUP_A_SOURCES_SUBWINDOWS));
	words_add(w, "counters");
	words_add(w, "%u", u32a(tb, PKTDEDUP_A_SOURCES_COUNTERS));
	words_add(w, "new");
	words_add(w, "%s", u8a(tb, PKTDEDUP_A_SOURCES_NEW) ? "on" : "off");
	words_add(w, "new-mem");
	words_add(w, "%s", size_word(b, sizeof(b),
				     u64a(tb, PKTDEDUP_A_SOURCES_NEW_MEM)));
	gap = u64a(tb, PKTDEDUP_A_SOURCES_NEW_GAP);
	words_auto(w, "new-gap", gap, !gap);
	words_add(w, "event-rate");
	words_add(w, "%u", u32a(tb, PKTDEDUP_A_SOURCES_EVENT_RATE));
	words_add(w, "ring");
	words_add(w, "%u", u32a(tb, PKTDEDUP_A_SOURCES_RING));
	if (u8a(tb, PKTDEDUP_A_SOURCES_KEY_FLEET)) {
		static char note[160];

		snprintf(note, sizeof(note),
			 "the key set (fingerprint %016llx) is not saved: a line 'sources key FILE' after this one sets it",
			 (unsigned long long)u64a(tb, PKTDEDUP_A_SOURCES_KEY_FINGERPRINT));
		w->note = note;
	}
}

int cmd_sources(int argc, char **argv)
{
	static char scratch[8192];
	struct nlmsghdr *nlh;
	struct nl n;

	/* check every value before the kernel sees any */
	put_sources(mnl_nlmsg_put_header(scratch), argc, argv);
	open_nl(&n);
	nlh = nl_request(&n, argc ? PKTDEDUP_CMD_SET_SOURCES :
			 PKTDEDUP_CMD_GET_SOURCES, false);
	put_sources(nlh, argc, argv);
	talk_change(&n, nlh, sources_cb, NULL);
	return 0;
}

/* ---- top and rare ---- */

struct list_ctx {
	bool rare;
	unsigned int rows;
};

static int list_head_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_LIST_MAX + 1];
	struct list_ctx *c = data;
	uint32_t last = span_ms(top);
	unsigned long long total, err;

	nl_nest(top[PKTDEDUP_A_LIST], &nls_list, tb);
	total = u64a(tb, PKTDEDUP_A_LIST_TOTAL);
	err = u64a(tb, PKTDEDUP_A_LIST_ERROR);
	if (json) {
		printf("{\"last_ms\":%u,\"packets\":%llu,\"error_packets\":%llu", last,
		       total, err);
		if (c->rare)
			printf(",\"support\":%.9g,\"support_packets\":%llu,"
			       "\"candidates\":%u,\"found\":%u",
			       u32a(tb, PKTDEDUP_A_LIST_SUPPORT) / 1e9,
			       (unsigned long long)u64a(tb, PKTDEDUP_A_LIST_SUPPORT_COUNT),
			       u32a(tb, PKTDEDUP_A_LIST_CANDIDATES),
			       u32a(tb, PKTDEDUP_A_LIST_FOUND));
		printf(",\"%s\":[", c->rare ? "rare" : "top");
		return MNL_CB_OK;
	}
	printf("in the last %u.%03u s: %llu packets\n", last / 1000,
	       last % 1000, total);
	if (c->rare)
		printf("rare: at most %llu packets (support %.9g): %u of %u sources seen;\n"
		       "none listed sent more than that + %llu\n",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_LIST_SUPPORT_COUNT),
		       u32a(tb, PKTDEDUP_A_LIST_SUPPORT) / 1e9,
		       u32a(tb, PKTDEDUP_A_LIST_FOUND),
		       u32a(tb, PKTDEDUP_A_LIST_CANDIDATES), err);
	else
		printf("no source missing from the list sent more than %llu\n",
		       err);
	printf("%-40s %12s %12s\n", "source", "packets >=", "packets <=");
	return MNL_CB_OK;
}

static int list_entry_cb(const struct nlattr **tb, void *data)
{
	struct list_ctx *c = data;
	char a[64];

	addr_str(tb[PKTDEDUP_A_ENTRY_ADDR], a, sizeof(a));
	if (json)
		printf("%s{\"addr\":\"%s\",\"min_packets\":%llu,\"max_packets\":%llu}",
		       c->rows ? "," : "", a,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_ENTRY_COUNT_LO),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_ENTRY_COUNT_HI));
	else
		printf("%-40s %12llu %12llu\n", a,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_ENTRY_COUNT_LO),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_ENTRY_COUNT_HI));
	c->rows++;
	return MNL_CB_OK;
}

static void list(struct nlmsghdr *nlh, struct nl *n, struct list_ctx *c)
{
	int err = nl_talk_entries(n, nlh, list_head_cb, list_entry_cb, c);

	if (err)
		refused(n, err);
	nl_close(n);
	if (json)
		printf("]}\n");
}

int cmd_top(int argc, char **argv)
{
	struct list_ctx c = { .rare = false };
	uint32_t count = 10, ms = 0;
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	struct nl n;
	int i = 0;

	if (argc && strcmp(argv[0], "window"))
		count = (uint32_t)num_arg("top", argv[i++], 1, 1000);
	if (argc - i == 2 && !strcmp(argv[i], "window"))
		ms = window_arg(argv[i + 1]);
	else if (argc - i)
		usage_error("top: give [N] [window DURATION]");
	open_nl(&n);
	nlh = nl_request(&n, PKTDEDUP_CMD_GET_TOP, false);
	put_span(nlh, ms);
	nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_TOP);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_TOP_COUNT, count);
	mnl_attr_nest_end(nlh, nest);
	list(nlh, &n, &c);
	return 0;
}

int cmd_rare(int argc, char **argv)
{
	struct list_ctx c = { .rare = true };
	uint32_t ppb = 100000, limit = 100, ms = 0;
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	struct nl n;
	int i;

	if (argc % 2)
		usage_error("rare: '%s' needs a value", argv[argc - 1]);
	for (i = 0; i < argc; i += 2) {
		if (!strcmp(argv[i], "support"))
			ppb = ppb_arg("support", argv[i + 1]);
		else if (!strcmp(argv[i], "window"))
			ms = window_arg(argv[i + 1]);
		else if (!strcmp(argv[i], "limit"))
			limit = (uint32_t)num_arg("limit", argv[i + 1], 1, 1000);
		else
			usage_error("rare: unknown setting '%s'", argv[i]);
	}
	open_nl(&n);
	nlh = nl_request(&n, PKTDEDUP_CMD_GET_RARE, false);
	put_span(nlh, ms);
	nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_RARE);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_RARE_SUPPORT, ppb);
	mnl_attr_put_u32(nlh, PKTDEDUP_A_RARE_COUNT, limit);
	mnl_attr_nest_end(nlh, nest);
	list(nlh, &n, &c);
	return 0;
}

/* ---- monitor ---- */

struct mon_ctx {
	uint64_t left;		/* events still to print; 0: no limit */
};

static int monitor_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *ev[PKTDEDUP_A_EVENT_MAX + 1];
	struct mon_ctx *c = data;
	char a[64], when[64];
	struct tm tm;
	time_t t;
	uint64_t ms;

	if (!tb) {
		if (json)
			printf("{\"lost\":\"socket overrun\"}\n");
		else
			printf("events lost: this socket overflowed\n");
		return MNL_CB_OK;
	}
	if (!tb[PKTDEDUP_A_EVENT])
		return MNL_CB_OK;	/* not an event of ours */
	nl_nest(tb[PKTDEDUP_A_EVENT], &nls_event, ev);
	tb = ev;
	addr_str(tb[PKTDEDUP_A_EVENT_ADDR], a, sizeof(a));
	ms = u64a(tb, PKTDEDUP_A_EVENT_TIME_MS);
	if (json) {
		printf("{\"event\":\"new-source\",\"addr\":\"%s\",\"cpu\":%u,"
		       "\"time_ms\":%llu,\"dropped\":%llu}\n", a,
		       u32a(tb, PKTDEDUP_A_EVENT_CPU), (unsigned long long)ms,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_EVENT_DROPPED));
	} else {
		t = (time_t)(ms / 1000);
		localtime_r(&t, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		printf("%s.%03u new source %s (cpu %u)\n", when,
		       (unsigned int)(ms % 1000), a, u32a(tb, PKTDEDUP_A_EVENT_CPU));
	}
	if (c->left && !--c->left)
		return MNL_CB_STOP;
	return MNL_CB_OK;
}

static int new_on_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_SOURCES_MAX + 1];

	nl_nest(top[PKTDEDUP_A_SOURCES], &nls_sources, tb);
	*(bool *)data = u8a(tb, PKTDEDUP_A_SOURCES_NEW);
	return MNL_CB_OK;
}

int cmd_monitor(int argc, char **argv)
{
	struct mon_ctx c = { 0 };
	bool on = false;
	struct nl n;
	int err;

	if (argc == 2 && !strcmp(argv[0], "count"))
		c.left = num_arg("count", argv[1], 1, UINT64_MAX);
	else if (argc)
		usage_error("monitor: give nothing or count N");
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_nl(&n);
	err = nl_talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_SOURCES, false),
		      new_on_cb, &on);
	if (err)
		refused(&n, err);
	if (!on)
		fprintf(stderr, "dedupctl: the new-source filter is off: nothing is reported until 'dedupctl sources new on'\n");
	err = nl_listen(&n, monitor_cb, &c);
	if (err)
		refused(&n, err);
	nl_close(&n);
	return 0;
}
