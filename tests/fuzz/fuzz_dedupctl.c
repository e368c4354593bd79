// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: dedupctl's command line, as far as it goes without a
 * kernel. The input is its arguments (after "dedupctl"), separated by NUL
 * bytes: "plan\0filter\0sliding\0window\02ms\0rate\01M" plans a sliding
 * window locally (every family's planner, with any settings), "set\0..."
 * checks and builds the request of a change.
 *
 * dedupctl's commands are linked as they are (userspace/dedupctl/, all but
 * main.c) with this file's dedupctl_exit(): a usage error (exit 2) returns
 * here, any other exit traps. The netlink layer (nl.c) is not linked: its
 * nl_open() here ends the run where dedupctl would reach the kernel, and
 * the rest of it traps, as nothing may call it before nl_open().
 *
 * "batch\0TEXT" gives TEXT (NUL bytes and all) to batch_text() as the lines
 * of a file: each checked, then merged into the requests -f sends; other
 * inputs with -f or batch, which would read a file, are skipped.
 *
 * For "set", the request is also built by put_settings() for each family
 * the kernel could have in force, into a buffer of the size dedupctl sends
 * from (struct nl's), allocated to the byte: ASan sees any write past it;
 * with key flags in force, of which ignore-tos and tunnel-id change their
 * own only.
 */
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/genetlink.h>

#include "../../module/core/filter.h"
#include "../../userspace/dedupctl/dedupctl.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)
#define MAX_ARGS 64
#define REQ_BUF sizeof(((struct nl *)0)->buf)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

static jmp_buf fuzz_jb;

void dedupctl_exit(int status)
{
	/* only a bad command line may end a run that has no kernel */
	CHECK(status == EXIT_USAGE);
	longjmp(fuzz_jb, 1);
}

int nl_open(struct nl *n)
{
	/* the command line was good: dedupctl would talk to the kernel now */
	longjmp(fuzz_jb, 2);
}

int nl_netns(const char *path, char *err, size_t len)
{
	/* no namespace is entered: the command line goes on as if it were */
	return 0;
}

void nl_close(struct nl *n)
{
	__builtin_trap();
}

struct nlmsghdr *nl_request(struct nl *n, uint8_t cmd, bool dump)
{
	__builtin_trap();
}

int nl_talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data)
{
	__builtin_trap();
}

int nl_talk_entries(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		    nl_reply_cb entry_cb, void *data)
{
	__builtin_trap();
}

int nl_listen(struct nl *n, nl_reply_cb cb, void *data)
{
	__builtin_trap();
}

void nl_nest(const struct nlattr *nest, const struct nls_set *set,
	     const struct nlattr **tb)
{
	__builtin_trap();
}

/*
 * The number the last "name N" of argv gives (auto: autoval), as dedupctl
 * reads it; false if argv has none. Settings are pairs, but importance mark
 * MASK (see setting_args() in set.c); put_settings() checked the rest.
 */
static bool last_number(int argc, char **argv, const char *name,
			uint64_t autoval, uint64_t *out)
{
	bool found = false;
	int i;

	for (i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], name)) {
			found = true;
			*out = strcmp(argv[i + 1], "auto") ?
			       strtoull(argv[i + 1], NULL, 0) : autoval;
		}
		if (!strcmp(argv[i], "importance") &&
		    !strcmp(argv[i + 1], "mark"))
			i++;
	}
	return found;
}

/*
 * Each number the command line gave a filter setting is the number in
 * every family nest of the request that carries it: none is cut down to
 * the attribute's width, or to another meaning (auto).
 */
static void check_numbers(const struct nlmsghdr *nlh, int argc, char **argv)
{
	static const struct {
		const char *name;
		uint16_t attr;
		uint64_t autoval;
	} nums[] = {
		{ "gap", PKTDEDUP_A_SETTINGS_GAP, 0 },
		{ "p", PKTDEDUP_A_SETTINGS_P, PKTDEDUP_P_AUTO },
		{ "k", PKTDEDUP_A_SETTINGS_K, 0 },
		{ "subwindows", PKTDEDUP_A_SETTINGS_SUBWINDOWS, 0 },
	};
	const struct nlattr *cfg, *filter, *fam, *a;
	uint64_t want[4], seed;
	bool given[4], last_random = false;
	unsigned int i;

	for (i = 0; i < 4; i++)
		given[i] = last_number(argc, argv, nums[i].name,
				       nums[i].autoval, &want[i]);
	for (i = 0; i + 1 < (unsigned int)argc; i += 2) {
		if (!strcmp(argv[i], "seed"))
			last_random = !strcmp(argv[i + 1], "random");
		if (!strcmp(argv[i], "importance") &&
		    !strcmp(argv[i + 1], "mark"))
			i++;
	}
	mnl_attr_for_each(cfg, nlh, sizeof(struct genlmsghdr)) {
		CHECK(mnl_attr_get_type(cfg) == PKTDEDUP_A_CONFIG);
		mnl_attr_for_each_nested(filter, cfg) {
			/*
			 * a fixed seed is the command line's last, whole; a
			 * last "seed random" sends none
			 */
			if (mnl_attr_get_type(filter) == PKTDEDUP_A_CONFIG_SEED)
				CHECK(last_number(argc, argv, "seed",
						  UINT64_MAX, &seed) &&
				      !last_random &&
				      mnl_attr_get_u64(filter) == seed);
			if (mnl_attr_get_type(filter) != PKTDEDUP_A_CONFIG_FILTER)
				continue;
			mnl_attr_for_each_nested(fam, filter) {
				/* the kind and mem; then the family nests */
				if (mnl_attr_get_type(fam) <= PKTDEDUP_A_FILTER_MEM)
					continue;
				mnl_attr_for_each_nested(a, fam)
					for (i = 0; i < 4; i++)
						if (mnl_attr_get_type(a) == nums[i].attr)
							CHECK(given[i] &&
							      uint_attr(a) == want[i]);
			}
		}
	}
}

/* Whether argv gives setting name; its last value into *v. */
static bool last_word(int argc, char **argv, const char *name,
		      const char **v)
{
	bool found = false;
	int i;

	for (i = 0; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], name)) {
			found = true;
			*v = argv[i + 1];
		}
		if (!strcmp(argv[i], "importance") &&
		    !strcmp(argv[i + 1], "mark"))
			i++;
	}
	return found;
}

/*
 * The key flags: ignore-tos and tunnel-id set their flag as the command
 * line's last says, every other flag is the one in force (key_flags), in
 * one attribute, sent only if one of them is given. The tunnel settings:
 * decap within the flags the spec knows, the ports not 0, each sent only
 * if given.
 */
static void check_key_encap(const struct nlmsghdr *nlh, int argc, char **argv,
			    uint32_t key_flags)
{
	static const struct {
		const char *name;
		uint16_t attr;
	} encap[] = {
		{ "decap", PKTDEDUP_A_CONFIG_DECAP },
		{ "vxlan-port", PKTDEDUP_A_CONFIG_VXLAN_PORT },
		{ "geneve-port", PKTDEDUP_A_CONFIG_GENEVE_PORT },
		{ "gtpu-port", PKTDEDUP_A_CONFIG_GTPU_PORT },
	};
	const char *tos = NULL, *tun = NULL, *v;
	bool has_tos, has_tun, seen[4] = { false }, flags_seen = false;
	const struct nlattr *cfg, *a;
	uint32_t want = key_flags;
	unsigned int i;

	has_tos = last_word(argc, argv, "ignore-tos", &tos);
	has_tun = last_word(argc, argv, "tunnel-id", &tun);
	if (has_tos)
		want = (want & ~(uint32_t)PKTDEDUP_KEY_F_IGNORE_TOS) |
		       (!strcmp(tos, "on") ? PKTDEDUP_KEY_F_IGNORE_TOS : 0);
	if (has_tun)
		want = (want & ~(uint32_t)PKTDEDUP_KEY_F_TUNNEL_ID) |
		       (!strcmp(tun, "include") ? PKTDEDUP_KEY_F_TUNNEL_ID : 0);
	mnl_attr_for_each(cfg, nlh, sizeof(struct genlmsghdr)) {
		mnl_attr_for_each_nested(a, cfg) {
			uint16_t t = mnl_attr_get_type(a);

			if (t == PKTDEDUP_A_CONFIG_KEY_FLAGS) {
				CHECK(!flags_seen && (has_tos || has_tun) &&
				      mnl_attr_get_u32(a) == want);
				flags_seen = true;
			}
			for (i = 0; i < 4; i++) {
				if (t != encap[i].attr)
					continue;
				CHECK(!seen[i] &&
				      last_word(argc, argv, encap[i].name, &v));
				seen[i] = true;
				CHECK(i ? mnl_attr_get_u16(a) != 0 :
				      !(mnl_attr_get_u32(a) & ~0x3fu));
			}
		}
	}
	CHECK(flags_seen == (has_tos || has_tun));
	for (i = 0; i < 4; i++)
		CHECK(seen[i] == last_word(argc, argv, encap[i].name, &v));
}

/*
 * put_settings() for "set" with the family target in force, and the key
 * flags key_flags
 */
static void fuzz_put_settings(int argc, char **argv,
			      const struct pd_filter_ops *target,
			      uint32_t key_flags)
{
	struct nlmsghdr *volatile nlh;
	char *buf = malloc(REQ_BUF);

	CHECK(buf);
	/* as nl_request() starts a request: the netlink and genl headers */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_nlmsg_put_extra_header(nlh, sizeof(struct genlmsghdr));
	if (!setjmp(fuzz_jb)) {
		put_settings(nlh, argc, argv, target, key_flags);
		CHECK(nlh->nlmsg_len <= REQ_BUF);
		/* the attributes are well formed as libmnl walks them */
		CHECK(mnl_nlmsg_ok(nlh, (int)nlh->nlmsg_len));
		check_numbers(nlh, argc, argv);
		check_key_encap(nlh, argc, argv, key_flags);
	}
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static const uint32_t in_force[] = {
		0, PKTDEDUP_KEY_F_IGNORE_TOS | PKTDEDUP_KEY_F_TUNNEL_ID,
		0x80000000u | PKTDEDUP_KEY_F_TUNNEL_ID,
	};
	char *argv[MAX_ARGS + 2], *copy;
	unsigned int kind;
	int argc = 0;
	size_t i, start;

	if (size > 4096)
		return 0;
	copy = malloc(size + 1);
	if (!copy)
		return 0;
	memcpy(copy, in, size);
	copy[size] = '\0';
	argv[argc++] = "dedupctl";
	for (i = start = 0; i <= size && argc <= MAX_ARGS; i++)
		if (copy[i] == '\0') {
			argv[argc++] = copy + start;
			start = i + 1;
		}
	argv[argc] = NULL;

	json = false;
	dc_check = false;
	output = OUT_TEXT;
	snprintf(dc_prog, DC_PROG_MAX, "dedupctl");
	/* "batch\0TEXT": TEXT as a file's lines (-f would read a file) */
	if (argc >= 2 && !strcmp(argv[1], "batch")) {
		if (!setjmp(fuzz_jb))
			(void)batch_text("fuzz", copy + 6, size >= 6 ? size - 6 : 0);
		free(copy);
		return 0;
	}
	/* no file is read: -f FILE, batch FILE anywhere else */
	for (i = 1; i < (size_t)argc; i++)
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--file") ||
		    !strcmp(argv[i], "batch")) {
			free(copy);
			return 0;
		}
	if (!setjmp(fuzz_jb))
		(void)dedupctl_main(argc, argv);
	/* the key flags in force: none, both, and one the spec lacks */
	if (argc >= 2 && !strcmp(argv[1], "set"))
		for (kind = 0; kind < PD_FILTER_NKINDS; kind++)
			fuzz_put_settings(argc - 2, argv + 2,
					  pd_filter_family(kind),
					  in_force[kind % 3]);
	free(copy);
	return 0;
}
