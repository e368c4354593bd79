/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pdnl: what pdnl.c (requests, replies, policy dumps) shares with
 * pdnl_fuzz.c (pdnl fuzz).
 */
#ifndef PDNL_H
#define PDNL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../../userspace/common/nl_spec.h"

#define MAX_POLICIES 64
#define MAX_ATTRS 64

extern char buf[1 << 16];		/* what the kernel sent last */
extern struct mnl_socket *sock;
extern unsigned int seq;
extern uint16_t family_id;

void __attribute__((noreturn)) die(const char *what);

/* One request and what came back (run()). */
struct talk {
	mnl_cb_t cb;
	void *data;
	int error;
	char msg[512];
	uint32_t offs;		/* of the bad attribute, 0 if none */
	uint32_t miss;		/* type of a missing attribute, 0 if none */
	const struct nlmsghdr *req;
	int broken;		/* errno of a reply libmnl could not take */
	/*
	 * Under fault injection: a request the kernel could not take
	 * (sendmsg failed: nothing changed) is an error, not the end;
	 * lost, the errno of an ack that never came (the request may have
	 * been applied)
	 */
	bool soft;
	int lost;
};

/* Send req, read until its ack (or error, or end of dump): t->error. */
int run(struct talk *t, const struct nlmsghdr *req);
struct nlmsghdr *request(char *mem, uint16_t type, uint16_t flags,
			 uint8_t cmd, uint8_t version, uint16_t reserved);
/* Open sock and resolve the family into family_id (exits if absent). */
void open_family(void);

/* A policy dump (CTRL_CMD_GETPOLICY) as the kernel gave it. */
struct pol_attr {
	bool present;
	uint32_t type;			/* enum netlink_attribute_type */
	bool has_umin, has_umax, has_smin, has_smax, has_mask;
	uint64_t umin, umax, mask;
	int64_t smin, smax;
	uint32_t min_len, max_len, idx, maxtype;
	bool has_min_len, has_max_len, has_idx;
};

struct dump {
	struct pol_attr pol[MAX_POLICIES][MAX_ATTRS];
	bool have[MAX_POLICIES];
	struct { bool seen, has_do, has_dump; uint32_t do_idx, dump_idx; }
		op[256];
	bool bad;			/* something not understood */
};

/* Dump the family's policies (of op only, unless NULL) into d. */
int policy_fetch(struct dump *d, const struct nls_op *only, struct talk *t);

/* The attributes of a reply as PATH=VALUE lines. */
void print_attrs(FILE *f, const struct nlattr *first, size_t len,
		 const struct nls_set *set, const char *prefix);
/* The path of the attribute at offset offs of the request, by name. */
void bad_path(const struct nlmsghdr *req, uint32_t offs, char *out,
	      size_t room);

/* pdnl fuzz [options] (pdnl_fuzz.c) */
int cmd_fuzz(int argc, char **argv);
/* pdnl xdp-race N (pdnl_race.c) */
int cmd_xdp_race(int argc, char **argv);

#endif /* PDNL_H */
