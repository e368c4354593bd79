// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: the statistics (GET_STATS and its per-CPU dump, read through
 * stats.c) and QUERY, on the request/reply path of nl_family.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpumask.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "nl_gen.h"
#include "pktdedup.h"

/* ---- statistics ---- */

/* A window family's state: of one CPU, or of all (cpu < 0). */
static int pd_window_stats_put(struct sk_buff *msg, struct pd_filter_set *fs,
			       int cpu)
{
	struct pd_filter_win w;

	if (!pd_fset_window_of(fs, cpu, &w))
		return 0;
	if (pd_nl_put_u64(msg, w.timed ? PKTDEDUP_A_STATS_WINDOW_NS :
			  PKTDEDUP_A_STATS_WINDOW_PACKETS, w.window,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_ENTRIES, w.entries,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_EFFECTIVE, w.effective,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_WINDOW_SHORTEST, w.shortest,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_EARLY_EXPIRIES, w.early,
			  PKTDEDUP_A_STATS_PAD))
		return -EMSGSIZE;
	return 0;
}

/* The encapsulations the filters look into: their frames and errors. */
static int pd_decap_stats_put(struct sk_buff *msg,
			      const struct pd_filter_set *fs,
			      const struct pd_counts *c)
{
	struct nlattr *nest;
	unsigned int i;

	for (i = 0; i < PD_NENCAPS; i++) {
		if (!(fs->kopts.decap & BIT(i)))
			continue;
		nest = nla_nest_start(msg, PKTDEDUP_A_STATS_DECAP);
		if (!nest ||
		    nla_put_u32(msg, PKTDEDUP_A_DECAP_STATS_ENCAP, BIT(i)) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DECAP_STATS_FRAMES,
				  c->decap[i], PKTDEDUP_A_DECAP_STATS_PAD) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DECAP_STATS_ERRORS,
				  c->decap_err[i], PKTDEDUP_A_DECAP_STATS_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/*
 * The counters of each named device, in the configuration's order: the
 * totals' alone. Nothing a reader of the totals and of the configuration
 * (GET_CONFIG names the devices to anyone) could not be told: packets on
 * each named device are in /proc/net/dev already.
 */
static int pd_dev_stats_put(struct sk_buff *msg, struct pd_stats_view *v)
{
	struct pd_dev_counts c[PKTDEDUP_DEVS_MAX];
	const struct pd_filter_set *fs = v->fs;
	struct nlattr *nest;
	unsigned int i;

	if (!fs || !fs->cfg.sel.ndev)
		return 0;
	rcu_read_lock();
	pd_dev_counts_read(rcu_dereference(v->pn->ctr), fs, c);
	rcu_read_unlock();
	for (i = 0; i < fs->cfg.sel.ndev; i++) {
		nest = nla_nest_start(msg, PKTDEDUP_A_STATS_DEVICE);
		if (!nest ||
		    nla_put_string(msg, PKTDEDUP_A_DEVICE_STATS_NAME,
				   fs->cfg.sel.dev[i]) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DEVICE_STATS_PACKETS,
				  c[i].packets, PKTDEDUP_A_DEVICE_STATS_PAD) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DEVICE_STATS_DUPLICATES,
				  c[i].duplicates,
				  PKTDEDUP_A_DEVICE_STATS_PAD) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DEVICE_STATS_MARKED,
				  c[i].marked, PKTDEDUP_A_DEVICE_STATS_PAD) ||
		    pd_nl_put_u64(msg, PKTDEDUP_A_DEVICE_STATS_DROPPED,
				  c[i].dropped, PKTDEDUP_A_DEVICE_STATS_PAD))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/* The totals' packet rate and memory, each when known. */
static int pd_memory_stats_put(struct sk_buff *msg,
			       const struct pd_stats_mem *mem)
{
	if ((mem->rate_known &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_STATS_RATE, mem->pps,
			   PKTDEDUP_A_STATS_PAD)) ||
	    (mem->m.packets &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_STATS_MEMORY_PACKETS,
			   mem->m.packets, PKTDEDUP_A_STATS_PAD)) ||
	    (mem->m.ns &&
	     pd_nl_put_u64(msg, PKTDEDUP_A_STATS_MEMORY_NS, mem->m.ns,
			   PKTDEDUP_A_STATS_PAD)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Counters of one CPU, or the totals (cpu < 0), and the occupancy of the
 * filters in their family's terms (one CPU's message also gives the loads
 * of a bit-array filter): a read of stats.c's. The totals give the rate
 * and memory of mem as well.
 */
static int pd_fill_stats_of(struct sk_buff *msg, struct pd_stats_view *v,
			    int cpu, const struct pd_stats_mem *mem)
{
	const struct pd_filter_occ *occ = NULL;
	struct pd_filter_set *fs = v->fs;
	struct pd_filter_occ buf;
	struct pd_counts c = {};
	struct pd_stats_row r;
	struct nlattr *nest;
	u64 ppb = 0;
	int i, n = 0;
	u32 a;

	for_each_possible_cpu(i) {
		if (cpu >= 0 && i != cpu)
			continue;
		pd_stats_cpu(v, i, &r, &buf);
		pd_counts_add(&c, &r.c);
		if (r.occ && (!fs->shards.n || !n)) {
			occ = r.occ;
			ppb += r.ppb;
			n++;
		}
	}
	nest = nla_nest_start(msg, PKTDEDUP_A_STATS);
	if (!nest ||
	    (cpu >= 0 && nla_put_u32(msg, PKTDEDUP_A_STATS_CPU, cpu)) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_PACKETS, c.packets,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_DUPLICATES, c.duplicates,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_MARKED, c.marked,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_DROPPED, c.dropped,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_UNPARSED, c.unparsed,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_NONIP, c.nonip,
			  PKTDEDUP_A_STATS_PAD) ||
	    pd_nl_put_u64(msg, PKTDEDUP_A_STATS_UNJUDGED, c.unjudged,
			  PKTDEDUP_A_STATS_PAD) ||
	    (n && nla_put_u32(msg, v->counting ? PKTDEDUP_A_STATS_ZERO_CELLS :
			      PKTDEDUP_A_STATS_SET_BITS,
			      (u32)div_u64(ppb, n))))
		return -EMSGSIZE;
	if (fs && pd_window_stats_put(msg, fs, cpu))
		return -EMSGSIZE;
	if (fs && pd_decap_stats_put(msg, fs, &c))
		return -EMSGSIZE;
	if (cpu < 0 && pd_dev_stats_put(msg, v))
		return -EMSGSIZE;
	if (mem && pd_memory_stats_put(msg, mem))
		return -EMSGSIZE;
	/* one filter's loads: a CPU's, or the shared one */
	if (occ && !v->counting && (cpu >= 0 || fs->shards.n))
		for (a = 0; a < occ->arrays; a++)
			if (pd_nl_put_u64(msg, PKTDEDUP_A_STATS_LOAD,
					  occ->load[a], PKTDEDUP_A_STATS_PAD))
				return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static int pd_fill_stats(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct pd_stats_mem mem;
	struct pd_stats_view v;
	int err;

	pd_stats_begin(req->pn, &v);
	pd_stats_memory(&v, &mem);
	err = pd_fill_stats_of(msg, &v, -1, &mem);
	pd_stats_end(&v);
	return err;
}

static const struct pd_nl_cmd pd_cmd_get_stats = {
	.reply_cmd = PKTDEDUP_CMD_GET_STATS,
	.unlocked = true,
	.fill = pd_fill_stats,
};

int pd_nl_get_stats_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_get_stats, skb, info);
}

/*
 * One message per possible CPU; cb->args[0] is the next CPU to send. Each
 * part of the dump is a read of its own (stats.c): a shared filter is read
 * once per part, a CPU's filter once per message.
 */
int pd_nl_get_stats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct pd_net *pn = pd_pernet(sock_net(skb->sk));
	struct pd_stats_view v;
	int cpu, err = 0;

	pd_stats_begin(pn, &v);
	for_each_possible_cpu(cpu) {
		void *hdr;

		if (cpu < cb->args[0])
			continue;
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &pd_genl_family,
				  NLM_F_MULTI, PKTDEDUP_CMD_GET_STATS);
		if (!hdr) {
			err = -EMSGSIZE;
			break;
		}
		err = pd_fill_stats_of(skb, &v, cpu, NULL);
		if (err) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
		cb->args[0] = cpu + 1;
	}
	pd_stats_end(&v);
	/* a full message ends this part of the dump; the next goes on */
	if (err == -EMSGSIZE && skb->len)
		return skb->len;
	return err ? err : skb->len;
}

/* ---- query ---- */

/* An address of a query: 4 or 16 bytes, the length of *alen if set. */
static const u8 *pd_query_addr(struct pd_nl_req *req, struct nlattr *a,
			       u8 *alen)
{
	u8 len = nla_len(a);

	if (len != 4 && len != 16) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "an address is 4 (IPv4) or 16 (IPv6) bytes");
		return NULL;
	}
	if (*alen && *alen != len) {
		NL_SET_ERR_MSG_ATTR(req->extack, a,
				    "src and dst are not of one family");
		return NULL;
	}
	*alen = len;
	return nla_data(a);
}

/* The key a QUERY request describes, for the configured key mode. */
static int pd_query_key(struct pd_nl_req *req, const struct pd_filter_set *fs,
			struct pd_key *key)
{
	struct nlattr *tb[PKTDEDUP_A_QUERY_MAX + 1], *q;
	u8 mode = fs->cfg.key, alen = 0;
	const u8 *src = NULL, *dst = NULL;
	u16 sport = 0, dport = 0;
	int err;

	err = pd_nl_nest(req, PKTDEDUP_A_QUERY, pd_query_nl_policy,
			 PKTDEDUP_A_QUERY_MAX, tb);
	if (err)
		return err;
	q = req->info->attrs[PKTDEDUP_A_QUERY];
	if (!q) {
		NL_SET_ERR_MSG(req->extack, "query: no key given");
		return -EINVAL;
	}
	if (mode == PKTDEDUP_KEY_PACKET) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb,
				      PKTDEDUP_A_QUERY_PACKET))
			return -EINVAL;
		if (pd_key_extract(nla_data(tb[PKTDEDUP_A_QUERY_PACKET]),
				   nla_len(tb[PKTDEDUP_A_QUERY_PACKET]),
				   &fs->kopts, key) != PD_PARSE_OK) {
			NL_SET_ERR_MSG_ATTR(req->extack,
					    tb[PKTDEDUP_A_QUERY_PACKET],
					    "query packet: cannot be parsed as an IPv4 or IPv6 packet");
			return -EINVAL;
		}
		return 0;
	}
	if (tb[PKTDEDUP_A_QUERY_PACKET]) {
		NL_SET_ERR_MSG_ATTR(req->extack, tb[PKTDEDUP_A_QUERY_PACKET],
				    "query packet: the filters are not keyed by packet");
		return -EINVAL;
	}
	if (mode != PKTDEDUP_KEY_DST) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb, PKTDEDUP_A_QUERY_SRC))
			return -EINVAL;
		src = pd_query_addr(req, tb[PKTDEDUP_A_QUERY_SRC], &alen);
		if (!src)
			return -EINVAL;
	}
	if (mode != PKTDEDUP_KEY_SRC) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb, PKTDEDUP_A_QUERY_DST))
			return -EINVAL;
		dst = pd_query_addr(req, tb[PKTDEDUP_A_QUERY_DST], &alen);
		if (!dst)
			return -EINVAL;
	}
	if (mode == PKTDEDUP_KEY_FLOW) {
		if (NL_REQ_ATTR_CHECK(req->extack, q, tb,
				      PKTDEDUP_A_QUERY_PROTO))
			return -EINVAL;
		if (tb[PKTDEDUP_A_QUERY_SPORT])
			sport = nla_get_u16(tb[PKTDEDUP_A_QUERY_SPORT]);
		if (tb[PKTDEDUP_A_QUERY_DPORT])
			dport = nla_get_u16(tb[PKTDEDUP_A_QUERY_DPORT]);
	}
	return pd_key_build(key, mode,
			    alen == 4 ? PD_FAMILY_IPV4 : PD_FAMILY_IPV6, src, dst,
			    tb[PKTDEDUP_A_QUERY_PROTO] ?
			    nla_get_u8(tb[PKTDEDUP_A_QUERY_PROTO]) : 0,
			    sport, dport) ? -EINVAL : 0;
}

static int pd_prepare_query(struct pd_nl_req *req)
{
	struct pd_net *pn = req->pn;
	struct pd_filter_set *fs;
	struct pd_key key;
	int err;

	fs = rcu_dereference_protected(pn->filters, lockdep_is_held(&pn->lock));
	if (!fs) {
		NL_SET_ERR_MSG(req->extack,
			       "no filters: the instance is idle in this namespace (dedupctl enable starts it)");
		return -ENODATA;
	}
	err = pd_query_key(req, fs, &key);
	if (err)
		return err;
	/* the packets received before the query, all in the filters */
	pd_defer_settle(pn, fs);
	req->n = pd_fset_query(fs, &key);
	return err;
}

static int pd_fill_query(struct sk_buff *msg, struct pd_nl_req *req)
{
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_PRESENCE);

	if (!nest ||
	    nla_put_u8(msg, PKTDEDUP_A_PRESENCE_PRESENT, req->n > 0) ||
	    nla_put_u32(msg, PKTDEDUP_A_PRESENCE_FILTERS, req->n))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

static const struct pd_nl_cmd pd_cmd_query = {
	.reply_cmd = PKTDEDUP_CMD_QUERY,
	.prepare = pd_prepare_query,
	.fill = pd_fill_query,
};

int pd_nl_query_doit(struct sk_buff *skb, struct genl_info *info)
{
	return pd_nl_do(&pd_cmd_query, skb, info);
}

