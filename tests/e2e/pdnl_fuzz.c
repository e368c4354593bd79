// SPDX-License-Identifier: GPL-2.0
/*
 * pdnl fuzz: requests of every kind to the pktdedup family, built from the
 * spec's tables (userspace/common/nl_spec.c) and the ranges of the kernel's
 * own policy dump, most of them broken on purpose; see pdnl.c for the
 * options. What it checks:
 *
 *   - every reply is well-formed: the family's type, the request's command,
 *     version 2, attributes the spec knows with their sizes, nothing left
 *     over; an error is a negative errno and its extended ack points inside
 *     the request;
 *   - what the kernel must refuse is refused (a bad genl header with the
 *     errno genetlink gives; a broken attribute, a value out of range, a
 *     wrong version with some error), and without CAP_NET_ADMIN (--unpriv)
 *     every privileged command is refused with EPERM;
 *   - (phase 1) a refused request, or a read, leaves the configuration as it
 *     was: GET_CONFIG and GET_SOURCES are read after every request and
 *     compared with the last state, status fields aside (the budget's peak,
 *     last refusal and module total; new sources seen; event counters);
 *     every reading obeys the budget (held and peak within the cap);
 *   - (phase 2) processes racing changes, reads and dumps, some dumps
 *     abandoned half-way, all get well-formed replies and none dies.
 *
 * A finding prints the seed, the message's number and the request in hex:
 * the same seed sends the same messages again.
 */
#include <errno.h>
#include <stdarg.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/pktdedup.h"
#include "pdnl.h"

#define MSG_ROOM (1 << 17)
#define MSG_LIMIT 49152		/* the largest request made */
#define SNAP_ROOM 16384

struct counts {
	unsigned long messages, accepted, refused, dumps, abandoned, checks,
		      findings;
};

static struct counts cnt;
static struct dump pol;
static bool unpriv;
static uint64_t seed, rng;
static unsigned long msgno;
static int worker = -1;		/* phase 2: the process's number */

/* ---- randomness (splitmix64) ---- */

static uint64_t rnd(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint32_t n)
{
	return n ? (uint32_t)(rnd() % n) : 0;
}

static bool chance(unsigned int percent)
{
	return below(100) < percent;
}

static uint64_t pick(const uint64_t *v, unsigned int n)
{
	return v[below(n)];
}

#define PICK(...) ({ const uint64_t _v[] = { __VA_ARGS__ };		\
		     pick(_v, sizeof(_v) / sizeof(_v[0])); })

/* ---- requests ---- */

struct msg {
	char *mem;
	struct nlmsghdr *nlh;
	const struct nls_op *op;	/* NULL: a command there is none of */
	uint8_t cmd, version;
	uint16_t reserved;
	bool dump, bad_flags;
	bool must_fail;			/* broken where the kernel looks */
	char why[96];			/* the first such reason */
	uint32_t cut;			/* nlmsg_len cut to this, 0 if not */
	uint32_t top[64];		/* ends of top-level attributes */
	bool top_fail[64];		/* must_fail up to there */
	bool head_fail;			/* must_fail for the header alone */
	unsigned int ntop;
};

static void broken(struct msg *m, const char *why)
{
	if (!m->must_fail)
		snprintf(m->why, sizeof(m->why), "%s", why);
	m->must_fail = true;
}

static bool fits(const struct msg *m, size_t len)
{
	return m->nlh->nlmsg_len + MNL_ALIGN(MNL_ATTR_HDRLEN + len) <=
	       MSG_LIMIT;
}

static struct nlattr *put(struct msg *m, uint16_t type, size_t len,
			  const void *data)
{
	struct nlattr *a = mnl_nlmsg_get_payload_tail(m->nlh);

	if (!fits(m, len))
		return NULL;
	mnl_attr_put(m->nlh, type, len, data);
	return a;
}

static void fill_random(uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)rnd();
}

/* len random bytes as an attribute of type */
static void put_garbage(struct msg *m, uint16_t type, size_t len)
{
	static uint8_t junk[MSG_LIMIT];

	if (len > sizeof(junk))
		len = sizeof(junk);
	fill_random(junk, len);
	put(m, type, len, junk);
}

static size_t garbage_len(void)
{
	if (chance(10))		/* oversized: up to tens of KB */
		return 1024 + below(40000);
	return below(64);
}

static unsigned int nls_len(uint8_t type)
{
	switch (type) {
	case NLS_U8: case NLS_S8: return 1;
	case NLS_U16: case NLS_S16: return 2;
	case NLS_U32: case NLS_S32: return 4;
	case NLS_U64: case NLS_S64: return 8;
	default: return 0;
	}
}

static bool nls_signed(uint8_t type)
{
	return type >= NLS_S8 && type <= NLS_S64;
}

/*
 * A value for an integer attribute of policy p (NULL: none known): the
 * range's ends and their neighbours, values inside, just outside, anything.
 * *out says it is outside the range (or the mask).
 */
static uint64_t int_value(uint8_t type, const struct pol_attr *p,
			  bool valid, bool *out)
{
	unsigned int len = nls_len(type);
	uint64_t tmax = len == 8 ? ~0ULL : (1ULL << (8 * len)) - 1;
	uint64_t lo = 0, hi = tmax, v;
	int64_t slo, shi, s;

	*out = false;
	if (p && p->has_mask) {
		v = rnd() & p->mask;
		if (chance(30))
			v = chance(50) ? p->mask : 0;
		if (!valid && chance(30) && (tmax & ~p->mask)) {
			v |= (rnd() & tmax & ~p->mask) ?: (tmax & ~p->mask);
			*out = true;
		}
		return v;
	}
	if (nls_signed(type)) {
		slo = p && p->has_smin ? p->smin : -(int64_t)(tmax >> 1) - 1;
		shi = p && p->has_smax ? p->smax : (int64_t)(tmax >> 1);
		switch (below(valid ? 6 : 9)) {
		case 0: s = slo; break;
		case 1: s = shi; break;
		case 2: s = 0 >= slo && 0 <= shi ? 0 : slo; break;
		case 6: s = slo > -(int64_t)(tmax >> 1) - 1 ? slo - 1 : slo; break;
		case 7: s = shi < (int64_t)(tmax >> 1) ? shi + 1 : shi; break;
		case 8: s = (int32_t)rnd(); break;
		default:
			s = slo + (int64_t)(rnd() % ((uint64_t)(shi - slo) + 1));
		}
		*out = s < slo || s > shi;
		return (uint64_t)s & tmax;
	}
	if (p && p->has_umin)
		lo = p->umin;
	if (p && p->has_umax)
		hi = p->umax;
	switch (below(valid ? 7 : 10)) {
	case 0: v = lo; break;
	case 1: v = hi; break;
	case 2: v = lo < hi ? lo + 1 : lo; break;
	case 3: v = hi > lo ? hi - 1 : hi; break;
	case 7: v = lo ? lo - 1 : lo; break;
	case 8: v = hi < tmax ? hi + 1 : hi; break;
	case 9: v = rnd() & tmax; break;
	default:
		v = hi - lo == ~0ULL ? rnd() : lo + rnd() % (hi - lo + 1);
		/* small values are the interesting ones of wide ranges */
		if (hi - lo > 1000000 && chance(50))
			v = lo + below(1000);
	}
	*out = v < lo || v > hi;
	return v;
}

static void put_int(struct msg *m, uint16_t type, unsigned int len,
		    uint64_t v)
{
	uint8_t b[8];

	switch (len) {
	case 1: b[0] = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(b, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(b, &x, 4); break; }
	default: memcpy(b, &v, 8);
	}
	put(m, type, len, b);
}

static void gen_set(struct msg *m, const struct nls_set *set, int idx,
		    int depth);

/* The end of a top-level attribute: nlmsg_len may be cut there. */
static void mark_top(struct msg *m)
{
	if (m->ntop >= 64)
		return;
	m->top[m->ntop] = m->nlh->nlmsg_len;
	m->top_fail[m->ntop++] = m->must_fail;
}

/* A chain of nests depth deep, garbage at the bottom. */
static void deep_nest(struct msg *m, uint16_t type, int depth)
{
	struct nlattr *n;

	if (!fits(m, 64) || depth == 0) {
		put_garbage(m, type, below(16));
		return;
	}
	n = mnl_attr_nest_start(m->nlh, type);
	deep_nest(m, chance(70) ? type : (uint16_t)(1 + below(20)), depth - 1);
	mnl_attr_nest_end(m->nlh, n);
}

/*
 * Attribute t of set (a), with policy p if the kernel validates this level
 * (valid: the level is validated, and p is NULL if it takes no such
 * attribute there).
 */
static void gen_attr(struct msg *m, uint16_t t, const struct nls_attr *a,
		     const struct pol_attr *p, bool validated, int depth)
{
	bool known = validated && p;
	struct nlattr *at;
	unsigned int len;
	bool out;
	uint64_t v;

	if (validated && !p)
		broken(m, "an attribute this command does not take");
	if (a->type == NLS_NEST) {
		if (chance(4)) {
			put_garbage(m, t, garbage_len());
			return;
		}
		if (chance(2)) {
			deep_nest(m, t, 2 + below(40));
			return;
		}
		if (!fits(m, 16))
			return;
		at = mnl_attr_nest_start(m->nlh, t);
		gen_set(m, a->nested, known && p->has_idx ? (int)p->idx : -1,
			depth + 1);
		mnl_attr_nest_end(m->nlh, at);
		if (chance(4)) {
			at->nla_type &= (uint16_t)~NLA_F_NESTED;
			if (known)
				broken(m, "a nest without NLA_F_NESTED");
		}
		return;
	}
	if (a->type == NLS_BINARY) {
		uint32_t lo = known && p->has_min_len ? p->min_len : 0;
		uint32_t hi = known && p->has_max_len ? p->max_len : 64;

		switch (below(7)) {
		case 0: len = lo; break;
		case 1: len = hi; break;
		case 2: len = lo ? lo - 1 : 0; break;
		case 3: len = hi + 1; break;
		case 4: len = garbage_len(); break;
		default: len = lo + below(hi - lo + 1);
		}
		if (known && (len < lo || len > hi))
			broken(m, "a binary attribute of a length out of range");
		put_garbage(m, t, len);
		return;
	}
	len = nls_len(a->type);
	if (!len) {		/* pad, or a type requests never carry */
		put_garbage(m, t, chance(50) ? 0 : below(16));
		return;
	}
	v = int_value(a->type, known ? p : NULL, false, &out);
	if (known && out)
		broken(m, "a value out of range");
	if (chance(4)) {
		unsigned int wrong = (unsigned int)PICK(0, 1, 2, 3, 5, 8, 16);

		if (wrong != len && known)
			broken(m, "an integer of the wrong length");
		len = wrong;
	}
	if (len > 8) {
		put_garbage(m, t, len);
		return;
	}
	at = put(m, t, len, &v);	/* little-endian: the low bytes */
	if (at && chance(2)) {
		at->nla_type |= NLA_F_NESTED;
		if (known)
			broken(m, "NLA_F_NESTED on an integer");
	}
	if (at && chance(2))
		at->nla_type |= NLA_F_NET_BYTEORDER;
}

/*
 * The attributes of set, at policy idx of the dump (-1: a level the kernel
 * does not validate, inside something it refuses anyway).
 */
static void gen_set(struct msg *m, const struct nls_set *set, int idx,
		    int depth)
{
	bool validated = idx >= 0 && idx < MAX_POLICIES && pol.have[idx];
	uint16_t t;

	for (t = 1; t <= set->max; t++) {
		const struct nls_attr *a = &set->attrs[t];
		const struct pol_attr *p = validated && t < MAX_ATTRS &&
					   pol.pol[idx][t].present ?
					   &pol.pol[idx][t] : NULL;
		int n = chance(3) ? 2 : 1;

		if (!a->name || !chance(p ? 45 : validated ? 4 : 25))
			continue;
		while (n--)
			gen_attr(m, t, a, p, validated, depth);
		if (depth == 0)
			mark_top(m);
	}
	if (chance(depth ? 3 : 5)) {
		t = chance(50) ? (uint16_t)(set->max + 1 + below(4)) :
			(uint16_t)(1 + below(0x3fff));
		if (validated && (t >= MAX_ATTRS || !pol.pol[idx][t].present))
			broken(m, "an attribute of a type there is none of");
		put_garbage(m, t, garbage_len());
		if (depth == 0)
			mark_top(m);
	}
}

static void msg_start(struct msg *m, const struct nls_op *op, uint8_t cmd,
		      bool dump)
{
	char *mem = m->mem;

	memset(m, 0, sizeof(*m));
	m->mem = mem;
	m->op = op;
	m->cmd = cmd;
	m->dump = dump;
	m->version = PKTDEDUP_GENL_VERSION;
	m->nlh = request(mem, family_id, dump ? NLM_F_DUMP : 0, cmd,
			 m->version, 0);
}

static const struct nls_op *op_of(uint8_t cmd)
{
	unsigned int i;

	for (i = 0; i < NLS_N_OPS; i++)
		if (nls_ops[i].cmd == cmd)
			return &nls_ops[i];
	return NULL;
}

/* A request built from the spec and broken in every way. */
static void gen_fuzzed(struct msg *m)
{
	const struct nls_op *op = NULL;
	struct genlmsghdr *g;
	uint8_t cmd;
	int idx = -1;

	if (chance(90)) {
		op = &nls_ops[below(NLS_N_OPS)];
		cmd = op->cmd;
	} else {
		cmd = (uint8_t)PICK(0, PKTDEDUP_CMD_MAX + 1, 255,
				    PKTDEDUP_CMD_MAX + 1 + below(200));
	}
	msg_start(m, op, cmd, chance(op && op->has_dump ? 40 : 10));
	g = mnl_nlmsg_get_payload(m->nlh);
	if (chance(5)) {
		m->version = (uint8_t)PICK(0, 1, 3, 255);
		g->version = m->version;
		broken(m, "another protocol version");
	}
	if (chance(3)) {
		m->reserved = (uint16_t)(1 + below(0xffff));
		g->reserved = m->reserved;
	}
	if (chance(3)) {
		uint16_t f;

		m->nlh->nlmsg_flags |= NLM_F_ECHO;
		if (chance(50))
			m->nlh->nlmsg_flags |= (uint16_t)PICK(NLM_F_EXCL,
				NLM_F_CREATE, NLM_F_APPEND, NLM_F_ATOMIC);
		/*
		 * genetlink's header check: only REQUEST, ACK, ECHO and the
		 * whole of DUMP (whose MATCH bit is EXCL's: a dump with
		 * EXCL is a plain dump)
		 */
		f = m->nlh->nlmsg_flags;
		if ((f & NLM_F_DUMP) == NLM_F_DUMP)
			f &= (uint16_t)~NLM_F_DUMP;
		m->bad_flags = f & ~(NLM_F_REQUEST | NLM_F_ACK | NLM_F_ECHO);
	}
	if (op && (m->dump ? pol.op[cmd].has_dump : pol.op[cmd].has_do))
		idx = (int)(m->dump ? pol.op[cmd].dump_idx : pol.op[cmd].do_idx);
	m->head_fail = m->must_fail;
	gen_set(m, &nls_pktdedup, idx, 0);
	/* nlmsg_len shorter than the attributes */
	if (chance(4) && m->nlh->nlmsg_len > MNL_NLMSG_HDRLEN) {
		uint32_t len = m->nlh->nlmsg_len, cut, i;

		cut = MNL_NLMSG_HDRLEN + below(len - MNL_NLMSG_HDRLEN);
		if (cut >= MNL_NLMSG_HDRLEN + GENL_HDRLEN) {
			/* on a boundary: what is left is a request */
			bool boundary = false, fail = m->head_fail;

			if (cut == MNL_NLMSG_HDRLEN + GENL_HDRLEN)
				boundary = true;
			for (i = 0; i < m->ntop && !boundary; i++)
				if (m->top[i] == cut) {
					boundary = true;
					fail = m->top_fail[i];
				}
			m->must_fail = false;
			if (!boundary || fail)
				broken(m, boundary ? "a broken attribute before the cut" :
				       "nlmsg_len cutting an attribute");
		}
		m->cut = cut;
		m->nlh->nlmsg_len = cut;
	}
}

/* ---- plausible requests, which change the state ---- */

static const struct pol_attr *pol_of(int idx, uint16_t t)
{
	if (idx < 0 || idx >= MAX_POLICIES || t >= MAX_ATTRS ||
	    !pol.pol[idx][t].present)
		return NULL;
	return &pol.pol[idx][t];
}

static int nested_idx(int idx, uint16_t t)
{
	const struct pol_attr *p = pol_of(idx, t);

	return p && p->has_idx ? (int)p->idx : -1;
}

/* An integer attribute of set with a value its policy takes. */
static void put_valid(struct msg *m, const struct nls_set *set, int idx,
		      uint16_t t)
{
	bool out;

	put_int(m, t, nls_len(set->attrs[t].type),
		int_value(set->attrs[t].type, pol_of(idx, t), true, &out));
}

static const uint16_t family_nest[] = {
	PKTDEDUP_A_FILTER_SBF, PKTDEDUP_A_FILTER_RSBF,
	PKTDEDUP_A_FILTER_BSBF, PKTDEDUP_A_FILTER_BSBFSD,
	PKTDEDUP_A_FILTER_RLBSBF, PKTDEDUP_A_FILTER_IBF_2C,
	PKTDEDUP_A_FILTER_IBF_MC, PKTDEDUP_A_FILTER_SLIDING,
	PKTDEDUP_A_FILTER_JUMPING, PKTDEDUP_A_FILTER_LANDMARK,
};

static uint64_t some_mem(void)
{
	if (chance(5))		/* beyond every cap */
		return PICK(64ULL << 20, 256ULL << 20, 1ULL << 32);
	return PICK(8, 9, 64, 4096, 65536, 262144, 1 << 20, 4 << 20,
		    12 << 20);
}

static void gen_filter(struct msg *m, int idx)
{
	uint32_t kind = below(PKTDEDUP_FILTER_KIND_MAX + 1);
	uint16_t nest_type = family_nest[kind], t;
	const struct nls_set *set = nls_filter.attrs[nest_type].nested;
	int sidx = nested_idx(idx, nest_type);
	struct nlattr *f, *n;
	bool window = false;

	f = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_CONFIG_FILTER);
	mnl_attr_put_u32(m->nlh, PKTDEDUP_A_FILTER_KIND, kind);
	if (chance(70))
		mnl_attr_put_u64(m->nlh, PKTDEDUP_A_FILTER_MEM, some_mem());
	n = mnl_attr_nest_start(m->nlh, nest_type);
	for (t = 1; t <= set->max; t++) {
		if (!set->attrs[t].name || !chance(40))
			continue;
		if (t == PKTDEDUP_A_SETTINGS_WINDOW_NS ||
		    t == PKTDEDUP_A_SETTINGS_WINDOW_PACKETS) {
			if (window)
				continue;	/* one or the other */
			window = true;
		}
		if (t == PKTDEDUP_A_SETTINGS_RATE)
			mnl_attr_put_u32(m->nlh, t, (uint32_t)PICK(0, 1, 1000,
					 100000, 10000000, 0xffffffff));
		else
			put_valid(m, set, sidx, t);
	}
	mnl_attr_nest_end(m->nlh, n);
	mnl_attr_nest_end(m->nlh, f);
}

static void gen_set_config(struct msg *m)
{
	int idx = nested_idx((int)pol.op[PKTDEDUP_CMD_SET_CONFIG].do_idx,
			     PKTDEDUP_A_CONFIG);
	struct nlattr *c;
	uint32_t mask;
	uint16_t t;

	c = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_CONFIG);
	for (t = PKTDEDUP_A_CONFIG_KEY; t <= PKTDEDUP_A_CONFIG_PRIORITY; t++) {
		if (!chance(25) || t == PKTDEDUP_A_CONFIG_MARK_VALUE)
			continue;
		if (t == PKTDEDUP_A_CONFIG_MARK_MASK) {
			mask = (uint32_t)rnd();
			mnl_attr_put_u32(m->nlh, PKTDEDUP_A_CONFIG_MARK_MASK,
					 mask);
			mnl_attr_put_u32(m->nlh, PKTDEDUP_A_CONFIG_MARK_VALUE,
					 (uint32_t)rnd() & mask);
			continue;
		}
		put_valid(m, &nls_config, idx, t);
	}
	if (chance(60))
		gen_filter(m, nested_idx(idx, PKTDEDUP_A_CONFIG_FILTER));
	if (chance(25))
		mnl_attr_put_u8(m->nlh, PKTDEDUP_A_CONFIG_STATE,
				chance(40) ? PKTDEDUP_STATE_IDLE :
				PKTDEDUP_STATE_ACTIVE);
	/* a fixed seed, back to random, or fixed alone (refused if none) */
	if (chance(10))
		mnl_attr_put_u8(m->nlh, PKTDEDUP_A_CONFIG_SEED_MODE,
				chance(50) ? PKTDEDUP_SEED_MODE_RANDOM :
				PKTDEDUP_SEED_MODE_FIXED);
	if (chance(10))
		mnl_attr_put_u64(m->nlh, PKTDEDUP_A_CONFIG_SEED, rnd());
	mnl_attr_nest_end(m->nlh, c);
}

static void gen_set_sources(struct msg *m)
{
	struct nlattr *s = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_SOURCES);
	int idx = nested_idx((int)pol.op[PKTDEDUP_CMD_SET_SOURCES].do_idx,
			     PKTDEDUP_A_SOURCES);
	uint16_t t;

	for (t = PKTDEDUP_A_SOURCES_WINDOW_MS; t <= PKTDEDUP_A_SOURCES_MAX;
	     t++) {
		if (!chance(30))
			continue;
		if (t == PKTDEDUP_A_SOURCES_RING) {
			uint32_t r = 16u << below(13);

			if (chance(5)) {
				r += 1 + below(15);
				broken(m, "a ring not a power of two");
			}
			mnl_attr_put_u32(m->nlh, t, r);
		} else if (t == PKTDEDUP_A_SOURCES_NEW_MEM) {
			mnl_attr_put_u64(m->nlh, t, chance(5) ? 1ULL << 30 :
					 PICK(8, 64, 4096, 65536, 1 << 20));
		} else {
			put_valid(m, &nls_sources, idx, t);
		}
	}
	mnl_attr_nest_end(m->nlh, s);
}

/* A request that means something: a change mostly, sometimes a read. */
static void gen_plausible(struct msg *m)
{
	static const uint8_t cmds[] = {
		PKTDEDUP_CMD_SET_CONFIG, PKTDEDUP_CMD_SET_CONFIG,
		PKTDEDUP_CMD_SET_CONFIG, PKTDEDUP_CMD_SET_SOURCES,
		PKTDEDUP_CMD_SET_SOURCES, PKTDEDUP_CMD_RESET,
	};
	uint8_t cmd = cmds[below(sizeof(cmds))];
	struct nlattr *h;

	msg_start(m, op_of(cmd), cmd, false);
	if (chance(10)) {
		h = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_HEADER);
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_HEADER_FLAGS,
				 PKTDEDUP_HEADER_F_OMIT_REPLY);
		mnl_attr_nest_end(m->nlh, h);
	}
	if (cmd == PKTDEDUP_CMD_SET_CONFIG)
		gen_set_config(m);
	else if (cmd == PKTDEDUP_CMD_SET_SOURCES)
		gen_set_sources(m);
}

/* A read as dedupctl would send it. */
static void gen_read(struct msg *m)
{
	static const uint8_t cmds[] = {
		PKTDEDUP_CMD_GET_CONFIG, PKTDEDUP_CMD_GET_STATS,
		PKTDEDUP_CMD_GET_STATS, PKTDEDUP_CMD_GET_DISTINCT,
		PKTDEDUP_CMD_GET_SOURCES, PKTDEDUP_CMD_GET_TOP,
		PKTDEDUP_CMD_GET_RARE, PKTDEDUP_CMD_QUERY,
	};
	uint8_t cmd = cmds[below(sizeof(cmds))];
	struct nlattr *n;

	msg_start(m, op_of(cmd), cmd, cmd == PKTDEDUP_CMD_GET_STATS &&
		  chance(50));
	switch (cmd) {
	case PKTDEDUP_CMD_GET_TOP:
		n = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_TOP);
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_TOP_COUNT,
				 (uint32_t)PICK(1, 10, 1000));
		mnl_attr_nest_end(m->nlh, n);
		break;
	case PKTDEDUP_CMD_GET_RARE:
		n = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_RARE);
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_RARE_COUNT,
				 (uint32_t)PICK(1, 100, 1000));
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_RARE_SUPPORT,
				 (uint32_t)PICK(1, 100000, 999999999));
		mnl_attr_nest_end(m->nlh, n);
		break;
	case PKTDEDUP_CMD_QUERY:
		n = mnl_attr_nest_start(m->nlh, PKTDEDUP_A_QUERY);
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_QUERY_SRC, 0x0100000a);
		mnl_attr_put_u32(m->nlh, PKTDEDUP_A_QUERY_DST, 0x0200000a);
		mnl_attr_put_u8(m->nlh, PKTDEDUP_A_QUERY_PROTO, 17);
		mnl_attr_nest_end(m->nlh, n);
		break;
	}
}

/* ---- replies ---- */

struct rcheck {
	uint8_t cmd;
	bool dump;
	bool bad;
	char why[160];
	FILE *snap;		/* the attributes as text, if set */
};

static void rbad(struct rcheck *rc, const char *why, const char *path,
		 unsigned int n)
{
	if (!rc->bad)
		snprintf(rc->why, sizeof(rc->why), "%s (%s%s%u)", why, path,
			 *path ? " " : "", n);
	rc->bad = true;
}

static void check_attrs(struct rcheck *rc, const char *p, size_t rem,
			const struct nls_set *set, const char *path)
{
	uint64_t seen = 0;

	while (rem >= MNL_ATTR_HDRLEN) {
		const struct nlattr *a = (const void *)p;
		uint16_t t = a->nla_type & NLA_TYPE_MASK;
		const struct nls_attr *sa = t <= set->max &&
					    set->attrs[t].name ?
					    &set->attrs[t] : NULL;
		size_t plen, step;
		unsigned int want;
		char sub[128];

		if (a->nla_len < MNL_ATTR_HDRLEN || a->nla_len > rem) {
			rbad(rc, "attribute length", path, a->nla_len);
			return;
		}
		plen = a->nla_len - MNL_ATTR_HDRLEN;
		if (!sa) {
			rbad(rc, "an attribute the spec does not know", path, t);
		} else {
			want = nls_len(sa->type);
			if (want && plen != want)
				rbad(rc, "an integer of the wrong length",
				     sa->name, (unsigned int)plen);
			if (sa->type != NLS_NEST && (a->nla_type & NLA_F_NESTED))
				rbad(rc, "NLA_F_NESTED on a non-nest", sa->name, t);
			if (!sa->multi && sa->type != NLS_PAD && t < 64 &&
			    (seen & (1ULL << t)))
				rbad(rc, "an attribute twice", sa->name, t);
			if (t < 64)
				seen |= 1ULL << t;
			if (sa->type == NLS_NEST) {
				snprintf(sub, sizeof(sub), "%s%s%s", path,
					 *path ? "." : "", sa->name);
				check_attrs(rc, p + MNL_ATTR_HDRLEN, plen,
					    sa->nested, sub);
			}
		}
		step = MNL_ALIGN(a->nla_len);
		if (step > rem)
			step = rem;
		p += step;
		rem -= step;
	}
	if (rem)
		rbad(rc, "bytes left over", path, (unsigned int)rem);
}

static int check_cb(const struct nlmsghdr *nlh, void *data)
{
	struct rcheck *rc = data;
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const char *attrs = (const char *)g + GENL_HDRLEN;
	size_t len;

	if (nlh->nlmsg_type != family_id)
		rbad(rc, "a reply of another type", "", nlh->nlmsg_type);
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN) {
		rbad(rc, "a reply too short", "", nlh->nlmsg_len);
		return MNL_CB_OK;
	}
	if (g->cmd != rc->cmd)
		rbad(rc, "a reply to another command", "", g->cmd);
	if (g->version != PKTDEDUP_GENL_VERSION)
		rbad(rc, "a reply of another version", "", g->version);
	if (rc->dump != !!(nlh->nlmsg_flags & NLM_F_MULTI))
		rbad(rc, "NLM_F_MULTI wrong for the request", "",
		     nlh->nlmsg_flags);
	len = nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN;
	check_attrs(rc, attrs, len, &nls_pktdedup, "");
	if (rc->snap)
		print_attrs(rc->snap, (const struct nlattr *)attrs, len,
			    &nls_pktdedup, "");
	return MNL_CB_OK;
}

/* ---- findings ---- */

static void hexdump(const void *p, size_t len)
{
	const uint8_t *b = p;
	size_t i;

	printf("#     request (%zu bytes):", len);
	for (i = 0; i < len && i < 512; i++)
		printf("%s%02x", i % 32 ? "" : "\n#       ", b[i]);
	printf("%s\n", len > 512 ? " ..." : "");
}

static void finding(const struct msg *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void finding(const struct msg *m, const char *fmt, ...)
{
	va_list ap;

	cnt.findings++;
	printf("# FINDING (seed %llu, %s%d, message %lu): ",
	       (unsigned long long)seed, worker < 0 ? "phase 1" : "worker ",
	       worker < 0 ? 1 : worker, msgno);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (m) {
		const struct nls_op *op = m->op;

		printf("#     %s (cmd %u)%s version %u reserved %u flags 0x%x nlmsg_len %u%s%s\n",
		       op ? op->name : "unknown", m->cmd,
		       m->dump ? " dump" : "", m->version, m->reserved,
		       m->nlh->nlmsg_flags, m->nlh->nlmsg_len,
		       m->must_fail ? ", must fail: " : "", m->why);
		hexdump(m->nlh, m->nlh->nlmsg_len);
	}
	fflush(stdout);
}

/* ---- the state: GET_CONFIG and GET_SOURCES, status left out ---- */

static const char *const status_keys[] = {
	"budget.peak=", "budget.refused=", "budget.total-held=",
	"source-state.new-seen=", "events.",
};

struct state {
	char text[SNAP_ROOM];	/* configuration lines */
	unsigned long long cap, filters, sources, peak, total_cap, total_held;
};

static unsigned long long line_val(const char *all, const char *key)
{
	const char *p = strstr(all, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

/* Read the state into s; 0, or the errno of the GET that failed. */
static int read_state(struct state *s, struct msg *scratch)
{
	static const uint8_t cmds[] = {
		PKTDEDUP_CMD_GET_CONFIG, PKTDEDUP_CMD_GET_SOURCES,
	};
	char *all = NULL, *line, *save = NULL;
	size_t size = 0, used = 0;
	struct rcheck rc = {};
	unsigned int i, k;
	int err = 0;

	rc.snap = open_memstream(&all, &size);
	if (!rc.snap)
		die("open_memstream");
	for (i = 0; i < 2 && !err; i++) {
		struct talk t = { .cb = check_cb, .data = &rc };

		msg_start(scratch, op_of(cmds[i]), cmds[i], false);
		rc.cmd = cmds[i];
		err = run(&t, scratch->nlh);
		if (t.broken || rc.bad)
			finding(scratch, "a malformed reply: %s",
				rc.bad ? rc.why : strerror(t.broken));
	}
	fclose(rc.snap);
	s->text[0] = '\0';
	s->cap = line_val(all, "budget.cap=");
	s->filters = line_val(all, "budget.filters=");
	s->sources = line_val(all, "budget.sources=");
	s->peak = line_val(all, "budget.peak=");
	s->total_cap = line_val(all, "budget.total-cap=");
	s->total_held = line_val(all, "budget.total-held=");
	for (line = strtok_r(all, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		bool skip = false;

		for (k = 0; k < sizeof(status_keys) / sizeof(status_keys[0]); k++)
			skip |= !strncmp(line, status_keys[k],
					 strlen(status_keys[k]));
		if (skip || used + strlen(line) + 2 > sizeof(s->text))
			continue;
		used += (size_t)sprintf(s->text + used, "%s\n", line);
	}
	free(all);
	return err;
}

/* Whether text holds line (with its newline) as one of its lines. */
static bool has_line(const char *text, const char *line, size_t n)
{
	const char *p;

	for (p = text; *p; p = strchr(p, '\n') + 1) {
		if (!strncmp(p, line, n))
			return true;
		if (!strchr(p, '\n'))
			break;
	}
	return false;
}

/* Print the lines of a that b lacks, and those of b that a lacks. */
static void print_diff(const char *a, const char *b)
{
	const char *p, *e;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		const char *x = pass ? b : a, *y = pass ? a : b;

		for (p = x; (e = strchr(p, '\n')); p = e + 1)
			if (!has_line(y, p, (size_t)(e - p) + 1))
				printf("#     %s %.*s\n", pass ? "after: " :
				       "before:", (int)(e - p), p);
	}
}

static void check_budget(const struct state *s)
{
	if (s->filters + s->sources > s->cap || s->peak > s->cap ||
	    s->total_held > s->total_cap)
		finding(NULL, "over a cap: held %llu + %llu, peak %llu, cap %llu; module %llu of %llu",
			s->filters, s->sources, s->peak, s->cap,
			s->total_held, s->total_cap);
}

/* ---- sending ---- */

/* What genetlink itself answers before the family sees the request. */
static int header_errno(const struct msg *m)
{
	if (m->nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return -EINVAL;
	if (m->reserved || m->bad_flags)
		return -EINVAL;
	if (!m->op || (!m->op->has_do && !m->op->has_dump))
		return -EOPNOTSUPP;
	if (unpriv && m->op->admin)
		return -EPERM;
	if (m->dump ? !m->op->has_dump : !m->op->has_do)
		return -EOPNOTSUPP;
	return 0;
}

/* Send m, check the reply; the errno (0: accepted). */
static int exchange(struct msg *m)
{
	struct rcheck rc = { .cmd = m->cmd, .dump = m->dump };
	struct talk t = { .cb = check_cb, .data = &rc };
	int err, want = header_errno(m);

	cnt.messages++;
	if (m->dump)
		cnt.dumps++;
	err = run(&t, m->nlh);
	if (err)
		cnt.refused++;
	else
		cnt.accepted++;
	if (t.broken || rc.bad)
		finding(m, "a malformed reply: %s",
			rc.bad ? rc.why : strerror(t.broken));
	if (err > 0 || err < -4095)
		finding(m, "error %d is no errno", err);
	if (t.offs && (t.offs < MNL_NLMSG_HDRLEN + GENL_HDRLEN ||
		       t.offs >= m->nlh->nlmsg_len))
		finding(m, "the extended ack points outside the request (offset %u)",
			t.offs);
	/* the planner's plan refused by its own filter */
	if (err && strstr(t.msg, "not a plan of"))
		finding(m, "error %d: %s", err, t.msg);
	if (want && err != want)
		finding(m, "error %d (%s), want %d: %s", err, t.msg, want,
			strerror(-want));
	else if (!err && m->must_fail)
		finding(m, "accepted, but it had %s", m->why);
	return err;
}

/* A plain read anyone may make, which must work. */
static void must_read(struct msg *m)
{
	static const uint8_t cmds[] = {
		PKTDEDUP_CMD_GET_CONFIG, PKTDEDUP_CMD_GET_STATS,
		PKTDEDUP_CMD_GET_SOURCES, PKTDEDUP_CMD_GET_DISTINCT,
	};
	uint8_t cmd = cmds[below(sizeof(cmds))];
	int err;

	msg_start(m, op_of(cmd), cmd, cmd == PKTDEDUP_CMD_GET_STATS &&
		  chance(50));
	err = exchange(m);
	/* distinct counts need source windows: none while idle */
	if (err && !(cmd == PKTDEDUP_CMD_GET_DISTINCT && err == -ENODATA))
		finding(m, "a plain read refused: %d", err);
}

static void open_socket(void)
{
	struct timeval tv = { .tv_sec = 120 };

	open_family();
	setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_RCVTIMEO, &tv,
		   sizeof(tv));
}

/* ---- phase 1: one socket, every request checked against the state ---- */

static bool is_change(uint8_t cmd)
{
	return cmd == PKTDEDUP_CMD_SET_CONFIG ||
	       cmd == PKTDEDUP_CMD_SET_SOURCES;
}

static void phase1(unsigned long n)
{
	static struct state base, now;
	static char mem[MSG_ROOM], mem2[MSG_ROOM];
	struct msg m = { .mem = mem }, scratch = { .mem = mem2 };
	int err;

	err = read_state(&base, &scratch);
	if (err)
		finding(NULL, "GET_CONFIG or GET_SOURCES refused: %d", err);
	check_budget(&base);
	for (msgno = 1; msgno <= n; msgno++) {
		if (unpriv && chance(10)) {
			must_read(&m);
			continue;
		}
		if (!unpriv && chance(30))
			gen_plausible(&m);
		else
			gen_fuzzed(&m);
		err = exchange(&m);
		/* the state after: the state before the next one */
		if (read_state(&now, &scratch))
			finding(&m, "GET_CONFIG or GET_SOURCES refused after it");
		cnt.checks++;
		check_budget(&now);
		if ((err || unpriv || !is_change(m.cmd)) &&
		    strcmp(base.text, now.text)) {
			finding(&m, "%s %s changed the configuration",
				err ? "a refused request" : "an accepted",
				err ? "" : m.op ? m.op->name : "unknown command");
			print_diff(base.text, now.text);
		}
		memcpy(&base, &now, sizeof(base));
	}
	msgno = 0;
}

/* ---- phase 2: processes racing ---- */

static void worker_run(int w, unsigned long n, unsigned int seconds, int fd)
{
	static char mem[MSG_ROOM];
	struct msg m = { .mem = mem };
	time_t end = time(NULL) + seconds;
	ssize_t r;

	worker = w;
	rng = seed * 1000003 + (uint64_t)w + 1;
	memset(&cnt, 0, sizeof(cnt));
	mnl_socket_close(sock);
	open_socket();
	for (msgno = 1; msgno <= n; msgno++) {
		unsigned int what = below(100);

		if (seconds && time(NULL) >= end)
			break;
		if (what < 30 && !unpriv)
			gen_plausible(&m);
		else if (what < 75)
			gen_read(&m);
		else if (what < 85)
			gen_fuzzed(&m);
		else {
			/* a dump (or a big reply) abandoned half-way */
			if (chance(70))
				msg_start(&m, op_of(PKTDEDUP_CMD_GET_STATS),
					  PKTDEDUP_CMD_GET_STATS, true);
			else
				gen_read(&m);
			cnt.messages++;
			cnt.abandoned++;
			cnt.dumps += m.dump;
			if (mnl_socket_sendto(sock, m.nlh, m.nlh->nlmsg_len) < 0)
				die("send");
			if (chance(70) &&
			    mnl_socket_recvfrom(sock, buf, sizeof(buf)) < 0)
				die("receive");
			mnl_socket_close(sock);
			open_socket();
			continue;
		}
		exchange(&m);
	}
	r = write(fd, &cnt, sizeof(cnt));
	(void)r;
	fflush(stdout);
	_exit(0);
}

static void phase2(unsigned int procs, unsigned long n, unsigned int seconds)
{
	int fds[2], status;
	unsigned int w, dead = 0;
	struct counts c;
	pid_t pid;

	if (pipe(fds))
		die("pipe");
	fflush(stdout);
	for (w = 0; w < procs; w++) {
		pid = fork();
		if (pid < 0)
			die("fork");
		if (!pid) {
			close(fds[0]);
			worker_run((int)w + 1, n / procs, seconds, fds[1]);
		}
	}
	close(fds[1]);
	while (read(fds[0], &c, sizeof(c)) == sizeof(c)) {
		cnt.messages += c.messages;
		cnt.accepted += c.accepted;
		cnt.refused += c.refused;
		cnt.dumps += c.dumps;
		cnt.abandoned += c.abandoned;
		cnt.findings += c.findings;
	}
	close(fds[0]);
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			dead++;
	if (dead)
		finding(NULL, "%u of %u processes died", dead, procs);
}

static void __attribute__((noreturn)) fuzz_usage(const char *why)
{
	fprintf(stderr, "pdnl fuzz: %s\nusage: pdnl fuzz [--seed S] [--messages N] [--procs P] [--seconds T] [--unpriv]\n",
		why);
	exit(2);
}

int cmd_fuzz(int argc, char **argv)
{
	static struct state before, after;
	static char mem[MSG_ROOM];
	struct msg scratch = { .mem = mem };
	unsigned long n = 1000;
	unsigned int procs = 2, seconds = 0;
	struct talk t = {};
	struct timespec t0, t1, t2;
	int i, err;

	seed = 1;
	for (i = 0; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "--unpriv")) {
			unpriv = true;
			continue;
		}
		if (i + 1 >= argc)
			fuzz_usage("an option without its value");
		if (!strcmp(o, "--seed"))
			seed = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(o, "--messages"))
			n = strtoul(argv[++i], NULL, 0);
		else if (!strcmp(o, "--procs"))
			procs = (unsigned int)strtoul(argv[++i], NULL, 0);
		else if (!strcmp(o, "--seconds"))
			seconds = (unsigned int)strtoul(argv[++i], NULL, 0);
		else
			fuzz_usage("unknown option");
	}
	rng = seed;
	setvbuf(stdout, NULL, _IOLBF, 0);
	open_socket();
	if (policy_fetch(&pol, NULL, &t) || pol.bad)
		fuzz_usage("no policy dump of the family");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	err = read_state(&before, &scratch);
	if (err)
		finding(NULL, "GET_CONFIG or GET_SOURCES refused: %d", err);
	phase1(n);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("pdnl fuzz: phase 1: %lu messages, %lu accepted, %lu refused, %lu config checks in %.1f s\n",
	       cnt.messages, cnt.accepted, cnt.refused, cnt.checks,
	       (double)(t1.tv_sec - t0.tv_sec) +
	       (double)(t1.tv_nsec - t0.tv_nsec) / 1e9);
	if (procs)
		phase2(procs, n, seconds);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (procs)
		printf("pdnl fuzz: phase 2: %u processes, %.1f s\n", procs,
		       (double)(t2.tv_sec - t1.tv_sec) +
		       (double)(t2.tv_nsec - t1.tv_nsec) / 1e9);
	err = read_state(&after, &scratch);
	cnt.checks++;
	if (err)
		finding(NULL, "GET_CONFIG or GET_SOURCES refused at the end: %d",
			err);
	check_budget(&after);
	if (unpriv && strcmp(before.text, after.text)) {
		finding(NULL, "the configuration changed without CAP_NET_ADMIN");
		print_diff(before.text, after.text);
	}
	printf("pdnl fuzz: %lu messages (%lu accepted, %lu refused, %lu dumps, %lu abandoned), %lu config checks, %lu findings\n",
	       cnt.messages, cnt.accepted, cnt.refused, cnt.dumps,
	       cnt.abandoned, cnt.checks, cnt.findings);
	return cnt.findings ? 1 : 0;
}
