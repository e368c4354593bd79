/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dedupctl: the tunnel settings of set (decap, tunnel-id, vxlan-port,
 * geneve-port, gtpu-port) as set reads them and as show and save write
 * them. Pure functions of the values, so that tests/native/encap_test.c
 * checks them without a kernel: save's words read back by set's parser
 * give the configuration they were written from.
 */
#ifndef DEDUPCTL_ENCAP_H
#define DEDUPCTL_ENCAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The UDP tunnels, which have a port each: vxlan, geneve, gtpu. */
#define ENCAP_NPORTS 3

struct encap_port {
	const char *setting;		/* "vxlan-port" */
	const char *json;		/* show -j's member: "vxlan_port" */
	uint16_t attr;			/* PKTDEDUP_A_CONFIG_VXLAN_PORT */
	uint32_t flag;			/* PKTDEDUP_DECAP_VXLAN */
	uint16_t dflt;			/* 4789 (IANA) */
};

extern const struct encap_port encap_ports[ENCAP_NPORTS];

/* The tunnel settings of a configuration. */
struct encap_cfg {
	uint32_t decap;			/* PKTDEDUP_DECAP_* */
	bool tunnel_id;			/* PKTDEDUP_KEY_F_TUNNEL_ID */
	uint16_t port[ENCAP_NPORTS];	/* as encap_ports[] */
};

/* Which settings a command line gave: bits of encap_setting()'s *given. */
#define ENCAP_GIVEN_DECAP 0x1u
#define ENCAP_GIVEN_TUNNEL_ID 0x2u
#define ENCAP_GIVEN_PORT(i) (0x4u << (i))

/* The module's defaults: none, tunnel-id ignore, IANA's ports. */
void encap_defaults(struct encap_cfg *c);

/*
 * Setting k of value v into c, its ENCAP_GIVEN_* bit into *given: 1; 0
 * if k is not one of them (nothing changed); -1 if v is bad, with why
 * the message ("decap: 'vxlam' is not one of: ...").
 */
int encap_setting(const char *k, const char *v, struct encap_cfg *c,
		  unsigned int *given, char *why, size_t len);

/*
 * decap as set takes it and show prints it: the names of its flags in
 * flag order, comma-separated ("vxlan,gre"), or "none"; a flag this
 * dedupctl has no name for in hex ("0x40").
 */
const char *encap_list(char *buf, size_t len, uint32_t decap);

/* The name of one decap flag ("vxlan"), or the flag in hex. */
const char *encap_name(char *buf, size_t len, uint32_t flag);

/* save's words: name and value pairs giving all of c (ENCAP_WORDS). */
#define ENCAP_WORDS 10
#define ENCAP_WORD_LEN 64
unsigned int encap_words(const struct encap_cfg *c,
			 char words[ENCAP_WORDS][ENCAP_WORD_LEN]);

/*
 * show's line, after "decap    ": "none", or the list, the ports of the
 * UDP tunnels in it and tunnel-id ("vxlan,gre (vxlan-port 4789),
 * tunnel-id ignore").
 */
const char *encap_show(char *buf, size_t len, const struct encap_cfg *c);

#endif /* DEDUPCTL_ENCAP_H */
