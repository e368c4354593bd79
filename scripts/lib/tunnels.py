# SPDX-License-Identifier: GPL-2.0
"""Tunnelled frames for the tests' captures (tests/cli/test_capture.py, make
compare's eval/compare/compare.py): Ethernet, IPv4, IPv6 and UDP with
their checksums right, and the encapsulations the core's decap looks into
(module/core/decap.h), each built from its specification, not from our
parser: VXLAN (RFC 7348), GENEVE (RFC 8926), GRE (RFC 2784, 2890) and
transparent Ethernet bridging over it, ERSPAN types I, II and III (the
ERSPAN draft, draft-foschiano-erspan), GTP-U (3GPP TS 29.281) with its
extension headers, IPIP (RFC 2003), SIT (RFC 4213) and IPv6 in IPv6
(RFC 2473). The capture suite checks what each builds against tshark's
decoding of it."""
import struct

from packets import csum

ETH_IP, ETH_IPV6, ETH_TEB, ETH_VLAN = 0x0800, 0x86dd, 0x6558, 0x8100
ETH_ERSPAN2, ETH_ERSPAN3, ETH_MPLS = 0x88be, 0x22eb, 0x8847
UDP, GRE, IPIP, IPV6 = 17, 47, 4, 41
VXLAN_PORT, GENEVE_PORT, GTPU_PORT = 4789, 6081, 2152


def eth(ethertype, payload, src=b"\x02\x00\x00\x00\x00\x01",
        dst=b"\x02\x00\x00\x00\x00\x02", tags=()):
    """An Ethernet frame; tags: (TPID, TCI) pairs, outermost first."""
    hdr = dst + src
    for tpid, tci in tags:
        hdr += struct.pack("!HH", tpid, tci)
    return hdr + struct.pack("!H", ethertype) + payload


def ipv4(proto, payload, src=(10, 0, 0, 1), dst=(10, 0, 0, 2), ttl=64,
         ident=1, df=True, tos=0, length=None):
    """An IPv4 packet, its header checksum right; length: the total length
    it says, if not its own (a packet that says it is shorter or longer)."""
    tot = 20 + len(payload) if length is None else length
    h = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, tos, tot, ident,
                              0x4000 if df else 0, ttl, proto, 0, bytes(src),
                              bytes(dst)))
    h[10:12] = struct.pack("!H", csum(h))
    return bytes(h) + payload


def v6addr(last, prefix=b"\xfd\x00"):
    return prefix + bytes(15 - len(prefix)) + bytes([last])


def ipv6(nh, payload, src=v6addr(1), dst=v6addr(2), hlim=64, flow=0,
         length=None):
    plen = len(payload) if length is None else length
    return struct.pack("!IHBB", 0x60000000 | flow, plen, nh, hlim) + \
        bytes(src) + bytes(dst) + payload


def _pseudo(ip_src, ip_dst, proto, n):
    if len(ip_src) == 4:
        return bytes(ip_src) + bytes(ip_dst) + struct.pack("!xBH", proto, n)
    return bytes(ip_src) + bytes(ip_dst) + struct.pack("!IxxxB", n, proto)


def udp(sport, dport, payload, ip_src=None, ip_dst=None, length=None):
    """A UDP datagram; its checksum when the addresses are given (IPv6
    needs one), else 0 (none, as IPv4 allows and VXLAN senders do)."""
    n = 8 + len(payload) if length is None else length
    d = struct.pack("!HHHH", sport, dport, n, 0) + payload
    if ip_src is None:
        return d
    c = csum(_pseudo(ip_src, ip_dst, UDP, len(d)) + d) or 0xffff
    return d[:6] + struct.pack("!H", c) + d[8:]


def ip_udp(sport, dport, payload, v6=False, src=None, dst=None, **kw):
    """UDP in IPv4 or IPv6 from src to dst (the defaults' if None)."""
    if v6:
        src, dst = src or v6addr(1), dst or v6addr(2)
        return ipv6(UDP, udp(sport, dport, payload, src, dst), src, dst, **kw)
    src, dst = src or (10, 0, 0, 1), dst or (10, 0, 0, 2)
    return ipv4(UDP, udp(sport, dport, payload, bytes(src), bytes(dst)), src,
                dst, **kw)


def ethertype_of(ip):
    return ETH_IPV6 if ip[0] >> 4 == 6 else ETH_IP


def vxlan(vni, frame, flags=0x08):
    """The VXLAN header (the I flag: the VNI is valid) and its frame."""
    return struct.pack("!B3xI", flags, vni << 8) + frame


def geneve(vni, proto, payload, opts=b"", version=0, optlen=None):
    """GENEVE: version, options length (4-byte units), protocol, VNI,
    then the options (TLVs: class, type, length)."""
    n = len(opts) // 4 if optlen is None else optlen
    return struct.pack("!BBHI", version << 6 | n, 0, proto, vni << 8) + \
        opts + payload


def geneve_opt(cls, typ, data):
    """One GENEVE option TLV; data a multiple of 4 bytes."""
    return struct.pack("!HBB", cls, typ, len(data) // 4) + data


def gre(proto, payload, key=None, seq=None, checksum=False, flags=0,
        version=0):
    """GRE: checksum (over the GRE header and payload), key and sequence
    number present as asked; flags and version: more bits, set as given
    (routing 0x4000, strict source route 0x0800, recursion 0x0700)."""
    f = flags | version | (0x8000 if checksum else 0) | \
        (0x2000 if key is not None else 0) | (0x1000 if seq is not None else 0)
    opt = b""
    if checksum:
        opt += b"\0\0\0\0"
    if key is not None:
        opt += struct.pack("!I", key)
    if seq is not None:
        opt += struct.pack("!I", seq)
    g = struct.pack("!HH", f, proto) + opt + payload
    if checksum:
        g = g[:4] + struct.pack("!H", csum(g)) + g[6:]
    return g


def erspan1(frame):
    """ERSPAN type I: GRE protocol 0x88be, no sequence number, no header."""
    return gre(ETH_ERSPAN2, frame)


def erspan2(session, frame, seq=1, vlan=0, index=0, version=1):
    """ERSPAN type II: GRE with a sequence number, protocol 0x88be, the
    8-byte header (version 1, VLAN, CoS, encapsulation, truncated, session
    ID; index)."""
    hdr = struct.pack("!HHI", version << 12 | vlan, session & 0x3ff,
                      index & 0xfffff)
    return gre(ETH_ERSPAN2, hdr + frame, seq=seq)


def erspan3(session, frame, seq=1, vlan=0, timestamp=0, subheader=None,
            ft=0, hwid=0, version=2):
    """ERSPAN type III: GRE with a sequence number, protocol 0x22eb, the
    12-byte header (version 2, VLAN, CoS, BSO, T, session ID; timestamp;
    SGT, P, frame type, hardware ID, direction, granularity, O), and the
    8-byte platform-specific subheader when given (O set)."""
    o = 1 if subheader is not None else 0
    hdr = struct.pack("!HHIHH", version << 12 | vlan, session & 0x3ff,
                      timestamp, 0, (ft & 0x1f) << 10 | (hwid & 0x3f) << 4 |
                      o)
    if subheader is not None:
        hdr += subheader
    return gre(ETH_ERSPAN3, hdr + frame, seq=seq)


def erspan3_platform(platf_id=3, port_id=7, timestamp=0):
    """An ERSPAN III platform-specific subheader, platform ID 0x3 (port
    ID and the upper timestamp bits)."""
    return struct.pack("!II", platf_id << 26 | port_id, timestamp)


def gtpu(teid, ip, ext=(), seq=None, msg=0xff, version=1, pt=1):
    """GTP-U (GTPv1): flags, message type (255: G-PDU), length, TEID; with
    a sequence number or extension headers, the 4 optional bytes (sequence
    number, N-PDU number, next extension header type). ext: (type, content)
    pairs; each header's length is in 4-byte units with its length byte and
    next-type byte, content padded to fit."""
    e = 0x04 if ext else 0
    s = 0x02 if seq is not None else 0
    opt = b""
    if e or s:
        opt = struct.pack("!HBB", seq or 0, 0, ext[0][0] if ext else 0)
    for i, (_, content) in enumerate(ext):
        n = (len(content) + 2 + 3) // 4
        content = content + bytes(4 * n - 2 - len(content))
        nxt = ext[i + 1][0] if i + 1 < len(ext) else 0
        opt += bytes([n]) + content + bytes([nxt])
    body = opt + ip
    return struct.pack("!BBHI", version << 5 | pt << 4 | e | s, msg,
                       len(body), teid) + body


# the PDU Session Container (TS 38.415): a UL PDU session information, QFI
PDU_SESSION = 0x85


def pdu_session(qfi=9, pdu_type=1):
    return (PDU_SESSION, bytes([pdu_type << 4, qfi]))


def over_ipv4(proto, payload, src=(192, 0, 2, 1), dst=(192, 0, 2, 2),
              ttl=64, ident=7, **kw):
    """An outer IPv4 packet; a UDP tunnel's payload is given as
    (sport, dport, data), its checksum then computed."""
    if proto == UDP:
        sport, dport, data = payload
        payload = udp(sport, dport, data, bytes(src), bytes(dst))
    return ipv4(proto, payload, src, dst, ttl=ttl, ident=ident, **kw)


def over_ipv6(nh, payload, src=v6addr(1, b"\x20\x01\x0d\xb8"),
              dst=v6addr(2, b"\x20\x01\x0d\xb8"), hlim=64, **kw):
    if nh == UDP:
        sport, dport, data = payload
        payload = udp(sport, dport, data, src, dst)
    return ipv6(nh, payload, src, dst, hlim, **kw)
