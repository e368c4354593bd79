/* SPDX-License-Identifier: GPL-2.0 */
/* dedupctl: what its command files share (dedupctl.c, sources.c). */
#ifndef DEDUPCTL_H
#define DEDUPCTL_H

#include <stdbool.h>
#include <stdint.h>

#include "../common/args.h"
#include "nl.h"
#include "../../module/uapi/pktdedup.h"

#define EXIT_REFUSED 1
#define EXIT_USAGE 2

/* -o: text (the default), json (as -j), prometheus (stats, distinct, sources) */
enum dedupctl_output { OUT_TEXT, OUT_JSON, OUT_PROMETHEUS };
extern enum dedupctl_output output;
/* output == OUT_JSON */
extern bool json;
/* -c: changes (set, enable, disable, -f) are checked by the kernel, not made */
extern bool dc_check;
/*
 * What messages start with: "dedupctl", or "dedupctl: FILE:LINE" while a
 * file's line is read (batch.c).
 */
#define DC_PROG_MAX 4160
extern char dc_prog[DC_PROG_MAX];

/*
 * The end of a run that cannot go on: exit(status) in dedupctl (main.c);
 * the fuzzer (tests/fuzz/fuzz_dedupctl.c) links its own, which returns to
 * it instead.
 */
void __attribute__((noreturn)) dedupctl_exit(int status);
/* "dedupctl: message" and "(see dedupctl help)", then exit 2 */
void usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* dedupctl's main, the commands (dedupctl.c) */
int dedupctl_main(int argc, char **argv);

void __attribute__((noreturn)) refused(const struct nl *n, int err);
void open_nl(struct nl *n);
/* The kernel's refusal of a change on stderr (the cap: what it needed). */
void report_change_refused(struct nl *n, int err);
/* Send req, hand the replies to cb, exit 1 if the kernel refuses; close. */
void talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data);
/* talk() for a change: a refusal for the memory cap says what it needed. */
void talk_change(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		 void *data);

/* Command words, as save writes them and a file's lines give them. */
struct words {
	int argc;
	char *argv[96];
	char buf[8192];
	size_t used;
	const char *note;	/* a comment save writes before them */
	const char *hidden;	/* why save cannot write them whole */
};

void words_add(struct words *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *size_word(char *buf, size_t len, uint64_t b);
/* "name auto" or "name V": what auto_arg() reads back. */
void words_auto(struct words *w, const char *name, uint64_t v, bool automatic);
void json_auto(const char *name, uint64_t v, bool automatic);

int name_arg(const char *what, const char *v, const char *const *names,
	     unsigned int n);
uint32_t auto_arg(const char *what, const char *v, uint32_t autoval,
		  uint64_t lo, uint64_t hi);
void mark_arg(const char *v, uint32_t *value, uint32_t *mask);
const char *pct(char *buf, size_t len, uint32_t ppb);
const char *name_of(const char *const *names, unsigned int n, unsigned int i);
uint32_t ppb_arg(const char *what, const char *v);
uint64_t size_arg(const char *what, const char *v);
uint64_t num_arg(const char *what, const char *v, uint64_t lo, uint64_t hi);
bool onoff_arg(const char *what, const char *v);
const char *size_str(char *buf, size_t len, uint64_t b);
const char *time_str(char *buf, size_t len, uint64_t ns);

/* This namespace's inode number (readlink /proc/self/ns/net); exits 1 if unknown. */
uint64_t netns_inode(void);

uint64_t u64a(const struct nlattr **tb, int t);
uint16_t u16a(const struct nlattr **tb, int t);
uint32_t u32a(const struct nlattr **tb, int t);
uint8_t u8a(const struct nlattr **tb, int t);
/* An integer attribute of any width the spec gives one (u8 to u64). */
uint64_t uint_attr(const struct nlattr *a);

/* xdp.c: the module's XDP program */
/* Why the XDP hooks cannot work on this host, or NULL. */
const char *xdp_unavailable(void);
/* The program loaded (exits 1 saying why if it cannot be); its fd. */
int xdp_prog_fd(void);
/* Let the loaded program go (the module holds what it attached). */
void xdp_prog_close(void);
/* the kernel's "another XDP program" refusal naming the program, or NULL */
const char *xdp_foreign(const char *why);

/* show.c */
int cmd_show(int argc, char **argv);
struct encap_cfg;
/*
 * The tunnel settings of config nest c (tunnel-id from its key flags);
 * false if it has none (a module without them).
 */
bool config_encap(const struct nlattr **c, struct encap_cfg *ec);
/* A GET_CONFIG reply into the struct prom_config at data. */
int config_prom_cb(const struct nlattr **tb, void *data);

/* planview.c */
struct pd_filter_ops;
struct pd_filter_plan;
/*
 * A filter's plan as dedupctl prints it, from the kernel's filter-plan nest
 * or from the local planner: its model values in ppb, converted from the
 * planner's Q62 as the kernel converts them, so both print the same.
 */
struct plan_view {
	const struct pd_filter_ops *ops;
	uint32_t k, max, bits, p, p_star, given;
	uint64_t cells, gap, p_exact_q32;
	uint32_t fp, zero, load, fn, fn_low;	/* ppb */
	/* window families */
	uint64_t window_ns, window_pkts, capacity, rate;
	uint32_t subwindows, warn_below;
	int layout;		/* sbf: PKTDEDUP_LAYOUT_*; -1: none */
	uint64_t step_lines;	/* a packet's step's bound; 0: not said */
};
/* The nest attribute of family ops in the filter set (by its name). */
uint16_t family_nest(const struct pd_filter_ops *ops);
/* The family of a reply's kind; exits if this dedupctl does not know it. */
const struct pd_filter_ops *kind_family(uint32_t kind);
void plan_view_nl(const struct nlattr *nest, struct plan_view *v);
void plan_view_local(const struct pd_filter_ops *ops,
		     const struct pd_filter_plan *p, struct plan_view *v);
void print_plan_view(const struct plan_view *v);
/* What the family's model says a filter remembers, in packets. */
void print_memory_gap(uint64_t gap);
/* The kernel's plan: the plan nest of a reply, its filter-plan within. */
void print_plan(const struct nlattr *nest, const struct nlattr *plan_top);

/* set.c */
int cmd_set(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_enable(int argc, char **argv);
int cmd_disable(int argc, char **argv);
/*
 * The settings of "set argv" into nlh, a family's in its nest if target
 * takes them; key_flags: those in force (ignore-tos and tunnel-id change
 * one flag each, and keep the others); exits 2 if a value is bad.
 */
void put_settings(struct nlmsghdr *nlh, int argc, char **argv,
		  const struct pd_filter_ops *target, uint32_t key_flags);

/* set's words with "landmark D" spelled out (static: use before the next) */
char **set_expand(int *argc, char **argv);
/* How many words the setting at argv[i] takes (importance mark: 3). */
int set_setting_args(int argc, char **argv, int i);
/* Check set's settings (argv expanded); exits 2 if one is bad. */
void set_check(int argc, char **argv);
/*
 * Send set's change (checked), with a sources change (sargc words) in the
 * same request if any; 0 or the error, n->err saying why.
 */
int set_send(struct nl *n, int argc, char **argv, int sargc, char **sargv);
/* The words of a set giving a GET_CONFIG reply's configuration. */
void config_words(const struct nlattr **tb, struct words *w);

/* select.c: traffic selection */
/* A selection setting (dev, proto, match-mark) into nlh; false if k is not. */
bool put_select_setting(struct nlmsghdr *nlh, const char *k, const char *v);
/* The selection as the values "set" takes ("any" for each unset part). */
struct select_view {
	char dev[PKTDEDUP_DEVS_MAX * (PKTDEDUP_IFNAME_MAX + 1) + 4];
	/*
	 * The named devices the kernel does not match now, as text
	 * ("pb9 absent, pb1.1 stacked on pb1, d0 failed: why"), and each
	 * device's binding as a JSON array; both empty when it sent none
	 * (an idle instance).
	 */
	char note[PKTDEDUP_DEVS_MAX * (2 * PKTDEDUP_IFNAME_MAX + 160)];
	char devices[PKTDEDUP_DEVS_MAX * (2 * PKTDEDUP_IFNAME_MAX + 224)];
	/* the names of the devices absent now, comma-separated */
	char absent[PKTDEDUP_DEVS_MAX * (PKTDEDUP_IFNAME_MAX + 1) + 4];
	char proto[1024];
	char mark[32];
};
void select_view(const struct nlattr **c, struct select_view *v);

/* sources.c */
int cmd_distinct(int argc, char **argv);
int cmd_sources(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_rare(int argc, char **argv);
int cmd_monitor(int argc, char **argv);
/* sources' settings into nlh (a nest if any); exits 2 if one is bad */
void put_sources(struct nlmsghdr *nlh, int argc, char **argv);
/* The words of sources giving a GET_SOURCES reply's settings. */
void sources_words(const struct nlattr **tb, struct words *w);

/* batch.c: save, and -f FILE / batch FILE */
int cmd_save(int argc, char **argv);
int cmd_batch(int argc, char **argv);
/*
 * Apply text (len bytes, text[len] == '\0'), the lines of file name: all
 * checked first (exit 2), then all or nothing (exit 1). The fuzzer calls
 * it with its input.
 */
int batch_text(const char *name, char *text, size_t len);

#endif /* DEDUPCTL_H */
