// SPDX-License-Identifier: GPL-2.0
/*
 * pdnl: the e2e suite's raw generic netlink client for the pktdedup family.
 * It says what dedupctl would never send, and reads what dedupctl never
 * asks for.
 *
 *   pdnl policy [OP]
 *	Dump the family's policies through the controller (CTRL_CMD_GETPOLICY,
 *	of every operation, or of OP only) and print them in the canonical
 *	text of scripts/nlspec.py policy-dump: one line per attribute, nested
 *	policies expanded, names from the spec's tables.
 *
 *   pdnl [-V VERSION] [-R RESERVED] [-F N] [-d] send OP [PATH=TYPE:VALUE ...]
 *	Send one request (a dump with -d) of OP built from the attributes
 *	given: PATH names an attribute through the nests, by spec name or
 *	number (config.filter.sbf.cell-bits, config.99, 200); TYPE is u8, u16,
 *	u32, u64, s32, flag, bin (VALUE in hex), str or nest (an empty nest).
 *	Prints "ok" and the reply's attributes as PATH=VALUE lines, or
 *	"error ERRNO: MESSAGE [at PATH]" and exits 1. With -F N, the kernel
 *	fails the Nth fault-injection point (an allocation) of the request
 *	(/proc/thread-self/fail-nth: a kernel with fault injection), and the
 *	last line says "fail-nth N left L": L 0 if that point was reached.
 *	The request's own message failed is "error" as a refusal is; its
 *	ack failed is "lost: MESSAGE" (the request may have been applied).
 *
 *   pdnl fuzz [--seed S] [--messages N] [--procs P] [--seconds T] [--unpriv]
 *	Fuzz the family (pdnl_fuzz.c), deterministically for a seed (1).
 *	Phase 1, one socket, N messages (1000): every command number (the
 *	spec's, 0, unknown ones) as do or dump, built from the spec's tables
 *	with the ranges of the kernel's policy dump: extremes and values just
 *	outside, unknown attributes, wrong lengths, garbage and deep nests,
 *	NLA_F_NESTED wrong, duplicates, other versions, a nonzero reserved
 *	field, nlmsg_len cut short; 30% plausible SET_CONFIG, SET_SOURCES and
 *	RESET that change the state. After each request GET_CONFIG and
 *	GET_SOURCES are read: a refused request (or a read) must leave the
 *	configuration as it was, the budget within its caps.
 *	Phase 2, P processes (2; 0: none), N/P messages each or T seconds
 *	(0: no limit): changes, reads and dumps at once, some dumps
 *	abandoned half-way; every reply must be well-formed, no process die.
 *	--unpriv: the caller lacks CAP_NET_ADMIN: every privileged command
 *	must be refused with EPERM, plain reads work, nothing changes.
 *	Findings are printed with the request in hex ("# FINDING ..."); the
 *	last line counts messages, checks and findings; exit 1 if any.
 *
 *   pdnl xdp-race N
 *	N changes between hook xdp and xdp-generic while a thread looks for
 *	BPF objects in this process's descriptor table (pdnl_race.c).
 *
 * Exit status: 0 done, 1 the kernel refused, 2 bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/pktdedup.h"
#include "pdnl.h"

char buf[1 << 16];
struct mnl_socket *sock;
unsigned int seq;
uint16_t family_id;

static void __attribute__((noreturn)) usage(const char *why)
{
	fprintf(stderr, "pdnl: %s\nusage: pdnl policy [OP] | pdnl [-V VERSION] [-R RESERVED] [-F N] [-d] send OP [PATH=TYPE:VALUE ...] | pdnl fuzz [OPTIONS] | pdnl xdp-race N\n",
		why);
	exit(2);
}

void __attribute__((noreturn)) die(const char *what)
{
	fprintf(stderr, "pdnl: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- talking ---- */

static int ext_attr(const struct nlattr *a, void *data)
{
	struct talk *t = data;

	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		snprintf(t->msg, sizeof(t->msg), "%s", mnl_attr_get_str(a));
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_OFFS &&
	    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
		t->offs = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MISS_TYPE &&
	    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
		t->miss = mnl_attr_get_u32(a);
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	unsigned int off = sizeof(*err);

	if (!err->error)
		return MNL_CB_STOP;
	t->error = err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, off, ext_attr, t);
	return MNL_CB_STOP;
}

static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	const int *err = mnl_nlmsg_get_payload(nlh);

	if (*err < 0)
		t->error = *err;
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, sizeof(int), ext_attr, t);
	return MNL_CB_STOP;
}

static int talk_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	return t->cb ? t->cb(nlh, t->data) : MNL_CB_OK;
}

int run(struct talk *t, const struct nlmsghdr *req)
{
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb,
	};
	ssize_t len;
	int r;

	t->req = req;
	if (mnl_socket_sendto(sock, req, req->nlmsg_len) < 0) {
		if (!t->soft)
			die("send");
		t->error = -errno;
		return t->error;
	}
	do {
		len = mnl_socket_recvfrom(sock, buf, sizeof(buf));
		if (len < 0 && t->soft) {
			t->lost = errno;
			return 0;
		}
		if (len < 0)
			die("receive");
		r = mnl_cb_run2(buf, (size_t)len, req->nlmsg_seq,
				mnl_socket_get_portid(sock), talk_cb, t, ctl,
				NLMSG_MIN_TYPE);
	} while (r > 0);
	if (r < 0)
		t->broken = errno;
	return t->error;
}

struct nlmsghdr *request(char *mem, uint16_t type, uint16_t flags,
			 uint8_t cmd, uint8_t version, uint16_t reserved)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(mem);
	struct genlmsghdr *g;

	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	nlh->nlmsg_seq = ++seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = version;
	g->reserved = reserved;
	return nlh;
}

static int family_attr(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
		*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, GENL_HDRLEN, family_attr, data);
}

void open_family(void)
{
	static char mem[4096];
	struct talk t = { .cb = family_cb, .data = &family_id };
	struct nlmsghdr *nlh;
	int one = 1;

	sock = mnl_socket_open(NETLINK_GENERIC);
	if (!sock || mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0)
		die("netlink socket");
	mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &one, sizeof(one));
	seq = (unsigned int)time(NULL);
	nlh = request(mem, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, PKTDEDUP_GENL_NAME);
	if (run(&t, nlh) || !family_id) {
		fprintf(stderr, "pdnl: no \"%s\" family\n", PKTDEDUP_GENL_NAME);
		exit(1);
	}
}

/* ---- policy dumps ---- */

static void policy_info(struct dump *d, const struct nlattr *info,
			struct pol_attr *p)
{
	const struct nlattr *a;

	p->present = true;
	mnl_attr_for_each_nested(a, info) {
		switch (mnl_attr_get_type(a)) {
		case NL_POLICY_TYPE_ATTR_TYPE:
			p->type = mnl_attr_get_u32(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_U:
			p->has_umin = true;
			p->umin = mnl_attr_get_u64(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_U:
			p->has_umax = true;
			p->umax = mnl_attr_get_u64(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_VALUE_S:
			p->has_smin = true;
			p->smin = (int64_t)mnl_attr_get_u64(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_VALUE_S:
			p->has_smax = true;
			p->smax = (int64_t)mnl_attr_get_u64(a);
			break;
		case NL_POLICY_TYPE_ATTR_MASK:
			p->has_mask = true;
			p->mask = mnl_attr_get_u64(a);
			break;
		case NL_POLICY_TYPE_ATTR_MIN_LENGTH:
			p->has_min_len = true;
			p->min_len = mnl_attr_get_u32(a);
			break;
		case NL_POLICY_TYPE_ATTR_MAX_LENGTH:
			p->has_max_len = true;
			p->max_len = mnl_attr_get_u32(a);
			break;
		case NL_POLICY_TYPE_ATTR_POLICY_IDX:
			p->has_idx = true;
			p->idx = mnl_attr_get_u32(a);
			break;
		case NL_POLICY_TYPE_ATTR_POLICY_MAXTYPE:
			p->maxtype = mnl_attr_get_u32(a);
			break;
		case NL_POLICY_TYPE_ATTR_PAD:
			break;
		default:
			d->bad = true;
		}
	}
}

static int policy_cb(const struct nlmsghdr *nlh, void *data)
{
	struct dump *d = data;
	const struct nlattr *a, *pi, *ai, *o;

	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		switch (mnl_attr_get_type(a)) {
		case CTRL_ATTR_FAMILY_ID:
			break;
		case CTRL_ATTR_OP_POLICY:
			mnl_attr_for_each_nested(o, a) {
				uint16_t cmd = mnl_attr_get_type(o);
				const struct nlattr *x;

				d->op[cmd & 0xff].seen = true;
				mnl_attr_for_each_nested(x, o) {
					if (mnl_attr_get_type(x) == CTRL_ATTR_POLICY_DO) {
						d->op[cmd & 0xff].has_do = true;
						d->op[cmd & 0xff].do_idx = mnl_attr_get_u32(x);
					} else if (mnl_attr_get_type(x) == CTRL_ATTR_POLICY_DUMP) {
						d->op[cmd & 0xff].has_dump = true;
						d->op[cmd & 0xff].dump_idx = mnl_attr_get_u32(x);
					}
				}
			}
			break;
		case CTRL_ATTR_POLICY:
			mnl_attr_for_each_nested(pi, a) {
				uint16_t idx = mnl_attr_get_type(pi);

				if (idx >= MAX_POLICIES) {
					d->bad = true;
					continue;
				}
				d->have[idx] = true;
				mnl_attr_for_each_nested(ai, pi) {
					uint16_t t = mnl_attr_get_type(ai);

					if (t >= MAX_ATTRS) {
						d->bad = true;
						continue;
					}
					policy_info(d, ai, &d->pol[idx][t]);
				}
			}
			break;
		default:
			d->bad = true;
		}
	}
	return MNL_CB_OK;
}

static const char *const type_names[] = {
	[NL_ATTR_TYPE_FLAG] = "flag", [NL_ATTR_TYPE_U8] = "u8",
	[NL_ATTR_TYPE_U16] = "u16", [NL_ATTR_TYPE_U32] = "u32",
	[NL_ATTR_TYPE_U64] = "u64", [NL_ATTR_TYPE_S8] = "s8",
	[NL_ATTR_TYPE_S16] = "s16", [NL_ATTR_TYPE_S32] = "s32",
	[NL_ATTR_TYPE_S64] = "s64", [NL_ATTR_TYPE_BINARY] = "binary",
	[NL_ATTR_TYPE_STRING] = "string",
	[NL_ATTR_TYPE_NUL_STRING] = "nul-string",
	[NL_ATTR_TYPE_NESTED] = "nested",
	[NL_ATTR_TYPE_NESTED_ARRAY] = "nested-array",
	[NL_ATTR_TYPE_BITFIELD32] = "bitfield32",
};

static void print_policy(const struct dump *d, uint32_t idx,
			 const struct nls_set *set, int depth)
{
	unsigned int t;

	if (idx >= MAX_POLICIES || !d->have[idx]) {
		printf("%*smissing policy %u\n", 2 * depth, "", idx);
		return;
	}
	for (t = 0; t < MAX_ATTRS; t++) {
		const struct pol_attr *p = &d->pol[idx][t];
		const struct nls_attr *sa = set && t <= set->max ?
					    &set->attrs[t] : NULL;
		const char *tn = p->type < sizeof(type_names) / sizeof(type_names[0]) &&
				 type_names[p->type] ? type_names[p->type] : "?";

		if (!p->present)
			continue;
		printf("%*s%s %u %s", 2 * depth, "", sa && sa->name ? sa->name : "?",
		       t, tn);
		if (p->has_mask)
			printf(" mask 0x%llx", (unsigned long long)p->mask);
		if (p->has_umin || p->has_umax)
			printf(" min %llu max %llu", (unsigned long long)p->umin,
			       (unsigned long long)p->umax);
		if (p->has_smin || p->has_smax)
			printf(" min %lld max %lld", (long long)p->smin,
			       (long long)p->smax);
		if (p->has_min_len)
			printf(" min-len %u", p->min_len);
		if (p->has_max_len)
			printf(" max-len %u", p->max_len);
		if (p->type == NL_ATTR_TYPE_NESTED)
			printf(" maxtype %u", p->maxtype);
		printf("\n");
		if (p->has_idx)
			print_policy(d, p->idx, sa ? sa->nested : NULL,
				     depth + 1);
	}
}

int policy_fetch(struct dump *d, const struct nls_op *only, struct talk *t)
{
	static char mem[4096];
	struct nlmsghdr *nlh;

	t->cb = policy_cb;
	t->data = d;
	nlh = request(mem, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, 1, 0);
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, PKTDEDUP_GENL_NAME);
	if (only)
		mnl_attr_put_u32(nlh, CTRL_ATTR_OP, only->cmd);
	return run(t, nlh);
}

static int cmd_policy(int argc, char **argv)
{
	static struct dump d;
	struct talk t = {};
	const struct nls_op *only = NULL;
	unsigned int i;

	if (argc > 1)
		usage("policy: at most one operation");
	if (argc == 1) {
		only = nls_op_by_name(argv[0]);
		if (!only)
			usage("policy: no such operation");
	}
	if (policy_fetch(&d, only, &t)) {
		printf("error %d: %s\n", t.error, t.msg[0] ? t.msg :
		       strerror(-t.error));
		return 1;
	}
	if (d.bad)
		printf("warning: the dump held attributes pdnl does not know\n");
	for (i = 0; i < 256; i++) {
		const struct nls_op *op = NULL;
		unsigned int k;

		if (!d.op[i].seen)
			continue;
		for (k = 0; k < NLS_N_OPS; k++)
			if (nls_ops[k].cmd == i)
				op = &nls_ops[k];
		if (d.op[i].has_do) {
			printf("op %s %u do\n", op ? op->name : "?", i);
			print_policy(&d, d.op[i].do_idx, op ? op->set : NULL, 1);
		}
		if (d.op[i].has_dump) {
			printf("op %s %u dump\n", op ? op->name : "?", i);
			print_policy(&d, d.op[i].dump_idx, op ? op->set : NULL, 1);
		}
	}
	return 0;
}

/* ---- raw requests ---- */

/* An attribute path element: a spec name in set, or a number. */
static int path_type(const struct nls_set *set, const char *name,
		     const struct nls_set **nested)
{
	unsigned int i;
	char *end;
	long n;

	*nested = NULL;
	if (set)
		for (i = 1; i <= set->max; i++)
			if (set->attrs[i].name && !strcmp(set->attrs[i].name, name)) {
				*nested = set->attrs[i].nested;
				return (int)i;
			}
	n = strtol(name, &end, 0);
	if (*end || n <= 0 || n > 0x3fff)
		usage("bad attribute path element");
	return (int)n;
}

/*
 * Put the attribute of spec (PATH=TYPE:VALUE) into nlh, opening the nests
 * of its path; nests already open (*open, *depth deep) are reused when the
 * path shares them.
 */
struct opened {
	int type;
	struct nlattr *nest;
	const struct nls_set *set;
};

static void put_attr(struct nlmsghdr *nlh, const struct nls_set *top,
		     char *spec, struct opened *open, int *depth)
{
	char *eq = strchr(spec, '='), *colon, *elem[8], *save = NULL, *p;
	const struct nls_set *set = top, *next;
	int n = 0, i, type;

	if (!eq)
		usage("an attribute is PATH=TYPE:VALUE");
	*eq++ = '\0';
	for (p = strtok_r(spec, ".", &save); p && n < 8;
	     p = strtok_r(NULL, ".", &save))
		elem[n++] = p;
	if (!n)
		usage("empty attribute path");
	/* keep the open nests that are a prefix of this path */
	for (i = 0; i < n - 1 && i < *depth; i++) {
		if (path_type(set, elem[i], &next) != open[i].type)
			break;
		set = open[i].set;
	}
	while (*depth > i)
		mnl_attr_nest_end(nlh, open[--*depth].nest);
	for (; i < n - 1; i++) {
		type = path_type(set, elem[i], &next);
		open[i].type = type;
		open[i].nest = mnl_attr_nest_start(nlh, (uint16_t)type);
		open[i].set = next;
		set = next;
		*depth = i + 1;
	}
	type = path_type(set, elem[n - 1], &next);
	colon = strchr(eq, ':');
	if (colon)
		*colon++ = '\0';
	if (!strcmp(eq, "u8"))
		mnl_attr_put_u8(nlh, (uint16_t)type, (uint8_t)strtoul(colon, NULL, 0));
	else if (!strcmp(eq, "u16"))
		mnl_attr_put_u16(nlh, (uint16_t)type, (uint16_t)strtoul(colon, NULL, 0));
	else if (!strcmp(eq, "u32"))
		mnl_attr_put_u32(nlh, (uint16_t)type, (uint32_t)strtoul(colon, NULL, 0));
	else if (!strcmp(eq, "s32"))
		mnl_attr_put_u32(nlh, (uint16_t)type, (uint32_t)strtol(colon, NULL, 0));
	else if (!strcmp(eq, "u64"))
		mnl_attr_put_u64(nlh, (uint16_t)type, strtoull(colon, NULL, 0));
	else if (!strcmp(eq, "flag"))
		mnl_attr_put(nlh, (uint16_t)type, 0, NULL);
	else if (!strcmp(eq, "str"))
		mnl_attr_put_strz(nlh, (uint16_t)type, colon ? colon : "");
	else if (!strcmp(eq, "nest"))
		mnl_attr_nest_end(nlh, mnl_attr_nest_start(nlh, (uint16_t)type));
	else if (!strcmp(eq, "bin")) {
		uint8_t b[2048];
		size_t len = colon ? strlen(colon) / 2 : 0, k;

		if (len > sizeof(b))
			usage("bin: too long");
		for (k = 0; k < len; k++) {
			unsigned int x;

			if (sscanf(colon + 2 * k, "%2x", &x) != 1)
				usage("bin: not hex");
			b[k] = (uint8_t)x;
		}
		mnl_attr_put(nlh, (uint16_t)type, len, b);
	} else {
		usage("TYPE is u8, u16, u32, u64, s32, flag, bin, str or nest");
	}
}

/* Print the attributes of a reply as PATH=VALUE lines. */
void print_attrs(FILE *f, const struct nlattr *first, size_t len,
		 const struct nls_set *set, const char *prefix)
{
	const char *end = (const char *)first + len;
	const struct nlattr *a;

	for (a = first; mnl_attr_ok(a, (int)(end - (const char *)a));
	     a = mnl_attr_next(a)) {
		uint16_t t = mnl_attr_get_type(a);
		const struct nls_attr *sa = set && t <= set->max ?
					    &set->attrs[t] : NULL;
		uint16_t plen = mnl_attr_get_payload_len(a);
		const uint8_t *v = mnl_attr_get_payload(a);
		char path[256], num[16];
		const char *name = sa && sa->name ? sa->name : num;

		snprintf(num, sizeof(num), "%u", t);
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "",
			 name);
		if (sa && sa->type == NLS_PAD)
			continue;
		if (sa && sa->type == NLS_NEST) {
			print_attrs(f, mnl_attr_get_payload(a), plen, sa->nested,
				    path);
			continue;
		}
		if (sa && sa->type == NLS_S32 && plen == 4) {
			fprintf(f, "%s=%d\n", path, (int32_t)mnl_attr_get_u32(a));
		} else if (plen == 1 || plen == 2 || plen == 4 || plen == 8) {
			unsigned long long x = plen == 1 ? mnl_attr_get_u8(a) :
				plen == 2 ? mnl_attr_get_u16(a) :
				plen == 4 ? mnl_attr_get_u32(a) :
				(unsigned long long)mnl_attr_get_u64(a);

			if (sa && sa->type == NLS_BINARY)
				goto hex;
			fprintf(f, "%s=%llu\n", path, x);
		} else {
			uint16_t k;
hex:
			fprintf(f, "%s=", path);
			for (k = 0; k < plen; k++)
				fprintf(f, "%02x", v[k]);
			fprintf(f, "\n");
		}
	}
}

static int reply_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)data;
	print_attrs(stdout, mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
		    nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN,
		    &nls_pktdedup, "");
	return MNL_CB_OK;
}

/* The path of the attribute at offset offs of the request, by name. */
void bad_path(const struct nlmsghdr *req, uint32_t offs, char *out,
	      size_t room)
{
	const struct nls_set *set = &nls_pktdedup;
	const char *base = (const char *)req;
	const struct nlattr *a = mnl_nlmsg_get_payload_offset(req, GENL_HDRLEN);
	size_t len = req->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN;

	out[0] = '\0';
	while (mnl_attr_ok(a, (int)len)) {
		uint32_t at = (uint32_t)((const char *)a - base);
		uint16_t t = mnl_attr_get_type(a);
		const struct nls_attr *sa = set && t <= set->max ?
					    &set->attrs[t] : NULL;
		size_t used = strlen(out);

		if (offs >= at && offs < at + a->nla_len) {
			if (sa && sa->name)
				snprintf(out + used, room - used, "%s%s",
					 used ? "." : "", sa->name);
			else
				snprintf(out + used, room - used, "%s%u",
					 used ? "." : "", t);
			if (offs == at)
				return;
			set = sa ? sa->nested : NULL;
			len = mnl_attr_get_payload_len(a);
			a = mnl_attr_get_payload(a);
			continue;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = mnl_attr_next(a);
	}
}

/*
 * The fault-injection counter of this thread: set, or read and cleared,
 * through a descriptor opened before it is set (opening the file
 * allocates, and would take the point the request did not reach).
 */
static int fail_nth_fd = -1;

static void fail_nth_set(unsigned int n)
{
	char num[16];
	int len = snprintf(num, sizeof(num), "%u", n);

	if (fail_nth_fd < 0)
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0 ||
	    pwrite(fail_nth_fd, num, (size_t)len, 0) != len)
		die("/proc/thread-self/fail-nth");
}

static unsigned int fail_nth_left(void)
{
	char num[16];
	ssize_t len = pread(fail_nth_fd, num, sizeof(num) - 1, 0);

	if (len <= 0)
		die("/proc/thread-self/fail-nth");
	num[len] = 0;
	fail_nth_set(0);
	return (unsigned int)strtoul(num, NULL, 10);
}

static int cmd_send(int argc, char **argv, int version, int reserved,
		    bool dump, unsigned int fail_nth)
{
	static char mem[1 << 15];
	struct talk t = { .cb = reply_cb };
	struct opened open[8];
	const struct nls_op *op;
	struct nlmsghdr *nlh;
	int i, err, depth = 0;
	unsigned int left = 0;

	if (argc < 1)
		usage("send: which operation?");
	op = nls_op_by_name(argv[0]);
	if (!op)
		usage("send: no such operation");
	nlh = request(mem, family_id, dump ? NLM_F_DUMP : 0, op->cmd,
		      (uint8_t)version, (uint16_t)reserved);
	for (i = 1; i < argc; i++)
		put_attr(nlh, op->set, argv[i], open, &depth);
	while (depth > 0)
		mnl_attr_nest_end(nlh, open[--depth].nest);
	t.soft = fail_nth != 0;
	if (fail_nth)
		fail_nth_set(fail_nth);
	err = run(&t, nlh);
	if (fail_nth)
		left = fail_nth_left();
	if (err) {
		char path[256];

		bad_path(nlh, t.offs, path, sizeof(path));
		printf("error %d: %s", t.error, t.msg[0] ? t.msg :
		       strerror(-t.error));
		if (path[0])
			printf(" [at %s]", path);
		if (t.miss)
			printf(" [missing %u]", t.miss);
		printf("\n");
	} else if (t.lost) {
		printf("lost: %s\n", strerror(t.lost));
	} else {
		printf("ok\n");
	}
	if (fail_nth)
		printf("fail-nth %u left %u\n", fail_nth, left);
	return err ? 1 : 0;
}

int main(int argc, char **argv)
{
	int version = PKTDEDUP_GENL_VERSION, reserved = 0;
	unsigned int fail_nth = 0;
	bool dump = false;

	argc--;
	argv++;
	while (argc && argv[0][0] == '-') {
		if (!strcmp(argv[0], "-d")) {
			dump = true;
		} else if (argc > 1 && !strcmp(argv[0], "-V")) {
			version = atoi(argv[1]);
			argc--;
			argv++;
		} else if (argc > 1 && !strcmp(argv[0], "-R")) {
			reserved = atoi(argv[1]);
			argc--;
			argv++;
		} else if (argc > 1 && !strcmp(argv[0], "-F")) {
			fail_nth = (unsigned int)atoi(argv[1]);
			argc--;
			argv++;
		} else {
			usage("unknown option");
		}
		argc--;
		argv++;
	}
	if (!argc)
		usage("no command");
	open_family();
	if (!strcmp(argv[0], "policy"))
		return cmd_policy(argc - 1, argv + 1);
	if (!strcmp(argv[0], "send"))
		return cmd_send(argc - 1, argv + 1, version, reserved, dump,
				fail_nth);
	if (!strcmp(argv[0], "fuzz"))
		return cmd_fuzz(argc - 1, argv + 1);
	if (!strcmp(argv[0], "xdp-race"))
		return cmd_xdp_race(argc - 1, argv + 1);
	usage("unknown command");
}
