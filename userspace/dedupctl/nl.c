// SPDX-License-Identifier: GPL-2.0
/*
 * dedupctl: generic netlink plumbing over libmnl. Resolves the "pktdedup"
 * family through the controller, sends requests, and turns NLMSG_ERROR
 * replies with extended acks into one readable message; enters a network
 * namespace for dedupctl -n.
 */
#define _GNU_SOURCE		/* setns() */
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../module/uapi/pktdedup.h"
#include "nl.h"

/* Whether a's payload fits the spec's type t. */
static bool type_ok(const struct nlattr *a, uint8_t t)
{
	uint16_t len = mnl_attr_get_payload_len(a);

	switch (t) {
	case NLS_U8:
	case NLS_S8:
		return len == 1;
	case NLS_U16:
	case NLS_S16:
		return len == 2;
	case NLS_U32:
	case NLS_S32:
		return len == 4;
	case NLS_U64:
	case NLS_S64:
		return len == 8;
	case NLS_FLAG:
		return len == 0;
	case NLS_STRING:
		return mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0;
	default:
		return true;
	}
}

static void parse_attrs(const struct nlattr *first, size_t len,
			const struct nls_set *set, const struct nlattr **tb)
{
	const char *end = (const char *)first + len;
	const struct nlattr *a;

	memset(tb, 0, (set->max + 1u) * sizeof(*tb));
	for (a = first; mnl_attr_ok(a, (int)(end - (const char *)a));
	     a = mnl_attr_next(a)) {
		uint16_t t = mnl_attr_get_type(a);

		if (t > set->max || !set->attrs[t].name ||
		    !type_ok(a, set->attrs[t].type))
			continue;	/* newer than this dedupctl, or bad */
		tb[t] = a;
	}
}

void nl_nest(const struct nlattr *nest, const struct nls_set *set,
	     const struct nlattr **tb)
{
	if (!nest) {
		memset(tb, 0, (set->max + 1u) * sizeof(*tb));
		return;
	}
	parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest),
		    set, tb);
}

/*
 * The dotted path of the attribute at offset offs of request req (spec
 * names, e.g. "config.filter.sbf.cell-bits"), into out; returns the set of
 * the attributes nested in it (NULL if none).
 */
static const struct nls_set *attr_path(const struct nlmsghdr *req,
				       uint32_t offs, char *out, size_t room)
{
	const struct nls_set *set = &nls_pktdedup;
	const char *base = (const char *)req;
	const struct nlattr *a = mnl_nlmsg_get_payload_offset(req,
							      GENL_HDRLEN);
	const char *end = base + req->nlmsg_len;

	out[0] = '\0';
	while (mnl_attr_ok(a, (int)(end - (const char *)a))) {
		uint32_t at = (uint32_t)((const char *)a - base);
		uint16_t t = mnl_attr_get_type(a);
		const struct nls_attr *sa = set && t <= set->max &&
					    set->attrs[t].name ?
					    &set->attrs[t] : NULL;
		size_t used = strlen(out);

		if (offs < at || offs >= at + a->nla_len) {
			a = mnl_attr_next(a);
			continue;
		}
		if (sa)
			snprintf(out + used, room - used, "%s%s",
				 used ? "." : "", sa->name);
		else
			snprintf(out + used, room - used, "%sattribute %u",
				 used ? "." : "", t);
		if (!sa || sa->type != NLS_NEST)
			return NULL;
		if (offs == at)
			return sa->nested;
		set = sa->nested;
		end = (const char *)a + a->nla_len;
		a = mnl_attr_get_payload(a);
	}
	return NULL;
}

/* The name of attribute type miss, missing from the nest at offset nest. */
static const char *missing_name(const struct nlmsghdr *req, uint32_t nest,
				uint32_t miss)
{
	static char name[160];
	const struct nls_set *set = &nls_pktdedup;
	char path[128] = "";

	if (nest)
		set = attr_path(req, nest, path, sizeof(path));
	if (set && miss <= set->max && set->attrs[miss].name)
		snprintf(name, sizeof(name), "%s%s%s", path, path[0] ? "." : "",
			 set->attrs[miss].name);
	else
		snprintf(name, sizeof(name), "attribute %u", miss);
	return name;
}

struct resolve {
	uint16_t id;
	uint32_t events;	/* the "events" group's id, 0 if none */
	uint32_t version;	/* the family's */
};

/* One CTRL_ATTR_MCAST_GRP_* attribute of a group. */
static int group_attr(const struct nlattr *a, void *data)
{
	const struct nlattr **g = data;
	uint16_t type = mnl_attr_get_type(a);

	if (type == CTRL_ATTR_MCAST_GRP_NAME &&
	    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
		g[0] = a;
	else if (type == CTRL_ATTR_MCAST_GRP_ID &&
		 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
		g[1] = a;
	return MNL_CB_OK;
}

static int family_attr(const struct nlattr *a, void *data)
{
	struct resolve *r = data;
	const struct nlattr *grp;

	if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID &&
	    mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
		r->id = mnl_attr_get_u16(a);
	if (mnl_attr_get_type(a) == CTRL_ATTR_VERSION &&
	    mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
		r->version = mnl_attr_get_u32(a);
	if (mnl_attr_get_type(a) != CTRL_ATTR_MCAST_GROUPS)
		return MNL_CB_OK;
	mnl_attr_for_each_nested(grp, a) {
		const struct nlattr *g[2] = { NULL, NULL };

		mnl_attr_parse_nested(grp, group_attr, g);
		if (g[0] && g[1] &&
		    !strcmp(mnl_attr_get_str(g[0]), PKTDEDUP_MCGRP_EVENTS))
			r->events = mnl_attr_get_u32(g[1]);
	}
	return MNL_CB_OK;
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr, data);
}

/* One request in flight: what to do with replies, what the error was. */
struct talk {
	struct nl *n;
	const struct nlmsghdr *req;
	mnl_cb_t msg_cb;
	void *msg_data;
	int error;
};

struct ext {
	const char *msg;
	uint32_t offs;
	bool has_offs;
	uint32_t miss;
	bool has_miss;
	uint32_t miss_nest;		/* offset of the nest it is missing from */
};

static int ext_attr(const struct nlattr *a, void *data)
{
	struct ext *e = data;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) >= 0)
			e->msg = mnl_attr_get_str(a);
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
			e->offs = mnl_attr_get_u32(a);
			e->has_offs = true;
		}
		break;
	case NLMSGERR_ATTR_MISS_NEST:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			e->miss_nest = mnl_attr_get_u32(a);
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) >= 0) {
			e->miss = mnl_attr_get_u32(a);
			e->has_miss = true;
		}
		break;
	}
	return MNL_CB_OK;
}

static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct talk *t = data;
	struct ext e = { 0 };
	unsigned int off = sizeof(*err);
	char *p = t->n->err;
	size_t room = sizeof(t->n->err);
	int w;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err)))
		return MNL_CB_ERROR;
	if (!err->error)
		return MNL_CB_STOP;	/* the ACK */
	t->error = err->error;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (nlh->nlmsg_flags & NLM_F_ACK_TLVS)
		mnl_attr_parse(nlh, off, ext_attr, &e);
	p[0] = '\0';
	/* name the attribute the kernel points at */
	if (e.has_offs && e.offs >= sizeof(struct nlmsghdr) &&
	    e.offs + sizeof(struct nlattr) <= t->req->nlmsg_len) {
		char path[128];

		attr_path(t->req, e.offs, path, sizeof(path));
		/* a named device: by its name, as set takes it */
		if (!strcmp(path, "config.devs.name"))
			snprintf(path, sizeof(path), "dev %.15s",
				 (const char *)mnl_attr_get_payload(
					(const struct nlattr *)((const char *)t->req +
								e.offs)));
		if (path[0]) {
			w = snprintf(p, room, "%s: ", path);
			p += w;
			room -= (size_t)w;
		}
	}
	if (e.has_miss)
		snprintf(p, room, "missing %s",
			 missing_name(t->req, e.miss_nest, e.miss));
	else
		snprintf(p, room, "%s", e.msg ? e.msg : strerror(-err->error));
	return MNL_CB_STOP;
}

/* The end of a dump; it carries the dump's error, if any. */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;
	const int *err = mnl_nlmsg_get_payload(nlh);

	if (nlh->nlmsg_len >= mnl_nlmsg_size(sizeof(*err)) && *err < 0) {
		t->error = *err;
		snprintf(t->n->err, sizeof(t->n->err), "%s", strerror(-*err));
	}
	return MNL_CB_STOP;
}

struct reply {
	nl_reply_cb cb;
	nl_reply_cb entry_cb;
	void *data;
};

static int reply_msg(const struct nlmsghdr *nlh, void *data)
{
	struct reply *r = data;
	const struct nlattr *tb[PKTDEDUP_A_MAX + 1];
	const struct nlattr *a;

	if (!r->cb || nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return MNL_CB_OK;
	parse_attrs(mnl_nlmsg_get_payload_offset(nlh, GENL_HDRLEN),
		    nlh->nlmsg_len - MNL_NLMSG_HDRLEN - GENL_HDRLEN,
		    &nls_pktdedup, tb);
	if (r->cb(tb, r->data) != MNL_CB_OK)
		return MNL_CB_ERROR;
	if (!r->entry_cb)
		return MNL_CB_OK;
	mnl_attr_for_each(a, nlh, GENL_HDRLEN) {
		const struct nlattr *etb[PKTDEDUP_A_ENTRY_MAX + 1];

		if (mnl_attr_get_type(a) != PKTDEDUP_A_ENTRY)
			continue;
		nl_nest(a, &nls_entry, etb);
		if (r->entry_cb(etb, r->data) != MNL_CB_OK)
			return MNL_CB_ERROR;
	}
	return MNL_CB_OK;
}

static int talk_msg(const struct nlmsghdr *nlh, void *data)
{
	struct talk *t = data;

	return t->msg_cb(nlh, t->msg_data);
}

/* Send req; run msg_cb on each reply until the ACK, DONE or an error. */
static int run(struct nl *n, const struct nlmsghdr *req, mnl_cb_t msg_cb,
	       void *msg_data)
{
	static char rbuf[65536];	/* more than a dump part */
	struct talk t = { .n = n, .req = req, .msg_cb = msg_cb,
			  .msg_data = msg_data };
	/* with this array libmnl consults nothing else for control messages */
	mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb, [NLMSG_DONE] = done_cb,
	};
	unsigned int portid = mnl_socket_get_portid(n->sock);
	ssize_t len;
	int r;

	n->err[0] = '\0';
	if (mnl_socket_sendto(n->sock, req, req->nlmsg_len) < 0) {
		snprintf(n->err, sizeof(n->err), "send: %s", strerror(errno));
		return -errno;
	}
	do {
		len = mnl_socket_recvfrom(n->sock, rbuf, sizeof(rbuf));
		if (len < 0) {
			snprintf(n->err, sizeof(n->err), "receive: %s",
				 strerror(errno));
			return -errno;
		}
		r = mnl_cb_run2(rbuf, (size_t)len, req->nlmsg_seq, portid,
				talk_msg, &t, ctl, NLMSG_MIN_TYPE);
	} while (r > 0);
	if (t.error)
		return t.error;
	if (r < 0) {
		snprintf(n->err, sizeof(n->err), "%s", strerror(errno));
		return -errno;
	}
	return 0;
}

int nl_talk(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb, void *data)
{
	struct reply r = { .cb = cb, .data = data };

	return run(n, req, reply_msg, &r);
}

int nl_talk_entries(struct nl *n, struct nlmsghdr *req, nl_reply_cb cb,
		    nl_reply_cb entry_cb, void *data)
{
	struct reply r = { .cb = cb, .entry_cb = entry_cb, .data = data };

	return run(n, req, reply_msg, &r);
}

/* Whether nlh is the controller's news that family id went away. */
static bool family_gone(const struct nlmsghdr *nlh, uint16_t id)
{
	const struct genlmsghdr *g;
	struct resolve r = { 0 };

	if (nlh->nlmsg_type != GENL_ID_CTRL ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + GENL_HDRLEN)
		return false;
	g = mnl_nlmsg_get_payload(nlh);
	if (g->cmd != CTRL_CMD_DELFAMILY)
		return false;
	family_cb(nlh, &r);
	return r.id == id;
}

struct listen {
	struct reply r;
	uint16_t family;
	bool gone;
};

static int listen_msg(const struct nlmsghdr *nlh, void *data)
{
	struct listen *l = data;

	if (family_gone(nlh, l->family)) {
		l->gone = true;
		return MNL_CB_STOP;
	}
	if (nlh->nlmsg_type != l->family)
		return MNL_CB_OK;	/* other news of the controller */
	return reply_msg(nlh, &l->r);
}

static int join(struct nl *n, unsigned int group, const char *what)
{
	if (mnl_socket_setsockopt(n->sock, NETLINK_ADD_MEMBERSHIP, &group,
				  sizeof(group)) < 0) {
		snprintf(n->err, sizeof(n->err), "join the %s group: %s", what,
			 strerror(errno));
		return -errno;
	}
	return 0;
}

#define UNLOADED "the pktdedup module was unloaded"

int nl_listen(struct nl *n, nl_reply_cb cb, void *data)
{
	static char rbuf[65536];
	struct listen l = { .r = { .cb = cb, .data = data },
			    .family = n->family };
	unsigned int group = n->events;
	struct nl again;
	ssize_t len;
	int ret;

	if (!group) {
		snprintf(n->err, sizeof(n->err),
			 "the module has no \"%s\" group", PKTDEDUP_MCGRP_EVENTS);
		return -ENOENT;
	}
	/*
	 * The family's groups go with it, silently for their members: the
	 * controller's "notify" group (its id is GENL_ID_CTRL) tells when.
	 */
	ret = join(n, group, "events");
	if (!ret)
		ret = join(n, GENL_ID_CTRL, "controller's notify");
	if (ret)
		return ret;
	/* unloaded, or unloaded and loaded again, before we joined */
	ret = nl_open(&again);
	if (ret || again.family != n->family)
		ret = -ENOENT;
	nl_close(&again);
	if (ret) {
		snprintf(n->err, sizeof(n->err), UNLOADED);
		return ret;
	}
	for (;;) {
		len = mnl_socket_recvfrom(n->sock, rbuf, sizeof(rbuf));
		if (len < 0 && errno == ENOBUFS) {
			/* our socket overflowed: say so and go on */
			ret = cb(NULL, data);
			if (ret != MNL_CB_OK)
				return 0;
			continue;
		}
		if (len < 0) {
			snprintf(n->err, sizeof(n->err), "receive: %s",
				 strerror(errno));
			return -errno;
		}
		ret = mnl_cb_run(rbuf, (size_t)len, 0, 0, listen_msg, &l);
		if (l.gone) {
			snprintf(n->err, sizeof(n->err), UNLOADED);
			return -ENOENT;
		}
		if (ret <= 0)
			return 0;
	}
}

struct nlmsghdr *nl_request(struct nl *n, uint8_t cmd, bool dump)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(n->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = n->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
	nlh->nlmsg_seq = ++n->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = PKTDEDUP_GENL_VERSION;
	return nlh;
}

int nl_open(struct nl *n)
{
	struct resolve r = { 0 };
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	int one = 1, err;

	memset(n, 0, sizeof(*n));
	n->seq = (uint32_t)time(NULL);
	n->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!n->sock || mnl_socket_bind(n->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		snprintf(n->err, sizeof(n->err), "netlink socket: %s",
			 strerror(errno));
		return -1;
	}
	mnl_socket_setsockopt(n->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(n->sock, NETLINK_CAP_ACK, &one, sizeof(one));

	nlh = mnl_nlmsg_put_header(n->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++n->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, PKTDEDUP_GENL_NAME);
	err = run(n, nlh, family_cb, &r);
	if (err == -ENOENT || (!err && !r.id)) {
		snprintf(n->err, sizeof(n->err),
			 "the pktdedup module is not loaded (no generic netlink family \"%s\")",
			 PKTDEDUP_GENL_NAME);
		return -1;
	}
	if (err)
		return -1;
	n->family = r.id;
	n->events = r.events;
	n->version = r.version;
	return 0;
}

int nl_netns(const char *path, char *err, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || setns(fd, CLONE_NEWNET)) {
		snprintf(err, len, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

void nl_close(struct nl *n)
{
	if (n->sock)
		mnl_socket_close(n->sock);
	n->sock = NULL;
}
