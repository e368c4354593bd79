/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A filter family's settings, as rows of a table the family owns.
 *
 * Each row names the attribute of the spec's "settings" set the setting
 * travels in (PKTDEDUP_A_SETTINGS_*; the family's own nest in the spec
 * lists the same ones), where a request keeps its value, and how the
 * value differs from what the wire carries (its codec). The netlink layer
 * reads and writes every family's nest from the rows alone; dedupctl,
 * dedup-sim, /proc and the reports ask the rows whether a family takes a
 * setting (pd_filter_takes()). A table ends with an empty row. A family
 * with a new setting adds its attribute to the spec and a row to its
 * table: nothing else lists it.
 */
#ifndef PD_SETTINGS_H
#define PD_SETTINGS_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"

struct pd_filter_ops;
struct pd_filter_req;

/* How a setting's value and the wire's differ. */
enum pd_setting_codec {
	PD_SC_PLAIN,		/* the same */
	PD_SC_AUTO_ZERO,	/* wire 0: the value PD_FILTER_AUTO */
	PD_SC_CELL_MAX,		/* wire: bits j per cell (0: AUTO); value 2^j - 1 */
	PD_SC_P_AUTO,		/* wire PKTDEDUP_P_AUTO: the value PD_FILTER_AUTO */
	/*
	 * A target: 0 is the family's default (default_fps_ppb), sent as that
	 * default, and left out if that is 0 too (no target).
	 */
	PD_SC_TARGET,
	/*
	 * One of two (a window as a time or a packet count, .other the
	 * second): given, it clears the other; left out when 0; both in one
	 * request are refused.
	 */
	PD_SC_EITHER,
};

/*
 * A row. A request keeps every setting's value in a u64 (the widest a
 * setting's attribute is), so a row needs only the value's place: its
 * offset in the request, inside the family's own struct (filter.h).
 */
struct pd_setting {
	u16 attr;		/* PKTDEDUP_A_SETTINGS_* */
	u16 other;		/* PD_SC_EITHER: the other one's attr */
	u16 off;		/* of the u64 value in struct pd_filter_req */
	u8 codec;		/* enum pd_setting_codec */
	u8 flags;		/* PD_SF_* */
};

/*
 * The setting counts elements (packets): a shard that sees 1/n of them
 * takes 1/n of it (shard.h).
 */
#define PD_SF_COUNT	0x1
/*
 * The setting is a window of elements: a shard takes its share of it
 * only if that share is at least PD_SHARD_MIN_WINDOW (shard.h).
 */
#define PD_SF_WINDOW	0x2

/* Where a family's settings struct begins in a request. */
#define PD_SETTING_FAM offsetof(struct pd_filter_req, fam)

/* A row: the setting ATTR kept in field of the family's struct type. */
#define PD_SETTING(ATTR, type, field, CODEC)				\
	{								\
		.attr = PKTDEDUP_A_SETTINGS_##ATTR,			\
		.off = PD_SETTING_FAM + offsetof(type, field),		\
		.codec = PD_SC_##CODEC,					\
	}

/* A row of a setting that counts elements (PD_SF_COUNT). */
#define PD_SETTING_COUNT(ATTR, type, field, CODEC)			\
	{								\
		.attr = PKTDEDUP_A_SETTINGS_##ATTR,			\
		.off = PD_SETTING_FAM + offsetof(type, field),		\
		.codec = PD_SC_##CODEC,					\
		.flags = PD_SF_COUNT,					\
	}

/* A row of one of two settings: ATTR, given, clears OTHER. */
#define PD_SETTING_EITHER(ATTR, type, field, OTHER, FLAGS)		\
	{								\
		.attr = PKTDEDUP_A_SETTINGS_##ATTR,			\
		.other = PKTDEDUP_A_SETTINGS_##OTHER,			\
		.off = PD_SETTING_FAM + offsetof(type, field),		\
		.codec = PD_SC_EITHER,					\
		.flags = (FLAGS),					\
	}

/* The row of the target every family has (pd_filter_req.fps_ppb). */
#define PD_SETTING_FPS							\
	{								\
		.attr = PKTDEDUP_A_SETTINGS_FPS,			\
		.off = offsetof(struct pd_filter_req, fps_ppb),		\
		.codec = PD_SC_TARGET,					\
	}

/* The bit of setting attr in a u64 mask of settings. */
#define PD_SETTING_BIT(attr) (1ULL << (attr))
static_assert(PKTDEDUP_A_SETTINGS_MAX < 64, "settings in a u64 mask");

/* j of a cell maximum 2^j - 1, its bits on the wire; 0 for AUTO. */
u32 pd_setting_cell_bits(u64 max);

/* The row of setting attr that ops's family takes, or NULL. */
const struct pd_setting *pd_filter_setting(const struct pd_filter_ops *ops,
					   unsigned int attr);

static inline bool pd_filter_takes(const struct pd_filter_ops *ops,
				   unsigned int attr)
{
	return pd_filter_setting(ops, attr);
}

/*
 * The word that names setting attr where a user types it (dedupctl's
 * settings, dedup-sim's options without their dashes): "p", "max",
 * "window", ...; NULL for one typed otherwise (importance-mask, given as
 * "importance mark MASK").
 */
const char *pd_setting_word(unsigned int attr);
/* The same, "?" for none: for messages. */
const char *pd_setting_name(unsigned int attr);

/* Room for pd_setting_value()'s words. */
#define PD_SETTING_VALUE_LEN 24
/*
 * Setting attr's value in req as a user writes it, into buf: "auto" for
 * the family's choice, a cell maximum, a target as a fraction (0.001).
 */
void pd_setting_value(const struct pd_filter_ops *ops,
		      const struct pd_filter_req *req, unsigned int attr,
		      char *buf, size_t len);

/* A setting's value in req, and setting it. */
u64 pd_setting_get(const struct pd_filter_req *req,
		   const struct pd_setting *s);
void pd_setting_set(struct pd_filter_req *req, const struct pd_setting *s,
		    u64 v);

/*
 * A value off the wire (already validated by the spec's policy) into req:
 * what the kernel does with an attribute of a family's nest, and what
 * dedupctl does with what it reads back.
 */
void pd_setting_from_wire(const struct pd_filter_ops *ops,
			  struct pd_filter_req *req,
			  const struct pd_setting *s, u64 wire);
/* The wire's value of a setting in req; false: it is left out. */
bool pd_setting_to_wire(const struct pd_filter_ops *ops,
			const struct pd_filter_req *req,
			const struct pd_setting *s, u64 *wire);

#endif /* PD_SETTINGS_H */
