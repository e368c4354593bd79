/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration of a pktdedup instance, as the module holds it and the
 * tool prints it, with the names used by /proc, dedupctl and module
 * parameters. Its enums are the uAPI's (module/uapi/pktdedup.h, generated
 * from the netlink spec): a freestanding header of constants, the one
 * place they are defined.
 */
#ifndef PD_CONFIG_H
#define PD_CONFIG_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"
#include "filter.h"

#define PD_NACTIONS (PKTDEDUP_ACTION_MAX + 1)
#define PD_NSCOPES (PKTDEDUP_SCOPE_MAX + 1)
#define PD_NHOOKS (PKTDEDUP_HOOK_MAX + 1)

/* Before defragmentation and connection tracking (raw-before-defrag). */
#define PD_DEFAULT_PRIORITY (-450)
#define PD_DEFAULT_MEM (256 * 1024)

/*
 * Which packets an instance looks at, checked before any hashing: the
 * devices (by name: the module binds each name to the device of that name
 * whenever there is one), the upper-layer protocols and a mark match. A
 * packet not selected is passed untouched and not counted.
 */
struct pd_select {
	u32 mark_value;		/* match-mark: (mark & mask) == value */
	u32 mark_mask;		/* 0: any mark */
	u8 ndev;		/* 0: any device */
	bool any_proto;		/* protos all zero */
	char dev[PKTDEDUP_DEVS_MAX][PKTDEDUP_IFNAME_MAX + 1];
	u8 protos[PKTDEDUP_PROTOS_LEN];	/* bit n: protocol n */
};

/* Whether bit proto of a protocol bitmap (pd_select.protos) is set. */
static inline bool pd_select_proto_bit(const u8 *protos, u8 proto)
{
	return (protos[proto >> 3] >> (proto & 7)) & 1;
}

/* Whether upper-layer protocol proto is selected. */
static inline bool pd_select_proto(const struct pd_select *s, u8 proto)
{
	return s->any_proto || pd_select_proto_bit(s->protos, proto);
}

/* Whether mark matches match-mark value/mask. */
static inline bool pd_mark_match(u32 mark, u32 value, u32 mask)
{
	return (mark & mask) == value;
}

/* Whether a packet with this mark is selected. */
static inline bool pd_select_mark(const struct pd_select *s, u32 mark)
{
	return pd_mark_match(mark, s->mark_value, s->mark_mask);
}

/* Set any_proto from the bitmap. */
void pd_select_update(struct pd_select *s);

/*
 * A placement: where an instance judges packets (enum pktdedup_hook). One
 * row of pd_placements[] holds all that depends on it; nothing else tests
 * a hook's number. pf and hooknum are netfilter's (PD_NF_HOOK() fills them
 * in the kernel, and leaves them 0 in userspace, which never reads them).
 */
struct pd_placement {
	const char *name;	/* /proc's, dedupctl's: the spec's enum entry */
	u8 pf;			/* NFPROTO_INET: IPv4 and IPv6 both */
	u8 hooknum;
	bool l2;		/* sees frames: VLAN tags, MPLS, non-IP */
	bool per_dev;		/* a hook per named device; names required */
	u8 xdp;			/* enum pd_xdp_mode: the XDP placements */
};

/*
 * The XDP placements: the module's XDP program on each named device, in
 * the driver (native) or at the top of the receive path (generic). No skb
 * there: no mark to set or match.
 */
enum pd_xdp_mode { PD_XDP_NONE, PD_XDP_NATIVE, PD_XDP_GENERIC };

extern const struct pd_placement pd_placements[PD_NHOOKS];

/* The name of placement hook, "?" for a number with none. */
const char *pd_placement_name(unsigned int hook);

/*
 * The states of a named device (enum pktdedup_dev_state), as /proc and
 * dedupctl print them.
 */
extern const char *const pd_dev_state_names[PKTDEDUP_DEV_STATE_MAX + 1];

/*
 * Why a named device is in state failed, in words: err is the positive
 * errno the module reports (the device nest's error), xdp the placement's
 * enum pd_xdp_mode (PD_XDP_NONE: a netfilter hook).
 */
const char *pd_dev_why(u32 err, u8 xdp);

struct pd_config {
	u8 key;			/* enum pktdedup_key */
	u8 key_flags;		/* PKTDEDUP_KEY_F_IGNORE_TOS, _TUNNEL_ID, _NONIP */
	u16 payload;		/* packet key: payload bytes */
	u8 decap;		/* PKTDEDUP_DECAP_*: tunnels looked into */
	u16 vxlan_port;		/* their UDP destination ports */
	u16 geneve_port;
	u16 gtpu_port;
	u8 action;		/* enum pktdedup_action */
	u8 scope;		/* enum pktdedup_scope */
	u32 shards;		/* scope shared: 0 (auto) or a power of two */
	u8 hook;		/* enum pktdedup_hook */
	s32 priority;
	u32 mark_value;
	u32 mark_mask;
	struct pd_filter_req filter;	/* family, memory, its settings */
	struct pd_select sel;		/* traffic selection */
	/*
	 * PKTDEDUP_SEED_MODE_FIXED: every filter is seeded from seed
	 * (pd_filter_seed(), as dedup-sim --seed), at every build and reset.
	 * Predictable to whoever knows it; reported only to CAP_NET_ADMIN.
	 */
	u8 seed_mode;			/* enum pktdedup_seed_mode */
	u64 seed;
	/*
	 * The filter's family follows the action (the filter nest's auto):
	 * pd_config_follow_action() gives it the family pd_auto_kind() names.
	 */
	bool filter_auto;
};

/*
 * The family of an automatic filter under action: the Stable Bloom Filter
 * to count or mark; to drop, a sliding window of
 * PKTDEDUP_AUTO_DROP_WINDOW_NS, which takes no packet older than that for
 * a copy (TCP retransmits 200 ms or more after the original) and drops at
 * most its target (0.1%) of new packets at its capacity.
 */
u8 pd_auto_kind(u8 action);

/*
 * If c's filter is automatic and of another family than its action's:
 * that family, with its defaults (the automatic window) and c's mem.
 * Returns whether the family changed.
 */
bool pd_config_follow_action(struct pd_config *c);

/*
 * Why c's action and key together drop whole flows (action drop with key
 * flow, src, dst or pair: every packet after the first of its flow or
 * host is a copy), as a message; NULL if they do not.
 */
const char *pd_config_coarse_drop(const struct pd_config *c);

/*
 * Why cfg's placement cannot do what cfg asks (a message), or NULL; *action
 * says whether the action (true) or match-mark (false) is the cause.
 */
const char *pd_placement_refusal(const struct pd_config *cfg, bool *action);

/*
 * Why c's nonip dedup (PKTDEDUP_KEY_F_NONIP) cannot be, as a message, or
 * NULL: at an inet hook, where no frame that is not IP arrives (*by_hook
 * true), or with a key other than packet, which has no addresses or ports
 * to take from such a frame (*by_hook false).
 */
const char *pd_config_nonip_refusal(const struct pd_config *c, bool *by_hook);

extern const char *const pd_action_names[PD_NACTIONS];
extern const char *const pd_scope_names[PD_NSCOPES];

/*
 * The documented defaults: packet key, count, per CPU, prerouting, an
 * automatic filter (with count, a Stable Bloom Filter) of 256 KiB per CPU
 * with the planner's choices, random seeds.
 */
void pd_config_defaults(struct pd_config *c);

/*
 * A probability written as a decimal fraction ("0.01", ".5", "1e-3") or a
 * percentage ("1%", "0.5%"), in parts per 10^9, rounded to nearest.
 * Returns 0, or -EINVAL if s is not such a number in (0, 1).
 */
int pd_parse_ppb(const char *s, u32 *ppb);
/* Index of name in names[0..n), or -1. */
int pd_name_index(const char *name, const char *const *names, unsigned int n);

#endif /* PD_CONFIG_H */
