#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""An independent reference of the packet key's tail digest (module/core/nh.h).

Written from the construction as nh.h states it, not from nh.c: NH with
64-bit words and 128-bit sums over chunks of 2048 bytes (the last zero-padded
to 16), one chunk giving its value, more giving SipHash-1-3 of the chunks'
values and the length; keys drawn from splitmix64 as pd_nh_key_seed() says.

  nh_ref.py > tests/vectors/nh_vectors.h     (what the tests compare with)
"""
import sys

M64 = (1 << 64) - 1
CHUNK = 2048
WORDS = CHUNK // 8
TWEAK = 0x216c6961742d686e


def splitmix(state):
    state = (state + 0x9e3779b97f4a7c15) & M64
    z = state
    z = ((z ^ (z >> 30)) * 0xbf58476d1ce4e5b9) & M64
    z = ((z ^ (z >> 27)) * 0x94d049bb133111eb) & M64
    return state, z ^ (z >> 31)


def key_seed(seed):
    state = seed ^ TWEAK
    k = []
    for _ in range(WORDS):
        state, v = splitmix(state)
        k.append(v)
    state, s1 = splitmix(state)
    state, s2 = splitmix(state)
    return k, (s1, s2)


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & M64


def sipround(v):
    v0, v1, v2, v3 = v
    v0 = (v0 + v1) & M64; v1 = rotl(v1, 13); v1 ^= v0; v0 = rotl(v0, 32)
    v2 = (v2 + v3) & M64; v3 = rotl(v3, 16); v3 ^= v2
    v0 = (v0 + v3) & M64; v3 = rotl(v3, 21); v3 ^= v0
    v2 = (v2 + v1) & M64; v1 = rotl(v1, 17); v1 ^= v2; v2 = rotl(v2, 32)
    return [v0, v1, v2, v3]


def siphash13(key, data):
    k0, k1 = key
    v = [k0 ^ 0x736f6d6570736575, k1 ^ 0x646f72616e646f6d,
         k0 ^ 0x6c7967656e657261, k1 ^ 0x7465646279746573]
    n = len(data)
    tail = data[n - n % 8:] + bytes(7 - n % 8) + bytes([n & 0xff])
    blocks = data[:n - n % 8] + tail
    for i in range(0, len(blocks), 8):
        m = int.from_bytes(blocks[i:i + 8], 'little')
        v[3] ^= m
        v = sipround(v)
        v[0] ^= m
    v[2] ^= 0xff
    for _ in range(3):
        v = sipround(v)
    return v[0] ^ v[1] ^ v[2] ^ v[3]


def nh_chunk(k, c):
    c = c + bytes(-len(c) % 16)
    s = 0
    for i in range(0, len(c), 16):
        a = int.from_bytes(c[i:i + 8], 'little')
        b = int.from_bytes(c[i + 8:i + 16], 'little')
        j = i // 8
        s += ((a + k[j]) & M64) * ((b + k[j + 1]) & M64)
    return s % (1 << 128)


def tail_words(seed, data):
    k, sk = key_seed(seed)
    if len(data) <= CHUNK:
        v = nh_chunk(k, data)
        return v & M64, v >> 64
    words = b''
    for i in range(0, len(data), CHUNK):
        v = nh_chunk(k, data[i:i + CHUNK])
        words += (v & M64).to_bytes(8, 'little') + (v >> 64).to_bytes(8, 'little')
    words += len(data).to_bytes(8, 'little')
    return siphash13(sk, words), 0


def message(n):
    """Input of length n: bytes (i * 131 + 7) mod 256."""
    return bytes((i * 131 + 7) & 0xff for i in range(n))


LENGTHS = [1, 15, 16, 17, 31, 32, 65, 100, 1024, 1472, 2047, 2048, 2049,
           4095, 4096, 4100, 9000, 65535]
SEEDS = [1, 0x0123456789abcdef]

if __name__ == '__main__':
    assert siphash13((0x0706050403020100, 0x0f0e0d0c0b0a0908), b'') == 0xabac0158050fc4dc
    out = sys.stdout
    out.write('/* SPDX-License-Identifier: GPL-2.0 */\n')
    out.write('/*\n * Known answers of the packet key\'s tail digest (core/nh.h), from\n'
              ' * tests/vectors/nh_ref.py, a reference written from the construction\n'
              ' * as nh.h states it (Python integers, not our C). Input of length n:\n'
              ' * the bytes (i * 131 + 7) mod 256; keys: pd_nh_key_seed(seed).\n'
              ' * Regenerate: tests/vectors/nh_ref.py, its output here.\n */\n')
    out.write('#ifndef PD_NH_VECTORS_H\n#define PD_NH_VECTORS_H\n\n')
    out.write('struct pd_nh_vec {\n\tu64 seed;\n\tu32 len;\n\tu64 w[2];\n};\n\n')
    out.write('static const struct pd_nh_vec pd_nh_vectors[] = {\n')
    for seed in SEEDS:
        for n in LENGTHS:
            w0, w1 = tail_words(seed, message(n))
            out.write('\t{ 0x%xULL, %d, { 0x%016xULL, 0x%016xULL } },\n' % (seed, n, w0, w1))
    out.write('};\n\n#endif /* PD_NH_VECTORS_H */\n')
