// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: configure and watch pktdedup, iproute2 style.
 *
 *   dedupctl [-j | -o text|json|prometheus] [-n NETNS] show | set ... |
 *                 stats [percpu] [-w DURATION [count N]] | reset |
 *                 query ... | distinct ... | sources ... | top ... |
 *                 rare ... | monitor ... | plan ... | save | batch FILE
 *   dedupctl -f FILE
 *
 * Exit status: 0 done, 1 the kernel refused or could not be reached,
 * 2 the command line is wrong. See dedupctl(8).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../module/core/config.h"
#include "../../module/core/decap.h"
#include "../../module/core/fixed.h"
#include "../../module/core/key.h"
#include "../../module/core/plan.h"
#include "../../module/core/sbf.h"
#include "../../module/uapi/pktdedup.h"
#include "../common/args.h"
#include "dedupctl.h"
#include "encap.h"
#include "nl.h"
#include "prom.h"
#include "version.h"
#include "watch.h"
#include "json_str.h"


enum dedupctl_output output;
bool json;
bool dc_check;
char dc_prog[DC_PROG_MAX] = "dedupctl";

/*
 * The usage text; the filter families', the placements' and the
 * encapsulations' names, where the text has @FAMILIES@, @HOOKS@ and
 * @ENCAPS@, come from their tables (usage()).
 */
static const char usage_text[] =
"usage: dedupctl [-j | -o FORMAT] [-n NETNS] COMMAND\n"
"       dedupctl [-c] -f FILE\n"
"       dedupctl -c set ... | enable | disable\n"
"\n"
"  show                          the configuration and filter parameters\n"
"  enable, disable               start this namespace's instance, or free\n"
"                                everything it holds and remove its hooks\n"
"  set SETTING VALUE ...         change settings (all or nothing; an idle\n"
"                                instance starts unless state idle is given):\n"
"      key packet|src|dst|pair|flow    payload all|BYTES    ignore-tos on|off\n"
"      nonip pass|dedup  (dedup: frames that are not IP keyed too; L2 hooks)\n"
"      decap none|all|@ENCAPS@\n"
"            (tunnels whose inner packet is keyed; a list: vxlan,gre)\n"
"      tunnel-id include|ignore    vxlan-port N    geneve-port N    gtpu-port N\n"
"      action count|mark|drop    mark VALUE[/MASK]\n"
"      force     (action drop with key flow, src, dst or pair: whole flows)\n"
"      scope percpu|shared    shards auto|N    state idle|active\n"
"      filter auto|@FAMILIES@\n"
"            (auto: sbf to count or mark, a 10 ms sliding window to drop)\n"
"      mem SIZE, and the filter family's own: fps RATE    max auto|N\n"
"      k auto|N    p auto|N    gap auto|PACKETS    p-star RATE (rsbf)\n"
"      layout flat|blocked|line|auto (sbf: blocked, a key's cells in one\n"
"            line; line, its decrements there too)\n"
"      importance dscp|mark MASK (ibf-2c, ibf-mc)\n"
"      window DURATION|Np    rate auto|PPS    warn-below PCT (windows)\n"
"      subwindows N (jumping)    landmark DURATION (filter landmark window)\n"
"      hook @HOOKS@    priority N\n"
"      dev NAME[,NAME...]|any    proto P[,P...]|any    match-mark VALUE[/MASK]|any\n"
"                                (traffic selection, before any hashing)\n"
"      seed N|random    N: every filter seeded as dedup-sim --seed N (a\n"
"                       predictable filter: for testing and replay only)\n"
"  stats [percpu]                counters (totals, or one row per CPU)\n"
"  stats -w DURATION [count N]   every DURATION, the rates since the last:\n"
"                                packets/s, duplicates/s, duplicate share,\n"
"                                dropped/s, marked/s (N lines, or until ^C)\n"
"  reset                         empty the filters, new seeds (unless fixed),\n"
"                                zero counters\n"
"  query src ADDR | dst ADDR | pair SRC DST |\n"
"        flow PROTO SRC SPORT DST DPORT | packet-hex HEX\n"
"                                is this key in the filters now?\n"
"  distinct [window DURATION]    distinct source and destination addresses\n"
"                                in the recent window (default: all of it)\n"
"  distinct sketches [last N | window] [host NAME]\n"
"                                their sketches for a database (PostgreSQL's\n"
"                                hll): CSV rows host,fingerprint,start,end,\n"
"                                src,dst, one per completed sub-window (the\n"
"                                last N), or the whole window as one row\n"
"  sources [on|off] [SETTING VALUE ...]\n"
"                                show or change the source windows (off:\n"
"                                none, no memory, no per-packet work):\n"
"      window DURATION    subwindows N    counters N    new on|off\n"
"      new-mem SIZE    new-gap auto|PACKETS    event-rate N    ring N\n"
"      key FILE|random    the addresses' hash key: a fleet's 40 bytes, whose\n"
"                         hosts' sketches merge; random: this instance's own\n"
"  top [N] [window DURATION]     the N heaviest sources (10), with bounds\n"
"                                (needs sources counters N: off by default)\n"
"  rare [support S] [window DURATION] [limit N]\n"
"                                sources that sent at most S x all packets\n"
"  monitor [count N]             print new sources as the module reports them\n"
"  plan [filter F] [scope S] mem SIZE [SETTING VALUE ...]\n"
"                                run F's planner here, no kernel needed\n"
"  save                          print the configuration as lines for -f\n"
"  batch FILE                    as -f FILE\n"
"\n"
"  -j, --json    JSON output (monitor: one JSON object per line)\n"
"  -f, --file FILE\n"
"                apply FILE's set, sources, enable and disable lines (- for\n"
"                the standard input), all checked first, all or nothing\n"
"  -c, --check   with -f, set, enable or disable: the kernel checks the change\n"
"                as it would make it, and nothing is changed; exit 0 if it\n"
"                would be accepted, 1 with its refusal (FILE:LINE for -f)\n"
"  -o, --output text|json|prometheus\n"
"                text (the default); json, as -j; prometheus: the Prometheus\n"
"                text format, for node_exporter's textfile collector (stats,\n"
"                distinct, sources)\n"
"  -n, --netns NAME\n"
"                in network namespace NAME (ip netns), as ip -n NAME\n"
"  -V, --version dedupctl's version and its protocol's, and the module's\n"
"-j, -o and -n may also follow the command; two output formats are refused.\n"
"SIZE takes K, M, G suffixes; RATE is a fraction (0.01) or a percentage (1%);\n"
"DURATION is a number with ms, s, m or h (seconds if bare).\n";

/*
 * names[0..n) joined by '|' from column col of a line, wrapped before
 * column 80 (counting the rest bytes that follow the list on its line)
 * onto lines indented by indent spaces.
 */
static void usage_names(FILE *f, const char *const *names, unsigned int n,
			unsigned int col, unsigned int indent, size_t rest)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]) + (i + 1 < n ? 1 : rest);

		if (i && col + len > 79) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
		}
		col += fprintf(f, "%s%s", names[i], i + 1 < n ? "|" : "");
	}
}

/* The usage text, with the names of the families and placements in it. */
static void usage(FILE *f)
{
	const char *names[PD_FILTER_NKINDS + PD_NHOOKS + PD_NENCAPS];
	const char *p = usage_text, *at;
	unsigned int i, n;

	while ((at = strchr(p, '@'))) {
		const char *col = at;
		bool fam = !strncmp(at, "@FAMILIES@", 10);
		bool enc = !strncmp(at, "@ENCAPS@", 8);

		while (col > usage_text && col[-1] != '\n')
			col--;
		fwrite(p, 1, (size_t)(at - p), f);
		n = 0;
		for (i = 0; fam && i < PD_FILTER_NKINDS; i++)
			if (pd_filter_family(i))
				names[n++] = pd_filter_family(i)->name;
		for (i = 0; enc && i < PD_NENCAPS; i++)
			names[n++] = pd_encap_names[i];
		for (i = 0; !fam && !enc && i < PD_NHOOKS; i++)
			names[n++] = pd_placements[i].name;
		/* the rest of the line: what follows the list on it */
		p = at + (fam ? 10 : enc ? 8 : 7);
		usage_names(f, names, n, (unsigned int)(at - col),
			    (unsigned int)(at - col), strcspn(p, "\n"));
	}
	fputs(p, f);
}


/* What the kernel said about a refused request, on stderr. */
static void report_refused(const struct nl *n, int err)
{
	const char *foreign = xdp_foreign(n->err);

	if (foreign)	/* the device's program, which the kernel cannot name */
		fprintf(stderr, "%s: %s\n", dc_prog, foreign);
	else if (err == -EPERM)
		fprintf(stderr, "%s: %s (needs CAP_NET_ADMIN)\n", dc_prog,
			n->err[0] ? n->err : strerror(-err));
	else
		fprintf(stderr, "%s: %s\n", dc_prog, n->err[0] ? n->err :
			strerror(-err));
}

void __attribute__((noreturn)) refused(const struct nl *n, int err)
{
	report_refused(n, err);
	dedupctl_exit(EXIT_REFUSED);
}

void open_nl(struct nl *n)
{
	if (nl_open(n)) {
		fprintf(stderr, "dedupctl: %s\n", n->err);
		dedupctl_exit(EXIT_REFUSED);
	}
}

/* Send req, hand the replies to cb, exit 1 if the kernel refuses; close. */
void talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		 void *data)
{
	int err = nl_talk(n, req, cb, data);

	if (err)
		refused(n, err);
	nl_close(n);
}

/* ---- values ---- */

void usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vusage_msg(dc_prog, "dedupctl help", fmt, ap);
	va_end(ap);
	dedupctl_exit(EXIT_USAGE);
}

int name_arg(const char *what, const char *v, const char *const *names,
		    unsigned int n)
{
	int i = pd_name_index(v, names, n);
	unsigned int j;

	if (i >= 0)
		return i;
	fprintf(stderr, "%s: %s: '%s' is not one of:", dc_prog, what, v);
	for (j = 0; j < n; j++)
		fprintf(stderr, " %s", names[j]);
	fprintf(stderr, "\n");
	dedupctl_exit(EXIT_USAGE);
}

uint32_t ppb_arg(const char *what, const char *v)
{
	u32 ppb;

	if (pd_parse_ppb(v, &ppb))
		usage_error("%s: '%s' is not a probability between 0 and 1 (e.g. 0.01 or 1%%)",
			    what, v);
	return ppb;
}

uint64_t size_arg(const char *what, const char *v)
{
	uint64_t s;

	if (!parse_size(v, &s) || !s)
		usage_error("%s: '%s' is not a size (e.g. 256K, 4M)", what, v);
	return s;
}

uint64_t num_arg(const char *what, const char *v, uint64_t lo,
			uint64_t hi)
{
	uint64_t x;

	if (!parse_u64(v, lo, hi, &x))
		usage_error("%s: '%s' is not a number from %llu to %llu", what,
			    v, (unsigned long long)lo, (unsigned long long)hi);
	return x;
}

/* "auto" or a number in [lo, hi] */
uint32_t auto_arg(const char *what, const char *v, uint32_t autoval,
			 uint64_t lo, uint64_t hi)
{
	return strcmp(v, "auto") ? (uint32_t)num_arg(what, v, lo, hi) : autoval;
}

bool onoff_arg(const char *what, const char *v)
{
	if (!strcmp(v, "on"))
		return true;
	if (!strcmp(v, "off"))
		return false;
	usage_error("%s: '%s' is not on or off", what, v);
}

void mark_arg(const char *v, uint32_t *value, uint32_t *mask)
{
	char buf[64], *slash;
	uint64_t x;

	snprintf(buf, sizeof(buf), "%s", v);
	slash = strchr(buf, '/');
	if (slash)
		*slash++ = '\0';
	if (!parse_u64(buf, 0, 0xffffffffu, &x))
		usage_error("mark: '%s' is not VALUE[/MASK] (e.g. 0x10/0xff)", v);
	*value = (uint32_t)x;
	*mask = 0xffffffffu;
	if (slash) {
		if (!parse_u64(slash, 0, 0xffffffffu, &x))
			usage_error("mark: '%s' is not VALUE[/MASK] (e.g. 0x10/0xff)",
				    v);
		*mask = (uint32_t)x;
	}
}

const char *pct(char *buf, size_t len, uint32_t ppb)
{
	snprintf(buf, len, "%.4g%%", ppb / 1e7);
	return buf;
}

/* A size: exact where it is a whole number of units, else to 0.1. */
const char *size_str(char *buf, size_t len, uint64_t b)
{
	static const char *const unit[] = { "bytes", "KiB", "MiB", "GiB" };
	unsigned int u = 0;

	while (u < 3 && b >= (1ULL << (10 * (u + 1))))
		u++;
	if (!u)
		snprintf(buf, len, "%llu bytes", (unsigned long long)b);
	else if (!(b & ((1ULL << (10 * u)) - 1)))
		snprintf(buf, len, "%llu %s", (unsigned long long)(b >> (10 * u)),
			 unit[u]);
	else
		snprintf(buf, len, "%.1f %s", (double)b / (1ULL << (10 * u)),
			 unit[u]);
	return buf;
}

/* ---- show ---- */

uint64_t u64a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u64(tb[t]) : 0;
}

uint32_t u32a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u32(tb[t]) : 0;
}

uint16_t u16a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u16(tb[t]) : 0;
}

uint8_t u8a(const struct nlattr **tb, int t)
{
	return tb[t] ? mnl_attr_get_u8(tb[t]) : 0;
}

uint64_t uint_attr(const struct nlattr *a)
{
	switch (mnl_attr_get_payload_len(a)) {
	case 1:
		return mnl_attr_get_u8(a);
	case 2:
		return mnl_attr_get_u16(a);
	case 4:
		return mnl_attr_get_u32(a);
	default:
		return mnl_attr_get_u64(a);
	}
}

const char *name_of(const char *const *names, unsigned int n,
			   unsigned int i)
{
	return i < n && names[i] ? names[i] : "?";
}

/* "N bytes (x.y MiB)" */
static const char *bytes_str(char *buf, size_t len, uint64_t b)
{
	if (b >= 1 << 20)
		snprintf(buf, len, "%llu bytes (%.1f MiB)", (unsigned long long)b,
			 b / 1048576.0);
	else
		snprintf(buf, len, "%llu bytes (%.1f KiB)", (unsigned long long)b,
			 b / 1024.0);
	return buf;
}

static int budget_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *b[PKTDEDUP_A_BUDGET_MAX + 1];
	char b1[48], b2[48], b3[48];

	(void)data;
	nl_nest(tb[PKTDEDUP_A_BUDGET], &nls_budget, b);
	fprintf(stderr, "%s: the change needed %s; this namespace holds %s of its cap of %s\n",
		dc_prog,
		bytes_str(b1, sizeof(b1), u64a(b, PKTDEDUP_A_BUDGET_REFUSED)),
		bytes_str(b2, sizeof(b2), u64a(b, PKTDEDUP_A_BUDGET_FILTERS) +
			  u64a(b, PKTDEDUP_A_BUDGET_SOURCES)),
		bytes_str(b3, sizeof(b3), u64a(b, PKTDEDUP_A_BUDGET_CAP)));
	return MNL_CB_OK;
}

/*
 * What the kernel said about a refused change; for the memory cap also
 * how much it needed and what the namespace holds (another request on n).
 */
void report_change_refused(struct nl *n, int err)
{
	if (err != -E2BIG) {
		report_refused(n, err);
		return;
	}
	fprintf(stderr, "%s: %s\n", dc_prog, n->err);
	nl_talk(n, nl_request(n, PKTDEDUP_CMD_GET_CONFIG, false), budget_cb,
		NULL);
}

/*
 * Send a change; if the kernel refuses it for the namespace's memory cap,
 * say how much it needed and what the namespace holds, then exit 1.
 */
void talk_change(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		 void *data)
{
	int err = nl_talk(n, req, cb, data);

	if (err) {
		report_change_refused(n, err);
		dedupctl_exit(EXIT_REFUSED);
	}
	nl_close(n);
}

/* Append a word (printf-formatted) to w; exits 1 if w is full. */
void words_add(struct words *w, const char *fmt, ...)
{
	size_t room = sizeof(w->buf) - w->used;
	va_list ap;
	int len;

	va_start(ap, fmt);
	len = vsnprintf(w->buf + w->used, room, fmt, ap);
	va_end(ap);
	if (len < 0 || (size_t)len >= room ||
	    w->argc >= (int)(sizeof(w->argv) / sizeof(w->argv[0]))) {
		fprintf(stderr, "dedupctl: too many settings to write\n");
		dedupctl_exit(EXIT_REFUSED);
	}
	w->argv[w->argc++] = w->buf + w->used;
	w->used += (size_t)len + 1;
}

void words_auto(struct words *w, const char *name, uint64_t v, bool automatic)
{
	words_add(w, "%s", name);
	if (automatic)
		words_add(w, "auto");
	else
		words_add(w, "%llu", (unsigned long long)v);
}

/* A JSON member ,"name":V, or ,"name":"auto" where the value is automatic. */
void json_auto(const char *name, uint64_t v, bool automatic)
{
	if (automatic)
		printf(",\"%s\":\"auto\"", name);
	else
		printf(",\"%s\":%llu", name, (unsigned long long)v);
}

/* A size as set and sources read it: bytes, or exact K, M, G. */
const char *size_word(char *buf, size_t len, uint64_t b)
{
	static const char unit[] = "GMK";
	unsigned int u;

	for (u = 0; u < 3; u++) {
		unsigned int shift = 10 * (3 - u);

		if (b && !(b & ((1ULL << shift) - 1))) {
			snprintf(buf, len, "%llu%c",
				 (unsigned long long)(b >> shift), unit[u]);
			return buf;
		}
	}
	snprintf(buf, len, "%llu", (unsigned long long)b);
	return buf;
}

/* ---- stats ---- */

struct stats_ctx {
	bool percpu;
	unsigned int rows;
	struct prom_stats_row *prom;	/* -o prometheus: the rows, kept */
};

uint64_t netns_inode(void)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st)) {
		fprintf(stderr, "dedupctl: cannot read /proc/self/ns/net for the netns label: %s\n",
			strerror(errno));
		dedupctl_exit(EXIT_REFUSED);
	}
	return (uint64_t)st.st_ino;
}

/* A stats reply as a row of -o prometheus. */
static void prom_row(const struct nlattr *nest, const struct nlattr **tb,
		     struct prom_stats_row *r)
{
	const struct nlattr *a;

	memset(r, 0, sizeof(*r));
	r->has_cpu = tb[PKTDEDUP_A_STATS_CPU];
	r->cpu = u32a(tb, PKTDEDUP_A_STATS_CPU);
	r->packets = u64a(tb, PKTDEDUP_A_STATS_PACKETS);
	r->duplicates = u64a(tb, PKTDEDUP_A_STATS_DUPLICATES);
	r->marked = u64a(tb, PKTDEDUP_A_STATS_MARKED);
	r->dropped = u64a(tb, PKTDEDUP_A_STATS_DROPPED);
	r->unparsed = u64a(tb, PKTDEDUP_A_STATS_UNPARSED);
	r->nonip = u64a(tb, PKTDEDUP_A_STATS_NONIP);
	r->set_bits = tb[PKTDEDUP_A_STATS_SET_BITS];
	r->has_occupancy = r->set_bits || tb[PKTDEDUP_A_STATS_ZERO_CELLS];
	r->occupancy_ppb = u32a(tb, r->set_bits ? PKTDEDUP_A_STATS_SET_BITS :
				PKTDEDUP_A_STATS_ZERO_CELLS);
	r->timed = tb[PKTDEDUP_A_STATS_WINDOW_NS];
	r->window = r->timed || tb[PKTDEDUP_A_STATS_WINDOW_PACKETS];
	r->window_asked = u64a(tb, r->timed ? PKTDEDUP_A_STATS_WINDOW_NS :
			       PKTDEDUP_A_STATS_WINDOW_PACKETS);
	r->window_effective = u64a(tb, PKTDEDUP_A_STATS_WINDOW_EFFECTIVE);
	r->window_shortest = u64a(tb, PKTDEDUP_A_STATS_WINDOW_SHORTEST);
	r->window_entries = u64a(tb, PKTDEDUP_A_STATS_WINDOW_ENTRIES);
	r->early_expiries = u64a(tb, PKTDEDUP_A_STATS_EARLY_EXPIRIES);
	r->has_rate = tb[PKTDEDUP_A_STATS_RATE];
	r->rate_pps = u64a(tb, PKTDEDUP_A_STATS_RATE);
	r->has_memory_packets = tb[PKTDEDUP_A_STATS_MEMORY_PACKETS];
	r->memory_packets = u64a(tb, PKTDEDUP_A_STATS_MEMORY_PACKETS);
	r->has_memory_ns = tb[PKTDEDUP_A_STATS_MEMORY_NS];
	r->memory_ns = u64a(tb, PKTDEDUP_A_STATS_MEMORY_NS);
	if (!nest)
		return;
	mnl_attr_for_each_nested(a, nest) {
		const struct nlattr *d[PKTDEDUP_A_DECAP_STATS_MAX + 1];
		struct prom_decap *pd;
		char name[16];

		if (mnl_attr_get_type(a) == PKTDEDUP_A_STATS_LOAD &&
		    mnl_attr_get_payload_len(a) == 8 &&
		    r->nloads < PROM_LOADS_MAX)
			r->loads[r->nloads++] = mnl_attr_get_u64(a);
		if (mnl_attr_get_type(a) == PKTDEDUP_A_STATS_DEVICE &&
		    r->ndev < PROM_DEVS_MAX) {
			const struct nlattr *v[PKTDEDUP_A_DEVICE_STATS_MAX + 1];
			struct prom_dev *pv = &r->dev[r->ndev++];

			nl_nest(a, &nls_device_stats, v);
			snprintf(pv->name, sizeof(pv->name), "%s",
				 v[PKTDEDUP_A_DEVICE_STATS_NAME] ?
				 mnl_attr_get_str(v[PKTDEDUP_A_DEVICE_STATS_NAME]) :
				 "");
			pv->packets = u64a(v, PKTDEDUP_A_DEVICE_STATS_PACKETS);
			pv->duplicates =
				u64a(v, PKTDEDUP_A_DEVICE_STATS_DUPLICATES);
			pv->marked = u64a(v, PKTDEDUP_A_DEVICE_STATS_MARKED);
			pv->dropped = u64a(v, PKTDEDUP_A_DEVICE_STATS_DROPPED);
			continue;
		}
		if (mnl_attr_get_type(a) != PKTDEDUP_A_STATS_DECAP ||
		    r->ndecap == PROM_ENCAPS_MAX)
			continue;
		nl_nest(a, &nls_decap_stats, d);
		pd = &r->decap[r->ndecap++];
		snprintf(pd->encap, sizeof(pd->encap), "%s",
			 encap_name(name, sizeof(name),
				    u32a(d, PKTDEDUP_A_DECAP_STATS_ENCAP)));
		pd->frames = u64a(d, PKTDEDUP_A_DECAP_STATS_FRAMES);
		pd->errors = u64a(d, PKTDEDUP_A_DECAP_STATS_ERRORS);
	}
}

/*
 * The frames and errors of each encapsulation looked into (repeated
 * nests): a JSON array, or text as /proc's ("decap vxlan 120 errors 0,
 * gre 30 errors 2").
 */
static void print_decap(const struct nlattr *nest)
{
	const struct nlattr *a, *d[PKTDEDUP_A_DECAP_STATS_MAX + 1];
	unsigned long long frames, errors;
	unsigned int n = 0;
	const char *encap;
	char name[16];

	if (!nest)
		return;
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != PKTDEDUP_A_STATS_DECAP)
			continue;
		nl_nest(a, &nls_decap_stats, d);
		encap = encap_name(name, sizeof(name),
				   u32a(d, PKTDEDUP_A_DECAP_STATS_ENCAP));
		frames = u64a(d, PKTDEDUP_A_DECAP_STATS_FRAMES);
		errors = u64a(d, PKTDEDUP_A_DECAP_STATS_ERRORS);
		if (json)
			printf("%s{\"encap\":\"%s\",\"frames\":%llu,\"errors\":%llu}",
			       n ? "," : ",\"decap\":[", encap, frames, errors);
		else
			printf("%s%s %llu errors %llu", n ? ", " : "  decap ",
			       encap, frames, errors);
		n++;
	}
	if (n && json)
		printf("]");
}

/* duplicates per hundred packets, "12.50%"; "-" before any packet. */
static const char *dup_pct(char *buf, size_t len, uint64_t dups,
			   uint64_t packets)
{
	if (!packets)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.2f%%", 100.0 * (double)dups /
			 (double)packets);
	return buf;
}

/*
 * The counters of each named device (the totals' device nests): a JSON
 * array "devices", or a table under the totals.
 */
static void print_devices(const struct nlattr *nest)
{
	const struct nlattr *a, *d[PKTDEDUP_A_DEVICE_STATS_MAX + 1];
	unsigned long long p, dup, mk, dr;
	unsigned int n = 0;
	const char *name;
	char pct[16];

	if (!nest)
		return;
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != PKTDEDUP_A_STATS_DEVICE)
			continue;
		nl_nest(a, &nls_device_stats, d);
		name = d[PKTDEDUP_A_DEVICE_STATS_NAME] ?
		       mnl_attr_get_str(d[PKTDEDUP_A_DEVICE_STATS_NAME]) : "";
		p = u64a(d, PKTDEDUP_A_DEVICE_STATS_PACKETS);
		dup = u64a(d, PKTDEDUP_A_DEVICE_STATS_DUPLICATES);
		mk = u64a(d, PKTDEDUP_A_DEVICE_STATS_MARKED);
		dr = u64a(d, PKTDEDUP_A_DEVICE_STATS_DROPPED);
		if (json) {
			printf("%s{\"name\":", n ? "," : ",\"devices\":[");
			json_str(name);
			printf(",\"packets\":%llu,\"duplicates\":%llu,"
			       "\"marked\":%llu,\"dropped\":%llu}",
			       p, dup, mk, dr);
		} else {
			if (!n)
				printf("\n%-15s %12s %12s %8s %12s %12s\n", "dev",
				       "packets", "duplicates", "dup %",
				       "marked", "dropped");
			printf("%-15s %12llu %12llu %8s %12llu %12llu\n", name,
			       p, dup, dup_pct(pct, sizeof(pct), dup, p), mk,
			       dr);
		}
		n++;
	}
	if (n && json)
		printf("]");
}

/* The loads of a bit-array filter (repeated attributes), as a list. */
static void print_loads(const struct nlattr *nest)
{
	const struct nlattr *a;
	unsigned int n = 0;

	if (!nest)
		return;
	mnl_attr_for_each_nested(a, nest) {
		if (mnl_attr_get_type(a) != PKTDEDUP_A_STATS_LOAD ||
		    mnl_attr_get_payload_len(a) != 8)
			continue;
		printf(json ? "%s%llu" : "%s%llu", n ? (json ? "," : " ") :
		       (json ? ",\"loads\":[" : "  loads "),
		       (unsigned long long)mnl_attr_get_u64(a));
		n++;
	}
	if (n && json)
		printf("]");
}

/* A window family's state: JSON members, or a line of text. */
static void print_window_stats(const struct nlattr **tb)
{
	bool timed = tb[PKTDEDUP_A_STATS_WINDOW_NS];
	uint64_t win = u64a(tb, timed ? PKTDEDUP_A_STATS_WINDOW_NS :
			    PKTDEDUP_A_STATS_WINDOW_PACKETS);
	uint64_t eff = u64a(tb, PKTDEDUP_A_STATS_WINDOW_EFFECTIVE);
	uint64_t low = u64a(tb, PKTDEDUP_A_STATS_WINDOW_SHORTEST);
	char b1[32], b2[32], b3[32];

	if (!timed && !tb[PKTDEDUP_A_STATS_WINDOW_PACKETS])
		return;
	if (json) {
		/* _ns for a time window, _packets for a window of packets */
		const char *u = timed ? "ns" : "packets";

		printf(",\"window_%s\":%llu,\"window_entries\":%llu,\"window_effective_%s\":%llu,\"window_shortest_%s\":%llu,\"early_expiries\":%llu",
		       u, (unsigned long long)win,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_WINDOW_ENTRIES),
		       u, (unsigned long long)eff, u, (unsigned long long)low,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_EARLY_EXPIRIES));
		return;
	}
	if (timed) {
		time_str(b1, sizeof(b1), win);
		time_str(b2, sizeof(b2), eff);
		time_str(b3, sizeof(b3), low);
	} else {
		snprintf(b1, sizeof(b1), "%llu packets", (unsigned long long)win);
		snprintf(b2, sizeof(b2), "%llu", (unsigned long long)eff);
		snprintf(b3, sizeof(b3), "%llu", (unsigned long long)low);
	}
	printf("  window %s: effective %s, shortest %s, %llu early expiries, %llu remembered",
	       b1, b2, b3,
	       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_EARLY_EXPIRIES),
	       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_WINDOW_ENTRIES));
}

/* n with a comma between thousands: 41,300. */
static const char *grouped(char *buf, size_t len, uint64_t n)
{
	char digits[32];
	size_t nd, i, o = 0;

	nd = (size_t)snprintf(digits, sizeof(digits), "%llu",
			      (unsigned long long)n);
	for (i = 0; i < nd && o + 2 < len; i++) {
		if (i && (nd - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

/* A packet rate: 950 pps, 19.6 kpps, 1.25 Mpps. */
static const char *rate_str(char *buf, size_t len, uint64_t pps)
{
	if (pps < 1000)
		snprintf(buf, len, "%llu pps", (unsigned long long)pps);
	else if (pps < 1000000)
		snprintf(buf, len, "%.3g kpps", pps / 1e3);
	else
		snprintf(buf, len, "%.3g Mpps", pps / 1e6);
	return buf;
}

/*
 * The totals' rate and memory: JSON members (each when known), or the
 * line "memory: copies up to N packets apart are caught (99%), about T at
 * the current R". A window catches every copy inside it: no 99%.
 */
static void print_memory(const struct nlattr **tb)
{
	bool has_rate = tb[PKTDEDUP_A_STATS_RATE];
	bool has_p = tb[PKTDEDUP_A_STATS_MEMORY_PACKETS];
	bool has_ns = tb[PKTDEDUP_A_STATS_MEMORY_NS];
	bool win = tb[PKTDEDUP_A_STATS_WINDOW_NS] ||
		   tb[PKTDEDUP_A_STATS_WINDOW_PACKETS];
	uint64_t pps = u64a(tb, PKTDEDUP_A_STATS_RATE);
	uint64_t pk = u64a(tb, PKTDEDUP_A_STATS_MEMORY_PACKETS);
	uint64_t ns = u64a(tb, PKTDEDUP_A_STATS_MEMORY_NS);
	const char *sure = win ? "" : " (99%)";
	char b1[32], b2[32], b3[32];

	if (tb[PKTDEDUP_A_STATS_CPU])
		return;
	if (json) {
		if (has_rate)
			printf(",\"rate_pps\":%llu", (unsigned long long)pps);
		if (has_p)
			printf(",\"memory_packets\":%llu",
			       (unsigned long long)pk);
		if (has_ns)
			printf(",\"memory_ns\":%llu", (unsigned long long)ns);
		return;
	}
	if (has_p && pk == UINT64_MAX) {
		printf("memory: copies at any distance are caught (no decrements: the filter never forgets)\n");
		return;
	}
	if (!has_p && !has_ns) {	/* idle, or a family without a model */
		if (has_rate)
			printf("memory: not modelled for this filter family; the rate is %s\n",
			       rate_str(b3, sizeof(b3), pps));
		return;
	}
	printf("memory: copies up to %s%s apart are caught%s",
	       has_p ? grouped(b1, sizeof(b1), pk) : time_str(b1, sizeof(b1), ns),
	       has_p ? " packets" : "", sure);
	if (!has_rate)
		printf(", rate not measured yet; read again in a second\n");
	else if (has_p && has_ns)
		printf(", about %s at the current %s\n",
		       time_str(b2, sizeof(b2), ns), rate_str(b3, sizeof(b3), pps));
	else if (has_p)
		printf("; no packets came in the last interval, so no time\n");
	else
		printf(" at the current %s\n", rate_str(b3, sizeof(b3), pps));
}

static int stats_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_STATS_MAX + 1];
	struct stats_ctx *c = data;
	char cpu[16] = "total", pct[16];
	bool bits;
	u32 occ;

	nl_nest(top[PKTDEDUP_A_STATS], &nls_stats, tb);
	bits = tb[PKTDEDUP_A_STATS_SET_BITS];
	occ = u32a(tb, bits ? PKTDEDUP_A_STATS_SET_BITS :
		   PKTDEDUP_A_STATS_ZERO_CELLS);
	if (tb[PKTDEDUP_A_STATS_CPU])
		snprintf(cpu, sizeof(cpu), "%u", u32a(tb, PKTDEDUP_A_STATS_CPU));
	if (output == OUT_PROMETHEUS) {
		struct prom_stats_row *p = realloc(c->prom, (c->rows + 1) *
						   sizeof(*p));

		if (!p) {
			fprintf(stderr, "dedupctl: out of memory\n");
			dedupctl_exit(EXIT_REFUSED);
		}
		c->prom = p;
		prom_row(top[PKTDEDUP_A_STATS], tb, &p[c->rows]);
	} else if (json) {
		printf("%s{", c->percpu ? (c->rows ? "," : "[") : "");
		if (tb[PKTDEDUP_A_STATS_CPU])
			printf("\"cpu\":%s,", cpu);
		printf("\"packets\":%llu,\"duplicates\":%llu,\"marked\":%llu,"
		       "\"dropped\":%llu,\"unparsed\":%llu,\"%s\":%.9g",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_PACKETS),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DUPLICATES),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_MARKED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DROPPED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_UNPARSED),
		       bits ? "set_bits" : "zero_cells", occ / 1e9);
		printf(",\"nonip\":%llu",
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_NONIP));
		if (tb[PKTDEDUP_A_STATS_UNJUDGED])
			printf(",\"unjudged\":%llu", (unsigned long long)
			       u64a(tb, PKTDEDUP_A_STATS_UNJUDGED));
		print_loads(top[PKTDEDUP_A_STATS]);
		print_window_stats(tb);
		print_decap(top[PKTDEDUP_A_STATS]);
		print_devices(top[PKTDEDUP_A_STATS]);
		print_memory(tb);
		printf("}");
		if (!c->percpu)
			printf("\n");
	} else {
		if (!c->rows)
			printf("%-6s %12s %12s %8s %12s %12s %12s %11s\n",
			       "cpu", "packets", "duplicates", "dup %",
			       "marked", "dropped", "unparsed",
			       bits ? "set bits" : "zero cells");
		printf("%-6s %12llu %12llu %8s %12llu %12llu %12llu %10.2f%%",
		       cpu,
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_PACKETS),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DUPLICATES),
		       dup_pct(pct, sizeof(pct),
			       u64a(tb, PKTDEDUP_A_STATS_DUPLICATES),
			       u64a(tb, PKTDEDUP_A_STATS_PACKETS)),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_MARKED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_DROPPED),
		       (unsigned long long)u64a(tb, PKTDEDUP_A_STATS_UNPARSED),
		       occ / 1e7);
		print_loads(top[PKTDEDUP_A_STATS]);
		print_window_stats(tb);
		/* frames an ingress or bridge hook saw that were not IP */
		if (u64a(tb, PKTDEDUP_A_STATS_NONIP))
			printf("  non-IP %llu", (unsigned long long)
			       u64a(tb, PKTDEDUP_A_STATS_NONIP));
		/* passed on a CPU without a filter (dedupctl show says why) */
		if (u64a(tb, PKTDEDUP_A_STATS_UNJUDGED))
			printf("  unjudged %llu", (unsigned long long)
			       u64a(tb, PKTDEDUP_A_STATS_UNJUDGED));
		print_decap(top[PKTDEDUP_A_STATS]);
		printf("\n");
		print_devices(top[PKTDEDUP_A_STATS]);
		print_memory(tb);
	}
	c->rows++;
	return MNL_CB_OK;
}

/* ---- stats -w ---- */

static int sample_cb(const struct nlattr **top, void *data)
{
	const struct nlattr *tb[PKTDEDUP_A_STATS_MAX + 1];
	struct watch_sample *w = data;

	nl_nest(top[PKTDEDUP_A_STATS], &nls_stats, tb);
	w->packets = u64a(tb, PKTDEDUP_A_STATS_PACKETS);
	w->duplicates = u64a(tb, PKTDEDUP_A_STATS_DUPLICATES);
	w->marked = u64a(tb, PKTDEDUP_A_STATS_MARKED);
	w->dropped = u64a(tb, PKTDEDUP_A_STATS_DROPPED);
	return MNL_CB_OK;
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void take_sample(struct watch_sample *w)
{
	struct nl n;

	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_STATS, false), sample_cb, w);
	w->ns = mono_ns();
}

/*
 * Until the monotonic clock reads deadline (ns), or SIGINT (blocked, so
 * that it comes here and nowhere else): false on SIGINT.
 */
static bool wait_until(uint64_t deadline, const sigset_t *sigint)
{
	for (;;) {
		uint64_t now = mono_ns(), left;
		struct timespec ts;

		if (now >= deadline)
			return true;
		left = deadline - now;
		ts.tv_sec = (time_t)(left / 1000000000ULL);
		ts.tv_nsec = (long)(left % 1000000000ULL);
		if (sigtimedwait(sigint, NULL, &ts) == SIGINT)
			return false;
	}
}

/*
 * stats -w: a line of rates every interval, count lines (0: until
 * SIGINT). On a terminal the header stays and one line is rewritten in
 * place; piped, a line per interval under the header.
 */
static int watch_stats(uint64_t interval_ms, uint64_t count)
{
	bool tty = isatty(STDOUT_FILENO);
	struct watch_sample prev, cur;
	struct watch_rates r;
	char line[160];
	uint64_t i, deadline;
	sigset_t sigint;
	int width;

	take_sample(&prev);
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	sigprocmask(SIG_BLOCK, &sigint, NULL);
	width = watch_header(line, sizeof(line)) + 8;
	printf("%s\n", line);
	fflush(stdout);
	deadline = prev.ns;
	for (i = 0; !count || i < count; i++) {
		deadline += interval_ms * 1000000ULL;
		if (!wait_until(deadline, &sigint))
			break;
		take_sample(&cur);
		watch_rates(&prev, &cur, &r);
		watch_line(line, sizeof(line), &r);
		if (tty)
			printf("\r%-*s", width, line);
		else
			printf("%s\n", line);
		fflush(stdout);
		prev = cur;
	}
	/* the rewritten line stays; the shell's prompt goes below it */
	if (tty && i)
		printf("\n");
	return 0;
}

static int cmd_stats(int argc, char **argv)
{
	struct stats_ctx c = { 0 };
	uint64_t watch_ms = 0, count = 0;
	struct prom_config cfg = { 0 };
	struct nl n;
	int i;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "percpu")) {
			c.percpu = true;
		} else if (!strcmp(argv[i], "-w") && i + 1 < argc) {
			if (!parse_duration_ms(argv[++i], &watch_ms) ||
			    !watch_ms || watch_ms > 86400000)
				usage_error("stats -w: '%s' is not a duration from 1ms to 24h (e.g. 1, 500ms, 1m)",
					    argv[i]);
		} else if (!strcmp(argv[i], "count") && i + 1 < argc) {
			count = num_arg("count", argv[++i], 1, UINT64_MAX);
		} else {
			usage_error("stats: unexpected '%s' (give [percpu] or -w DURATION [count N])",
				    argv[i]);
		}
	}
	if (count && !watch_ms)
		usage_error("stats: count N goes with -w DURATION");
	if (watch_ms && (c.percpu || output != OUT_TEXT))
		usage_error("stats -w: rates of the totals, as text (not with percpu, -j or -o)");
	if (watch_ms)
		return watch_stats(watch_ms, count);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_STATS, c.percpu), stats_cb,
	     &c);
	if (output == OUT_PROMETHEUS) {
		uint64_t ns = netns_inode();

		/* the configuration's gauges go with the totals only */
		if (!c.percpu) {
			open_nl(&n);
			talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_CONFIG, false),
			     config_prom_cb, &cfg);
		}
		prom_stats(stdout, ns, c.percpu ? NULL : &cfg, c.prom, c.rows);
		free(c.prom);
		return 0;
	}
	if (json && c.percpu)
		printf("%s]\n", c.rows ? "" : "[");
	return 0;
}

static int cmd_reset(int argc, char **argv)
{
	struct nl n;

	if (argc)
		usage_error("reset: unexpected '%s'", argv[0]);
	open_nl(&n);
	talk(&n, nl_request(&n, PKTDEDUP_CMD_RESET, false), NULL, NULL);
	return 0;
}

/* ---- query ---- */

/* An address into buf (4 or 16 bytes); its family must match *family. */
static void addr_arg(const char *what, const char *v, uint8_t *family,
		     uint8_t *buf)
{
	uint8_t fam;

	if (inet_pton(AF_INET, v, buf) == 1)
		fam = PD_FAMILY_IPV4;
	else if (inet_pton(AF_INET6, v, buf) == 1)
		fam = PD_FAMILY_IPV6;
	else
		usage_error("%s: '%s' is not an IPv4 or IPv6 address", what, v);
	if (*family && *family != fam)
		usage_error("%s: '%s' is not of the same family as the other address",
			    what, v);
	*family = fam;
}

static uint8_t proto_arg(const char *v)
{
	static const struct { const char *name; uint8_t num; } p[] = {
		{ "tcp", IPPROTO_TCP }, { "udp", IPPROTO_UDP },
		{ "icmp", IPPROTO_ICMP }, { "icmpv6", IPPROTO_ICMPV6 },
		{ "sctp", IPPROTO_SCTP }, { "dccp", IPPROTO_DCCP },
		{ "udplite", IPPROTO_UDPLITE },
	};
	unsigned int i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		if (!strcmp(v, p[i].name))
			return p[i].num;
	return (uint8_t)num_arg("protocol", v, 0, 255);
}

static int query_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *p[PKTDEDUP_A_PRESENCE_MAX + 1];
	uint32_t n;

	(void)data;
	nl_nest(tb[PKTDEDUP_A_PRESENCE], &nls_presence, p);
	n = u32a(p, PKTDEDUP_A_PRESENCE_FILTERS);
	if (json)
		printf("{\"present\":%s,\"filters\":%u}\n",
		       u8a(p, PKTDEDUP_A_PRESENCE_PRESENT) ? "true" : "false", n);
	else if (u8a(p, PKTDEDUP_A_PRESENCE_PRESENT))
		printf("present (in %u filter%s)\n", n, n == 1 ? "" : "s");
	else
		printf("absent\n");
	return MNL_CB_OK;
}

static int cmd_query(int argc, char **argv)
{
	uint8_t src[16], dst[16], family = 0, pkt[PKTDEDUP_QUERY_PACKET_MAX];
	const char *kind = argc ? argv[0] : "";
	struct nlattr *nest;
	struct nlmsghdr *nlh;
	struct nl n;
	int need;

	need = !strcmp(kind, "src") || !strcmp(kind, "dst") ? 2 :
	       !strcmp(kind, "pair") ? 3 : !strcmp(kind, "flow") ? 6 :
	       !strcmp(kind, "packet-hex") ? 2 : 0;
	if (!need)
		usage_error("query: give src ADDR, dst ADDR, pair SRC DST, flow PROTO SRC SPORT DST DPORT or packet-hex HEX");
	if (argc != need)
		usage_error("query %s: takes %d value%s", kind, need - 1,
			    need == 2 ? "" : "s");
	/* parse everything before touching the kernel */
	if (!strcmp(kind, "packet-hex")) {
		const char *h = argv[1];
		size_t len = strlen(h), i;

		if (len % 2 || len / 2 < PKTDEDUP_QUERY_PACKET_MIN ||
		    len / 2 > sizeof(pkt))
			usage_error("packet-hex: an even number of hex digits, %d to %zu bytes",
				    PKTDEDUP_QUERY_PACKET_MIN, sizeof(pkt));
		for (i = 0; i < len / 2; i++) {
			unsigned int b;

			if (sscanf(h + 2 * i, "%2x", &b) != 1 ||
			    !strchr("0123456789abcdefABCDEF", h[2 * i]) ||
			    !strchr("0123456789abcdefABCDEF", h[2 * i + 1]))
				usage_error("packet-hex: '%.2s' is not a hex byte",
					    h + 2 * i);
			pkt[i] = (uint8_t)b;
		}
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_PACKET, len / 2, pkt);
	} else if (!strcmp(kind, "flow")) {
		uint8_t proto = proto_arg(argv[1]);
		uint16_t sport, dport;

		addr_arg("source", argv[2], &family, src);
		sport = (uint16_t)num_arg("source port", argv[3], 0, 65535);
		addr_arg("destination", argv[4], &family, dst);
		dport = (uint16_t)num_arg("destination port", argv[5], 0, 65535);
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		mnl_attr_put_u8(nlh, PKTDEDUP_A_QUERY_PROTO, proto);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_SRC, family == 4 ? 4 : 16, src);
		mnl_attr_put(nlh, PKTDEDUP_A_QUERY_DST, family == 4 ? 4 : 16, dst);
		mnl_attr_put_u16(nlh, PKTDEDUP_A_QUERY_SPORT, sport);
		mnl_attr_put_u16(nlh, PKTDEDUP_A_QUERY_DPORT, dport);
	} else {
		bool has_src = strcmp(kind, "dst"), has_dst = strcmp(kind, "src");

		if (has_src)
			addr_arg("source", argv[1], &family, src);
		if (has_dst)
			addr_arg("destination", argv[has_src ? 2 : 1], &family,
				 dst);
		open_nl(&n);
		nlh = nl_request(&n, PKTDEDUP_CMD_QUERY, false);
		nest = mnl_attr_nest_start(nlh, PKTDEDUP_A_QUERY);
		if (has_src)
			mnl_attr_put(nlh, PKTDEDUP_A_QUERY_SRC,
				     family == 4 ? 4 : 16, src);
		if (has_dst)
			mnl_attr_put(nlh, PKTDEDUP_A_QUERY_DST,
				     family == 4 ? 4 : 16, dst);
	}
	mnl_attr_nest_end(nlh, nest);
	talk(&n, nlh, query_cb, NULL);
	return 0;
}

/* -o FORMAT */
/* What set the output format, for a second that disagrees. */
static const char *output_by;

static void output_set(enum dedupctl_output o, const char *by)
{
	if (output_by && output != o)
		usage_error("%s and %s: two output formats; give one", output_by,
			    by);
	output = o;
	output_by = by;
}

static void output_arg(const char *v)
{
	static const char *const formats[] = {
		[OUT_TEXT] = "text", [OUT_JSON] = "json",
		[OUT_PROMETHEUS] = "prometheus",
	};
	static char by[48];

	if (!v)
		usage_error("-o: give a format: text, json or prometheus");
	snprintf(by, sizeof(by), "-o %s", v);
	output_set((enum dedupctl_output)name_arg("-o", v, formats,
						  sizeof(formats) /
						  sizeof(formats[0])), by);
}

/*
 * -n NAME: into the network namespace ip netns names NAME (ip -n NAME),
 * before anything is opened; exits 1 if it cannot be entered.
 */
static void netns_arg(const char *v)
{
	char path[sizeof("/run/netns/") + 256], err[512];

	if (!v || !*v || strchr(v, '/') || !strcmp(v, ".") ||
	    !strcmp(v, "..") || strlen(v) > 255)
		usage_error("-n: give the name of a network namespace (ip netns list)");
	snprintf(path, sizeof(path), "/run/netns/%s", v);
	if (nl_netns(path, err, sizeof(err))) {
		fprintf(stderr, "dedupctl: -n %s: %s\n", v, err);
		dedupctl_exit(EXIT_REFUSED);
	}
}

/*
 * A global option at argv[0] (before or after the command): -j, -o FORMAT,
 * -n NAME. The arguments it took (0: not one).
 */
static int global_opt(int argc, char **argv)
{
	if (!strcmp(argv[0], "-j") || !strcmp(argv[0], "--json")) {
		output_set(OUT_JSON, argv[0]);
		return 1;
	}
	if (!strcmp(argv[0], "-o") || !strcmp(argv[0], "--output")) {
		output_arg(argc > 1 ? argv[1] : NULL);
		return 2;
	}
	if (!strcmp(argv[0], "-n") || !strcmp(argv[0], "--netns")) {
		netns_arg(argc > 1 ? argv[1] : NULL);
		return 2;
	}
	return 0;
}

/*
 * The global options after the command (dedupctl stats -o prometheus,
 * dedupctl show -j): taken out of argv[1..argc), which closes up; the new
 * argc. No command takes "-j", "-o" or "-n" as a value.
 */
static int take_globals(int argc, char **argv)
{
	int i, j = 1, k;

	for (i = 1; i < argc; i += k) {
		k = global_opt(argc - i, argv + i);
		if (!k) {
			argv[j++] = argv[i];
			k = 1;
		}
	}
	return j;
}

/* --version: dedupctl's, and the module's if this namespace reaches one. */
static int print_version(void)
{
	char ver[64] = "";
	struct nl n;
	FILE *f;

	printf("dedupctl %s, netlink protocol version %u\n", DEDUPCTL_VERSION,
	       PKTDEDUP_GENL_VERSION);
	if (nl_open(&n)) {
		printf("module   none: %s\n", n.err);
		return 0;
	}
	f = fopen("/sys/module/pktdedup/version", "r");
	if (!f || !fgets(ver, sizeof(ver), f))
		snprintf(ver, sizeof(ver), "(version unknown)");
	if (f)
		fclose(f);
	ver[strcspn(ver, "\n")] = '\0';
	printf("module   pktdedup %s, netlink protocol version %u\n", ver,
	       n.version);
	nl_close(&n);
	return 0;
}

int dedupctl_main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "show", cmd_show }, { "set", cmd_set }, { "stats", cmd_stats },
		{ "reset", cmd_reset }, { "query", cmd_query },
		{ "distinct", cmd_distinct }, { "plan", cmd_plan },
		{ "sources", cmd_sources }, { "top", cmd_top },
		{ "rare", cmd_rare }, { "monitor", cmd_monitor },
		{ "enable", cmd_enable }, { "disable", cmd_disable },
		{ "save", cmd_save }, { "batch", cmd_batch },
	};
	unsigned int i;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		int k = global_opt(argc, argv);

		if (k) {
			argc -= k;
			argv += k;
			continue;
		}
		if (!strcmp(argv[0], "-f") || !strcmp(argv[0], "--file")) {
			if (argc < 2)
				usage_error("%s: needs a FILE (- for the standard input)",
					    argv[0]);
			if (argc > 2)
				usage_error("%s FILE: unexpected '%s'", argv[0],
					    argv[2]);
			if (output != OUT_TEXT)
				usage_error("%s: prints nothing to format (no -j or -o)",
					    argv[0]);
			return cmd_batch(1, argv + 1);
		} else if (!strcmp(argv[0], "-c") ||
			   !strcmp(argv[0], "--check")) {
			dc_check = true;
		} else if (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help")) {
			usage(stdout);
			return 0;
		} else if (!strcmp(argv[0], "-V") ||
			   !strcmp(argv[0], "--version")) {
			return print_version();
		} else {
			usage_error("unknown option '%s'", argv[0]);
		}
		argc--;
		argv++;
	}
	if (!argc)
		usage_error("no command");
	if (!strcmp(argv[0], "help")) {
		usage(stdout);
		return 0;
	}
	argc = take_globals(argc, argv);
	json = output == OUT_JSON;
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[0], cmds[i].name)) {
			if (dc_check && cmds[i].fn != cmd_set &&
			    cmds[i].fn != cmd_enable &&
			    cmds[i].fn != cmd_disable &&
			    cmds[i].fn != cmd_batch)
				usage_error("-c: only a change is checked (set, enable, disable, -f FILE), not %s",
					    argv[0]);
			if (dc_check && output != OUT_TEXT)
				usage_error("-c: prints nothing to format (no -j or -o)");
			if (output == OUT_PROMETHEUS && cmds[i].fn != cmd_stats &&
			    cmds[i].fn != cmd_distinct && cmds[i].fn != cmd_sources)
				usage_error("-o prometheus: only stats, distinct and sources have it, not %s",
					    argv[0]);
			return cmds[i].fn(argc - 1, argv + 1);
		}
	usage_error("unknown command '%s'", argv[0]);
}
