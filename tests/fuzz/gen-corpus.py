#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Writes the seed corpora of the fuzz targets (tests/fuzz/corpus/TARGET/).

fuzz_key: two bytes of payload choice (see fuzz_key.c), then an L3 packet,
built like tests/kunit/key_test.c builds its packets. fuzz_args: value
strings. fuzz_dedupctl: dedupctl argument vectors, NUL-separated.
Usage: tests/fuzz/gen-corpus.py (from anywhere; rewrites the seeds).
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SRC4, DST4 = bytes([10, 0, 0, 1]), bytes([192, 0, 2, 7])
SRC6 = bytes([0x20, 0x01, 0x0d, 0xb8] + [0] * 11 + [1])
DST6 = bytes([0x20, 0x01, 0x0d, 0xb8, 0xff] + [0] * 10 + [2])


def ip4(proto, body, ihl=5, frag=0, tos=0, tot=None):
    opts = bytes(ihl * 4 - 20)
    tot = 20 + len(opts) + len(body) if tot is None else tot
    return struct.pack('!BBHHHBBH4s4s', 0x40 | ihl, tos, tot, 0x1234, frag,
                       64, proto, 0xbeef, SRC4, DST4) + opts + body


def ip6(nh, body, tclass=0, plen=None):
    plen = len(body) if plen is None else plen
    return struct.pack('!IHBB16s16s', 0x60000000 | tclass << 20 | 0xabcd,
                       plen, nh, 64, SRC6, DST6) + body


def tcp(sport=1234, dport=80, doff=5, data=b'hello'):
    h = struct.pack('!HHIIBBHHH', sport, dport, 1, 0, doff << 4, 0x18,
                    512, 0, 0)
    return h + bytes(max(0, doff * 4 - 20)) + data


def udp(sport=5353, dport=53, data=b'query'):
    return struct.pack('!HHHH', sport, dport, 8 + len(data), 0) + data


def icmp(typ, ident=0x77, data=b'ping'):
    return struct.pack('!BBHHH', typ, 0, 0, ident, 1) + data


def ext(nh, hdrlen=0):
    return bytes([nh, hdrlen]) + bytes(6 + hdrlen * 8)


def frag6(nh, off=0, more=1):
    return struct.pack('!BBHI', nh, 0, off << 3 | more, 0xcafe)


def ah(nh):
    return bytes([nh, 4]) + bytes(22)	# (4 + 2) * 4 bytes


def eth(etype, body):
    return bytes(12) + struct.pack('!H', etype) + body


def vxlan(body, vni=100):
    return udp(49152, 4789, struct.pack('!B3xI', 0x08, vni << 8) + body)


def gre(proto, body, flags=0, opt=b''):
    return struct.pack('!HH', flags, proto) + opt + body


INNER = ip4(6, tcp())
FRAME = eth(0x0800, INNER)
PAY = b'\x02\x0a'	# 60 payload bytes
packets = {
    'v4-tcp': ip4(6, tcp()),
    'v4-tcp-opts': ip4(6, tcp(doff=8), ihl=7),
    'v4-udp': ip4(17, udp()),
    'v4-icmp-echo': ip4(1, icmp(8)),
    'v4-icmp-unreach': ip4(1, icmp(3)),
    'v4-sctp': ip4(132, bytes(range(16))),
    'v4-dccp': ip4(33, bytes(range(16))),
    'v4-udplite': ip4(136, udp()),
    'v4-gre': ip4(47, bytes(8)),
    'v4-frag-first': ip4(17, udp(data=b'x' * 40), frag=0x2000),
    'v4-frag-later': ip4(17, b'y' * 24, frag=0x0005),
    'v4-tos': ip4(6, tcp(), tos=0xb8),
    'v4-short-tot': ip4(6, tcp(), tot=30),
    'v4-trunc-tcp': ip4(6, tcp())[:30],
    'v4-bad-doff': ip4(6, tcp(doff=2)),
    'v4-payload-long': ip4(17, udp(data=bytes(range(256)) * 6)),
    'v6-tcp': ip6(6, tcp()),
    'v6-udp': ip6(17, udp()),
    'v6-icmp-echo': ip6(58, icmp(128)),
    'v6-icmp-reply': ip6(58, icmp(129)),
    'v6-icmp-other': ip6(58, icmp(1)),
    'v6-hbh-tcp': ip6(0, ext(6) + tcp()),
    'v6-rt-dst-udp': ip6(43, ext(60, 1) + ext(17) + udp()),
    'v6-frag-first': ip6(44, frag6(17) + udp()),
    'v6-frag-later': ip6(44, frag6(17, off=10, more=0) + b'z' * 16),
    'v6-ah-tcp': ip6(51, ah(6) + tcp()),
    'v6-mh': ip6(135, ext(59)),
    'v6-ext-limit': ip6(0, b''.join(ext(60) for _ in range(8)) + ext(6) + tcp()),
    'v6-jumbo': ip6(17, udp(data=b'j' * 100), plen=0),
    'v6-tclass': ip6(6, tcp(), tclass=0xb8),
    'v6-trunc-ext': ip6(60, ext(6, 4))[:50],
    'v6-plen-short': ip6(17, udp(), plen=4),
    'v5-bad-version': b'\x50' + bytes(39),
    # tunnels (decap): what decap.h looks into
    'tun-vxlan': ip4(17, vxlan(FRAME)),
    'tun-vxlan-v6': ip6(17, vxlan(eth(0x86dd, ip6(17, udp())))),
    'tun-geneve': ip4(17, udp(1, 6081, struct.pack('!BBHI', 2, 0, 0x6558,
                                                    7 << 8) +
                              struct.pack('!HBB', 0x0102, 0x80, 1) +
                              bytes(4) + FRAME)),
    'tun-gre-key-seq-csum': ip4(47, gre(0x0800, INNER, 0xb000, bytes(12))),
    'tun-gretap': ip4(47, gre(0x6558, FRAME, 0x2000, bytes(4))),
    'tun-gre-mpls': ip4(47, gre(0x8847, struct.pack('!I', 16 << 12 | 0x1ff) +
                                INNER)),
    'tun-erspan2': ip4(47, gre(0x88be, struct.pack('!HHI', 0x1000, 33, 0) +
                               FRAME, 0x1000, bytes(4))),
    'tun-erspan3-sub': ip4(47, gre(0x22eb, struct.pack(
        '!HHIHH', 0x2000, 34, 0, 0, 1) + bytes(8) + FRAME, 0x1000,
        bytes(4))),
    'tun-gtpu-ext': ip4(17, udp(2152, 2152, struct.pack(
        '!BBHIHBB', 0x34, 0xff, 8 + len(INNER), 0x1234, 0, 0, 0x85) +
        bytes([1, 0x10, 9, 0]) + INNER)),
    'tun-ipip': ip4(4, INNER),
    'tun-sit': ip4(41, ip6(6, tcp())),
    'tun-vxlan-in-gre': ip4(47, gre(0x0800, ip4(17, vxlan(FRAME)))),
    'empty': b'',
}


# more tunnels: type I ERSPAN, IP in IPv6 nested, a GTP-U echo (not a user
# packet), ARP in VXLAN (not IP); and every tunnel cut by a snaplen
packets.update({
    'tun-erspan1': ip4(47, gre(0x88be, FRAME)),
    'tun-ip6ip6-nested': ip6(41, ip6(4, ip4(47, gre(0x0800, INNER)))),
    'tun-gtpu-echo': ip4(17, udp(40000, 2152, b'\x32\x01\0\x04' + bytes(8))),
    'tun-vxlan-arp': ip4(17, vxlan(eth(0x0806, bytes(28)))),
})
for name in [n for n in packets if n.startswith('tun-')]:
    packets[name + '-cut'] = packets[name][:len(packets[name]) * 2 // 3]

args = [
    '0', '1', '42', '0x10', '0777', '18446744073709551615',
    '18446744073709551616', '256K', '4M', '1G', '64KiB', '1MB', '1.5',
    '-1', '1e-3', '0.01', '.5', '1%', '0.5%', '99.9%', '1e2%', 'inf', 'nan',
    '2ms', '500us', '1.5s', '10ns', '2min', '1h', '10s', '1.5us', '1.5ns',
    '0s', '100000p', '2147483648p', '0p', '1M', '2.5k', '500000', '4G',
    '30m', '5', '0.0000001', '1e-9', '1E+0%', '5.', '00.001',
]

plans = [
    'plan mem 256K',
    'plan filter sbf mem 1M fps 0.01',
    'plan filter sbf mem 4M max 7 k 4 p auto',
    'plan filter rsbf mem 1M p-star 0.1%',
    'plan filter bsbf mem 256K k 3',
    'plan filter bsbfsd mem 1M fps 1%',
    'plan filter rlbsbf mem 1M gap 100000',
    'plan filter ibf-2c mem 1M importance dscp',
    'plan filter ibf-mc mem 1M importance mark 0xff gap 5000',
    'plan filter sliding window 2ms rate 1M',
    'plan filter sliding window 100000p',
    'plan filter jumping window 10ms rate 2M subwindows 8',
    'plan filter jumping window 1s mem 1M warn-below 25%',
    'plan landmark 10s mem 1M',
    'plan filter landmark window 1s rate 0 mem 64K',
    'plan window 500us rate 10M fps 0.001',
    '-j plan filter sbf mem 1M',
    '-j plan filter sliding window 2ms rate 1M',
    'plan filter sbf',
    'plan filter nosuch mem 1M',
    'set key flow',
    'set key packet payload 128 ignore-tos on',
    'set action mark mark 0x10/0xff',
    'set scope shared hook input priority -300',
    'set filter sbf mem 1M fps 0.01 max 3 k 2',
    'set filter rsbf mem 512K p-star 0.5%',
    'set filter ibf-2c importance mark 0x3',
    'set filter sliding window 2ms rate 1M',
    'set landmark 10s mem 1M',
    'set fps 0.02 gap 300',
    'set window 100000p subwindows 4',
    'query flow tcp 10.0.0.1 1234 192.0.2.7 80',
    'query packet-hex 4500001c000000004001000000000000000000000000000000',
    'sources window 10s subwindows 8 new on',
    'top 5 window 2s',
    'rare support 0.001 window 1s limit 3',
    'distinct window 5s',
    'stats percpu',
    'stats -w 1 count 3',
    'stats percpu -o prometheus',
    '-o prometheus distinct window 10s',
    'sources -o json',
    'help',
    'set seed 0x2a key flow scope shared',
    'set seed 18446744073709551615 seed random',
    'set decap vxlan,gre tunnel-id include vxlan-port 4790 ignore-tos on',
    'set decap all geneve-port 6082 gtpu-port 2153 tunnel-id ignore',
    'set decap none decap erspan,ip,gtpu ignore-tos off tunnel-id include',
]

# fuzz_dedupctl: "batch\0" and the lines of a file for dedupctl -f
batches = [
    '# saved\nset key flow payload 32 ignore-tos on action mark mark 0x10/0xff'
    ' scope shared hook input priority -100 filter jumping mem 256K fps 0.001'
    ' window 2ms rate 100000 subwindows 15 warn-below 20 state active\n'
    'sources on window 20s subwindows 10 counters 64 new on new-mem 128K'
    ' new-gap 500 event-rate 100 ring 256\n',
    'set key src\n\n  # comment\nset key pair # trailing\nenable\ndisable\n',
    'set landmark 10s\nset filter ibf-mc importance mark 0x7\nsources off\n',
    'set key flow\nstats\n',
    'sources counters 128\nsources on new on\nsources off window 10s\n',
    'set fps 2\n',
    'set seed 12345 state idle\nset seed random\nset seed 0xffff\n',
    'set decap vxlan,geneve tunnel-id include\nset vxlan-port 8472\n'
    'set ignore-tos on decap gre,erspan gtpu-port 2153\nset decap none\n',
]


def write(target, name, data):
    d = os.path.join(HERE, 'corpus', target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)


for name, p in packets.items():
    write('fuzz_key', name, PAY + p)
write('fuzz_key', 'v4-tcp-payload0', b'\x00\x00' + packets['v4-tcp'])
write('fuzz_key', 'v4-tcp-payload-max', b'\x03\xfa' + packets['v4-payload-long'])
write('fuzz_key', 'v4-payload-all', b'\x04\x00' + packets['v4-payload-long'])
for i, a in enumerate(args):
    write('fuzz_args', 'a%02d' % i, a.encode())
for i, a in enumerate(plans):
    write('fuzz_dedupctl', '%02d-%s' % (i, a.split()[0].lstrip('-')),
          '\0'.join(a.split()).encode())
for i, t in enumerate(batches):
    write('fuzz_dedupctl', 'batch-%02d' % i, b'batch\0' + t.encode())
