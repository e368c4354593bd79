// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl save: the configuration as the words of set (and of sources),
 * which dedupctl -f applies.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/bitf.h"
#include "../../module/core/config.h"
#include "../../module/core/filter.h"
#include "../../module/core/timewin.h"
#include "../../module/uapi/pktdedup.h"
#include "dedupctl.h"
#include "encap.h"
/* A rate (ppb, below 1) as a decimal fraction ppb_arg() reads back. */
static const char *ppb_word(char *buf, size_t len, uint32_t ppb)
{
	size_t end;

	snprintf(buf, len, "0.%09u", ppb);
	end = strlen(buf);
	while (end > 3 && buf[end - 1] == '0')
		buf[--end] = '\0';
	return buf;
}

/* A time in ns in the largest unit that gives it whole: "2ms", "1500us". */
static const char *ns_word(char *buf, size_t len, uint64_t ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "h", 3600000000000ULL }, { "min", 60000000000ULL },
		{ "s", 1000000000 }, { "ms", 1000000 }, { "us", 1000 },
		{ "ns", 1 },
	};
	unsigned int i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!(ns % units[i].ns))
			break;
	snprintf(buf, len, "%llu%s", (unsigned long long)(ns / units[i].ns),
		 units[i].unit);
	return buf;
}

/*
 * The words of a set that gives the configuration of a GET_CONFIG reply:
 * every setting, the family's own as the kernel reports them. An auto the
 * kernel reports as such (max, k, p, gap) stays auto; a default it keeps
 * as 0 and reports as 0 (p-star, subwindows) is written as the value 0
 * stands for; fps is reported as the target in force (the family's
 * default where none was asked) and written so.
 */
void config_words(const struct nlattr **tb, struct words *w)
{
	const struct nlattr *c[PKTDEDUP_A_CONFIG_MAX + 1],
		*f[PKTDEDUP_A_FILTER_MAX + 1], *s[PKTDEDUP_A_SETTINGS_MAX + 1];
	const struct pd_filter_ops *ops;
	char ew[ENCAP_WORDS][ENCAP_WORD_LEN];
	struct select_view sel;
	struct encap_cfg ec;
	unsigned int i, n;
	char b[48];
	uint32_t v;
	uint64_t g;

	nl_nest(tb[PKTDEDUP_A_CONFIG], &nls_config, c);
	nl_nest(c[PKTDEDUP_A_CONFIG_FILTER], &nls_filter, f);
	ops = kind_family(u32a(f, PKTDEDUP_A_FILTER_KIND));
	nl_nest(f[family_nest(ops)], nls_filter.attrs[family_nest(ops)].nested,
		s);
	words_add(w, "key");
	words_add(w, "%s", name_of(pd_key_mode_names, PD_KEY_NMODES,
				   u8a(c, PKTDEDUP_A_CONFIG_KEY)));
	words_add(w, "payload");
	if (u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD) == PKTDEDUP_PAYLOAD_ALL)
		words_add(w, "all");
	else
		words_add(w, "%u", u16a(c, PKTDEDUP_A_CONFIG_PAYLOAD));
	words_add(w, "ignore-tos");
	words_add(w, "%s", u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) &
		  PKTDEDUP_KEY_F_IGNORE_TOS ? "on" : "off");
	words_add(w, "nonip");
	words_add(w, "%s", u32a(c, PKTDEDUP_A_CONFIG_KEY_FLAGS) &
		  PKTDEDUP_KEY_F_NONIP ? "dedup" : "pass");
	/*
	 * the tunnel settings, all of them, defaults too (as every setting):
	 * a file that left one out would leave another value in force
	 */
	if (config_encap(c, &ec)) {
		n = encap_words(&ec, ew);
		for (i = 0; i < n; i++)
			words_add(w, "%s", ew[i]);
	}
	words_add(w, "action");
	words_add(w, "%s", name_of(pd_action_names, PD_NACTIONS,
				   u8a(c, PKTDEDUP_A_CONFIG_ACTION)));
	/* drop with a key of flows or hosts was forced: again */
	if (u8a(c, PKTDEDUP_A_CONFIG_ACTION) == PKTDEDUP_ACTION_DROP &&
	    u8a(c, PKTDEDUP_A_CONFIG_KEY) != PKTDEDUP_KEY_PACKET)
		words_add(w, "force");
	words_add(w, "mark");
	words_add(w, "0x%x/0x%x", u32a(c, PKTDEDUP_A_CONFIG_MARK_VALUE),
		  u32a(c, PKTDEDUP_A_CONFIG_MARK_MASK));
	words_add(w, "scope");
	words_add(w, "%s", name_of(pd_scope_names, PD_NSCOPES,
				   u8a(c, PKTDEDUP_A_CONFIG_SCOPE)));
	words_add(w, "shards");
	if (u32a(c, PKTDEDUP_A_CONFIG_SHARDS))
		words_add(w, "%u", u32a(c, PKTDEDUP_A_CONFIG_SHARDS));
	else
		words_add(w, "auto");
	words_add(w, "hook");
	words_add(w, "%s", pd_placement_name(u8a(c, PKTDEDUP_A_CONFIG_HOOK)));
	words_add(w, "priority");
	words_add(w, "%d", (int32_t)u32a(c, PKTDEDUP_A_CONFIG_PRIORITY));
	/* traffic selection, as set takes it ("any" where unset) */
	select_view(c, &sel);
	words_add(w, "dev");
	words_add(w, "%s", sel.dev);
	words_add(w, "proto");
	words_add(w, "%s", sel.proto);
	words_add(w, "match-mark");
	words_add(w, "%s", sel.mark);
	/* an automatic filter stays so: its settings are its family's */
	words_add(w, "filter");
	words_add(w, "%s", u8a(f, PKTDEDUP_A_FILTER_AUTO) ? "auto" : ops->name);
	words_add(w, "mem");
	words_add(w, "%s", size_word(b, sizeof(b),
				     u64a(f, PKTDEDUP_A_FILTER_MEM)));
	if (s[PKTDEDUP_A_SETTINGS_FPS]) {
		words_add(w, "fps");
		words_add(w, "%s", ppb_word(b, sizeof(b),
					    u32a(s, PKTDEDUP_A_SETTINGS_FPS)));
	} else if (pd_filter_takes(ops, PKTDEDUP_A_SETTINGS_FPS)) {
		/* the bit arrays: no target; one set cannot be unset */
		w->note = "no fps: where this family is already in force with an fps, that fps stays (set another filter first to clear it)";
	}
	if (s[PKTDEDUP_A_SETTINGS_CELL_BITS]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_CELL_BITS);
		words_auto(w, "max", v ? (1u << v) - 1 : 0, !v);
	}
	if (s[PKTDEDUP_A_SETTINGS_K]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_K);
		words_auto(w, "k", v, !v);
	}
	if (s[PKTDEDUP_A_SETTINGS_P]) {
		v = u32a(s, PKTDEDUP_A_SETTINGS_P);
		words_auto(w, "p", v, v == PKTDEDUP_P_AUTO);
	}
	if (s[PKTDEDUP_A_SETTINGS_GAP]) {
		g = u64a(s, PKTDEDUP_A_SETTINGS_GAP);
		words_auto(w, "gap", g, !g);
	}
	if (s[PKTDEDUP_A_SETTINGS_P_STAR]) {
		v = u32a(s, PKTDEDUP_A_SETTINGS_P_STAR);
		words_add(w, "p-star");
		words_add(w, "%s", ppb_word(b, sizeof(b), v ? v :
					    PD_BITF_DEFAULT_PSTAR_PPB));
	}
	if (s[PKTDEDUP_A_SETTINGS_IMPORTANCE]) {
		words_add(w, "importance");
		if (u8a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE) ==
		    PKTDEDUP_IMPORTANCE_MARK) {
			words_add(w, "mark");
			words_add(w, "0x%x",
				  u32a(s, PKTDEDUP_A_SETTINGS_IMPORTANCE_MASK));
		} else {
			words_add(w, "dscp");
		}
	}
	if (s[PKTDEDUP_A_SETTINGS_WINDOW_NS]) {
		words_add(w, "window");
		words_add(w, "%s", ns_word(b, sizeof(b),
					   u64a(s, PKTDEDUP_A_SETTINGS_WINDOW_NS)));
	} else if (s[PKTDEDUP_A_SETTINGS_WINDOW_PACKETS]) {
		words_add(w, "window");
		words_add(w, "%up", u32a(s, PKTDEDUP_A_SETTINGS_WINDOW_PACKETS));
	}
	if (s[PKTDEDUP_A_SETTINGS_RATE]) {
		words_add(w, "rate");
		words_add(w, "%u", u32a(s, PKTDEDUP_A_SETTINGS_RATE));
	}
	if (s[PKTDEDUP_A_SETTINGS_SUBWINDOWS]) {
		v = u8a(s, PKTDEDUP_A_SETTINGS_SUBWINDOWS);
		words_add(w, "subwindows");
		words_add(w, "%u", v ? v : PD_TW_DEFAULT_SUBWIN);
	}
	if (s[PKTDEDUP_A_SETTINGS_WARN_BELOW]) {
		words_add(w, "warn-below");
		words_add(w, "%u", u8a(s, PKTDEDUP_A_SETTINGS_WARN_BELOW));
	}
	if (s[PKTDEDUP_A_SETTINGS_LAYOUT]) {
		words_add(w, "layout");
		words_add(w, "%s",
			  pd_sbf_layout_name(u8a(s, PKTDEDUP_A_SETTINGS_LAYOUT)));
	}
	/* a fixed seed's value comes only to CAP_NET_ADMIN (save fails) */
	words_add(w, "seed");
	if (u8a(c, PKTDEDUP_A_CONFIG_SEED_MODE) != PKTDEDUP_SEED_MODE_FIXED)
		words_add(w, "random");
	else if (c[PKTDEDUP_A_CONFIG_SEED])
		words_add(w, "%llu", (unsigned long long)
			  u64a(c, PKTDEDUP_A_CONFIG_SEED));
	else
		w->hidden = "the seed is fixed and only CAP_NET_ADMIN may read its value: run save as root (without it the file would restore another seed)";
	words_add(w, "state");
	words_add(w, "%s", u8a(c, PKTDEDUP_A_CONFIG_STATE) ==
		  PKTDEDUP_STATE_ACTIVE ? "active" : "idle");
}
