# SPDX-License-Identifier: GPL-2.0
"""Frames for the tests' captures, shared by the capture suite
(tests/cli/test_capture.py), t_replay's capture (replay-capture.py) and
make compare (compare.py): the Internet checksum, and Debian's text2pcap
fed a hex dump of frames with their times."""
import os
import struct
import subprocess


def csum(data):
    """The Internet checksum of data (RFC 1071: the one's-complement sum
    of its 16-bit words, folded, complemented)."""
    data = bytes(data)
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def text2pcap(frames, out, stamps_us, link=1, fmt="pcap"):
    """Write frames to out through text2pcap (LINKTYPE link, -F fmt), frame
    n at stamps_us(n) microseconds since the epoch. Raises on failure."""
    txt = out + ".txt"
    with open(txt, "w") as f:
        for n, fr in enumerate(frames):
            us = stamps_us(n)
            f.write("%d.%06d\n" % (us // 1000000, us % 1000000))
            for off in range(0, max(len(fr), 1), 16):
                f.write("%06x  %s\n" % (off, " ".join(
                    "%02x" % b for b in fr[off:off + 16])))
            f.write("\n")
    # (-q still prints a line of dashes)
    r = subprocess.run(["text2pcap", "-q", "-F", fmt, "-l", str(link), "-t",
                        "%s.%f", txt, out], capture_output=True, text=True)
    os.unlink(txt)
    if r.returncode:
        raise RuntimeError(f"text2pcap: exit {r.returncode}: {r.stderr.strip()}")
