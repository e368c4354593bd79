/* SPDX-License-Identifier: GPL-2.0 */
/* dedupctl: generic netlink plumbing over libmnl. */
#ifndef DEDUPCTL_NL_H
#define DEDUPCTL_NL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/nl_spec.h"

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events;		/* multicast group id */
	uint32_t version;		/* the module's protocol version */
	uint32_t seq;
	char buf[8192];			/* request being built */
	char err[512];				/* why the last request failed */
};

/*
 * Callback for each reply message: its top-level attributes, indexed by
 * type (PKTDEDUP_A_*). Every attribute has been checked against the
 * spec's type (a wrong length leaves its slot NULL).
 */
typedef int (*nl_reply_cb)(const struct nlattr **tb, void *data);

/* Open a socket and resolve the pktdedup family; 0 or -1 with n->err. */
int nl_open(struct nl *n);
/*
 * Enter the network namespace of file path (ip netns's /run/netns/NAME)
 * for what follows; 0, or -1 with the reason in err.
 */
int nl_netns(const char *path, char *err, size_t len);
void nl_close(struct nl *n);
/* Start a request for cmd (NLM_F_DUMP if dump). */
struct nlmsghdr *nl_request(struct nl *n, uint8_t cmd, bool dump);
/*
 * Send the request and run cb on every reply. Returns 0, or a negative
 * errno with n->err holding the kernel's extack message and the name of
 * the attribute it points at.
 */
int nl_talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data);

/* The same, and entry_cb on each PKTDEDUP_A_ENTRY (its nest's tb) after cb. */
int nl_talk_entries(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		    nl_reply_cb entry_cb, void *data);
/*
 * Join the "events" group and run cb on every event until it returns
 * other than MNL_CB_OK; cb(NULL) when the socket overflowed (events lost).
 * -ENOENT once the family is gone (the module unloaded).
 */
int nl_listen(struct nl *n, nl_reply_cb cb, void *data);

/*
 * The attributes of nest (a set's nest, or NULL) into tb[0..set->max],
 * each checked against the spec's type; tb is zeroed first.
 */
void nl_nest(const struct nlattr *nest, const struct nls_set *set,
	     const struct nlattr **tb);

#endif /* DEDUPCTL_NL_H */
