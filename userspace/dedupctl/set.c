// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: set, enable, disable and plan (locally).
 *
 * Settings of the filter belong to its family: a request carries them in
 * the nest of the family in force (the one the same command sets, or the
 * kernel's), named after the family as the spec's filter set names them.
 * A setting that family does not take goes in the nest of the first family
 * that does, so that the kernel, which decides, refuses it by name.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/config.h"
#include "../../module/core/filter.h"
#include "../../module/core/timewin.h"
#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"
#include "encap.h"
#include "units.h"
/*
 * The attribute of the spec's settings set a family must take for filter
 * setting k, as dedupctl spells it (the core's words: settings.h; its
 * rows say which a family takes); 0: not a setting. The window is a time
 * or a packet count (window-ns or window-packets), and importance mark
 * brings its mask: fsetting_read() says which were given.
 */
static uint16_t fsetting_attr(const char *k)
{
	uint16_t attr;

	for (attr = 1; attr <= PKTDEDUP_A_SETTINGS_MAX; attr++)
		if (pd_setting_word(attr) && !strcmp(pd_setting_word(attr), k))
			return attr;
	return 0;
}

/*
 * The arguments a setting takes: importance mark takes a mask too; force
 * is a word alone.
 */
static int setting_args(int argc, char **argv, int i)
{
	if (!strcmp(argv[i], "force"))
		return 1;
	if (i + 1 >= argc)
		usage_error("'%s' needs a value", argv[i]);
	if (!strcmp(argv[i], "importance") && !strcmp(argv[i + 1], "mark")) {
		if (i + 2 >= argc)
			usage_error("importance mark: needs a MASK (e.g. 0xff)");
		return 3;
	}
	return 2;
}

/* Whether argv has setting name. */
static bool has_setting(int argc, char **argv, const char *name)
{
	int i;

	for (i = 0; i < argc; i += setting_args(argc, argv, i))
		if (!strcmp(argv[i], name))
			return true;
	return false;
}

/* The value of setting name in argv, or NULL. */
static const char *setting_value(int argc, char **argv, const char *name)
{
	const char *v = NULL;
	int i;

	for (i = 0; i < argc; i += setting_args(argc, argv, i))
		if (!strcmp(argv[i], name))
			v = argv[i + 1];
	return v;
}

/* Whether the last "filter" of a command is "filter auto". */
static bool has_filter_auto(int argc, char **argv)
{
	const char *v = setting_value(argc, argv, "filter");

	return v && !strcmp(v, "auto");
}

/*
 * The filter family a command names with "filter F", or NULL (none, or
 * "filter auto": the action's family).
 */
static const struct pd_filter_ops *named_family(int argc, char **argv)
{
	const struct pd_filter_ops *ops = NULL;
	int i;

	for (i = 0; i < argc; i += setting_args(argc, argv, i)) {
		if (strcmp(argv[i], "filter"))
			continue;
		if (!strcmp(argv[i + 1], "auto")) {
			ops = NULL;
			continue;
		}
		ops = pd_filter_family_by_name(argv[i + 1]);
		if (!ops) {
			char names[PD_FILTER_NAMES_LEN];

			pd_filter_family_names(names, sizeof(names), ", ");
			usage_error("filter: '%s' is not one of auto, %s",
				    argv[i + 1], names);
		}
	}
	return ops;
}

/*
 * Filter settings as the wire carries them (the spec's settings set),
 * whichever family they go to, and which were given (PD_SETTING_BIT()s).
 */
struct fvals {
	uint64_t wire[PKTDEDUP_A_SETTINGS_MAX + 1];
	uint64_t given;
	uint64_t last;		/* what the latest fsetting_read() gave */
};

static void fval(struct fvals *fv, uint16_t attr, uint64_t wire)
{
	fv->wire[attr] = wire;
	fv->given |= PD_SETTING_BIT(attr);
	fv->last |= PD_SETTING_BIT(attr);
}

/* A percentage, "50" or "50%"; exits 2 if bad. */
static uint64_t pct_arg(const char *k, const char *v)
{
	char pct_buf[8];
	size_t l = strlen(v);

	if (l && l < sizeof(pct_buf) && v[l - 1] == '%') {
		memcpy(pct_buf, v, l - 1);
		pct_buf[l - 1] = '\0';
		return num_arg(k, pct_buf, 0, 100);
	}
	return num_arg(k, v, 0, 100);
}

/*
 * A filter setting into fv (the values, validated; exits 2 if bad); what
 * it gave (PD_SETTING_BIT()s).
 */
static uint64_t fsetting_read(const char *k, char **v, struct fvals *fv)
{
	uint64_t x, y;

	fv->last = 0;
	if (!strcmp(k, "fps")) {
		fval(fv, PKTDEDUP_A_SETTINGS_FPS, ppb_arg(k, v[0]));
	} else if (!strcmp(k, "max")) {
		x = auto_arg(k, v[0], PD_FILTER_AUTO, 1, 255);
		if (x != PD_FILTER_AUTO && !pd_sbf_bits_for_max((unsigned int)x))
			usage_error("max: '%s' is not 2^j - 1 (1, 3, 7, 15, ... 255) or auto",
				    v[0]);
		fval(fv, PKTDEDUP_A_SETTINGS_CELL_BITS, pd_setting_cell_bits(x));
	} else if (!strcmp(k, "k")) {
		x = auto_arg(k, v[0], PD_FILTER_AUTO, 1, PKTDEDUP_K_MAX);
		fval(fv, PKTDEDUP_A_SETTINGS_K, x == PD_FILTER_AUTO ? 0 : x);
	} else if (!strcmp(k, "p")) {
		x = auto_arg(k, v[0], PD_FILTER_AUTO, 0, 0xfffffffeu);
		fval(fv, PKTDEDUP_A_SETTINGS_P,
		     x == PD_FILTER_AUTO ? PKTDEDUP_P_AUTO : x);
	} else if (!strcmp(k, "gap")) {
		/* a u64: through auto_arg(), 2^32 came out as 0, auto */
		fval(fv, PKTDEDUP_A_SETTINGS_GAP, strcmp(v[0], "auto") ?
		     num_arg(k, v[0], 1, 1ULL << 32) : 0);
	} else if (!strcmp(k, "p-star")) {
		fval(fv, PKTDEDUP_A_SETTINGS_P_STAR, ppb_arg(k, v[0]));
	} else if (!strcmp(k, "window")) {
		if (!parse_window(v[0], &x, &y) || (!x && !y) ||
		    (x && (x < PD_TW_MIN_NS || x > PD_TW_MAX_NS)) ||
		    y > PD_TW_MAX_PACKETS)
			usage_error("window: '%s' is not a time from 1us to 1h (e.g. 2ms, 500us, 10s) or a packet count up to 2^31 (e.g. 100000p)",
				    v[0]);
		/* one of the two, the last given */
		fv->given &= ~(PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_WINDOW_NS) |
			       PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_WINDOW_PACKETS));
		if (x)
			fval(fv, PKTDEDUP_A_SETTINGS_WINDOW_NS, x);
		else
			fval(fv, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS, y);
	} else if (!strcmp(k, "rate")) {
		/* auto: 0, the capacity from mem (as show -j says it) */
		if (!strcmp(v[0], "auto"))
			x = 0;
		else if (!parse_rate(v[0], &x) || x > UINT32_MAX)
			usage_error("rate: '%s' is not packets per second up to 4G (e.g. 2M, 500k, 0 or auto to size by mem)",
				    v[0]);
		fval(fv, PKTDEDUP_A_SETTINGS_RATE, x);
	} else if (!strcmp(k, "subwindows")) {
		fval(fv, PKTDEDUP_A_SETTINGS_SUBWINDOWS,
		     num_arg(k, v[0], 2, PD_TW_MAX_SUBWIN));
	} else if (!strcmp(k, "warn-below")) {
		fval(fv, PKTDEDUP_A_SETTINGS_WARN_BELOW, pct_arg(k, v[0]));
	} else if (!strcmp(k, "layout")) {
		int l = pd_name_index(v[0], pd_sbf_layout_names,
				      PKTDEDUP_LAYOUT_MAX + 1);

		if (l < 0)
			usage_error("layout: '%s' is not flat, blocked, line or auto",
				    v[0]);
		fval(fv, PKTDEDUP_A_SETTINGS_LAYOUT, (uint64_t)l);
	} else if (!strcmp(k, "importance")) {
		if (!strcmp(v[0], "dscp")) {
			fval(fv, PKTDEDUP_A_SETTINGS_IMPORTANCE,
			     PKTDEDUP_IMPORTANCE_DSCP);
			/* a mask is the mark source's */
			fv->given &= ~PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK);
		} else if (!strcmp(v[0], "mark")) {
			fval(fv, PKTDEDUP_A_SETTINGS_IMPORTANCE,
			     PKTDEDUP_IMPORTANCE_MARK);
			fval(fv, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK,
			     num_arg("importance mask", v[1], 1, 0xffffffffu));
		} else {
			usage_error("importance: '%s' is not dscp or mark MASK",
				    v[0]);
		}
	}
	return fv->last;
}

/* An unsigned integer attribute of the spec's type t (NLS_U8 ... U64). */
static void put_uint(struct nlmsghdr *nlh, uint16_t type, uint8_t t,
		     uint64_t v)
{
	switch (t) {
	case NLS_U8:
		mnl_attr_put_u8(nlh, type, (uint8_t)v);
		break;
	case NLS_U16:
		mnl_attr_put_u16(nlh, type, (uint16_t)v);
		break;
	case NLS_U32:
		mnl_attr_put_u32(nlh, type, (uint32_t)v);
		break;
	default:
		mnl_attr_put_u64(nlh, type, v);
		break;
	}
}

/* Put the settings of fv in mask (PD_SETTING_BIT()s), in ops's rows' order. */
static void fsettings_put(struct nlmsghdr *nlh, const struct pd_filter_ops *ops,
			  const struct fvals *fv, uint64_t mask)
{
	const struct pd_setting *s;

	for (s = ops->settings; s->attr; s++)
		if (fv->given & mask & PD_SETTING_BIT(s->attr))
			put_uint(nlh, s->attr, nls_settings.attrs[s->attr].type,
				 fv->wire[s->attr]);
}

/* A fixed seed: a u64, decimal or 0x hex; exits 2 if bad. */
static uint64_t seed_arg(const char *v)
{
	uint64_t x;

	if (!parse_u64(v, 0, UINT64_MAX, &x))
		usage_error("seed: '%s' is not random or a number from 0 to 2^64 - 1 (decimal or 0x hex)",
			    v);
	return x;
}

/* A configuration setting, into the config nest; exits 2 if bad. */
static void put_setting(struct nlmsghdr *nlh, const char *k, const char *v)
{
	if (!strcmp(k, "key")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_KEY,
				(uint8_t)name_arg(k, v, pd_key_mode_names,
						  PD_KEY_NMODES));
	} else if (!strcmp(k, "payload")) {
		mnl_attr_put_u16(nlh, PKTDEDUP_A_CONFIG_PAYLOAD,
				 !strcmp(v, "all") ? PKTDEDUP_PAYLOAD_ALL :
				 (uint16_t)num_arg(k, v, 0, PKTDEDUP_PAYLOAD_ALL));
	} else if (!strcmp(k, "action")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_ACTION,
				(uint8_t)name_arg(k, v, pd_action_names,
						  PD_NACTIONS));
	} else if (!strcmp(k, "mark")) {
		uint32_t value, mask;

		mark_arg(v, &value, &mask);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_VALUE, value);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_MARK_MASK, mask);
	} else if (!strcmp(k, "scope")) {
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SCOPE,
				(uint8_t)name_arg(k, v, pd_scope_names,
						  PD_NSCOPES));
	} else if (!strcmp(k, "shards")) {
		uint64_t n = strcmp(v, "auto") ?
			     num_arg(k, v, 1, PKTDEDUP_SHARDS_MAX) : 0;

		if (n & (n - 1))
			usage_error("shards: '%s' is not a power of two (1, 2, 4, ... %u) or auto",
				    v, PKTDEDUP_SHARDS_MAX);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_SHARDS, (uint32_t)n);
	} else if (!strcmp(k, "hook")) {
		const char *hooks[PD_NHOOKS];
		unsigned int h;

		for (h = 0; h < PD_NHOOKS; h++)
			hooks[h] = pd_placements[h].name;
		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_HOOK,
				(uint8_t)name_arg(k, v, hooks, PD_NHOOKS));
	} else if (!strcmp(k, "state")) {
		static const char *const states[] = {
			[PKTDEDUP_STATE_IDLE] = "idle",
			[PKTDEDUP_STATE_ACTIVE] = "active",
		};

		mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_STATE,
				(uint8_t)name_arg(k, v, states, 2));
	} else if (!strcmp(k, "priority")) {
		char *end;
		long p;

		errno = 0;
		p = strtol(v, &end, 0);
		if (errno || *end || !*v || p <= INT32_MIN || p >= INT32_MAX)
			usage_error("priority: '%s' is not a hook priority", v);
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_PRIORITY, (uint32_t)p);
	} else if (!strcmp(k, "seed")) {
		/* random, or a fixed seed: a u64, as dedup-sim --seed reads it */
		if (!strcmp(v, "random"))
			mnl_attr_put_u8(nlh, PKTDEDUP_A_CONFIG_SEED_MODE,
					PKTDEDUP_SEED_MODE_RANDOM);
		else
			mnl_attr_put_u64(nlh, PKTDEDUP_A_CONFIG_SEED,
					 seed_arg(v));
	} else if (!put_select_setting(nlh, k, v)) {
		usage_error("set: unknown setting '%s'", k);
	}
}

/*
 * The key flags and the tunnel settings of a command line: ignore-tos,
 * nonip and tunnel-id set a flag each of one attribute, sent once, the other flags
 * as they are in force; decap and the ports.
 */
struct key_encap {
	uint32_t flags;		/* in force, then as the settings leave them */
	bool flags_given;
	struct encap_cfg ec;
	unsigned int given;	/* ENCAP_GIVEN_*s */
};

/* Setting k of value v into ke if it is one of them; exits 2 if v is bad. */
static bool key_encap_read(struct key_encap *ke, const char *k, const char *v)
{
	char why[256];
	int r;

	if (!strcmp(k, "ignore-tos")) {
		ke->flags &= ~(uint32_t)PKTDEDUP_KEY_F_IGNORE_TOS;
		if (onoff_arg(k, v))
			ke->flags |= PKTDEDUP_KEY_F_IGNORE_TOS;
		ke->flags_given = true;
		return true;
	}
	if (!strcmp(k, "nonip")) {
		if (strcmp(v, "pass") && strcmp(v, "dedup"))
			usage_error("nonip: '%s' is not pass or dedup", v);
		ke->flags &= ~(uint32_t)PKTDEDUP_KEY_F_NONIP;
		if (!strcmp(v, "dedup"))
			ke->flags |= PKTDEDUP_KEY_F_NONIP;
		ke->flags_given = true;
		return true;
	}
	r = encap_setting(k, v, &ke->ec, &ke->given, why, sizeof(why));
	if (r < 0)
		usage_error("%s", why);
	if (r && !strcmp(k, "tunnel-id")) {
		ke->flags &= ~(uint32_t)PKTDEDUP_KEY_F_TUNNEL_ID;
		if (ke->ec.tunnel_id)
			ke->flags |= PKTDEDUP_KEY_F_TUNNEL_ID;
		ke->flags_given = true;
	}
	return r;
}

static void key_encap_put(struct nlmsghdr *nlh, const struct key_encap *ke)
{
	unsigned int i;

	if (ke->flags_given)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_KEY_FLAGS, ke->flags);
	if (ke->given & ENCAP_GIVEN_DECAP)
		mnl_attr_put_u32(nlh, PKTDEDUP_A_CONFIG_DECAP, ke->ec.decap);
	for (i = 0; i < ENCAP_NPORTS; i++)
		if (ke->given & ENCAP_GIVEN_PORT(i))
			mnl_attr_put_u16(nlh, encap_ports[i].attr,
					 ke->ec.port[i]);
}

/*
 * Put the settings of argv into nlh: the configuration's in its nest, the
 * filter's kind and memory in the filter nest, and each family setting in
 * the nest of family target if it takes it, else in that of the first
 * family that does. key_flags: the key flags in force, which ignore-tos,
 * nonip and tunnel-id, a flag each, leave as they are. Bad values exit with
 * status 2 before anything is sent.
 */
void put_settings(struct nlmsghdr *nlh, int argc, char **argv,
		  const struct pd_filter_ops *target, uint32_t key_flags)
{
	struct nlattr *cfg, *filter, *fam;
	uint64_t set[PD_FILTER_NKINDS] = { 0 };
	struct key_encap ke = { .flags = key_flags };
	struct fvals fv;
	unsigned int kind;
	int i, n;

	memset(&fv, 0, sizeof(fv));
	encap_defaults(&ke.ec);
	cfg = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG);
	if (dc_check)	/* -c: checked by the kernel, not made */
		mnl_attr_put(nlh, PKTDEDUP_A_CONFIG_CHECK, 0, NULL);
	for (i = 0; i < argc; i += n) {
		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "force")) {
			mnl_attr_put(nlh, PKTDEDUP_A_CONFIG_FORCE, 0, NULL);
			continue;
		}
		if (!strcmp(argv[i], "filter") || !strcmp(argv[i], "mem") ||
		    fsetting_attr(argv[i]) ||
		    key_encap_read(&ke, argv[i], argv[i + 1]))
			continue;
		/*
		 * seed N and seed random are two attributes: only the last
		 * is sent (checked all the same), as the last of a setting
		 * given twice is the kernel's
		 */
		if (!strcmp(argv[i], "seed") && i + n < argc &&
		    has_setting(argc - i - n, argv + i + n, "seed")) {
			if (strcmp(argv[i + 1], "random"))
				seed_arg(argv[i + 1]);
			continue;
		}
		put_setting(nlh, argv[i], argv[i + 1]);
	}
	key_encap_put(nlh, &ke);
	filter = mnl_attr_nest_start(nlh, PKTDEDUP_A_CONFIG_FILTER);
	for (i = 0; i < argc; i += n) {
		uint16_t attr = fsetting_attr(argv[i]);
		uint64_t given;

		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "force")) {
			continue;
		} else if (!strcmp(argv[i], "filter") &&
			   !strcmp(argv[i + 1], "auto")) {
			mnl_attr_put_u8(nlh, PKTDEDUP_A_FILTER_AUTO, 1);
		} else if (!strcmp(argv[i], "filter")) {
			mnl_attr_put_u32(nlh, PKTDEDUP_A_FILTER_KIND,
					 named_family(2, argv + i)->kind);
		} else if (!strcmp(argv[i], "mem")) {
			mnl_attr_put_u64(nlh, PKTDEDUP_A_FILTER_MEM,
					 size_arg("mem", argv[i + 1]));
		} else if (attr) {
			given = fsetting_read(argv[i], argv + i + 1, &fv);
			if (pd_filter_takes(target, attr)) {
				set[target->kind] |= given;
				continue;
			}
			for (kind = 0; kind < PD_FILTER_NKINDS; kind++)
				if (pd_filter_takes(pd_filter_family(kind),
						    attr))
					break;
			set[kind] |= given;
		}
	}
	for (kind = 0; kind < PD_FILTER_NKINDS; kind++) {
		if (!set[kind])
			continue;
		fam = mnl_attr_nest_start(nlh,
					  family_nest(pd_filter_family(kind)));
		fsettings_put(nlh, pd_filter_family(kind), &fv, set[kind]);
		mnl_attr_nest_end(nlh, fam);
	}
	mnl_attr_nest_end(nlh, filter);
	mnl_attr_nest_end(nlh, cfg);
}

/* What a change needs to know of the configuration in force. */
struct in_force {
	uint32_t kind;
	bool follow;		/* the filter's family follows the action */
	uint8_t action;
	uint8_t hook;
	uint32_t key_flags;
};

static int in_force_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1];
	struct in_force *in = data;

	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	in->kind = u32a(f, PKTDEDUP_A_FILTER_KIND);
	in->follow = u8a(f, PKTDEDUP_A_FILTER_AUTO);
	in->action = u8a(c, PKTDEDUP_A_CONFIG_ACTION);
	in->hook = u8a(c, PKTDEDUP_A_CONFIG_HOOK);
	in->key_flags = u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS);
	return MNL_CB_OK;
}

/*
 * Whether the instance is at an XDP hook after the change of argv (the
 * hook it names, or the one in force), and active (the module attaches
 * the program then, and needs it).
 */
static bool leaves_at_xdp(int argc, char **argv, unsigned int hook)
{
	const char *h = setting_value(argc, argv, "hook");
	const char *state = setting_value(argc, argv, "state");
	unsigned int i;

	for (i = 0; h && i < PD_NHOOKS; i++)
		if (pd_placements[i].name && !strcmp(h, pd_placements[i].name))
			hook = i;
	return hook < PD_NHOOKS && pd_placements[hook].xdp &&
	       !(state && !strcmp(state, "idle"));
}

/*
 * What a change asked that its reply's notes depend on, and what was in
 * force before it.
 */
struct set_asked {
	const struct in_force *was;
	bool devs_or_scope;	/* the devices or the scope */
};

/*
 * With action drop, what the filter in force drops (when the change made
 * the action drop or changed the filter): an automatic filter, copies
 * less than its window apart; a family without a window, a packet like
 * any it still holds, however old (retransmissions too).
 */
static void drop_note(const struct nlattr **f, const struct nlattr **s,
		      const struct pd_filter_ops *ops)
{
	char b[32], b2[32];

	if (u8a(f, PKTDEDUP_A_FILTER_AUTO) && s[PKTDEDUP_A_SETTINGS_WINDOW_NS])
		fprintf(stderr,
			"dedupctl: note: action drop with filter auto, a sliding window of %s: a packet is dropped only if one like it came less than that before (at most %s of new packets by the model); TCP retransmissions pass\n",
			time_str(b, sizeof(b),
				 u64a(s, PKTDEDUP_A_SETTINGS_WINDOW_NS)),
			pct(b2, sizeof(b2), s[PKTDEDUP_A_SETTINGS_FPS] ?
			    u32a(s, PKTDEDUP_A_SETTINGS_FPS) :
			    ops->default_fps_ppb));
	else if (!ops->window)
		fprintf(stderr,
			"dedupctl: note: action drop with %s: a packet is dropped while the filter holds one like it, however long ago, so a TCP retransmission is dropped as its original's copy; 'filter auto' with drop (a sliding window of %s) lets them pass\n",
			ops->name,
			time_str(b, sizeof(b), PKTDEDUP_AUTO_DROP_WINDOW_NS));
}

/*
 * The reply to a change: a note for named devices that are not there
 * (hooked when they appear: a NIC whose driver loads later, or a typo),
 * and for two or more devices judged per CPU; with action drop, what
 * the filter drops (drop_note()), and a warning when the model's FP of a
 * new packet in the filter's steady state exceeds the target in force
 * (1%, the SBF's default, for the families that take none): such packets
 * are dropped as copies. The change is made; the notes and the warning
 * say what it means.
 */
static int set_cb(const struct nlattr **tb, void *data)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1],
		*pl[PKTDEDUP_A_PLAN_MAX + 1];
	const struct set_asked *asked = data;
	const struct pd_filter_ops *ops;
	struct select_view sel;
	struct plan_view v;
	uint32_t target;
	char b1[32], b2[32];

	if (!tb[PKTDEDUP_A_CONFIG] || !tb[PKTDEDUP_A_PLAN])
		return MNL_CB_OK;
	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	/* a name set before its device exists (or a typo): say so */
	select_view(c, &sel);
	if (*sel.absent)
		fprintf(stderr,
			"dedupctl: note: dev %s: not in this namespace now; hooked when it appears ('dedupctl show' says when)\n",
			sel.absent);
	if (asked->devs_or_scope && strchr(sel.dev, ',') &&
	    u8a(c, PKTDEDUP_A_CONFIG_SCOPE) == PKTDEDUP_SCOPE_PERCPU)
		fprintf(stderr,
			"dedupctl: note: dev %s with scope percpu: a copy is found only on the CPU that judged its original, and copies arriving on two devices are mostly judged on different CPUs; scope shared finds them wherever they arrive\n",
			sel.dev);
	if (u8a(c, PKTDEDUP_A_CONFIG_ACTION) != PKTDEDUP_ACTION_DROP)
		return MNL_CB_OK;
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	ops = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND));
	nl_nest(f[family_nest(ops)], nls_filter.attrs[family_nest(ops)].nested,
		s);
	if (asked->was->action != PKTDEDUP_ACTION_DROP ||
	    asked->was->kind != ops->kind ||
	    asked->was->follow != !!u8a(f, PKTDEDUP_A_FILTER_AUTO))
		drop_note(f, s, ops);
	target = s[PKTDEDUP_A_SETTINGS_FPS] ?
		 u32a(s, PKTDEDUP_A_SETTINGS_FPS) :
		 pd_sbf_family.default_fps_ppb;
	nl_nest(tb[PKTDEDUP_A_PLAN], &nls_plan, pl);
	plan_view_nl(pl[PKTDEDUP_A_PLAN_FILTER], &v);
	if (v.fp > target)
		fprintf(stderr,
			"dedupctl: warning: action drop with %s: by the model, %s of new packets are taken for copies and dropped once the filter is in its steady state (target %s; see 'dedupctl show')\n",
			ops->name, pct(b1, sizeof(b1), v.fp),
			pct(b2, sizeof(b2), target));
	return MNL_CB_OK;
}

/*
 * "landmark D" is the landmark window's own way to say it: "filter
 * landmark window D". Returns argv with it spelled out (argc updated).
 */
static char **expand_landmark(int *argc, char **argv)
{
	static char *out[256];
	int i, j, k, n = 0;

	for (i = 0; i < *argc; i += k) {
		k = setting_args(*argc, argv, i);
		if (n + 4 > (int)(sizeof(out) / sizeof(out[0])))
			usage_error("too many settings");
		if (!strcmp(argv[i], "landmark")) {
			out[n++] = "filter";
			out[n++] = "landmark";
			out[n++] = "window";
			out[n++] = argv[i + 1];
			continue;
		}
		for (j = 0; j < k; j++)
			out[n++] = argv[i + j];
	}
	*argc = n;
	return out;
}

char **set_expand(int *argc, char **argv)
{
	return expand_landmark(argc, argv);
}

int set_setting_args(int argc, char **argv, int i)
{
	return setting_args(argc, argv, i);
}

/* Check the settings of set (argv expanded): exits 2 if one is bad. */
void set_check(int argc, char **argv)
{
	static char scratch[8192];
	const struct pd_filter_ops *target = named_family(argc, argv);

	if (!argc)
		usage_error("set: nothing to set");
	put_settings(mnl_nlmsg_put_header(scratch), argc, argv,
		     target ? target : &pd_sbf_family, 0);
}

/*
 * Send the change of set (argv expanded and checked), a family's settings
 * in its nest: the family it names, or the one in force; with the words
 * of a sources change (sargc > 0), in the same request, both or neither.
 * 0 or the error (n->err says why).
 */
int set_send(struct nl *n, int argc, char **argv, int sargc, char **sargv)
{
	const struct pd_filter_ops *target = named_family(argc, argv);
	struct in_force in = { 0 };
	struct set_asked asked;
	struct nlmsghdr *nlh;
	int err;

	/*
	 * the family in force decides where its settings go; the hook; the
	 * key flags, of which ignore-tos, nonip and tunnel-id change one each
	 */
	err = nl_talk(n, nl_request(n, PKTDEDUP_CMD_GET_CONFIG, false),
		      in_force_cb, &in);
	if (err)
		return err;
	/*
	 * an automatic filter (in force and not named otherwise, or asked
	 * for) is of the family of the action the change leaves
	 */
	if (!target && (in.follow || has_filter_auto(argc, argv))) {
		const char *a = setting_value(argc, argv, "action");
		uint8_t action = a ? (uint8_t)name_arg("action", a,
						       pd_action_names,
						       PD_NACTIONS) :
				     in.action;

		target = pd_filter_family(pd_auto_kind(action));
	}
	if (!target)
		target = kind_family(in.kind);
	asked.was = &in;
	asked.devs_or_scope = has_setting(argc, argv, "dev") ||
			      has_setting(argc, argv, "scope");
	nlh = nl_request(n, PKTDEDUP_CMD_SET_CONFIG, false);
	put_settings(nlh, argc, argv, target, in.key_flags);
	if (sargc)
		put_sources(nlh, sargc, sargv);
	/*
	 * the module attaches its program: it comes with the change, unless
	 * this user may not load it (then the one the module holds serves)
	 */
	if (leaves_at_xdp(argc, argv, in.hook)) {
		int fd = xdp_prog_fd();

		if (fd >= 0)
			mnl_attr_put_u32(nlh, PKTDEDUP_A_XDP_PROG,
					 (uint32_t)fd);
	}
	/* a check's reply is the configuration in force: no notes on it */
	err = nl_talk(n, nlh, dc_check ? NULL : set_cb, &asked);
	xdp_prog_close();
	return err;
}

int cmd_set(int argc, char **argv)
{
	struct nl n;
	int err;

	if (!argc)
		usage_error("set: nothing to set");
	argv = expand_landmark(&argc, argv);
	/* check every value before the kernel sees any */
	set_check(argc, argv);
	open_nl(&n);
	err = set_send(&n, argc, argv, 0, NULL);
	if (err) {
		report_change_refused(&n, err);
		dedupctl_exit(EXIT_REFUSED);
	}
	nl_close(&n);
	return 0;
}

/* enable, disable: the instance of this namespace active, or idle. */
int cmd_enable(int argc, char **argv)
{
	char *set[] = { "state", "active" };

	if (argc)
		usage_error("enable: unexpected '%s'", argv[0]);
	return cmd_set(2, set);
}

int cmd_disable(int argc, char **argv)
{
	char *set[] = { "state", "idle" };

	if (argc)
		usage_error("disable: unexpected '%s'", argv[0]);
	return cmd_set(2, set);
}

/* plan [filter F] mem SIZE [settings]: the family's planner, locally. */
int cmd_plan(int argc, char **argv)
{
	const struct pd_filter_ops *ops;
	struct pd_filter_plan pl;
	struct plan_view v;
	struct pd_filter_req req;
	const struct pd_setting *s;
	struct fvals fv;
	uint64_t fps;
	const char *why = NULL;
	char b1[32], b2[32], msg[PD_FILTER_REFUSAL_LEN];
	bool have_mem = false;
	int i, n, err;

	argv = expand_landmark(&argc, argv);
	ops = named_family(argc, argv);
	if (!ops)	/* a window asks for the sliding window */
		ops = has_setting(argc, argv, "window") ? &pd_sliding_family :
		      &pd_sbf_family;
	pd_filter_req_defaults(&req, ops->kind, 0);
	memset(&fv, 0, sizeof(fv));
	for (i = 0; i < argc; i += n) {
		uint16_t attr = fsetting_attr(argv[i]);

		n = setting_args(argc, argv, i);
		if (!strcmp(argv[i], "filter"))
			continue;
		/*
		 * a set's scope: shared builds the filter once, or in shards
		 * of it, with the same model, planned as one every CPU steps
		 * (the SBF's layout auto: line)
		 */
		if (!strcmp(argv[i], "scope")) {
			req.shared = name_arg("scope", argv[i + 1],
					      pd_scope_names, PD_NSCOPES) ==
				     PKTDEDUP_SCOPE_SHARED;
			continue;
		}
		if (!strcmp(argv[i], "mem")) {
			req.mem_bytes = size_arg("mem", argv[i + 1]);
			have_mem = true;
		} else if (!attr) {
			usage_error("plan: unknown setting '%s'", argv[i]);
		} else if (!pd_filter_takes(ops, attr)) {
			usage_error("plan: %s is not a setting of the %s filter",
				    argv[i], ops->name);
		} else {
			fsetting_read(argv[i], argv + i + 1, &fv);
		}
	}
	for (s = ops->settings; s->attr; s++)
		if (fv.given & PD_SETTING_BIT(s->attr))
			pd_setting_from_wire(ops, &req, s, fv.wire[s->attr]);
	if (!have_mem && !(ops->window &&
			   ((fv.given & PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_RATE) &&
			     fv.wire[PKTDEDUP_A_SETTINGS_RATE]) ||
			    (fv.given &
			     PD_SETTING_BIT(PKTDEDUP_A_SETTINGS_WINDOW_PACKETS)))))
		usage_error(ops->window ?
			    "plan: mem SIZE or rate PPS is required (or a packet window)" :
			    "plan: mem SIZE is required");
	err = pd_filter_plan(&req, &pl, &why);
	if (err)
		usage_error("plan: %s", pd_filter_refusal(&req, &pl, err, why, msg,
							  sizeof(msg)));
	/* sized by its rate or window, mem given is a limit (as dedup-sim's) */
	if (have_mem && pl.bytes > req.mem_bytes)
		usage_error("plan: the window needs %s per filter, more than mem %s: shorten it, lower rate or fps, or raise mem",
			    size_str(b1, sizeof(b1), pl.bytes),
			    size_str(b2, sizeof(b2), req.mem_bytes));
	plan_view_local(ops, &pl, &v);
	/* the target, where the family has one (the bit arrays: if given) */
	fps = pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_FPS) ?
	      (req.fps_ppb ? req.fps_ppb : ops->default_fps_ppb) : 0;
	if (json) {
		/* mem not given: sized by the rate or window, "auto" */
		printf("{\"filter\":\"%s\"", ops->name);
		json_auto("mem_asked_bytes", req.mem_bytes, !have_mem);
		printf(",\"mem_bytes\":%llu", (unsigned long long)pl.bytes);
		if (fps)
			printf(",\"fps\":%.9g", fps / 1e9);
		else
			printf(",\"fps\":null");
	} else if (!have_mem) {	/* a window family sized by rate or window */
		printf("filter   %s, sized by its %s (uses %s)", ops->name,
		       pd_tw_req(&req)->window_pkts ? "window" : "rate",
		       size_str(b2, sizeof(b2), pl.bytes));
	} else {
		printf("filter   %s, %s (uses %s)", ops->name,
		       size_str(b1, sizeof(b1), req.mem_bytes),
		       size_str(b2, sizeof(b2), pl.bytes));
	}
	if (!json) {
		if (fps)
			printf(", target fp %s%s", pct(b1, sizeof(b1), fps),
			       v.fp > fps ? " (not met by the model)" : "");
		printf("\n");
	}
	print_plan_view(&v);
	/* what the module's stats report as memory-packets (the model's) */
	print_memory_gap(pd_filter_memory_gap(&pl));
	if (json)
		printf("}\n");
	return 0;
}
