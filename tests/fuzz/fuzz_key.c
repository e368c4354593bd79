// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the core's parser and key extraction (module/core/key.c)
 * on arbitrary bytes as an L3 packet.
 *
 * Input: byte 0 picks the packet-mode payload length (its low bit and the
 * next byte: 0 to PD_KEY_MAX_PAYLOAD and a few past it), then the packet.
 * Every key mode runs with ignore-tos off and on, and every result is
 * checked against what key.h promises; a broken promise traps. The same
 * bytes as a packet cut by a capture's snaplen (pd_parse_cut), as a
 * packet whose tunnels are looked into (decap all, decap.h), and as a
 * captured frame of each link type (the simulator's linktype.c, and its
 * frame truth, frametruth.c: the compared bytes inside the frame, the
 * same digest for the same frame, its tunnels bounded), and the packet
 * path's one-pass parse and key against the two calls it stands for.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../module/core/decap.h"
#include "../../module/core/key.h"
#include "../../userspace/sim/frametruth.h"
#include "../../userspace/sim/linktype.h"

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size);

/* Within [lo, hi], as an inclusive byte range of the packet (or empty). */
static void check_inside(const u8 *p, size_t n, const u8 *lo, const u8 *hi)
{
	if (!n)
		return;
	CHECK(p >= lo && p + n <= hi);
}

static void check_pkt(const u8 *data, u32 len, const struct pd_pkt *pkt)
{
	CHECK(pkt->data == data);
	CHECK(pkt->family == PD_FAMILY_IPV4 || pkt->family == PD_FAMILY_IPV6);
	CHECK(pkt->addr_len == (pkt->family == PD_FAMILY_IPV4 ? 4 : 16));
	CHECK(pkt->fixed_len == (pkt->family == PD_FAMILY_IPV4 ? 20 : 40));
	CHECK(pkt->len >= pkt->fixed_len && pkt->len <= len);
	CHECK(pkt->l4off >= pkt->fixed_len && pkt->l4off <= pkt->len);
	check_inside(pkt->src, pkt->addr_len, data, data + pkt->fixed_len);
	check_inside(pkt->dst, pkt->addr_len, data, data + pkt->fixed_len);
	CHECK(pkt->dscp < 64);
	if (pkt->family == PD_FAMILY_IPV4)
		CHECK(pkt->l4off == (data[0] & 0x0f) * 4u);
}

static void check_key(const u8 *data, const struct pd_pkt *pkt,
		      const struct pd_key_opts *o, const struct pd_key *key)
{
	u32 alen = pkt->addr_len, tail;
	u8 form;

	CHECK(key->len <= PD_KEY_BUF && key->len >= 1);
	if (o->mode != PKTDEDUP_KEY_PACKET) {
		static const u32 fields[] = {
			[PKTDEDUP_KEY_SRC] = 1, [PKTDEDUP_KEY_DST] = 1,
			[PKTDEDUP_KEY_PAIR] = 2, [PKTDEDUP_KEY_FLOW] = 2,
		};

		/* the addresses, then the family (, protocol, ports) */
		u32 meta = fields[o->mode] * alen;

		CHECK(!key->tail && !key->tail_len);
		CHECK(key->buf[meta] == pkt->family);
		CHECK(key->len == 1 + meta +
		      (o->mode == PKTDEDUP_KEY_FLOW ? 5 : 0));
		CHECK(!memcmp(key->buf, o->mode == PKTDEDUP_KEY_DST ?
			      pkt->dst : pkt->src, alen));
		if (fields[o->mode] == 2)
			CHECK(!memcmp(key->buf + alen, pkt->dst, alen));
		if (o->mode == PKTDEDUP_KEY_FLOW)
			CHECK(key->buf[meta + 1] == pkt->proto);
		return;
	}
	/*
	 * packet mode: the fixed header, then a tail inside the packet, as
	 * it is (direct form, at most PD_KEY_DIRECT bytes) or as its NH
	 * words and length (compressed, form 1 in the TTL / hop limit byte)
	 */
	CHECK(!key->more_len);
	if (key->tail_len || key->len == pkt->fixed_len) {
		CHECK(key->len == pkt->fixed_len);
		CHECK(key->tail == data + pkt->fixed_len);
		tail = key->tail_len;
		CHECK(tail <= PD_KEY_DIRECT);
		form = 0;
	} else {
		CHECK(key->len == ((pkt->fixed_len + 7u) & ~7u) + 24);
		tail = (u32)pd_load_le64(key->buf + key->len - 8);
		CHECK(tail > PD_KEY_DIRECT);
		form = 1;
	}
	CHECK(tail + pkt->fixed_len <= pkt->end);
	/* the options or extension headers are always in it */
	CHECK(tail + pkt->fixed_len >= pkt->l4off);
	/* at most the L4 header (TCP's 60 at most) and payload after them */
	if (o->payload != PKTDEDUP_PAYLOAD_ALL)
		CHECK(tail + pkt->fixed_len <= pkt->l4off + 60 + o->payload);
	else
		CHECK(tail + pkt->fixed_len == pkt->end);
	if (pkt->family == PD_FAMILY_IPV4)
		CHECK(key->buf[8] == form && key->buf[10] == 0 &&
		      key->buf[11] == 0);
	else
		CHECK(key->buf[7] == form);
	if (o->flags & PKTDEDUP_KEY_F_IGNORE_TOS) {
		if (pkt->family == PD_FAMILY_IPV4)
			CHECK(key->buf[1] == 0);
		else
			CHECK((key->buf[0] & 0x0f) == 0 && (key->buf[1] & 0xf0) == 0);
	}
}

/*
 * A key's result rk for mode: only the packet and flow keys may fail;
 * a key made lies in PD_KEY_BUF, its tail within [lo, hi). Whether made.
 */
static bool key_inside(enum pd_parse_result rk, u8 mode,
		       const struct pd_key *key, const u8 *lo, const u8 *hi)
{
	CHECK(rk < PD_PARSE_NRESULTS);
	if (mode != PKTDEDUP_KEY_PACKET && mode != PKTDEDUP_KEY_FLOW)
		CHECK(rk == PD_PARSE_OK);
	if (rk != PD_PARSE_OK)
		return false;
	CHECK(key->len >= 1 && key->len <= PD_KEY_BUF);
	if (key->tail_len)
		CHECK(key->tail >= lo && key->tail + key->tail_len <= hi);
	return true;
}

/* The NH key of every option set: any fixed one (LLVMFuzzerInitialize). */
static struct pd_nh_key fuzz_nh_key;

static const struct pd_nh_key *fuzz_nh(void)
{
	return &fuzz_nh_key;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	pd_nh_key_seed(&fuzz_nh_key, 5);
	return 0;
}

/*
 * As a cut packet: every key stays inside the bytes; what parses whole
 * parses cut, and a key the whole packet has is the cut packet's too.
 */
static void fuzz_cut(const u8 *data, u32 len, u16 payload,
		     enum pd_parse_result whole)
{
	static const struct pd_hkey hk = { { 3, 4 } };
	struct pd_key_opts o = { .payload = payload, .nh = fuzz_nh() };
	struct pd_key key, full;
	enum pd_parse_result r, rk;
	struct pd_pkt pkt;

	/* cut where the bytes the module reads end (pd_key_look), or before */
	r = pd_parse_cut(data, PD_MIN(len, pd_key_look(&o)), &pkt);
	CHECK(r < PD_PARSE_NRESULTS);
	if (whole == PD_PARSE_OK)
		CHECK(r == PD_PARSE_OK);
	if (r != PD_PARSE_OK)
		return;
	CHECK(pkt.len >= pkt.fixed_len && pkt.len <= len);
	CHECK(pkt.l4off <= pkt.len);
	for (o.mode = 0; o.mode < PD_KEY_NMODES; o.mode++) {
		rk = pd_key_from_cut(&pkt, &o, &key);
		if (!key_inside(rk, o.mode, &key, data, data + len))
			continue;
		if (pd_key_extract(data, len, &o, &full) == PD_PARSE_OK)
			CHECK(pd_key_hash64(&key, &hk) ==
			      pd_key_hash64(&full, &hk));
	}
}

/*
 * Every tunnel looked into (decap all), on the bytes the module reads
 * (pd_key_look), whole and cut: what decap.h promises. The innermost
 * packet lies inside them, its IP header at most the decap room in, at
 * most PKTDEDUP_DECAP_DEPTH tunnels deep; a failure names at most one
 * encapsulation and leaves no addresses (not-ip: the one it crossed);
 * without the tunnels' identities the innermost packet's key is the key
 * of its bytes as a bare packet (the copy of a packet seen bare and
 * tunnelled has one key), with them a word longer.
 */
static void fuzz_decap(const u8 *data, u32 len, u16 payload)
{
	static const struct pd_hkey hk = { { 5, 6 } };
	struct pd_key_opts o, bare;
	struct pd_key key, plain;
	enum pd_parse_result r, rk;
	struct pd_pkt pkt;
	u32 look, off;
	int cut;

	memset(&o, 0, sizeof(o));
	pd_decap_defaults(&o);
	o.decap = PD_DECAP_ALL;
	o.payload = payload;
	o.nh = fuzz_nh();
	look = PD_MIN(len, pd_key_look(&o));
	for (cut = 0; cut <= 1; cut++) {
		r = pd_parse_key(data, look, &o, &pkt, cut);
		CHECK(r < PD_PARSE_NRESULTS);
		CHECK(!(pkt.encaps & ~PD_DECAP_ALL));
		CHECK(!(pkt.bad_encap & (pkt.bad_encap - 1)));
		CHECK(!(pkt.bad_encap & ~PD_DECAP_ALL));
		CHECK(pkt.depth <= PKTDEDUP_DECAP_DEPTH);
		if (r == PD_PARSE_NOT_IP)
			CHECK(pkt.encaps && !pkt.bad_encap);
		if (pkt.bad_encap || r == PD_PARSE_NOT_IP)
			CHECK(!pkt.family && r != PD_PARSE_OK);
		if (r != PD_PARSE_OK)
			continue;
		CHECK(!pkt.bad_encap && !pkt.depth == !pkt.encaps);
		CHECK(pkt.data >= data);
		off = (u32)(pkt.data - data);
		CHECK(off <= PKTDEDUP_DECAP_ROOM && off < look);
		CHECK(!pkt.depth == !off);
		CHECK(pkt.len >= pkt.fixed_len && off + pkt.len <= look);
		CHECK(pkt.l4off <= pkt.len);
		if (!pkt.cut)
			check_pkt(pkt.data, pkt.len, &pkt);
		for (o.mode = 0; o.mode < PD_KEY_NMODES; o.mode++) {
			o.flags = 0;
			rk = pd_key_of(&pkt, &o, &key);
			if (!key_inside(rk, o.mode, &key, pkt.data,
					pkt.data + pkt.len))
				continue;
			if (!pkt.cut) {
				bare = o;
				bare.decap = 0;
				CHECK(pd_key_extract(pkt.data, pkt.end, &bare,
						     &plain) == PD_PARSE_OK);
				CHECK(pd_key_hash64(&key, &hk) ==
				      pd_key_hash64(&plain, &hk));
			}
			o.flags = PKTDEDUP_KEY_F_TUNNEL_ID;
			CHECK(pd_key_of(&pkt, &o, &plain) == PD_PARSE_OK);
			CHECK(plain.len == (pkt.encaps ? ((key.len + 7u) & ~7u) + 8 :
					    key.len));
			CHECK(plain.len <= PD_KEY_BUF);
		}
	}
}

/*
 * The packet path's one call (pd_parse_key_open) against the two it stands
 * for (pd_parse_view, then pd_key_open), at views of the whole packet, of
 * the bytes the headers are parsed on and of fewer: the same result, key
 * and pkt; a tail left to the caller closes to the same hash.
 */
static void fuzz_one_pass(const u8 *data, u32 len, u16 payload)
{
	static const struct pd_hkey hk = { { 7, 8 } };
	struct pd_key_opts o = { .payload = payload, .nh = fuzz_nh() };
	const u32 views[] = { len, PD_MIN(len, (u32)PD_KEY_HDR_ROOM),
			      PD_MIN(len, 40u), len / 2 };
	struct pd_key ka, kb;
	struct pd_pkt a, b;
	struct pd_nh na, nb;
	enum pd_parse_result ra, rb;
	unsigned int v;

	for (v = 0; v < PD_ARRAY_SIZE(views); v++) {
		for (o.mode = 0; o.mode < PD_KEY_NMODES; o.mode++) {
			ra = pd_parse_key_open(data, views[v], len, &o, &a,
					       &ka, &na);
			rb = pd_parse_view(data, views[v], len, &o, &b, false);
			if (rb == PD_PARSE_OK)
				rb = pd_key_open(&b, &o, &kb, &nb);
			CHECK(ra == rb);
			if (ra != PD_PARSE_OK)
				continue;
			CHECK(a.data == b.data && a.len == b.len &&
			      a.at == b.at && a.end == b.end &&
			      a.view == b.view && a.family == b.family &&
			      a.proto == b.proto && a.addr_len == b.addr_len &&
			      a.fixed_len == b.fixed_len &&
			      a.l4off == b.l4off && a.src == b.src &&
			      a.dst == b.dst && a.dscp == b.dscp &&
			      a.l4_err == b.l4_err &&
			      a.fragment == b.fragment &&
			      a.later_fragment == b.later_fragment &&
			      a.cut == b.cut && a.encaps == b.encaps &&
			      a.bad_encap == b.bad_encap &&
			      a.depth == b.depth && a.tun_id == b.tun_id);
			CHECK(ka.len == kb.len && ka.tail_len == kb.tail_len &&
			      (!ka.tail_len || ka.tail == kb.tail) &&
			      ka.more_off == kb.more_off &&
			      ka.more_len == kb.more_len &&
			      !memcmp(ka.buf, kb.buf, ka.len));
			if (ka.more_len) {
				CHECK(ka.more_off + ka.more_len <= len);
				pd_nh_update(&na, data + ka.more_off,
					     ka.more_len);
				pd_nh_update(&nb, data + kb.more_off,
					     kb.more_len);
				pd_key_close(&ka, &na);
				pd_key_close(&kb, &nb);
			}
			CHECK(pd_key_hash64(&ka, &hk) == pd_key_hash64(&kb, &hk));
		}
	}
}

/* The frame truth of the frame data[0, len) of link type lt. */
static void check_frame_truth(enum link_type lt, const u8 *data, u32 len)
{
	static const struct ft_ports ports[] = {
		{ 4789, 6081, 2152 },
		{ 4789, 4789, 4789 },	/* one port: the first that fits */
	};
	static u8 out[65536];
	struct ft_frame f, g;
	unsigned int i;

	for (i = 0; i < PD_ARRAY_SIZE(ports); i++) {
		ft_frame(lt, data, len, &ports[i], &f);
		CHECK(f.kind < FT_NKINDS);
		CHECK(f.off <= len && f.len <= len - f.off);
		CHECK(f.tunnels <= FT_MAX_DEPTH);
		CHECK(f.kind == FT_IP ? f.version == 4 || f.version == 6 :
		      !f.version);
		CHECK(!f.cut || f.kind == FT_IP);
		CHECK(ft_bytes(data, &f, out, sizeof(out)) == f.len);
		ft_frame(lt, data, len, &ports[i], &g);
		CHECK(g.digest[0] == f.digest[0] && g.digest[1] == f.digest[1]);
		if (lt == LINK_UNKNOWN)
			CHECK(f.kind == FT_RAW && f.off == 0 && f.len == len);
	}
}

/* As a captured frame: an IP header found is inside the frame. */
static void fuzz_link(const u8 *data, u32 len)
{
	struct l2_info l2;
	int lt;

	for (lt = 0; lt < LINK_NTYPES; lt++) {
		enum l2_result r = l2_parse((enum link_type)lt, data, len, &l2);

		CHECK(r < L2_NRESULTS);
		if (r == L2_IP)
			CHECK(l2.l3off < len);
		if (lt == LINK_UNKNOWN)
			CHECK(r == L2_UNKNOWN_LINK);
		check_frame_truth((enum link_type)lt, data, len);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *in, size_t size)
{
	static const struct pd_hkey hk = { { 1, 2 } };
	struct pd_key_opts o = { .nh = fuzz_nh() };
	struct pd_key key, again;
	enum pd_parse_result r, rk;
	struct pd_pkt pkt, wpkt;
	u8 *data;
	u32 len;
	u16 payload;

	if (size < 2)
		return 0;
	payload = (u16)(((in[0] & 1) << 8 | in[1]) * 6);	/* 0..3066 */
	if (in[0] & 2)
		payload = (u16)(payload % (PD_KEY_MAX_PAYLOAD + 1));
	if (in[0] & 4)
		payload = PKTDEDUP_PAYLOAD_ALL;	/* the default: every byte */
	in += 2;
	size -= 2;
	if (size > 0x20000)
		return 0;
	len = (u32)size;
	/* a copy of exactly len bytes: ASan sees a read past the end */
	data = malloc(len ? len : 1);
	if (!data)
		return 0;
	memcpy(data, in, len);

	r = pd_parse(data, len, &pkt);
	CHECK(r < PD_PARSE_NRESULTS && pd_parse_result_names[r]);
	/*
	 * A whole IPv6 fixed header parses, whatever follows: the address
	 * keys need nothing else (an extension chain that does not lead to
	 * L4 fails only the packet and flow keys, through pkt.l4_err).
	 */
	if (len >= 40 && data[0] >> 4 == 6)
		CHECK(r == PD_PARSE_OK);
	if (r == PD_PARSE_OK)
		CHECK(pkt.l4_err < PD_PARSE_NRESULTS);
	if (r == PD_PARSE_OK)
		check_pkt(data, len, &pkt);
	for (o.mode = 0; o.mode < PD_KEY_NMODES; o.mode++) {
		for (o.flags = 0; o.flags <= PKTDEDUP_KEY_F_IGNORE_TOS;
		     o.flags += PKTDEDUP_KEY_F_IGNORE_TOS) {
			o.payload = payload;
			/*
			 * the key is of the bytes the module reads
			 * (pd_key_look): the packet parsed on them
			 */
			CHECK(pd_parse(data, PD_MIN(len, pd_key_look(&o)),
				       &wpkt) == r);
			memset(&key, 0xa5, sizeof(key));
			rk = pd_key_extract(data, len, &o, &key);
			CHECK(rk < PD_PARSE_NRESULTS);
			/* a packet the parser refuses has no key */
			if (r != PD_PARSE_OK) {
				CHECK(rk == r);
				continue;
			}
			/* only packet and flow keys read past the IP header */
			if (o.mode != PKTDEDUP_KEY_PACKET &&
			    o.mode != PKTDEDUP_KEY_FLOW)
				CHECK(rk == PD_PARSE_OK);
			if (rk != PD_PARSE_OK)
				continue;
			check_key(data, &wpkt, &o, &key);
			/* the same key from the parsed packet, the same hash */
			memset(&again, 0x5a, sizeof(again));
			CHECK(pd_key_from_pkt(&wpkt, &o, &again) == PD_PARSE_OK);
			CHECK(again.len == key.len &&
			      again.tail_len == key.tail_len &&
			      again.tail == key.tail &&
			      !memcmp(again.buf, key.buf, key.len));
			CHECK(pd_key_hash64(&key, &hk) ==
			      pd_key_hash64(&again, &hk));
		}
	}
	fuzz_cut(data, len, payload, r);
	fuzz_one_pass(data, len, payload);
	fuzz_decap(data, len, payload);
	fuzz_link(data, len);
	free(data);
	return 0;
}
