// SPDX-License-Identifier: GPL-2.0
/* Configuration names, defaults and the ppb parser: see config.h. */
#include "config.h"
#include "decap.h"
#include "key.h"
#include "plan.h"
#include "settings.h"

const char *const pd_action_names[PD_NACTIONS] = {
	[PKTDEDUP_ACTION_COUNT] = "count",
	[PKTDEDUP_ACTION_MARK] = "mark",
	[PKTDEDUP_ACTION_DROP] = "drop",
};

const char *const pd_scope_names[PD_NSCOPES] = {
	[PKTDEDUP_SCOPE_PERCPU] = "percpu",
	[PKTDEDUP_SCOPE_SHARED] = "shared",
};

const struct pd_placement pd_placements[PD_NHOOKS] = {
	[PKTDEDUP_HOOK_PREROUTING] = {
		"prerouting", PD_NF_HOOK(NFPROTO_INET, NF_INET_PRE_ROUTING) },
	[PKTDEDUP_HOOK_INPUT] = {
		"input", PD_NF_HOOK(NFPROTO_INET, NF_INET_LOCAL_IN) },
	[PKTDEDUP_HOOK_FORWARD] = {
		"forward", PD_NF_HOOK(NFPROTO_INET, NF_INET_FORWARD) },
	[PKTDEDUP_HOOK_OUTPUT] = {
		"output", PD_NF_HOOK(NFPROTO_INET, NF_INET_LOCAL_OUT) },
	[PKTDEDUP_HOOK_POSTROUTING] = {
		"postrouting", PD_NF_HOOK(NFPROTO_INET, NF_INET_POST_ROUTING) },
	[PKTDEDUP_HOOK_INGRESS] = {
		"ingress", PD_NF_HOOK(NFPROTO_NETDEV, NF_NETDEV_INGRESS),
		.l2 = true, .per_dev = true },
	[PKTDEDUP_HOOK_BRIDGE_PREROUTING] = {
		"bridge-prerouting", PD_NF_HOOK(NFPROTO_BRIDGE, NF_BR_PRE_ROUTING),
		.l2 = true },
	[PKTDEDUP_HOOK_BRIDGE_FORWARD] = {
		"bridge-forward", PD_NF_HOOK(NFPROTO_BRIDGE, NF_BR_FORWARD),
		.l2 = true },
	[PKTDEDUP_HOOK_XDP] = {
		"xdp", .l2 = true, .per_dev = true, .xdp = PD_XDP_NATIVE },
	[PKTDEDUP_HOOK_XDP_GENERIC] = {
		"xdp-generic", .l2 = true, .per_dev = true,
		.xdp = PD_XDP_GENERIC },
};

const char *pd_placement_name(unsigned int hook)
{
	return hook < PD_NHOOKS && pd_placements[hook].name ?
	       pd_placements[hook].name : "?";
}

const char *const pd_dev_state_names[PKTDEDUP_DEV_STATE_MAX + 1] = {
	[PKTDEDUP_DEV_STATE_ACTIVE] = "active",
	[PKTDEDUP_DEV_STATE_ABSENT] = "absent",
	[PKTDEDUP_DEV_STATE_STACKED] = "stacked",
	[PKTDEDUP_DEV_STATE_FAILED] = "failed",
	[PKTDEDUP_DEV_STATE_WAITING] = "waiting",
	[PKTDEDUP_DEV_STATE_SAME] = "same",
};

/* Why a device failed, by the errno pd_dev_why() is given. */
static const char *const pd_dev_whys[] = {
	"its driver has no native XDP; hook xdp-generic works on any device",
	"the device takes no XDP program",
	"another XDP program is attached to it (ip link show says which); detach it first",
	"the device refused the program (an MTU too large for XDP, or the device is going away)",
	"its link layer is neither Ethernet nor none (bare IP): the XDP hooks cannot read its frames; hook ingress can",
	"out of memory",
	"the kernel refused the attachment",
	"the kernel refused the hook",
};

const char *pd_dev_why(u32 err, u8 xdp)
{
	switch (err) {
	case EOPNOTSUPP:
		return pd_dev_whys[xdp == PD_XDP_NATIVE ? 0 : 1];
	case EBUSY:
	case EEXIST:
		return pd_dev_whys[2];
	case ERANGE:
	case EINVAL:
		return pd_dev_whys[3];
	case EPFNOSUPPORT:
		return pd_dev_whys[4];
	case ENOMEM:
		return pd_dev_whys[5];
	default:
		return pd_dev_whys[xdp ? 6 : 7];
	}
}

static const char *const pd_xdp_refusals[] = {
	"action mark: an XDP hook has no skb, hence no mark to set; use action count or drop, or hook ingress",
	"match-mark: an XDP hook has no skb, hence no mark to match; drop match-mark, or use hook ingress",
};

const char *pd_placement_refusal(const struct pd_config *cfg, bool *action)
{
	if (!pd_placements[cfg->hook].xdp)
		return NULL;
	*action = cfg->action == PKTDEDUP_ACTION_MARK;
	if (*action)
		return pd_xdp_refusals[0];
	return cfg->sel.mark_mask ? pd_xdp_refusals[1] : NULL;
}

void pd_select_update(struct pd_select *s)
{
	unsigned int i;

	s->any_proto = true;
	for (i = 0; i < sizeof(s->protos); i++)
		if (s->protos[i])
			s->any_proto = false;
}

void pd_config_defaults(struct pd_config *c)
{
	memset(c, 0, sizeof(*c));
	c->key = PKTDEDUP_KEY_PACKET;
	c->payload = PD_KEY_DEFAULT_PAYLOAD;
	c->vxlan_port = PD_VXLAN_PORT;
	c->geneve_port = PD_GENEVE_PORT;
	c->gtpu_port = PD_GTPU_PORT;
	c->action = PKTDEDUP_ACTION_COUNT;
	c->scope = PKTDEDUP_SCOPE_PERCPU;
	c->hook = PKTDEDUP_HOOK_PREROUTING;
	c->priority = PD_DEFAULT_PRIORITY;
	c->mark_mask = 0xffffffff;
	c->sel.any_proto = true;
	c->filter_auto = true;
	pd_filter_req_defaults(&c->filter, pd_auto_kind(c->action),
			       PD_DEFAULT_MEM);
}

u8 pd_auto_kind(u8 action)
{
	return action == PKTDEDUP_ACTION_DROP ? PKTDEDUP_FILTER_KIND_SLIDING :
						PKTDEDUP_FILTER_KIND_SBF;
}

bool pd_config_follow_action(struct pd_config *c)
{
	u8 kind = pd_auto_kind(c->action);
	const struct pd_setting *w;

	if (!c->filter_auto || c->filter.kind == kind)
		return false;
	pd_filter_req_defaults(&c->filter, kind, c->filter.mem_bytes);
	/* a window family's window, through its row: no family named here */
	w = pd_filter_setting(pd_filter_family(kind),
			      PKTDEDUP_A_SETTINGS_WINDOW_NS);
	if (w)
		pd_setting_set(&c->filter, w, PKTDEDUP_AUTO_DROP_WINDOW_NS);
	return true;
}

/* Why drop with each key of flows or hosts drops whole flows. */
static const char *const pd_coarse_drop_why[PKTDEDUP_KEY_MAX + 1] = {
	[PKTDEDUP_KEY_FLOW] =
		"action drop with key flow drops every packet of a flow after its first (each is a duplicate of the flow): use key packet to drop copies of packets, or add force if whole flows are to be dropped",
	[PKTDEDUP_KEY_SRC] =
		"action drop with key src drops every packet from a source after its first: use key packet to drop copies of packets, or add force if that is meant",
	[PKTDEDUP_KEY_DST] =
		"action drop with key dst drops every packet to a destination after its first: use key packet to drop copies of packets, or add force if that is meant",
	[PKTDEDUP_KEY_PAIR] =
		"action drop with key pair drops every packet between two hosts after their first: use key packet to drop copies of packets, or add force if that is meant",
};

const char *pd_config_coarse_drop(const struct pd_config *c)
{
	if (c->action != PKTDEDUP_ACTION_DROP || c->key > PKTDEDUP_KEY_MAX)
		return NULL;
	return pd_coarse_drop_why[c->key];
}

static const char *const pd_nonip_why[] = {
	"nonip dedup: frames that are not IP reach only the L2 placements (hook ingress, bridge-prerouting, bridge-forward, xdp, xdp-generic); at an inet hook every packet is IPv4 or IPv6: use nonip pass, or one of those hooks",
	"nonip dedup needs key packet: a frame that is not IP has no addresses or ports to key it by; use key packet, or nonip pass",
};

const char *pd_config_nonip_refusal(const struct pd_config *c, bool *by_hook)
{
	if (!(c->key_flags & PKTDEDUP_KEY_F_NONIP))
		return NULL;
	*by_hook = c->hook >= PD_NHOOKS || !pd_placements[c->hook].l2;
	if (*by_hook)
		return pd_nonip_why[0];
	return c->key != PKTDEDUP_KEY_PACKET ? pd_nonip_why[1] : NULL;
}

int pd_name_index(const char *name, const char *const *names, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(name, names[i]))
			return (int)i;
	return -1;
}

static bool pd_digit(char c)
{
	return c >= '0' && c <= '9';
}

int pd_parse_ppb(const char *s, u32 *ppb)
{
	const u64 room = 100000000000000000ULL;	/* keep 17-18 digits */
	u64 mant = 0, num, den = 1;
	int scale = 0, exp = 0, i;	/* value = mant * 10^scale */
	bool any = false, neg = false;

	for (; pd_digit(*s); s++, any = true) {
		if (mant < room)
			mant = mant * 10 + (u64)(*s - '0');
		else
			scale++;
	}
	if (*s == '.')
		for (s++; pd_digit(*s); s++, any = true)
			if (mant < room) {
				mant = mant * 10 + (u64)(*s - '0');
				scale--;
			}
	if (!any)
		return -EINVAL;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '-' || *s == '+')
			neg = *s++ == '-';
		if (!pd_digit(*s))
			return -EINVAL;
		for (; pd_digit(*s); s++)
			if (exp < 1000)
				exp = exp * 10 + (*s - '0');
		scale += neg ? -exp : exp;
	}
	if (*s == '%') {
		scale -= 2;
		s++;
	}
	if (*s || !mant)
		return -EINVAL;
	/* ppb = mant * 10^(scale + 9), rounded half up; in (0, 10^9) */
	scale += 9;
	if (scale >= 0) {
		for (num = mant, i = 0; i < scale; i++) {
			if (num >= 1000000000ULL)
				return -EINVAL;
			num *= 10;
		}
	} else {
		if (scale < -19)
			return -EINVAL;	/* below 1 ppb */
		for (i = 0; i < -scale; i++)
			den *= 10;
		num = mant / den + (2 * (mant % den) >= den);
	}
	if (!num || num >= 1000000000ULL)
		return -EINVAL;
	*ppb = (u32)num;
	return 0;
}
