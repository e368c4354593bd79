// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: save, and -f FILE (batch FILE), the configuration as a file.
 *
 * save prints the namespace's configuration as one set line and one
 * sources line, the words of the kernel's own replies (GET_CONFIG,
 * GET_SOURCES), with no date: the same configuration gives the same bytes.
 *
 * -f reads a file of set, sources, enable and disable lines. Every line is
 * checked first, by the parsers of the command line (put_settings(),
 * put_sources()), and nothing is sent if one is bad (exit 2, FILE:LINE).
 * The set lines, enable and disable (state active, idle) then make one
 * SET_CONFIG request, as one long set line would (a later setting replaces
 * an earlier one; a set line without state drops an earlier disable, as it
 * would start the instance if run alone), and the sources lines its
 * sources nest, as one sources line would: one request, which the kernel
 * applies whole or not at all (it checks both, and their memory together,
 * before changing either). A file of sources lines alone is one
 * SET_SOURCES.
 *
 * -c sends the same request with config check: the kernel checks it as
 * it would apply it and changes nothing. A refused file is then checked
 * up to each line in turn, as applying the file would fold those lines:
 * the first line whose file up to it is refused with the same message
 * is the line named.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"

/* ---- save ---- */

static int config_words_cb(const struct nlattr **tb, void *data)
{
	if (tb[PKTDEDUP_A_CONFIG])
		config_words(tb, data);
	return MNL_CB_OK;
}

static int sources_words_cb(const struct nlattr **tb, void *data)
{
	if (tb[PKTDEDUP_A_SOURCES])
		sources_words(tb, data);
	return MNL_CB_OK;
}

static void print_words(const char *cmd, const struct words *w)
{
	int i;

	if (w->note)
		printf("# %s: %s\n", cmd, w->note);
	printf("%s", cmd);
	for (i = 0; i < w->argc; i++)
		printf(" %s", w->argv[i]);
	printf("\n");
}

int cmd_save(int argc, char **argv)
{
	static struct words cfg, src;
	struct nl n;
	int err;

	if (argc)
		usage_error("save: unexpected '%s'", argv[0]);
	open_nl(&n);
	err = nl_talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_CONFIG, false),
		      config_words_cb, &cfg);
	if (!err)
		err = nl_talk(&n, nl_request(&n, PKTDEDUP_CMD_GET_SOURCES,
					     false), sources_words_cb, &src);
	if (err)
		refused(&n, err);
	nl_close(&n);
	if (!cfg.argc || !src.argc) {
		fprintf(stderr, "dedupctl: the kernel's reply has no configuration\n");
		dedupctl_exit(EXIT_REFUSED);
	}
	if (cfg.hidden) {
		fprintf(stderr, "dedupctl: save: %s\n", cfg.hidden);
		dedupctl_exit(EXIT_REFUSED);
	}
	printf("# pktdedup: this namespace's configuration, as dedupctl save writes it\n"
	       "# (no date: the same configuration gives the same bytes). Apply it\n"
	       "# with dedupctl -f FILE, all or nothing; see dedupctl(8).\n");
	print_words("set", &cfg);
	print_words("sources", &src);
	return 0;
}

/* ---- -f FILE, batch FILE ---- */

#define FILE_MAX (1 << 20)
#define LINE_WORDS 512

/* A setting of the file: its words (at most 3), the line that gave it. */
struct entry {
	char *w[3];
	int n;
	unsigned int line;
};

/* The settings of one request, a later one replacing an earlier one. */
struct request {
	struct entry e[128];
	unsigned int n;
	int argc;
	char *argv[3 * 128];
};

static const char *file_name;

/* Messages about line no of the file, or about the file (no = 0). */
static void at_line(unsigned int no)
{
	if (no)
		snprintf(dc_prog, DC_PROG_MAX, "dedupctl: %s:%u", file_name,
			 no);
	else
		snprintf(dc_prog, DC_PROG_MAX, "dedupctl: %s", file_name);
}

/* Whether settings a and b are the same (sources on and off are). */
static bool same(const char *a, const char *b)
{
	return !strcmp(a, b) ||
	       ((!strcmp(a, "on") || !strcmp(a, "off")) &&
		(!strcmp(b, "on") || !strcmp(b, "off")));
}

/* Remove the setting word (if given) from r. */
static void drop(struct request *r, const char *word)
{
	unsigned int i;

	for (i = 0; i < r->n; i++)
		if (same(r->e[i].w[0], word)) {
			memmove(&r->e[i], &r->e[i + 1],
				(r->n - i - 1) * sizeof(r->e[0]));
			r->n--;
			return;
		}
}

/* Add the setting of words w[0..n) to r, in place of an earlier one. */
static void add(struct request *r, char **w, int n, unsigned int line)
{
	drop(r, w[0]);
	if (r->n == sizeof(r->e) / sizeof(r->e[0]))
		usage_error("too many settings");
	r->e[r->n].n = n;
	r->e[r->n].line = line;
	memcpy(r->e[r->n].w, w, (size_t)n * sizeof(*w));
	r->n++;
}

/* The words of r's request, the entry named first (if any) first. */
static void flatten(struct request *r, const char *first)
{
	unsigned int i, pass;
	int j;

	r->argc = 0;
	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < r->n; i++) {
			if ((pass == 0) != (first && same(r->e[i].w[0], first)))
				continue;
			for (j = 0; j < r->e[i].n; j++)
				r->argv[r->argc++] = r->e[i].w[j];
		}
}

/*
 * The settings an attribute of the spec comes from (set's, sources'), the
 * likelier first, into words[0..max); how many.
 */
static unsigned int attr_words(const char *attr, const char **words,
			       unsigned int max)
{
	static const char *const map[][2] = {
		/* tunnel-id: the flag a module without decap refuses */
		{ "key-flags", "tunnel-id" }, { "key-flags", "nonip" },
		{ "key-flags", "ignore-tos" },
		{ "mark-value", "mark" },
		{ "mark-mask", "mark" }, { "kind", "filter" },
		{ "cell-bits", "max" }, { "importance-mask", "importance" },
		{ "window-ns", "window" }, { "window-packets", "window" },
		{ "window-ms", "window" }, { "enabled", "on" },
	};
	unsigned int i, n = 0;

	for (i = 0; i < sizeof(map) / sizeof(map[0]) && n < max; i++)
		if (!strcmp(attr, map[i][0]))
			words[n++] = map[i][1];
	if (!n)
		words[n++] = attr;
	return n;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * Point messages at the line of the setting the kernel's message names
 * ("config.filter.sbf.cell-bits: ..."), or at every line of the request.
 */
static void blame(const struct request *r, const char *why)
{
	const char *colon = strstr(why, ": "), *dot, *words[2];
	unsigned int lines[128], i, k, w, nw, n = 0;
	char attr[128];
	size_t len;

	if (colon && (size_t)(colon - why) < sizeof(attr) &&
	    !memchr(why, ' ', (size_t)(colon - why))) {
		memcpy(attr, why, (size_t)(colon - why));
		attr[colon - why] = '\0';
		dot = strrchr(attr, '.');
		nw = attr_words(dot ? dot + 1 : attr, words,
				sizeof(words) / sizeof(words[0]));
		for (w = 0; w < nw; w++)
			for (i = 0; i < r->n; i++)
				if (same(r->e[i].w[0], words[w])) {
					at_line(r->e[i].line);
					return;
				}
	}
	for (i = 0; i < r->n; i++)
		lines[n++] = r->e[i].line;
	qsort(lines, n, sizeof(lines[0]), cmp_uint);
	for (i = 1, k = 1; i < n; i++)	/* each line once */
		if (lines[i] != lines[k - 1])
			lines[k++] = lines[i];
	if (k == 1) {
		at_line(lines[0]);
		return;
	}
	at_line(0);
	len = strlen(dc_prog);
	for (i = 0; i < k && len < DC_PROG_MAX; i++)
		len += (size_t)snprintf(dc_prog + len, DC_PROG_MAX - len,
					"%s%u", i ? ", " : ": lines ", lines[i]);
}

static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *buf;
	size_t got;

	if (!f) {
		fprintf(stderr, "dedupctl: %s: %s\n", path, strerror(errno));
		dedupctl_exit(EXIT_USAGE);
	}
	buf = malloc(FILE_MAX + 1);
	if (!buf) {
		fprintf(stderr, "dedupctl: out of memory\n");
		dedupctl_exit(EXIT_REFUSED);
	}
	got = fread(buf, 1, FILE_MAX + 1, f);
	if (ferror(f) || got > FILE_MAX) {
		fprintf(stderr, "dedupctl: %s: %s\n", file_name, ferror(f) ?
			strerror(errno) : "larger than 1 MiB");
		free(buf);
		if (f != stdin)
			fclose(f);
		dedupctl_exit(EXIT_USAGE);
	}
	if (f != stdin)
		fclose(f);
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Split line on whitespace, up to a word starting with '#'. */
static int split(char *line, char **argv)
{
	int argc = 0;
	char *p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' ||
		       *p == '\f')
			p++;
		if (!*p || *p == '#')
			return argc;
		if (argc == LINE_WORDS)
			usage_error("more than %d words", LINE_WORDS);
		argv[argc++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r' &&
		       *p != '\v' && *p != '\f')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

/* Check one line and add its settings to the requests; exits 2 if bad. */
static void read_line(int argc, char **argv, unsigned int no,
		      struct request *set, struct request *src)
{
	static char scratch[8192];
	static const char *const others[] = {
		"show", "stats", "reset", "query", "distinct", "top", "rare",
		"monitor", "plan", "save", "batch", "help",
	};
	static char *states[][2] = {
		{ "state", "active" }, { "state", "idle" },
	};
	unsigned int i;
	bool state;
	int j, k;

	if (!strcmp(argv[0], "set")) {
		argc--;
		argv = set_expand(&argc, argv + 1);
		set_check(argc, argv);
		state = false;
		for (j = 0; j < argc; j += k) {
			k = set_setting_args(argc, argv, j);
			add(set, argv + j, k, no);
			state |= !strcmp(argv[j], "state");
		}
		/*
		 * A set without state starts an idle instance: after a
		 * disable, as when the lines are run one by one, it ends
		 * active (the state a request without one asks for).
		 */
		if (!state)
			drop(set, "state");
	} else if (!strcmp(argv[0], "sources")) {
		if (argc == 1)
			usage_error("sources: give on, off or settings (a file only changes them)");
		put_sources(mnl_nlmsg_put_header(scratch), argc - 1, argv + 1);
		j = 1;
		if (!strcmp(argv[1], "on") || !strcmp(argv[1], "off"))
			add(src, argv + j++, 1, no);
		for (; j < argc; j += 2)
			add(src, argv + j, 2, no);
	} else if (!strcmp(argv[0], "enable") || !strcmp(argv[0], "disable")) {
		if (argc > 1)
			usage_error("%s: unexpected '%s'", argv[0], argv[1]);
		add(set, states[argv[0][0] == 'd'], 2, no);
	} else {
		for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
			if (!strcmp(argv[0], others[i]))
				break;
		if (i < sizeof(others) / sizeof(others[0]) || argv[0][0] == '-')
			usage_error("'%s' cannot be used in a file (only set, sources, enable and disable)",
				    argv[0]);
		usage_error("unknown command '%s'", argv[0]);
	}
}

/*
 * Point messages at the line(s) of the request the kernel's message is
 * about: its attribute's path says config or sources; without one, every
 * line of both.
 */
static void blame_both(struct request *set, struct request *src,
		       const char *why)
{
	static struct request all;
	unsigned int i;

	if (!strncmp(why, "sources.", 8) || !strncmp(why, "sources:", 8) ||
	    !set->n) {
		blame(src, why);
		return;
	}
	if (!strncmp(why, "config.", 7) || !src->n) {
		blame(set, why);
		return;
	}
	all = *set;
	for (i = 0; i < src->n && all.n < sizeof(all.e) / sizeof(all.e[0]); i++)
		all.e[all.n++] = src->e[i];
	blame(&all, why);
}

/*
 * Read text's lines up to line upto (0: all) into set and src; exits 2 at
 * a bad line. Returns the number of the last line that gave a command.
 */
static unsigned int read_lines(char *text, size_t len, unsigned int upto,
			       struct request *set, struct request *src)
{
	static char *words[LINE_WORDS];
	unsigned int no = 0, last = 0;
	char *line, *next;
	int argc;

	memset(set, 0, sizeof(*set));
	memset(src, 0, sizeof(*src));
	for (line = text; line < text + len && (!upto || no < upto);
	     line = next) {
		next = memchr(line, '\n', (size_t)(text + len - line));
		next = next ? next : text + len;
		*next++ = '\0';
		at_line(++no);
		if (strlen(line) != (size_t)(next - 1 - line))
			usage_error("a NUL byte");
		argc = split(line, words);
		if (argc) {
			read_line(argc, words, no, set, src);
			last = no;
		}
	}
	snprintf(dc_prog, DC_PROG_MAX, "dedupctl");
	return last;
}

static int state_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1];

	if (tb[PKTDEDUP_A_CONFIG]) {
		nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
		*(bool *)data = u8a(c, PKTDEDUP_A_CONFIG_STATE) ==
				PKTDEDUP_STATE_ACTIVE;
	}
	return MNL_CB_OK;
}

/*
 * Send the request of set and src: 0 or the error (n->err says why).
 * Checked (-c), a file of sources lines alone is checked as the sources
 * nest of a SET_CONFIG that keeps the instance's state (SET_SOURCES has
 * no check).
 */
static int send_file(struct nl *n, struct request *set, struct request *src)
{
	static char *states[][2] = {
		{ "state", "active" }, { "state", "idle" },
	};
	struct nlmsghdr *nlh;
	bool active = false;
	int err;

	flatten(set, NULL);
	flatten(src, "on");
	if (!set->n && dc_check) {
		err = nl_talk(n, nl_request(n, PKTDEDUP_CMD_GET_CONFIG, false),
			      state_cb, &active);
		if (err)
			return err;
		return set_send(n, 2, states[!active], src->argc, src->argv);
	}
	if (set->n)	/* with sources lines, in the same request */
		return set_send(n, set->argc, set->argv,
				src->n ? src->argc : 0, src->argv);
	nlh = nl_request(n, PKTDEDUP_CMD_SET_SOURCES, false);
	put_sources(nlh, src->argc, src->argv);
	return nl_talk(n, nlh, NULL, NULL);
}

/*
 * -c: the line a refused file is refused at: the first whose file up to
 * it (the earlier lines' settings, as applying the file would fold them)
 * is refused with the whole file's message; 0 if none is.
 */
static unsigned int refused_line(struct nl *n, const char *text, size_t len,
				 unsigned int last, const char *why)
{
	static struct request set, src;
	char *copy = malloc(len + 1), msg[sizeof(n->err)];
	unsigned int no, got = 0;

	if (!copy)
		return 0;
	snprintf(msg, sizeof(msg), "%s", why);
	for (no = 1; no < last && !got; no++) {
		memcpy(copy, text, len);
		copy[len] = '\0';
		if (read_lines(copy, len, no, &set, &src) != no)
			continue;	/* no command on line no */
		if (send_file(n, &set, &src) && !strcmp(n->err, msg))
			got = no;
	}
	free(copy);
	snprintf(n->err, sizeof(n->err), "%s", msg);
	return got ? got : last;
}

int batch_text(const char *name, char *text, size_t len)
{
	static struct request set, src;
	char *pristine = NULL;
	unsigned int last;
	struct nl n;
	int err;

	file_name = name;
	if (dc_check) {	/* the lines are cut up as they are read */
		pristine = malloc(len + 1);
		if (!pristine) {
			fprintf(stderr, "dedupctl: out of memory\n");
			dedupctl_exit(EXIT_REFUSED);
		}
		memcpy(pristine, text, len);
	}
	/* every line checked before the kernel sees any */
	last = read_lines(text, len, 0, &set, &src);
	if (!set.n && !src.n) {
		free(pristine);
		return 0;
	}
	open_nl(&n);
	err = send_file(&n, &set, &src);
	if (err && dc_check) {
		/* what the file up to that line would be refused for */
		at_line(refused_line(&n, pristine, len, last, n.err));
	} else if (err) {
		blame_both(&set, &src, n.err);
	}
	free(pristine);
	if (err) {
		report_change_refused(&n, err);
		dedupctl_exit(EXIT_REFUSED);
	}
	nl_close(&n);
	return 0;
}

int cmd_batch(int argc, char **argv)
{
	char *text;
	size_t len;
	int ret;

	if (argc != 1)
		usage_error("batch: give one FILE (- for the standard input)");
	file_name = strcmp(argv[0], "-") ? argv[0] : "<stdin>";
	text = read_file(argv[0], &len);
	ret = batch_text(file_name, text, len);
	free(text);
	return ret;
}
