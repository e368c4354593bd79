/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The importance-aware Bloom filters of Boraskar, Gabale, Kulkarni and
 * Kulkarni ("Importance-aware Bloom Filter for Managing Set Membership
 * Queries on Streaming Data"): a Stable Bloom Filter whose insert raises
 * each of the K cells to at least a value that depends on the element's
 * importance, so that important elements live longer.
 *
 *   IBF-2C  two classes: Max for an important element, (Max + 1) / 2 for
 *           the others. (Algorithm 1 as printed writes Max into a cell
 *           already at or above Max/2 even for an unimportant element,
 *           which would let unimportant copies lift cells to Max; it is read
 *           here as Algorithm 2 does for IBF-MC: a cell is only raised.)
 *   IBF-MC  many classes: the value 1..Max of the element's importance.
 *
 * The decrements are the SBF's (P cells, adjacent from a random start).
 * A packet's importance comes from its DSCP (a fixed table of seven
 * DiffServ levels, see the uAPI's enum pktdedup_importance) or from its
 * mark under a mask (so an nftables rule can decide).
 */
#ifndef PD_IBF_H
#define PD_IBF_H

#include "pd_port.h"
#include "../uapi/pktdedup.h"
#include "key.h"
#include "sbf.h"

#define PD_IBF_LEVELS 7			/* of the DSCP table */
#define PD_IBF_DEFAULT_MAX 7		/* the paper's M */
#define PD_IBF_DEFAULT_K 5		/* the paper's K */
#define PD_IBF_IMPORTANT_LEVEL 5	/* IBF-2C: CS4/AF4x and above */

struct pd_ibf {
	struct pd_sbf sbf;
	u8 two_class;		/* IBF-2C */
	u8 importance;		/* PKTDEDUP_IMPORTANCE_DSCP or _MARK */
	u8 shift;		/* mark source: the mask's lowest set bit */
	u32 mask;
	u8 dscp_value[64];	/* the value each DSCP raises cells to */
};

/* The state of a filter of an ibf family (filter.h's pd_filter_priv()). */
#define pd_ibf_of(f) ((struct pd_ibf *)pd_filter_priv(f))

/* The ibf families' settings in a request (pd_filter_req.fam). */
struct pd_ibf_req {
	u64 max;		/* cell maximum 2^j - 1, or PD_FILTER_AUTO */
	u64 k;			/* probes, or AUTO */
	u64 p;			/* decrements per element, or AUTO */
	u64 gap;		/* typical gap between copies; 0: unknown */
	u64 importance;		/* PKTDEDUP_IMPORTANCE_* */
	u64 importance_mask;	/* the mark source's */
};

#define pd_ibf_req(r) ((struct pd_ibf_req *)(r)->fam)

/* The DSCP table: level 1 (lowest) to PD_IBF_LEVELS (highest). */
unsigned int pd_ibf_dscp_level(unsigned int dscp);
/* The value a level (1..PD_IBF_LEVELS) takes with cell maximum max. */
unsigned int pd_ibf_level_value(unsigned int level, unsigned int max);
/* Importance settings over an SBF already set up; 0 or -EINVAL (*why). */
int pd_ibf_setup(struct pd_ibf *f, bool two_class, u8 importance, u32 mask,
		 const char **why);
/* The value (1..Max) the packet raises its cells to. */
unsigned int pd_ibf_value(const struct pd_ibf *f, const struct pd_pktinfo *pi);

static inline bool pd_ibf_step(struct pd_ibf *f, u32 h1, u32 h2,
			       const struct pd_pktinfo *pi)
{
	return pd_sbf_step_value(&f->sbf, h1, h2, pd_ibf_value(f, pi));
}

#endif /* PD_IBF_H */
