// SPDX-License-Identifier: GPL-2.0
/*
 * pktdedup: traffic selection (which packets an instance looks at) as a
 * SET_CONFIG request carries it and GET_CONFIG reports it: the devices it
 * names (which placement.c binds and follows by name, those not there yet
 * included), the protocols and the mark match.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/netdevice.h>
#include <net/net_namespace.h>

#include "nl_gen.h"
#include "pktdedup.h"

/*
 * The selection attributes of a SET_CONFIG's config nest (tb) into sel:
 * each present attribute replaces its part. Device names need not be
 * there yet (placement.c binds a name when its device appears), but each
 * is named once and is a valid name; names of one device (an altname) are
 * refused when the hooks bind them. 0, or an error with extack set and
 * sel half-written (the caller's copy is thrown away).
 */
int pd_nl_select_read(struct nlattr **tb, struct pd_select *sel,
		      struct netlink_ext_ack *extack)
{
	struct nlattr *a = tb[PKTDEDUP_A_CONFIG_DEVS], *d;
	int rem, n = 0, i;

	if (tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE])
		sel->mark_value =
			nla_get_u32(tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE]);
	if (tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK])
		sel->mark_mask =
			nla_get_u32(tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK]);
	if (sel->mark_value & ~sel->mark_mask) {
		NL_SET_ERR_MSG_ATTR(extack,
				    tb[PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE] ?:
				    tb[PKTDEDUP_A_CONFIG_MATCH_MARK_MASK],
				    "match-mark: the value has bits outside the mask (the mask must cover the value)");
		return -EINVAL;
	}
	if (tb[PKTDEDUP_A_CONFIG_PROTOS]) {
		memcpy(sel->protos, nla_data(tb[PKTDEDUP_A_CONFIG_PROTOS]),
		       sizeof(sel->protos));
		pd_select_update(sel);
	}
	if (!a)
		return 0;
	/* validated by the policy: names of at most IFNAMSIZ - 1 bytes */
	nla_for_each_nested(d, a, rem) {
		if (nla_type(d) == PKTDEDUP_A_DEVS_DEVICE) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "devs: device is reported, not set (name the devices)");
			return -EINVAL;
		}
		if (nla_type(d) != PKTDEDUP_A_DEVS_NAME)
			continue;
		if (n == PKTDEDUP_DEVS_MAX) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: at most 8 devices");
			return -E2BIG;
		}
		memset(sel->dev[n], 0, sizeof(sel->dev[n]));
		nla_strscpy(sel->dev[n], d, sizeof(sel->dev[n]));
		if (!dev_valid_name(sel->dev[n])) {
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: not a device name (1 to 15 bytes, no '/', ':' or white space, not . or ..)");
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (strcmp(sel->dev[i], sel->dev[n]))
				continue;
			NL_SET_ERR_MSG_ATTR(extack, d,
					    "dev: a device named twice (it would be hooked, and its packets judged, twice)");
			return -EINVAL;
		}
		n++;
	}
	sel->ndev = n;
	return 0;
}

/* The name attribute of named device i in a config nest (tb), or NULL. */
struct nlattr *pd_nl_select_dev(struct nlattr **tb, unsigned int i)
{
	struct nlattr *d;
	int rem;

	if (!tb[PKTDEDUP_A_CONFIG_DEVS])
		return NULL;
	nla_for_each_nested(d, tb[PKTDEDUP_A_CONFIG_DEVS], rem)
		if (nla_type(d) == PKTDEDUP_A_DEVS_NAME && !i--)
			return d;
	return NULL;
}

/* Whether a and b name the same devices, in the same order. */
bool pd_select_same_devs(const struct pd_select *a, const struct pd_select *b)
{
	unsigned int i;

	if (a->ndev != b->ndev)
		return false;
	for (i = 0; i < a->ndev; i++)
		if (strcmp(a->dev[i], b->dev[i]))
			return false;
	return true;
}

/* Named device i as it is bound now, into a devs nest. */
static int pd_nl_device_put(struct sk_buff *msg, const struct pd_hooks *h,
			    unsigned int i)
{
	const struct pd_dev_bind *b = &h->dev[i];
	struct nlattr *nest = nla_nest_start(msg, PKTDEDUP_A_DEVS_DEVICE);

	if (!nest || nla_put_string(msg, PKTDEDUP_A_DEVICE_NAME, b->name) ||
	    nla_put_u8(msg, PKTDEDUP_A_DEVICE_STATE, b->state) ||
	    (b->dev && nla_put_u32(msg, PKTDEDUP_A_DEVICE_IFINDEX,
				   b->dev->ifindex)) ||
	    ((b->state == PKTDEDUP_DEV_STATE_STACKED ||
	      b->state == PKTDEDUP_DEV_STATE_SAME) &&
	     nla_put_string(msg, PKTDEDUP_A_DEVICE_LOWER,
			    h->dev[b->lower].name)) ||
	    (b->state == PKTDEDUP_DEV_STATE_FAILED && b->err &&
	     nla_put_u32(msg, PKTDEDUP_A_DEVICE_ERROR, b->err)))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * The selection into a GET_CONFIG's config nest; with each named device's
 * binding while the instance has hooks (pn->lock held).
 */
int pd_nl_select_put(struct sk_buff *msg, struct pd_net *pn,
		     const struct pd_select *sel)
{
	struct pd_hooks *h = pn->hooks;
	struct nlattr *devs;
	unsigned int i;
	int err = 0;

	lockdep_assert_held(&pn->lock);
	if (nla_put_u32(msg, PKTDEDUP_A_CONFIG_MATCH_MARK_VALUE,
			sel->mark_value) ||
	    nla_put_u32(msg, PKTDEDUP_A_CONFIG_MATCH_MARK_MASK,
			sel->mark_mask) ||
	    nla_put(msg, PKTDEDUP_A_CONFIG_PROTOS, sizeof(sel->protos),
		    sel->protos))
		return -EMSGSIZE;
	devs = nla_nest_start(msg, PKTDEDUP_A_CONFIG_DEVS);
	if (!devs)
		return -EMSGSIZE;
	for (i = 0; i < sel->ndev; i++)
		if (nla_put_string(msg, PKTDEDUP_A_DEVS_NAME, sel->dev[i]))
			return -EMSGSIZE;
	if (h) {
		mutex_lock(&pn->dev_lock);
		for (i = 0; i < h->ndev && !err; i++)
			err = pd_nl_device_put(msg, h, i);
		mutex_unlock(&pn->dev_lock);
	}
	nla_nest_end(msg, devs);
	return err;
}
