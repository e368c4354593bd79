/* SPDX-License-Identifier: GPL-2.0 */
/* dedupctl: generic netlink plumbing over libmnl. */
#ifndef DEDUPCTL_NL_H
#define DEDUPCTL_NL_H

#include <libmnl/libmnl.h>
#include <stdbool.h>
#include <stdint.h>

struct nl {
	struct mnl_socket *sock;
	uint16_t family;
	uint32_t events;		/* multicast group id */
	uint32_t seq;
	char buf[8192];			/* request being built */
	char err[512];				/* why the last request failed */
};

/* Callback for each reply message: its attributes, indexed by type. */
typedef int (*nl_reply_cb)(const struct nlattr **tb, void *data);

/* Open a socket and resolve the pktdedup family; 0 or -1 with n->err. */
int nl_open(struct nl *n);
void nl_close(struct nl *n);
/* Start a request for cmd (NLM_F_DUMP if dump). */
struct nlmsghdr *nl_request(struct nl *n, uint8_t cmd, bool dump);
/*
 * Send the request and run cb on every reply. Returns 0, or a negative
 * errno with n->err holding the kernel's extack message and the name of
 * the attribute it points at.
 */
int nl_talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data);

/* The same, and entry_cb on each nested PKTDEDUP_A_ENTRY after cb. */
int nl_talk_entries(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		    nl_reply_cb entry_cb, void *data);
/*
 * Join the "events" group and run cb on every event until it returns
 * other than MNL_CB_OK; cb(NULL) when the socket overflowed (events lost).
 */
int nl_listen(struct nl *n, nl_reply_cb cb, void *data);

/* Name of a pktdedup attribute, for messages. */
const char *nl_attr_name(uint16_t type);

#endif /* DEDUPCTL_NL_H */
